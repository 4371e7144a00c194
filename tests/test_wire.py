"""Wire formats, without a server: each example stream, cut anywhere, reads (as a
client reads it) as the one-shot sanitisation of what it carried."""

from __future__ import annotations

import gzip
import json
import sys
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rendersafe import Finding, Sanitizer, sanitize
from rendersafe.errors import FormatError
from rendersafe.wire import Texts, codec_for, format_of
from rendersafe.wire.encoding import inflater_for
from rendersafe.wire.sse import MAX_PENDING
from wire_clients import read

STREAMS_DIR = Path(__file__).parent / "data" / "streams"
sys.path.insert(0, str(STREAMS_DIR))
from replies import ATTACK, BAD_CITATION, GOOD_CITATION, HONEST  # noqa: E402

STREAMS = {
    "openai_chat.sse": "openai-chat",
    "openai_chat_crlf.sse": "openai-chat",
    "openai_responses.sse": "openai-responses",
    "anthropic.sse": "anthropic",
    "ai_sdk.sse": "ai-sdk",
    "plain.sse": "sse-text",
    "ollama_chat.ndjson": "ndjson",
    "ollama_generate.ndjson": "ndjson",
}
SANITIZER = Sanitizer()


def rewrite(
    body: bytes, fmt: str, cuts: Sequence[int] = (), **options: Any
) -> tuple[bytes, list[Finding]]:
    """`body` through the codec for `fmt`, fed in pieces cut at `cuts`."""
    findings: list[Finding] = []
    codec = codec_for(fmt, Texts(SANITIZER, findings.append), **options)
    out, last = b"", 0
    for cut in sorted({c % (len(body) + 1) for c in cuts}):
        out += codec.feed(body[last:cut])
        last = cut
    return out + codec.feed(body[last:]) + codec.close(), findings


def body_of(name: str) -> bytes:
    return (STREAMS_DIR / name).read_bytes()


def family(name: str) -> str:
    return "ndjson" if name.endswith(".ndjson") else "sse"


@pytest.mark.parametrize("name", sorted(STREAMS))
@settings(max_examples=15, deadline=None, derandomize=True)
@given(cuts=st.lists(st.integers(min_value=0, max_value=40_000), max_size=60))
def test_each_text_reads_as_its_one_shot_sanitisation(name: str, cuts: list[int]) -> None:
    body = body_of(name)
    out, _ = rewrite(body, family(name), cuts)
    before, after = read(STREAMS[name], body.decode()), read(STREAMS[name], out.decode())
    assert set(after.texts) == set(before.texts)
    for key, text in before.texts.items():
        assert after.texts[key] == sanitize(text)
    assert all(final == after.texts["msg_1"] for final in after.finals)


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_no_attacker_url_reaches_the_client(name: str) -> None:
    out, findings = rewrite(body_of(name), family(name))
    after = read(STREAMS[name], out.decode())
    assert not [t for t in after.texts.values() if "attacker.example" in t]
    assert not [t for t in after.finals if "attacker.example" in t]
    assert BAD_CITATION not in after.urls
    assert {f.construct for f in findings} >= {"image", "link", "reference_definition"}


@pytest.mark.parametrize("name", ["openai_responses.sse", "anthropic.sse", "ai_sdk.sse"])
def test_citations_judged_as_links(name: str) -> None:
    out, findings = rewrite(body_of(name), "sse")
    after = read(STREAMS[name], out.decode())
    assert GOOD_CITATION in after.urls
    assert BAD_CITATION not in after.urls
    citations = [f for f in findings if f.construct == "citation"]
    assert len(citations) == 1
    assert citations[0].reasons == ("encoded_base64",)


@pytest.mark.parametrize("name", sorted(n for n in STREAMS if family(n) == "sse"))
def test_dialect_found_from_the_first_event(name: str) -> None:
    codec = codec_for("sse", Texts(SANITIZER, lambda f: None))
    codec.feed(body_of(name)[:2000])
    assert codec.dialect == STREAMS[name]  # type: ignore[attr-defined]


