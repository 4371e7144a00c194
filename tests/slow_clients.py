"""Slow clients and honest ones at once, against a proxy: for the test and the benchmark.

Four kinds of slow client, each a raw socket from its own loopback address:

* `silent`: connects and sends nothing;
* `headers`: sends a request line, then a header byte every `pace` seconds;
* `body`: sends whole headers (`Content-Length: 100000`), then a body byte every `pace`;
* `reader`: asks for `/v1/files/big/content` (16 MiB) with a 4 KiB receive buffer, and
  reads none of it.

Each records when the proxy ended its connection (None: it never did, in the time
allowed) and the first bytes it was answered. Honest clients stream chat completions
meanwhile (httpx); each records its status, its text and how long it took.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import time
from dataclasses import dataclass

import httpx

KINDS = ("silent", "headers", "body", "reader")
MESSAGES = [{"role": "user", "content": "What is my key?"}]


@dataclass
class Slow:
    kind: str
    closed_after: float | None  # seconds from connecting to the proxy ending it
    answer: bytes


@dataclass
class Honest:
    status: int
    seconds: float
    text: str


@dataclass
class Result:
    slow: list[Slow]
    honest: list[Honest]

    def p(self, percent: float) -> float:
        """A percentile of the honest streams' time to their last byte, in seconds."""
        times = sorted(h.seconds for h in self.honest)
        return times[min(len(times) - 1, int(len(times) * percent / 100))]

    def summary(self) -> str:
        times = [h.seconds for h in self.honest]
        closed = [s.closed_after for s in self.slow if s.closed_after is not None]
        return (
            f"{len(self.honest)} honest streams: median {statistics.median(times):.3f} s, "
            f"p99 {self.p(99):.3f} s, max {max(times):.3f} s; {len(self.slow)} slow clients, "
            f"{len(closed)} ended by the proxy, the last after {max(closed, default=0):.1f} s"
        )


async def _connect(port: int, address: str, small: bool) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if small:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((address, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    return sock


async def slow_client(kind: str, port: int, address: str, pace: float, limit: float) -> Slow:
    """One slow client of `kind`, for at most `limit` seconds."""
    loop = asyncio.get_running_loop()
    sock = await _connect(port, address, kind == "reader")
    began = time.monotonic()
    trickle = {
        "headers": b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000,
        "body": b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n" + b" " * 1000,
    }.get(kind, b"")
    try:
        if kind == "reader":
            await loop.sock_sendall(sock, b"GET /v1/files/big/content HTTP/1.1\r\nHost: x\r\n\r\n")
            return await _unread(sock, began, limit)
        if kind == "headers":
            await loop.sock_sendall(sock, trickle[:40])
            trickle = trickle[40:]
        elif kind == "body":
            head = trickle.index(b"\r\n\r\n") + 4
            await loop.sock_sendall(sock, trickle[:head])
            trickle = trickle[head:]
        return await _trickle(sock, kind, trickle, began, pace=pace, limit=limit)
    finally:
        sock.close()


async def _trickle(
    sock: socket.socket, kind: str, data: bytes, began: float, *, pace: float, limit: float
) -> Slow:
    """Send `data` a byte every `pace` seconds until the proxy ends the connection."""
    loop = asyncio.get_running_loop()
    while time.monotonic() - began < limit:
        try:
            answer = await asyncio.wait_for(loop.sock_recv(sock, 4096), pace)
        except TimeoutError:
            if data:
                try:
                    await loop.sock_sendall(sock, data[:1])
                except OSError:
                    return Slow(kind, time.monotonic() - began, b"")
                data = data[1:]
            continue
        except OSError:
            return Slow(kind, time.monotonic() - began, b"")
        return Slow(kind, time.monotonic() - began, answer + await _rest(sock))
    return Slow(kind, None, b"")


async def _rest(sock: socket.socket) -> bytes:
    loop, out = asyncio.get_running_loop(), b""
    try:
        while chunk := await asyncio.wait_for(loop.sock_recv(sock, 4096), 2):
            out += chunk
    except (TimeoutError, OSError):
        pass
    return out


async def _unread(sock: socket.socket, began: float, limit: float) -> Slow:
    """Read nothing until the proxy gives up on us (the connection reset), checked by
    peeking now and then; the bytes it had sent by then are not read."""
    while time.monotonic() - began < limit:
        await asyncio.sleep(0.25)
        try:
            sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            continue  # open, nothing to read (cannot be: the proxy is sending)
        except OSError:
            return Slow("reader", time.monotonic() - began, b"")
        if _reset(sock):
            return Slow("reader", time.monotonic() - began, b"")
    return Slow("reader", None, b"")


def _reset(sock: socket.socket) -> bool:
    """Has the peer reset or closed the connection (its state is no longer ESTABLISHED)?"""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)
    return info[0] != 1  # TCP_ESTABLISHED


async def honest(client: httpx.AsyncClient, url: str) -> Honest:
    """One honest chat completion, streamed and read as it comes."""
    began = time.monotonic()
    body = {"model": "m", "messages": MESSAGES, "stream": True}
    async with client.stream("POST", url + "/v1/chat/completions", json=body) as response:
        text = (await response.aread()).decode()
    return Honest(response.status_code, time.monotonic() - began, text)


async def run(
    url: str,
    port: int,
    *,
    slow: int,
    honest_streams: int,
    pace: float = 0.5,
    limit: float = 30,
    head_start: float = 0.5,
) -> Result:
    """`slow` slow clients (the kinds in turn, each kind from its own address), then,
    once they have begun, `honest_streams` honest ones."""
    slow_tasks = [
        asyncio.create_task(slow_client(KINDS[i % 4], port, f"127.0.0.{2 + i % 4}", pace, limit))
        for i in range(slow)
    ]
    await asyncio.sleep(head_start)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=limit, limits=limits) as client:
        streams = await asyncio.gather(*(honest(client, url) for _ in range(honest_streams)))
    return Result(list(await asyncio.gather(*slow_tasks)), list(streams))
