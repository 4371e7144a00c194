"""A fake model provider for the conversation tests: each endpoint reads its request as
that provider's API does (`stream` in the body), and answers with one fixed reply, in
that provider's documented shape, streamed or whole. What the app received (every ASGI
message) is kept for the tests to compare with what the client sent."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

Events = Iterator[tuple[str | None, Any]]


def pieces(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def sse(events: Events) -> Iterator[bytes]:
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        body = data if isinstance(data, str) else dumps(data)
        yield f"{head}data: {body}\n\n".encode()


def openai_chat(text: str) -> Events:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    for piece in pieces(text):
        choice = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
        yield None, {**head, "choices": [choice]}
    yield None, {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    yield None, "[DONE]"


def openai_responses(text: str) -> Events:
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress"}
    part = {"type": "output_text", "text": text, "annotations": []}
    response = {"id": "resp_2", "object": "response", "status": "in_progress", "output": []}
    yield "response.created", {"type": "response.created", "response": response}
    added = {**item, "content": []}
    yield (
        "response.output_item.added",
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": added,
        },
    )
    yield (
        "response.content_part.added",
        {
            "type": "response.content_part.added",
            **where,
            "part": {**part, "text": ""},
        },
    )
    for piece in pieces(text):
        yield (
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                **where,
                "delta": piece,
            },
        )
    yield "response.output_text.done", {"type": "response.output_text.done", **where, "text": text}
    yield (
        "response.content_part.done",
        {"type": "response.content_part.done", **where, "part": part},
    )
    done = {**item, "status": "completed", "content": [part]}
    yield (
        "response.output_item.done",
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": done,
        },
    )
    completed = {**response, "status": "completed", "output": [done]}
    yield "response.completed", {"type": "response.completed", "response": completed}


def anthropic(text: str) -> Events:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    yield "message_start", {"type": "message_start", "message": message}
    block = {"type": "text", "text": ""}
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    for piece in pieces(text):
        delta = {"type": "text_delta", "text": piece}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}
    yield "message_stop", {"type": "message_stop"}


def ai_sdk(text: str, source: str | None = None) -> Events:
    yield None, {"type": "start", "messageId": "msg-2"}
    yield None, {"type": "text-start", "id": "t1"}
    for piece in pieces(text):
        yield None, {"type": "text-delta", "id": "t1", "delta": piece}
    if source:
        yield None, {"type": "source-url", "sourceId": "s1", "url": source, "title": "source"}
    yield None, {"type": "text-end", "id": "t1"}
    yield None, {"type": "finish"}
    yield None, "[DONE]"


def ollama(text: str, field: str) -> Iterator[bytes]:
    def line(piece: str, done: bool) -> bytes:
        body: dict[str, Any] = {field: piece}
        if field == "message":
            body = {"message": {"role": "assistant", "content": piece}}
        return (dumps({"model": "llama3", **body, "done": done}) + "\n").encode()

    for piece in pieces(text):
        yield line(piece, False)
    yield line("", True)


def whole(kind: str, text: str) -> dict[str, Any]:
    """The reply as the provider's non-streamed JSON body."""
    bodies: dict[str, Callable[[], dict[str, Any]]] = {
        "openai-chat": lambda: {
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        },
        "openai-responses": lambda: {
            "object": "response",
            "status": "completed",
            "output": [
                {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
        },
        "anthropic": lambda: {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
        },
        "ollama-chat": lambda: {
            "model": "llama3",
            "message": {"role": "assistant", "content": text},
            "done": True,
        },
        "ollama-generate": lambda: {"model": "llama3", "response": text, "done": True},
    }
    return bodies[kind]()


STREAMED: dict[str, Callable[[str], Iterator[bytes]]] = {
    "openai-chat": lambda text: sse(openai_chat(text)),
    "openai-responses": lambda text: sse(openai_responses(text)),
    "anthropic": lambda text: sse(anthropic(text)),
    "ai-sdk": lambda text: sse(ai_sdk(text)),
    "ollama-chat": lambda text: ollama(text, "message"),
    "ollama-generate": lambda text: ollama(text, "response"),
}
MEDIA = {"ollama-chat": "application/x-ndjson", "ollama-generate": "application/x-ndjson"}
# Where each provider's API lives, and whether it streams when the body does not say.
PATHS = {
    "/v1/chat/completions": ("openai-chat", False),
    "/v1/responses": ("openai-responses", False),
    "/v1/messages": ("anthropic", False),
    "/api/chat": ("ollama-chat", True),
    "/api/generate": ("ollama-generate", True),
    "/api/ui-chat": ("ai-sdk", True),
}


@dataclass
class Seen:
    """What the app received, per request id."""

    messages: dict[str, list[Message]] = field(default_factory=dict)

    def body(self, request_id: str) -> bytes:
        return b"".join(
            m.get("body", b"") for m in self.messages[request_id] if m["type"] == "http.request"
        )


async def paced(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk
        await asyncio.sleep(0)


def build(reply: str) -> Starlette:
    """The provider: every endpoint answers `reply` (after reading the request)."""

    async def endpoint(request: Request) -> Response:
        kind, streams = PATHS[request.url.path]
        raw = await request.body()
        if request.headers.get("content-encoding") == "gzip":
            raw = gzip.decompress(raw)
        data = json.loads(raw) if raw.strip() else {}
        stream = bool(data.get("stream", streams)) if isinstance(data, dict) else streams
        if not stream and kind != "ai-sdk":
            return JSONResponse(whole(kind, reply))
        media = MEDIA.get(kind, "text/event-stream")
        source = request.query_params.get("source")  # a URL shown beside the reply
        events = sse(ai_sdk(reply, source)) if source else STREAMED[kind](reply)
        return StreamingResponse(paced(events), media_type=media)

    return Starlette(routes=[Route(path, endpoint, methods=["POST"]) for path in PATHS])


def recording(app: ASGIApp, seen: Seen) -> ASGIApp:
    """`app`, keeping every message it receives under the request's x-request-id."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        kept = seen.messages.setdefault(headers.get(b"x-request-id", b"").decode(), [])

        async def keep() -> Message:
            message = await receive()
            kept.append(message)
            return message

        await app(scope, keep, send)

    return wrapped