def test_tool_input_and_other_events_pass_unchanged() -> None:
    body = body_of("anthropic.sse").decode()
    out = rewrite(body.encode(), "sse")[0].decode()
    tool = next(block for block in body.split("\n\n") if "input_json_delta" in block)
    assert tool in out  # tool input is not rendered: left byte for byte
    for kept in ("event: ping", "event: message_delta", '"stop_reason":"end_turn"'):
        assert kept in out


def test_fields_comments_and_crlf_preserved() -> None:
    out = rewrite(body_of("openai_chat_crlf.sse"), "sse")[0].decode()
    assert ": keep-alive\r\nretry: 1000\r\nid: 7\r\ndata: [DONE]\r\n\r\n" in out
    assert out.endswith("data: [DONE]\r\n\r\n")


def test_tail_flushed_into_finish_chunk_before_done() -> None:
    events = rewrite(body_of("openai_chat.sse"), "sse")[0].decode().split("\n\n")
    finish = [e for e in events if '"finish_reason":"stop"' in e]
    assert len(finish) == 2
    assert any('"content":"' in e for e in finish)  # the held tail went into one
    assert events[-2] == "data: [DONE]"


def test_honest_stream_passes_byte_for_byte() -> None:
    pieces = ["Plain ", "prose, ", "no links.\n\n", "- a list\n", "- of `code`\n"]
    body = (
        "".join(
            f'data: {{"choices":[{{"index":0,"delta":{{"content":{json.dumps(p)}}}}}]}}\n\n'
            for p in pieces
        )
        + ": ping\n\ndata: [DONE]\n\n"
    )
    assert rewrite(body.encode(), "sse")[0] == body.encode()


def test_plain_sse_tail_is_a_last_event() -> None:
    body = b"data: see ![x](https://cdn.example/a.png?q=1\n\n"
    out = rewrite(body, "sse")[0].decode()
    assert read("sse-text", out).texts[0] == sanitize("see ![x](https://cdn.example/a.png?q=1")


@pytest.mark.parametrize(
    "body",
    [
        b'data: {"foo": 1}\n\n',  # JSON no dialect knows
        b'data: {"choices":[]}\n\ndata: not json\n\n',  # a JSON dialect, then text
        b'data: {"choices":[{"index":0,"delta":{"content":7}}]}\n\n',  # content not a string
        b"data: [1, 2]\n\n",
    ],
)
def test_unreadable_events_fail(body: bytes) -> None:
    with pytest.raises(FormatError):
        rewrite(body, "sse")


def test_an_event_that_never_ends_fails() -> None:
    codec = codec_for("sse", Texts(SANITIZER, lambda f: None))
    with pytest.raises(FormatError, match="longer than"):
        codec.feed(b"data: " + b"x" * (MAX_PENDING + 1))


def test_ndjson_tail_goes_into_the_done_line() -> None:
    body = (
        b'{"model":"m","message":{"role":"assistant","content":"a ![x](https://e.example/"},'
        b'"done":false}\n{"model":"m","message":{"role":"assistant","content":""},"done":true}\n'
    )
    lines = rewrite(body, "ndjson")[0].decode().splitlines()
    assert len(lines) == 2
    done = json.loads(lines[1])
    assert done["done"] is True
    assert json.loads(lines[0])["message"]["content"] + done["message"]["content"] == sanitize(
        "a ![x](https://e.example/"
    )


def test_ndjson_cut_short_gets_a_tail_line() -> None:
    body = b'{"model":"m","response":"see ![x](https://e.example/a.png","done":false}\n'
    lines = rewrite(body, "ndjson")[0].decode().splitlines()
    assert "".join(json.loads(line)["response"] for line in lines) == sanitize(
        "see ![x](https://e.example/a.png"
    )


@pytest.mark.parametrize("body", [b"not json\n", b'{"something": "else"}\n', b"[1]\n"])
def test_unreadable_ndjson_fails(body: bytes) -> None:
    with pytest.raises(FormatError):
        rewrite(body, "ndjson")


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("openai_chat.json", lambda d: d["choices"][0]["message"]["content"]),
        ("openai_response.json", lambda d: d["output"][0]["content"][0]["text"]),
        ("anthropic_message.json", lambda d: d["content"][0]["text"]),
        ("ollama_chat.json", lambda d: d["message"]["content"]),
        ("custom.json", lambda d: d["data"]["answer"]),  # no known shape: every string
    ],
)
def test_json_bodies(name: str, field: Callable[[Any], str]) -> None:
    out, _ = rewrite(body_of(name), "json", json_limit=1 << 20)
    data = json.loads(out)
    assert field(data) == sanitize(ATTACK)
    assert BAD_CITATION not in out.decode()
    if name != "custom.json":
        assert GOOD_CITATION in out.decode() or "citations" not in body_of(name).decode()


