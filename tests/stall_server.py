"""A uvicorn server for tests/test_stall.py: honest streams and a hostile flood, through
the middleware, with a probe of the event loop's lag. Run as a script: it prints its port.

    /honest?seed=N   an OpenAI chat SSE reply, one 4-character token every 5 ms
    /flood?kind=K&chunks=C   a flood of `[` or `<img src=a ` (64 KiB), in C chunks
    /lag             the largest lag the loop probe saw since the last call (ms), reset
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import sys
import time
from collections.abc import AsyncIterator

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from rendersafe import Policy
from rendersafe.middleware import RenderSafeMiddleware

TOKEN_DELAY = 0.005
# Openers alone; and paragraphs of them, each unit short of the hold limit.
FLOODS = {"bracket": "[", "img": "<img src=a ", "paragraphs": "[" * 700 + "\n\n"}
FLOOD_CHARS = 65_536
_WORDS = [
    "the",
    "model",
    "answers",
    "with",
    "a",
    "list",
    "of",
    "steps",
    "and",
    "a",
    "link",
    "or",
    "two",
    "to",
    "the",
    "docs",
]


def chunk(content: str | None, finish: str | None = None) -> bytes:
    """One Chat Completions chunk as an SSE event."""
    delta = {} if content is None else {"content": content}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {"object": "chat.completion.chunk", "choices": [choice]}
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


def honest_text(seed: int) -> str:
    """A reply of prose paragraphs with a link in each (tokens of an honest model)."""
    rng = random.Random(seed)
    paragraphs = []
    for n in range(6):
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(20, 60)))
        paragraphs.append(f"{words} [docs {n}](https://docs.example/p{n}).")
    return "\n\n".join(paragraphs) + "\n"


async def honest(request: Request) -> StreamingResponse:
    text = honest_text(int(request.query_params.get("seed", "0")))

    async def body() -> AsyncIterator[bytes]:
        for i in range(0, len(text), 4):
            yield chunk(text[i : i + 4])
            await asyncio.sleep(TOKEN_DELAY)
        yield chunk(None, "stop")
        yield b"data: [DONE]\n\n"

    return StreamingResponse(body(), media_type="text/event-stream")


async def flood(request: Request) -> StreamingResponse:
    unit = FLOODS[request.query_params.get("kind", "bracket")]
    text = unit * (FLOOD_CHARS // len(unit))
    pieces = int(request.query_params.get("chunks", "1"))
    size = -(-len(text) // pieces)

    async def body() -> AsyncIterator[bytes]:
        for i in range(0, len(text), size):
            yield chunk(text[i : i + size])
            await asyncio.sleep(0)
        yield chunk(None, "stop")
        yield b"data: [DONE]\n\n"

    return StreamingResponse(body(), media_type="text/event-stream")


class LagProbe:
    """Sleeps 1 ms at a time and keeps each overshoot (ms)."""

    def __init__(self) -> None:
        self.lags: list[float] = []

    async def run(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            self.lags.append((time.perf_counter() - before - 0.001) * 1000)


PROBE = LagProbe()


async def lag(request: Request) -> JSONResponse:
    """The probe's lags since the last call: the largest and the 99th percentile."""
    lags, PROBE.lags = sorted(PROBE.lags) or [0.0], []
    return JSONResponse({"max_ms": lags[-1], "p99_ms": lags[int(len(lags) * 0.99)]})


def build() -> Starlette:
    routes = [Route("/honest", honest), Route("/flood", flood), Route("/lag", lag)]
    app = Starlette(routes=routes)
    app.add_middleware(RenderSafeMiddleware, policy=Policy(), paths=["/honest", "/flood"])
    return app


async def serve(sock: socket.socket) -> None:
    probe = asyncio.ensure_future(PROBE.run())
    config = uvicorn.Config(build(), log_level="warning", access_log=False, lifespan="off")
    try:
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        probe.cancel()


if __name__ == "__main__":
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    sys.exit(asyncio.run(serve(listener)))
