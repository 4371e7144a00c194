"""The demo: a chat page, a fake model behind `RenderSafeMiddleware`, the audit log, and
a fake attacker server (`attacker.py`) that the prompt-injected reply points at.

    rendersafe demo          # then open http://127.0.0.1:8765

The page POSTs an OpenAI chat request (`/demo/conversation`'s messages) to `/api/chat`,
which streams a reply (OpenAI chat chunks over SSE) through the middleware: it reads
the conversation from the request and judges the reply with it. `/raw/chat` streams the
same reply without it, to show what the client would fetch. `/csp/` is the same page
sent with the Content-Security-Policy header of the demo's policy (`rendersafe.csp`,
through `ContentSecurityPolicyMiddleware`): there even a bypassed reply's images stay
home. `/demo/audit` lists the audit records of a request, `/demo/attacker` what the
attacker server received (decoded) and `/demo/info` its origin, the planted key and the
header. Everything is served locally, and only
to requests whose `Host` is a local name (`HostGuard`: DNS rebinding cannot read the
audit log); the attacker server is as strict about its own port.

Every parameter is checked, and a bad one is a 400 with a short message: `scenario`
one of `SCENARIOS`, `delay` a number of seconds from 0 to `MAX_DELAY` between tokens
(`DEFAULT_DELAY` when absent), `request_id` at most 128 characters, `since` a request
number, a request body at most `MAX_BODY_BYTES`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
from collections import deque
from collections.abc import AsyncIterator, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from ..audit import AuditLog, AuditRecord
from ..content_security import ContentSecurityPolicyMiddleware, csp
from ..middleware import RenderSafeMiddleware
from ..policy import Policy
from .attacker import Attacker
from .guard import LOCAL_HOSTS, HostGuard
from .replies import CONVERSATION, KEY, SCENARIOS, replies, tokens

__all__ = ["DEFAULT_DELAY", "MAX_BODY_BYTES", "MAX_DELAY", "build_demo"]

STATIC = Path(__file__).parent / "static"
# Slow enough to watch rendersafe hold text back and release it; the page can change it.
DEFAULT_DELAY = 0.04
# A reply is ~150 tokens: at most about 12 minutes of one connection, never forever.
MAX_DELAY = 5.0
# The page sends a conversation of a few hundred bytes.
MAX_BODY_BYTES = 1024 * 1024
_MAX_ID_CHARS = 128
_MAX_SEQ_DIGITS = 12


class _BadRequestError(Exception):
    """A parameter the demo does not accept: answered 400 with its message."""


def _chat(attacker: Attacker) -> Route:
    runs = itertools.count(1)

    async def chat(request: Request) -> Response:
        """The fake model: the chosen reply as OpenAI chat chunks, a token every `delay`
        seconds. It reads the request, as a model would, and answers the same whatever
        it says."""
        try:
            scenario = request.query_params.get("scenario", "honest")
            if scenario not in SCENARIOS:
                raise _BadRequestError(f"scenario must be one of {', '.join(SCENARIOS)}")
            delay = _delay(request.query_params.get("delay", str(DEFAULT_DELAY)))
            await _read_body(request)
        except _BadRequestError as exc:
            return PlainTextResponse(f"{exc}\n", status_code=400)
        if attacker.origin is None:
            return PlainTextResponse("the demo's attacker server is not running\n", 503)
        reply = replies(attacker.origin, next(runs))[scenario]
        return StreamingResponse(_chunks(reply, delay), media_type="text/event-stream")

    return Route("/chat", chat, methods=["GET", "POST"])


def _delay(raw: str) -> float:
    """Seconds between tokens: a finite number from 0 to MAX_DELAY."""
    try:
        delay = float(raw) if len(raw) <= 32 else math.nan
    except ValueError:
        delay = math.nan
    if not (math.isfinite(delay) and 0 <= delay <= MAX_DELAY):
        raise _BadRequestError(f"delay must be a number of seconds from 0 to {MAX_DELAY:g}")
    return delay


async def _read_body(request: Request) -> None:
    """Read (and drop) the request body, refusing one past MAX_BODY_BYTES."""
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise _BadRequestError(f"the request body is larger than {MAX_BODY_BYTES} bytes")


async def _chunks(reply: str, delay: float) -> AsyncIterator[str]:
    head = {"id": "chatcmpl-demo", "object": "chat.completion.chunk", "created": 0, "model": "demo"}
    for piece in tokens(reply):
        choice = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
        yield f"data: {json.dumps({**head, 'choices': [choice]})}\n\n"
        await asyncio.sleep(delay)
    done = {"index": 0, "delta": {}, "finish_reason": "stop"}
    yield f"data: {json.dumps({**head, 'choices': [done]})}\n\ndata: [DONE]\n\n"


def build_demo(
    policy: Policy | None = None,
    *,
    hosts: Iterable[str] = LOCAL_HOSTS,
    port: int | None = None,
    attacker: Attacker | None = None,
) -> ASGIApp:
    """The demo app. Its audit records are kept in memory (the last 500).

    It answers only requests whose `Host` header is one of `hosts` with `port` (any
    port when None), and 400 to any other (see `HostGuard`). The attack points at
    `attacker`, which the caller serves (`Attacker.running()`); without one, the app
    starts its own on a free loopback port while it runs (ASGI lifespan).
    """
    hosts = tuple(hosts)
    records: deque[AuditRecord] = deque(maxlen=500)
    log = AuditLog([records.append])
    own = attacker is None
    attacker = attacker or Attacker(hosts=hosts)
    policy = policy or Policy()
    backend = Starlette(routes=[_chat(attacker)])
    protected = RenderSafeMiddleware(backend, policy=policy, audit=log)

    async def audit(request: Request) -> Response:
        await asyncio.to_thread(log.flush)  # the log's writer is a thread
        wanted = request.query_params.get("request_id")
        if wanted is not None and len(wanted) > _MAX_ID_CHARS:
            return PlainTextResponse(f"request_id is longer than {_MAX_ID_CHARS}\n", 400)
        found = [r.model_dump(mode="json") for r in records if r.source.request_id == wanted]
        return JSONResponse(found)

    async def attacker_log(request: Request) -> Response:
        raw = request.query_params.get("since", "0")
        if not (raw.isascii() and raw.isdigit() and len(raw) <= _MAX_SEQ_DIGITS):
            return PlainTextResponse("since must be a request number (0 or more)\n", 400)
        entries = attacker.log.since(int(raw))
        body = {"origin": attacker.origin, "next": attacker.log.next_seq, "requests": entries}
        return JSONResponse(body)

    async def info(request: Request) -> Response:
        body = {"attacker": attacker.origin, "key": KEY, "delay": DEFAULT_DELAY, "csp": csp(policy)}
        return JSONResponse(body)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def conversation(request: Request) -> Response:
        return JSONResponse(CONVERSATION)

    page = Starlette(routes=[Route("/", index)])

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if own:
                serving = attacker.running()
                await asyncio.to_thread(serving.__enter__)
                stack.push_async_callback(asyncio.to_thread, serving.__exit__, None, None, None)
            yield

    app = Starlette(
        routes=[
            Route("/", index),
            Mount("/csp", app=ContentSecurityPolicyMiddleware(page, policy=policy)),
            Route("/demo/audit", audit),
            Route("/demo/attacker", attacker_log),
            Route("/demo/info", info),
            Route("/demo/conversation", conversation),
            Mount("/api", app=protected),
            Mount("/raw", app=backend),
            Mount("/static", app=StaticFiles(directory=STATIC)),
        ],
        lifespan=lifespan,
    )
    return HostGuard(app, hosts=hosts, port=port)
