"""What `RenderSafeMiddleware` costs a server under concurrent streaming load, in one run.

    python benchmarks/bench_middleware.py [--streams 50] [--tokens 200] [--conversation KB]

The script starts a uvicorn server in a child process (this file run with `--serve`)
with one Starlette endpoint that streams an OpenAI Chat Completions SSE reply: the
replies of benchmarks/corpus.py cut into 4-character tokens, one chunk per token,
then a `finish_reason` chunk and `data: [DONE]`. It never sleeps between tokens
(the cost measured is CPU) but yields to the event loop after each, so the streams
interleave. `/plain` serves the app as it is, `/safe` the same app wrapped in
`RenderSafeMiddleware(app, policy=Policy())`.

This process is the load: `--streams` concurrent streaming GETs with httpx, every
byte read. One round is all streams on one path; after a warm-up round of each,
rounds alternate plain / safe (`--repeats` times, default 3) and the minimum of each
is kept. The server's CPU time (user + sys, from /proc/<pid>/stat) is read around each round, so:

* middleware CPU per token = (CPU safe - CPU plain) / tokens in the round
  (target: <= 50 µs);
* throughput ratio = tokens/s of wall time wrapped / unwrapped;
* one core sanitises ~1e6 / (µs per token * 100) streams at 100 tokens/s.

With `--conversation KB`, every request is also sent as a POST whose body is an OpenAI
chat request of about KB kilobytes (a system prompt, a user message holding a token,
then user and assistant turns from the corpus); the endpoint reads it on both paths,
and the middleware reads the conversation from it and judges the reply with it. Those
rounds alternate with the GET rounds, and

* added by the conversation = middleware CPU per token with the body - without it,
  per repeat (its four rounds run back to back), median and range over `--repeats`
  (target: <= 5 µs).

Before timing, one reply that carries an exfiltration image is fetched from both
paths: the image must be in the plain text and gone from the safe one, so the
benchmark cannot silently measure a no-op; with a conversation, a reply whose link
carries the token raw must lose it on /safe, too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from corpus import ATTACKS, corpus
from rendersafe import Policy
from rendersafe.middleware import RenderSafeMiddleware

CORPUS_CHARS = 200_000
TOKEN_CHARS = 4
ATTACK = ATTACKS[0]  # a Markdown image to collector.example carrying a payload
REPEATS = 3
TOKEN = "tk7Qz5521xLm"  # in the conversation's first user message
LEAK = f"\n\nSee [the status page](https://status.example.com/s?t={TOKEN}).\n"


# --- the server (child process) -------------------------------------------------


def stream_tokens(replies: list[str], start: int, count: int) -> list[str]:
    """`count` 4-character tokens of the replies from `start` on, joined as one text."""
    parts: list[str] = []
    length, index = 0, start
    while length < count * TOKEN_CHARS:
        parts.append(replies[index % len(replies)])
        length += len(parts[-1]) + 1
        index += 1
    text = "\n".join(parts)
    return [text[i : i + TOKEN_CHARS] for i in range(0, count * TOKEN_CHARS, TOKEN_CHARS)]


def chunk(content: str | None, finish: str | None) -> bytes:
    """One Chat Completions chunk as an SSE event."""
    delta = {} if content is None else {"content": content}
    data = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


async def events(tokens: list[str]) -> AsyncIterator[bytes]:
    """The SSE body: a chunk per token, the finish chunk, `[DONE]`."""
    for token in tokens:
        yield chunk(token, None)
        await asyncio.sleep(0)
    yield chunk(None, "stop")
    yield b"data: [DONE]\n\n"


def build_app(replies: list[str]) -> ASGIApp:
    """`/plain` unwrapped and `/safe` through the middleware: the same Starlette app."""

    async def completion(request: Request) -> StreamingResponse:
        await request.body()  # a model server reads the request
        start = int(request.query_params.get("i", "0"))
        count = int(request.query_params.get("n", "200"))
        tokens = stream_tokens(replies, start, count)
        if request.query_params.get("leak"):
            tokens += [LEAK[i : i + TOKEN_CHARS] for i in range(0, len(LEAK), TOKEN_CHARS)]
        return StreamingResponse(events(tokens), media_type="text/event-stream")

    methods = ["GET", "POST"]
    routes = [
        Route("/plain", completion, methods=methods),
        Route("/safe", completion, methods=methods),
    ]
    plain = Starlette(routes=routes)
    safe = RenderSafeMiddleware(plain, policy=Policy())

    async def dispatch(scope: Scope, receive: Receive, send: Send) -> None:
        target = safe if scope.get("path") == "/safe" else plain
        await target(scope, receive, send)

    return dispatch


def serve() -> None:
    """Serve on a free port of 127.0.0.1 and print the port on stdout."""
    app = build_app(corpus(CORPUS_CHARS))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


# --- the load (this process) ----------------------------------------------------


@dataclass
class Round:
    """One round's server CPU and wall time, in seconds."""

    cpu: float
    wall: float


