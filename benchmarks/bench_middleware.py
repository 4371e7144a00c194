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
rounds alternate plain / safe (`--repeats` pairs, default 9: A B A B ...). The server's
CPU time (`time.process_time()`: user + sys of all its threads, to the nanosecond, read
from its `/cpu` endpoint, which costs both paths the same) is read around each round,
so, per pair:

* middleware CPU per token = (CPU safe - CPU plain) / tokens in the round
  (target: <= 20 µs), printed as the median over the pairs and its range, so a burst of
  load on a shared machine moves one pair, not the figure;
* throughput ratio = tokens/s of wall time wrapped / unwrapped (median);
* one core sanitises ~1e6 / (µs per token * 100) streams at 100 tokens/s.

A loaded machine slows rounds down but does not break them: connections are kept alive
for `KEEP_ALIVE` seconds on both sides (longer than any round), the client waits
`TIMEOUT` seconds, and a stream the transport drops is fetched again, up to `RETRIES`
times; retries are counted and printed (a round with one did more work than it counts).

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
from starlette.responses import PlainTextResponse, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from corpus import ATTACKS, corpus
from rendersafe import Policy
from rendersafe._build import compiled
from rendersafe.middleware import RenderSafeMiddleware

CORPUS_CHARS = 200_000
TOKEN_CHARS = 4
ATTACK = ATTACKS[0]  # a Markdown image to collector.example carrying a payload
REPEATS = 9
KEEP_ALIVE = 600  # seconds an idle connection stays open, server and client
TIMEOUT = 300  # seconds the client waits for a byte
RETRIES = 3  # fetches of one stream the transport dropped
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

    async def cpu(request: Request) -> PlainTextResponse:
        return PlainTextResponse(repr(time.process_time()))

    methods = ["GET", "POST"]
    routes = [
        Route("/plain", completion, methods=methods),
        Route("/safe", completion, methods=methods),
        Route("/cpu", cpu),
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
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_keep_alive=KEEP_ALIVE,
    )
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


# --- the load (this process) ----------------------------------------------------


@dataclass
class Round:
    """One round's server CPU and wall time, in seconds, and the fetches retried."""

    cpu: float
    wall: float
    retries: int = 0