def test_json_paths_name_the_fields() -> None:
    body = json.dumps({"answer": ATTACK, "raw": ATTACK}).encode()
    out, _ = rewrite(body, "json", json_paths=["answer"], json_limit=1 << 20)
    data = json.loads(out)
    assert data == {"answer": sanitize(ATTACK), "raw": ATTACK}


def test_json_unchanged_bytes_when_honest() -> None:
    body = json.dumps({"choices": [{"message": {"content": HONEST}}]}, indent=3).encode()
    assert rewrite(body, "json", json_limit=1 << 20)[0] == body


@pytest.mark.parametrize("body", [b"{", b'{"a": }', b"\xff\xfe"])
def test_unreadable_json_fails(body: bytes) -> None:
    with pytest.raises(FormatError):
        rewrite(body, "json", json_limit=1 << 20)


def test_json_over_the_limit_fails() -> None:
    with pytest.raises(FormatError, match="over 100 bytes"):
        rewrite(b'{"a": "' + b"x" * 200 + b'"}', "json", json_limit=100)


@given(cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=30))
@settings(max_examples=30, deadline=None, derandomize=True)
def test_text_cut_inside_characters(cuts: list[int]) -> None:
    text = "Grüße ✓ " + ATTACK + " 日本語"
    out, _ = rewrite(text.encode(), "text", cuts)
    assert out.decode() == sanitize(text)


@pytest.mark.parametrize("charset", ["utf-16", "utf-16le", "latin-1", "shift_jis", "nonsense"])
def test_text_in_another_charset_refused(charset: str) -> None:
    # fetch() decodes UTF-8 whatever the charset says: UTF-16 text judged as UTF-16
    # would be rendered as the ASCII it holds.
    with pytest.raises(FormatError, match="only UTF-8"):
        rewrite(b"\xff\xfeH\x00i\x00", "text", charset=charset)


@pytest.mark.parametrize(
    "body",
    [
        b'data: {"choices":[{"delta":{"content":"![x](https://attacker.example/"}}]}\n\n',
        b'0:"Here"\n0:" ![x](https://attacker"\n0:".example/p.png)"\n',  # AI SDK v4
        b'{"message":{"content":"![x](https://attacker.example/p.png)"}}\n',
        b"\xef\xbb\xbf  event: token\ndata: x\n\n",
        b": keep-alive\n\n",
    ],
)
def test_framed_text_refused(body: bytes) -> None:
    with pytest.raises(FormatError, match="framed"):
        rewrite(body, "text", [3, 9])


@pytest.mark.parametrize(
    "text",
    [
        "The line `data: x` starts an event.\n{not JSON at the start of a line}",
        "[The docs](https://docs.python.org/3/) say so.",
        ":tada: Done, at 3:45.",
        "a: first, b: second",
        "Data: the results.",
    ],
)
def test_text_that_only_mentions_framing_passes(text: str) -> None:
    assert rewrite(text.encode(), "text", [1, 2])[0] == text.encode()


def _raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(wbits=-15)
    return packer.compress(data) + packer.flush()


@pytest.mark.parametrize(
    ("coding", "pack"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", _raw_deflate),
    ],
)
def test_inflated_in_pieces(coding: str, pack: Callable[[bytes], bytes]) -> None:
    body = body_of("openai_chat.sse")
    packed = pack(body)
    inflater = inflater_for(coding)
    assert inflater is not None
    out = b"".join(inflater.feed(packed[i : i + 7]) for i in range(0, len(packed), 7))
    assert out + inflater.close() == body


def test_truncated_gzip_fails() -> None:
    inflater = inflater_for("gzip")
    assert inflater is not None
    inflater.feed(gzip.compress(b"hello world" * 100)[:-12])
    with pytest.raises(FormatError, match="cut short"):
        inflater.close()


