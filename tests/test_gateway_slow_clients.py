"""Slow clients cannot starve honest ones (issue 35, item 3): 50 slow clients (silent,
dribbling headers, dribbling a body, reading nothing of a large reply) against a real
`rendersafe proxy` while 50 honest streams run. Every honest stream completes, sanitised,
none refused; every slow client is ended by the proxy within its timeout; the honest
streams' p99 is printed (the benchmark runs more of both:
`benchmarks/bench_proxy.py --slowloris 200`).

The proxy's limits are cut to seconds here so the test takes a few: `--max-concurrency`
below slow + honest (a slow body once held a slot until it ended), header, body and idle
timeouts of 2 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections import Counter
from collections.abc import Iterator

import httpx
import pytest

import slow_clients
from proxy_process import ProxyProcess
from proxy_upstream import Upstream
from servers import Server

TIMEOUT = 2.0
SLACK = 6.0  # a loaded two-core machine is late to fill a reader's buffers, and to close
LIMITS = (
    ("--header-timeout", str(TIMEOUT)),
    ("--body-timeout", str(TIMEOUT)),
    ("--idle-timeout", str(TIMEOUT)),
    ("--max-concurrency", "64"),
    ("--max-client-connections", "55"),
)


@pytest.fixture(scope="module")
def proxy() -> Iterator[ProxyProcess]:
    fake = Upstream(pace=0.01)
    args = [arg for pair in LIMITS for arg in pair]
    with Server(fake.app) as upstream, ProxyProcess(upstream.url, *args) as process:
        yield process


def test_slow_clients_do_not_starve_honest_streams(proxy: ProxyProcess) -> None:
    began = time.monotonic()
    result = asyncio.run(
        slow_clients.run(proxy.url, proxy.port, slow=50, honest_streams=50, limit=TIMEOUT + 15)
    )
    print(f"\n{result.summary()} (in {time.monotonic() - began:.1f} s)")
    statuses = Counter(h.status for h in result.honest)
    assert statuses == {200: 50}, statuses
    for stream in result.honest:
        assert "All done, see you." in stream.text
        assert "attacker" not in stream.text
    for client in result.slow:
        assert client.closed_after is not None, client.kind
        assert client.closed_after < TIMEOUT + SLACK, (client.kind, client.closed_after)
        if client.kind in ("headers", "body"):
            assert client.answer.startswith(b"HTTP/1.1 408 "), (client.kind, client.answer[:80])
    deadline = time.monotonic() + 10
    while proxy.health()["in_flight"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert proxy.health()["in_flight"] == 0  # the readers' slots are free again
    metrics = httpx.get(proxy.url + "/metrics").text
    for reason in ("header_timeout", "body_timeout", "idle_timeout"):
        assert f'rendersafe_proxy_rejected_total{{reason="{reason}"}}' in metrics, reason
    assert "Traceback" not in proxy.stderr()


def test_one_address_holds_at_most_its_share_of_connections(proxy: ProxyProcess) -> None:
    held = []
    try:
        for _ in range(60):
            sock = socket.socket()
            sock.bind(("127.0.0.9", 0))
            sock.connect(("127.0.0.1", proxy.port))
            held.append(sock)
        refused = 0
        for sock in held:
            sock.settimeout(0.5)
            with contextlib.suppress(TimeoutError):
                refused += sock.recv(64).startswith(b"HTTP/1.1 503 ")
        assert refused == 5
        # Another address is served meanwhile.
        body = {"model": "m", "messages": slow_clients.MESSAGES}
        response = httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=10)
        assert response.status_code == 200
        assert "attacker" not in json.dumps(response.json())
    finally:
        for sock in held:
            sock.close()


def test_a_slow_body_holds_no_slot() -> None:
    """One slot, taken only once a body is in: a client dribbling its body does not
    make the next request a 503."""
    fake = Upstream()
    args = ("--max-concurrency", "1", "--body-timeout", "30")
    with Server(fake.app) as upstream, ProxyProcess(upstream.url, *args) as proxy:
        slow = socket.create_connection(("127.0.0.1", proxy.port))
        try:
            slow.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"
            )
            time.sleep(0.3)
            body = {"model": "m", "messages": slow_clients.MESSAGES}
            for _ in range(3):
                response = httpx.post(proxy.url + "/v1/chat/completions", json=body, timeout=10)
                assert response.status_code == 200
        finally:
            slow.close()
