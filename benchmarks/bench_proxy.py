"""What `rendersafe proxy` adds to a streamed reply: latency and CPU per token, and what
200 concurrent streams with faults leave behind.

    python benchmarks/bench_proxy.py [--streams 20] [--tokens 200] [--rounds 5] [--storm 200]

A fake model server (this file run with `--serve`, a child process) streams OpenAI
Chat Completions chunks of benchmarks/corpus.py's replies, 4 characters a token,
a token every `--pace` ms, at `/v1/chat/completions` and, the same bytes, at `/v1/raw` (a path
the proxy forwards untouched). `rendersafe proxy` runs in front of it as its own
process, and beside it a plain forwarder (this file run with `--forward`: Starlette and
an httpx client under uvicorn's defaults, each upstream chunk streamed back as read),
the yardstick. This process is the load: `--streams` concurrent streams of `--tokens`
tokens, every byte read, in rounds of four kinds, interleaved (`direct` to the server,
`plain` through the forwarder, `raw` and `sanitised` through the proxy), after one
warm-up round each:

* CPU per token = the forwarder's or the proxy's process CPU time (user + sys,
  /proc/<pid>/stat, in clock ticks: give rounds of 10,000 tokens or more) over a round
  / tokens in it, for `plain`, `raw` (forwarding only) and `sanitised`; and the proxy's
  over the forwarder's, round by round (the target: sanitised <= 0.5x);
* a token's latency = when this process read its event minus when the server sent it
  (the event's `id` is the server's clock; the middleware passes every event on, with
  its text held back or not, so each is seen), median and p99 per round; added =
  through the forwarder or the proxy minus direct, median and p99;
* median and range over `--rounds`.

One reply carrying an exfiltration image is fetched first both ways: the image must be
in the direct text and gone through the proxy, so the benchmark cannot measure a no-op.
With `--storm N` (0: none) the fault storm of tests/test_gateway_faults.py runs after
(errors mid-stream, hangs, client disconnects, slow clients) and its leftovers print.
With `--slowloris N` (0: none) N slow clients of tests/slow_clients.py (silent, dribbling
headers or a body, reading nothing) hold connections while N honest streams run, the
proxy's client timeouts at 5 s: the honest streams' latency prints beside a run of N
honest streams alone.

Measured (2026-12-05, 2 cores shared with other jobs, load ~10; uvloop and httptools
installed, so the forwarder ran uvicorn's auto stack, uvloop + httptools, and the proxy
uvloop + its h11 protocol), `--streams 200 --tokens 100 --rounds 3`: CPU per token,
forwarder 76.5 µs (71.0-78.0), proxy raw 48.5 (48.5-55.5), sanitised 68.5 (66.0-94.5);
proxy / forwarder round by round: raw 0.7x (0.6-0.7), sanitised 1.0x (0.8-1.2), the
target 0.5x not met; added latency p99: forwarder 683 ms, raw 337 ms, sanitised 714 ms
(medians 419, 218, 208 ms; the machine, not the proxy, sets most of it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from bench_middleware import ATTACK, CORPUS_CHARS, server_cpu, stream_tokens
from corpus import corpus

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from proxy_process import ProxyProcess  # noqa: E402  (tests/ is on the path from here)
from wire_clients import read  # noqa: E402

KINDS = ("direct", "plain", "raw", "sanitised")
# Hop-by-hop headers, and those httpx sets itself: a plain forwarder drops them.
_HOP = frozenset({"host", "connection", "keep-alive", "transfer-encoding", "content-length"})


def chunk(content: str | None, finish: str | None) -> bytes:
    """One Chat Completions chunk whose `id` is the time it was sent."""
    delta = {} if content is None else {"content": content}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    data = {"id": f"{time.time():.6f}", "object": "chat.completion.chunk", "choices": [choice]}
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


async def events(tokens: list[str], pace: float) -> AsyncIterator[bytes]:
    """A chunk per token, `pace` seconds apart; the finish chunk; `[DONE]`."""
    for token in tokens:
        yield chunk(token, None)
        await asyncio.sleep(pace)
    yield chunk(None, "stop")
    yield b"data: [DONE]\n\n"


def build_app(replies: list[str]) -> Starlette:
    async def completion(request: Request) -> StreamingResponse:
        await request.body()
        start, count = int(request.query_params.get("i", "0")), int(request.query_params["n"])
        tokens = stream_tokens(replies, start, count)
        if request.query_params.get("attack"):
            tokens += [ATTACK[i : i + 4] for i in range(0, len(ATTACK), 4)]
        pace = float(request.query_params.get("pace", "0"))
        return StreamingResponse(events(tokens, pace), media_type="text/event-stream")

    paths = ("/v1/chat/completions", "/v1/raw")
    return Starlette(routes=[Route(p, completion, methods=["POST"]) for p in paths])


def build_forwarder(upstream: str) -> Starlette:
    """A plain Starlette + httpx forwarder, as one writes it: each request sent on to
    `upstream`, its response streamed back chunk by chunk as httpx reads it."""
    client = httpx.AsyncClient(
        base_url=upstream, timeout=60, limits=httpx.Limits(max_connections=None)
    )

    async def forward(request: Request) -> StreamingResponse:
        headers = [(k, v) for k, v in request.headers.items() if k not in _HOP]
        sent = client.build_request(
            request.method,
            request.url.path,
            params=request.query_params,
            headers=headers,
            content=await request.body(),
        )
        response = await client.send(sent, stream=True)
        kept = {k: v for k, v in response.headers.items() if k not in _HOP}
        return StreamingResponse(
            response.aiter_raw(),
            status_code=response.status_code,
            headers=kept,
            background=BackgroundTask(response.aclose),
        )

    return Starlette(routes=[Route("/{path:path}", forward, methods=["GET", "POST"])])


def serve(upstream: str | None = None) -> None:
    """Serve the fake model (or, with `upstream`, the plain forwarder to it) on a free
    port of 127.0.0.1 and print the port on stdout."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(sock.getsockname()[1], flush=True)
    app = build_app(corpus(CORPUS_CHARS)) if upstream is None else build_forwarder(upstream)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