@pytest.mark.parametrize("coding", ["br", "zstd", "compress"])
def test_other_codings_refused(coding: str) -> None:
    with pytest.raises(FormatError, match="cannot be decoded"):
        inflater_for(coding)


@pytest.mark.parametrize(
    ("content_type", "fmt"),
    [
        ("text/event-stream; charset=utf-8", "sse"),
        ("application/x-ndjson", "ndjson"),
        ("application/json", "json"),
        ("application/vnd.api+json", "json"),
        ("text/markdown; charset=utf-8", "text"),
        ("text/plain", "text"),
        (None, "text"),
        ("text/html", "unsupported"),
        ("application/xml", "unsupported"),
        ("image/png", None),
        ("application/octet-stream", None),
        ("application/pdf", None),
    ],
)
def test_format_of_content_type(content_type: str | None, fmt: str | None) -> None:
    assert format_of(content_type) == fmt


# -- issue 35: sniffing, charsets, codings ------------------------------------------


@pytest.mark.parametrize("name", sorted(STREAMS))
@settings(max_examples=10, deadline=None, derandomize=True)
@given(cuts=st.lists(st.integers(min_value=0, max_value=40_000), max_size=30))
def test_a_sniffed_stream_reads_as_its_own_format(name: str, cuts: list[int]) -> None:
    body = body_of(name)
    sniffed, _ = rewrite(body, "sniff", cuts)
    labelled, _ = rewrite(body, family(name))
    assert sniffed == labelled


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (json.dumps({"choices": [{"message": {"content": ATTACK}}]}).encode(), "json"),
        (json.dumps({"choices": [{"message": {"content": ATTACK}}]}, indent=2).encode(), "json"),
        (f"Plain {ATTACK}\n".encode(), "text"),
        (b"", "text"),
    ],
)
def test_a_sniffed_body_is_read_by_its_first_bytes(body: bytes, expected: str) -> None:
    for cuts in ([], list(range(len(body)))):
        out, findings = rewrite(body, "sniff", cuts)
        assert out == rewrite(body, expected)[0]
        assert "attacker.example" not in out.decode()
        assert bool(findings) == bool(body)


@pytest.mark.parametrize(
    "body", [b"\x89PNG\r\n\x1a\n\x00\x00", b"\xff\xfe" + "data: x\n\n".encode("utf-16-le")]
)
def test_a_sniffed_body_of_no_format_is_refused(body: bytes) -> None:
    with pytest.raises(FormatError):
        rewrite(body, "sniff")


@pytest.mark.parametrize(
    ("coding", "inflates"),
    [
        (["gzip"], True),
        (["identity", "gzip"], True),
        (["identity, GZIP"], True),
        ([], False),
        (["identity"], False),
        (["gzip", "gzip"], None),
        (["gzip, gzip"], None),
        (["gzip, deflate"], None),
        (["gzip", "br"], None),
    ],
)
def test_one_content_coding_or_none(coding: list[str], inflates: bool | None) -> None:
    if inflates is None:
        with pytest.raises(FormatError, match="coded more than once"):
            inflater_for(coding)
    else:
        assert (inflater_for(coding) is not None) == inflates


@pytest.mark.parametrize("charset", ["utf-16", "utf-16-be", "utf-32", "latin-1", "cp1252"])
def test_another_charset_reads_as_utf8(charset: str) -> None:
    from rendersafe.wire.charset import relabelled, transcoder_for  # noqa: PLC0415

    text = f"Caf\u00e9 {ATTACK}\n"
    transcoder = transcoder_for(charset)
    assert transcoder is not None
    encoded = text.encode(charset)
    out = b"".join(transcoder.feed(encoded[i : i + 3]) for i in range(0, len(encoded), 3))
    assert (out + transcoder.close()).decode("utf-8") == text
    assert relabelled(f"text/markdown; charset={charset}; x=1") == (
        "text/markdown; x=1; charset=utf-8"
    )
    assert relabelled(f"text/markdown; charset*={charset}''") == "text/markdown; charset=utf-8"
    for utf8 in (None, "utf-8", "UTF8", "us-ascii", "utf-8-sig"):
        assert transcoder_for(utf8) is None
    for unknown in ("x-no-such", "base64", "rot13"):
        with pytest.raises(FormatError):
            transcoder_for(unknown)
