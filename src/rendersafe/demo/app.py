"""The demo: a chat page, a fake model behind `RenderSafeMiddleware`, and the audit log.

    rendersafe demo          # then open http://127.0.0.1:8765

The page POSTs an OpenAI chat request (`/demo/conversation`'s messages) to `/api/chat`,
which streams a reply (OpenAI chat chunks over SSE) through the middleware: it reads
the conversation from the request and judges the reply with it. `/raw/chat` streams the
same reply without it, to show what the client would fetch. `/demo/audit` lists the
audit records of a request. Everything is served locally.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..audit import AuditLog, AuditRecord
from ..middleware import RenderSafeMiddleware
from ..policy import Policy
from .replies import CONVERSATION, REPLIES, tokens

__all__ = ["build_demo"]

STATIC = Path(__file__).parent / "static"


async def chat(request: Request) -> Response:
    """The fake model: the chosen reply as OpenAI chat chunks, a token every few ms. It
    reads the request, as a model would, and answers the same whatever it says."""
    await request.body()
    reply = REPLIES.get(request.query_params.get("scenario", "honest"), REPLIES["honest"])
    delay = float(request.query_params.get("delay", "0.01"))
    return StreamingResponse(_chunks(reply, delay), media_type="text/event-stream")


async def _chunks(reply: str, delay: float) -> AsyncIterator[str]:
    head = {"id": "chatcmpl-demo", "object": "chat.completion.chunk", "created": 0, "model": "demo"}
    for piece in tokens(reply):
        choice = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
        yield f"data: {json.dumps({**head, 'choices': [choice]})}\n\n"
        await asyncio.sleep(delay)
    done = {"index": 0, "delta": {}, "finish_reason": "stop"}
    yield f"data: {json.dumps({**head, 'choices': [done]})}\n\ndata: [DONE]\n\n"


def build_demo(policy: Policy | None = None) -> Starlette:
    """The demo app. Its audit records are kept in memory (the last 500)."""
    records: deque[AuditRecord] = deque(maxlen=500)
    log = AuditLog([records.append])
    backend = Starlette(routes=[Route("/chat", chat, methods=["GET", "POST"])])
    protected = RenderSafeMiddleware(backend, policy=policy or Policy(), audit=log)

    async def audit(request: Request) -> Response:
        await asyncio.to_thread(log.flush)  # the log's writer is a thread
        wanted = request.query_params.get("request_id")
        found = [r.model_dump(mode="json") for r in records if r.source.request_id == wanted]
        return JSONResponse(found)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def conversation(request: Request) -> Response:
        return JSONResponse(CONVERSATION)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/demo/audit", audit),
            Route("/demo/conversation", conversation),
            Mount("/api", app=protected),
            Mount("/raw", app=backend),
            Mount("/static", app=StaticFiles(directory=STATIC)),
        ]
    )