def child(*args: str) -> tuple[subprocess.Popen[str], str]:
    """This file run as a server with `args`, and its URL."""
    process = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, f"http://127.0.0.1:{process.stdout.readline().strip()}"


@dataclass
class Round:
    kind: str
    cpu: float  # the proxy's CPU seconds
    server_cpu: float  # the model server's, for scale: it writes each token once
    lags: list[float]  # each event's time from the server's send to this process


async def _stream(client: httpx.AsyncClient, url: str) -> list[float]:
    lags = []
    async with client.stream("POST", url, json={"stream": True}) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: {"):
                lags.append(time.time() - float(json.loads(line[6:])["id"]))
    return lags


async def _round(client: httpx.AsyncClient, url: str, args: argparse.Namespace) -> list[float]:
    query = f"n={args.tokens}&pace={args.pace / 1000}"
    urls = [f"{url}?i={i * 7}&{query}" for i in range(args.streams)]
    streams = await asyncio.gather(*(_stream(client, u) for u in urls))
    return [lag for lags in streams for lag in lags]


@dataclass
class Servers:
    """Where each kind of round streams from, and whose CPU it costs."""

    upstream: str
    upstream_pid: int
    plain: str
    plain_pid: int
    proxy: ProxyProcess

    def url(self, kind: str) -> str:
        base = {"direct": self.upstream, "plain": self.plain}.get(kind, self.proxy.url)
        return base + ("/v1/raw" if kind == "raw" else "/v1/chat/completions")

    def pid(self, kind: str) -> int:
        return self.plain_pid if kind == "plain" else self.proxy.pid


def _check(upstream: str, proxy: str) -> None:
    body = {"stream": True}
    texts = []
    for base in (upstream, proxy):
        body_text = httpx.post(base + "/v1/chat/completions?n=8&attack=1", json=body).text
        texts.append("".join(read("openai-chat", body_text).texts.values()))
    if ATTACK not in texts[0] or "collector" in texts[1]:
        raise SystemExit(
            "the proxy did not sanitise the attack: the benchmark would measure nothing"
        )


async def _measure(args: argparse.Namespace, servers: Servers) -> list[Round]:
    rounds: list[Round] = []
    limits = httpx.Limits(max_connections=args.streams, max_keepalive_connections=args.streams)
    for number in range(args.rounds + 1):
        turn = number % len(KINDS)
        order = KINDS[turn:] + KINDS[:turn]  # rotate: no kind always first
        for kind in order:
            # New connections each round, for every kind alike: a kept one would sit
            # idle through the other kinds' rounds, past the servers' keep-alive.
            async with httpx.AsyncClient(timeout=60, limits=limits) as client:
                pid = servers.pid(kind)
                cpu, server = server_cpu(pid), server_cpu(servers.upstream_pid)
                lags = await _round(client, servers.url(kind), args)
                spent = server_cpu(pid) - cpu
                own = server_cpu(servers.upstream_pid) - server
            if number:  # round 0 warms up
                rounds.append(Round(kind, spent, own, lags))
    return rounds


def _spread(values: list[float], scale: float, unit: str) -> str:
    low, mid, high = min(values) * scale, statistics.median(values) * scale, max(values) * scale
    return f"{mid:8.1f} {unit}  (range {low:.1f} - {high:.1f})"


def _report(rounds: list[Round], args: argparse.Namespace) -> None:
    tokens = args.streams * args.tokens
    by = {kind: [r for r in rounds if r.kind == kind] for kind in KINDS}
    print(
        f"{args.streams} streams x {args.tokens} tokens, a token every {args.pace:g} ms, "
        f"{args.rounds} rounds of each kind (median, range over rounds)"
    )
    for kind in ("plain", "raw", "sanitised"):
        cpu = [r.cpu / tokens for r in by[kind]]
        who = "forwarder" if kind == "plain" else "proxy"
        print(f"{who} CPU per token, {kind:9}:     {_spread(cpu, 1e6, 'µs')}")
    for kind in ("raw", "sanitised"):
        ratios = [p.cpu / f.cpu for f, p in zip(by["plain"], by[kind], strict=True)]
        print(f"proxy CPU / plain forwarder's, {kind:9}: {_spread(ratios, 1, 'x')}")
    own = [r.server_cpu / tokens for r in by["direct"]]
    print(f"model server CPU per token, for scale: {_spread(own, 1e6, 'µs')}")
    for kind in KINDS:
        lag = [statistics.median(r.lags) for r in by[kind]]
        print(f"a token's latency, median, {kind:9}:   {_spread(lag, 1e3, 'ms')}")
    for kind in KINDS:
        p99 = [statistics.quantiles(r.lags, n=100)[98] for r in by[kind]]
        print(f"a token's latency, p99, {kind:9}:      {_spread(p99, 1e3, 'ms')}")
    for kind in ("plain", "raw", "sanitised"):
        pairs = list(zip(by["direct"], by[kind], strict=True))
        added = [statistics.median(p.lags) - statistics.median(d.lags) for d, p in pairs]
        print(f"added per token, median, {kind:9}:     {_spread(added, 1e3, 'ms')}")
        added = [_p99(p.lags) - _p99(d.lags) for d, p in pairs]
        print(f"added per token, p99, {kind:9}:        {_spread(added, 1e3, 'ms')}")


def _p99(lags: list[float]) -> float:
    return statistics.quantiles(lags, n=100)[98]


def _storm(streams: int) -> None:
    from proxy_upstream import Upstream  # noqa: PLC0415
    from servers import Server  # noqa: PLC0415
    from test_gateway_faults import run_storm  # noqa: PLC0415

    with Server(Upstream(pace=0.01).app) as server:
        # The fake upstream's faults are exceptions: uvicorn would print each one.
        logging.getLogger("uvicorn.error").disabled = True
        port = int(server.url.rsplit(":", 1)[1])
        args = ("--read-timeout", "1", "--max-concurrency", str(streams + 50))
        with ProxyProcess(server.url, *args) as proxy:
            cpu = server_cpu(proxy.pid)
            storm = run_storm(proxy, port, streams)
            spent = server_cpu(proxy.pid) - cpu
    leaked = sum("attacker" in o.body for o in storm.outcomes)
    print(
        f"storm: {streams} streams with faults in {storm.seconds:.1f} s, proxy CPU {spent:.2f} s; "
        f"leaked {leaked}; client sockets left {len(storm.client_sockets)}; upstream sockets "
        f"{len(storm.upstream_sockets)} (idle in the pool); tasks {storm.tasks_before} before, "
        f"{storm.tasks_after} after; in flight {storm.in_flight}"
    )


def _slowloris(count: int) -> None:
    import slow_clients  # noqa: PLC0415
    from proxy_upstream import Upstream  # noqa: PLC0415
    from servers import Server  # noqa: PLC0415

    args = ["--max-concurrency", str(count + count // 4 + 10)]
    args += ["--max-client-connections", str(2 * count), "--header-timeout", "5"]
    args += ["--body-timeout", "5", "--idle-timeout", "5"]
    with Server(Upstream(pace=0.01).app) as server, ProxyProcess(server.url, *args) as proxy:
        alone = asyncio.run(
            slow_clients.run(proxy.url, proxy.port, slow=0, honest_streams=count, limit=60)
        )
        cpu = server_cpu(proxy.pid)
        loaded = asyncio.run(
            slow_clients.run(proxy.url, proxy.port, slow=count, honest_streams=count, limit=60)
        )
        spent = server_cpu(proxy.pid) - cpu
    refused = sum(h.status != 200 for h in loaded.honest)
    leaked = sum("attacker" in h.text for h in loaded.honest)
    print(f"honest alone:      {alone.summary()}")
    print(f"with slow clients: {loaded.summary()}; proxy CPU {spent:.2f} s")
    print(f"honest streams refused {refused}, leaked {leaked}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--forward", metavar="UPSTREAM", help=argparse.SUPPRESS)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pace", type=float, default=5.0, help="ms between tokens")
    parser.add_argument("--storm", type=int, default=200, metavar="N")
    parser.add_argument("--slowloris", type=int, default=200, metavar="N")
    args = parser.parse_args()
    if args.serve or args.forward:
        serve(args.forward)
        return
    server, upstream = child("--serve")
    forwarder, plain = child("--forward", upstream)
    try:
        with ProxyProcess(upstream, "--max-concurrency", str(args.streams + 10)) as proxy:
            _check(upstream, proxy.url)
            servers = Servers(upstream, server.pid, plain, forwarder.pid, proxy)
            rounds = asyncio.run(_measure(args, servers))
        _report(rounds, args)
    finally:
        for process in (forwarder, server):
            process.terminate()
            process.wait(10)
    if args.storm:
        _storm(args.storm)
    if args.slowloris:
        _slowloris(args.slowloris)


if __name__ == "__main__":
    main()