def server_cpu(pid: int) -> float:
    """User + system CPU seconds of process `pid`, all threads."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()  # fields from 3 (state) on
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def conversation_request(kilobytes: int) -> bytes:
    """An OpenAI chat request of about `kilobytes` KB: a system prompt, a user message
    holding `TOKEN`, then user and assistant turns from the corpus."""
    messages = [
        {"role": "system", "content": "You are a helpful assistant for Acme's developers."},
        {"role": "user", "content": f"My deploy token is {TOKEN}; why does the build fail?"},
    ]
    honest = [r for r in corpus(CORPUS_CHARS) if "collector.example" not in r]
    size, index = 0, 0
    while size < kilobytes * 1024:
        reply = honest[index % len(honest)]
        asked = {"role": "user", "content": f"Thanks. And what about question {index}?"}
        messages += [{"role": "assistant", "content": reply}, asked]
        size += len(reply) + 40
        index += 1
    return json.dumps({"model": "m", "stream": True, "messages": messages}).encode()


def chat_of(request: bytes, number: int) -> bytes:
    """`request` with one more user message, naming chat `number`."""
    turn = json.dumps({"role": "user", "content": f"This is chat {number}."}).encode()
    return request[: request.rindex(b"]")] + b", " + turn + request[request.rindex(b"]") :]


async def fetch(
    client: httpx.AsyncClient,
    path: str,
    start: int,
    count: int,
    *,
    request: bytes | None = None,
    leak: bool = False,
) -> bytes:
    """Stream one reply (POSTing `request`, if given); every byte is read and returned."""
    body = bytearray()
    params = {"i": str(start), "n": str(count), **({"leak": "1"} if leak else {})}
    method, headers = ("POST", {"content-type": "application/json"}) if request else ("GET", {})
    async with client.stream(
        method, path, params=params, content=request, headers=headers
    ) as response:
        response.raise_for_status()
        async for data in response.aiter_raw():
            body += data
    if not body.endswith(b"data: [DONE]\n\n"):
        raise RuntimeError(f"{path}: the stream did not end with [DONE]: {bytes(body[-200:])!r}")
    return bytes(body)


async def load(
    client: httpx.AsyncClient,
    pid: int,
    path: str,
    streams: int,
    tokens: int,
    *,
    request: bytes | None = None,
) -> Round:
    """All streams at once on `path`; the server's CPU and the wall time they took.
    With a `request`, each stream POSTs its own chat (the request with the stream's
    number appended), as separate users do: no conversation is built only once."""
    bodies = [None if request is None else chat_of(request, i) for i in range(streams)]
    cpu, wall = server_cpu(pid), time.perf_counter()
    await asyncio.gather(
        *(fetch(client, path, i, tokens, request=bodies[i]) for i in range(streams))
    )
    return Round(server_cpu(pid) - cpu, time.perf_counter() - wall)


def content_of(body: bytes) -> str:
    """The reply text of an SSE body: every chunk's `delta.content`, joined."""
    text = []
    for line in body.decode().splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices", []):
                text.append(choice.get("delta", {}).get("content") or "")
    return "".join(text)


async def check_sanitised(client: httpx.AsyncClient) -> None:
    """The attack image streams through /plain and is removed by /safe."""
    replies = corpus(CORPUS_CHARS)
    index = next((i for i, r in enumerate(replies) if ATTACK in r), None)
    if index is None:
        raise RuntimeError(f"no reply in the corpus carries {ATTACK!r}")
    count = math.ceil(len(replies[index]) / TOKEN_CHARS)
    plain = content_of(await fetch(client, "/plain", index, count))
    safe = content_of(await fetch(client, "/safe", index, count))
    if ATTACK not in plain:
        raise RuntimeError("the attack image is missing from the /plain stream")
    if ATTACK in safe or "collector.example" in safe:
        raise RuntimeError("the /safe stream still carries the attack: the middleware is a no-op")