def server_cpu(pid: int) -> float:
    """User + system CPU seconds of process `pid`, all threads, in clock ticks (for
    processes without a `/cpu` endpoint: bench_proxy.py's)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()  # fields from 3 (state) on
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def served_cpu(client: httpx.AsyncClient) -> float:
    """User + system CPU seconds of the server process, all threads, to the nanosecond."""
    response = await client.get("/cpu")
    response.raise_for_status()
    return float(response.text)


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


RETRIED = [0]  # fetches retried so far, in this process


async def fetch(
    client: httpx.AsyncClient,
    path: str,
    start: int,
    count: int,
    *,
    request: bytes | None = None,
    leak: bool = False,
) -> bytes:
    """Stream one reply (POSTing `request`, if given); every byte is read and returned.
    A stream the transport drops (a connection reset or closed under load) is fetched
    again, up to `RETRIES` times, each counted in `RETRIED`."""
    for attempt in range(RETRIES + 1):
        try:
            return await fetch_once(client, path, start, count, request=request, leak=leak)
        except httpx.TransportError:
            if attempt == RETRIES:
                raise
            RETRIED[0] += 1
    raise AssertionError("unreachable")


async def fetch_once(
    client: httpx.AsyncClient,
    path: str,
    start: int,
    count: int,
    *,
    request: bytes | None = None,
    leak: bool = False,
) -> bytes:
    """Stream one reply, once."""
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
    retried = RETRIED[0]
    cpu, wall = await served_cpu(client), time.perf_counter()
    await asyncio.gather(
        *(fetch(client, path, i, tokens, request=bodies[i]) for i in range(streams))
    )
    wall = time.perf_counter() - wall
    return Round(await served_cpu(client) - cpu, wall, RETRIED[0] - retried)


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
    port: int, streams: int, tokens: int, *, request: bytes | None, repeats: int
) -> dict[str, list[Round]]:
    """Warm up, then `repeats` alternating rounds per path (and body)."""
    limits = httpx.Limits(
        max_connections=None, max_keepalive_connections=None, keepalive_expiry=KEEP_ALIVE
    )
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", limits=limits, timeout=TIMEOUT, trust_env=False
    ) as client:
        await check_sanitised(client)
        bodies: dict[str, bytes | None] = {"": None}
        if request is not None:
            await check_conversation(client, request)
            bodies["+conversation"] = request
        rounds = {(path, name): list[Round]() for name in bodies for path in ("/plain", "/safe")}
        for repeat in range(repeats + 1):
            for (path, name), done in rounds.items():
                result = await load(client, path, streams, tokens, request=bodies[name])
                if repeat:  # round 0 is the warm-up
                    done.append(result)
    return {path + name: done for (path, name), done in rounds.items()}


def spread(values: list[float], digits: int = 1) -> str:
    """The median of `values` and their range, as printed."""
    ordered = sorted(values)
    median = statistics.median(ordered)
    return f"{median:.{digits}f} (range {ordered[0]:.{digits}f} to {ordered[-1]:.{digits}f})"


def per_token(plain: list[Round], safe: list[Round], total: int) -> list[float]:
    """Middleware CPU per token in µs, per interleaved pair of rounds."""
    return [(s.cpu - p.cpu) / total * 1e6 for p, s in zip(plain, safe, strict=True)]


def report(rounds: dict[str, list[Round]], streams: int, tokens: int, kilobytes: int) -> None:
    """Print, over the interleaved pairs, the median and range of the server CPU per
    round, of the middleware's CPU per token and of the throughput ratio; for the
    conversation, the per-repeat differences (each repeat's four rounds ran back to back)."""
    plain, safe = rounds["/plain"], rounds["/safe"]
    total = streams * tokens
    micros = per_token(plain, safe, total)
    pairs = len(micros)
    print(f"streams: {streams}, tokens per stream: {tokens}, total tokens per round: {total}")
    print(f"build: {'compiled (mypyc)' if compiled() else 'interpreted'} (the server's too)")
    print(f"interleaved pairs of rounds: {pairs} (medians, with their range)")
    print(
        f"server CPU per round: plain {spread([r.cpu for r in plain], 3)} s, "
        f"safe {spread([r.cpu for r in safe], 3)} s"
    )
    print(
        f"wall time per round:  plain {spread([r.wall for r in plain], 3)} s, "
        f"safe {spread([r.wall for r in safe], 3)} s"
    )
    print(f"middleware CPU per token: {spread(micros)} µs (target <= 20)")
    ratios = [p.wall / s.wall for p, s in zip(plain, safe, strict=True)]
    print(f"throughput ratio wrapped / unwrapped: {spread(ratios, 2)}")
    median = statistics.median(micros)
    streams_per_core = f"{1e6 / (median * 100):.0f}" if median > 0 else "unbounded"
    print(f"one core sanitises ~{streams_per_core} concurrent streams at 100 tokens/s")
    retried = sum(r.retries for done in rounds.values() for r in done)
    print(f"fetches retried: {retried} in the timed rounds, {RETRIED[0]} in all")
    if "/safe+conversation" not in rounds:
        return
    with_conversation = per_token(
        rounds["/plain+conversation"], rounds["/safe+conversation"], total
    )
    print(f"with a {kilobytes} KB conversation in each request (POST):")
    print(f"  middleware CPU per token: {spread(with_conversation)} µs")
    added = [c - m for m, c in zip(micros, with_conversation, strict=True)]
    print(f"  added by the conversation: {spread(added)} µs per token (target <= 5)")


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
            measure(port, args.streams, args.tokens, request=request, repeats=args.repeats)
        )
    finally:
        stop_server(child)
    report(rounds, args.streams, args.tokens, args.conversation)


if __name__ == "__main__":
    main()