async def check_conversation(client: httpx.AsyncClient, request: bytes) -> None:
    """A link carrying the conversation's token raw streams through /plain, not /safe."""
    plain = content_of(await fetch(client, "/plain", 0, 20, request=request, leak=True))
    safe = content_of(await fetch(client, "/safe", 0, 20, request=request, leak=True))
    if TOKEN not in plain:
        raise RuntimeError("the leak is missing from the /plain stream")
    if TOKEN in safe:
        raise RuntimeError("/safe kept the conversation's token: the conversation was not read")


async def measure(
    port: int, pid: int, streams: int, tokens: int, *, request: bytes | None, repeats: int
) -> dict[str, list[Round]]:
    """Warm up, then `repeats` alternating rounds per path (and body)."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=60, trust_env=False
    ) as client:
        await check_sanitised(client)
        bodies: dict[str, bytes | None] = {"": None}
        if request is not None:
            await check_conversation(client, request)
            bodies["+conversation"] = request
        rounds = {(path, name): list[Round]() for name in bodies for path in ("/plain", "/safe")}
        for repeat in range(repeats + 1):
            for (path, name), done in rounds.items():
                result = await load(client, pid, path, streams, tokens, request=bodies[name])
                if repeat:  # round 0 is the warm-up
                    done.append(result)
    return {path + name: done for (path, name), done in rounds.items()}


def report(rounds: dict[str, list[Round]], streams: int, tokens: int, kilobytes: int) -> None:
    """Print the best rounds and the ratios; for the conversation, the median of the
    per-repeat differences (each repeat's four rounds ran back to back) and their range."""
    best = {
        key: Round(min(r.cpu for r in done), min(r.wall for r in done))
        for key, done in rounds.items()
    }
    plain, safe = best["/plain"], best["/safe"]
    total = streams * tokens
    per_token = (safe.cpu - plain.cpu) / total * 1e6
    print(f"streams: {streams}, tokens per stream: {tokens}, total tokens per round: {total}")
    print(f"server CPU per round: plain {plain.cpu:.3f} s, safe {safe.cpu:.3f} s")
    print(f"wall time per round:  plain {plain.wall:.3f} s, safe {safe.wall:.3f} s")
    print(f"middleware CPU per token: {per_token:.1f} µs (target <= 50)")
    print(f"throughput ratio wrapped / unwrapped: {plain.wall / safe.wall:.2f}")
    streams_per_core = f"{1e6 / (per_token * 100):.0f}" if per_token > 0 else "unbounded"
    print(f"one core sanitises ~{streams_per_core} concurrent streams at 100 tokens/s")
    if "/safe+conversation" not in best:
        return
    plain, safe = best["/plain+conversation"], best["/safe+conversation"]
    with_conversation = (safe.cpu - plain.cpu) / total * 1e6
    print(f"with a {kilobytes} KB conversation in each request (POST):")
    print(f"  server CPU per round: plain {plain.cpu:.3f} s, safe {safe.cpu:.3f} s")
    print(f"  middleware CPU per token: {with_conversation:.1f} µs")
    added = sorted(
        ((sc.cpu - pc.cpu) - (s0.cpu - p0.cpu)) / total * 1e6
        for p0, s0, pc, sc in zip(
            rounds["/plain"],
            rounds["/safe"],
            rounds["/plain+conversation"],
            rounds["/safe+conversation"],
            strict=True,
        )
    )
    print(
        f"  added by the conversation: {statistics.median(added):.1f} µs per token, median of "
        f"{len(added)} repeats (range {added[0]:.1f} to {added[-1]:.1f}; target <= 5)"
    )


def start_server() -> tuple[subprocess.Popen[bytes], int]:
    """This file with `--serve`, and the port it listens on."""
    child = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE)
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line.strip().isdigit():
        child.kill()
        raise RuntimeError(f"the server did not start (it printed {line!r})")
    return child, int(line)


def stop_server(child: subprocess.Popen[Any]) -> None:
    """Terminate the server, killing it if it will not go."""
    child.terminate()
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=50, help="concurrent streams per round")
    parser.add_argument("--tokens", type=int, default=200, help="tokens per stream")
    parser.add_argument(
        "--conversation", type=int, default=0, metavar="KB", help="also POST a KB conversation"
    )
    parser.add_argument("--repeats", type=int, default=REPEATS, help="timed rounds per path")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    request = conversation_request(args.conversation) if args.conversation else None
    child, port = start_server()
    try:
        rounds = asyncio.run(
            measure(
                port, child.pid, args.streams, args.tokens, request=request, repeats=args.repeats
            )
        )
    finally:
        stop_server(child)
    report(rounds, args.streams, args.tokens, args.conversation)


if __name__ == "__main__":
    main()
