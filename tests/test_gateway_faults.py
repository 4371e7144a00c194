"""`rendersafe proxy` under many concurrent streams with faults on both sides: the
upstream breaks off or hangs mid-reply, clients go away or read slowly. Nothing of the
injected image reaches a client, every request's audit records are written, and no
connection or task is left behind (the kernel's view of the proxy's sockets, and the
proxy's own count of its event loop's tasks).

`RENDERSAFE_PROXY_STREAMS` sets how many streams (200 by default; the benchmark runs
the same storm)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from proxy_process import ProxyProcess, tcp_sockets
from proxy_upstream import Upstream
from servers import Server
from wire_clients import read

STREAMS = int(os.environ.get("RENDERSAFE_PROXY_STREAMS", "200"))
ROUTES = {
    "/v1/chat/completions": "openai-chat",
    "/v1/responses": "openai-responses",
    "/v1/messages": "anthropic",
    "/api/chat": "ndjson",
    "/api/generate": "ndjson",
}
# Upstream faults go in `x-fault`; `disconnect` and `slow-client` are the client's.
FAULTS = ("none", "error-mid", "hang", "disconnect", "slow-client", "none")
# The records each outcome leaves in the audit log (at least one of them).
EXPECTED = {
    "none": {"finding"},
    "slow-client": {"finding"},
    "error-mid": {"error"},
    "hang": {"error"},
    # The proxy may have written the whole reply before the client left (the socket's
    # buffers hold it): then the reply's own record is the one. test_middleware pins
    # the disconnect record itself.
    "disconnect": {"disconnect", "finding"},
}


@dataclass
class Outcome:
    rid: str
    path: str
    fault: str
    body: str
    status: int


async def _one(client: httpx.AsyncClient, url: str, index: int) -> Outcome:
    path = list(ROUTES)[index % len(ROUTES)]
    fault = FAULTS[index % len(FAULTS)]
    rid = f"storm-{index}"
    headers = {"x-request-id": rid}
    if fault in ("error-mid", "hang"):
        headers["x-fault"] = fault
    body = {"model": "m", "messages": [{"role": "user", "content": "key?"}], "stream": True}
    received = b""
    async with client.stream("POST", url + path, json=body, headers=headers) as response:
        chunks = 0
        async for chunk in response.aiter_raw():
            received += chunk
            chunks += 1
            # The first bytes: the rest of a reply held back whole (its chunks emptied,
            # so not sent) may come in one more read, at its end.
            if fault == "disconnect" and chunks == 1:
                break  # leaving the block closes the connection mid-reply
            if fault == "slow-client":
                await asyncio.sleep(0.02)
    return Outcome(rid, path, fault, received.decode(), response.status_code)


async def _storm(url: str, streams: int) -> list[Outcome]:
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=30, limits=limits) as client:
        return await asyncio.gather(*(_one(client, url, i) for i in range(streams)))


def _wait_for(check: Callable[[], bool], seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.1)


@dataclass
class Storm:
    """What a storm did, and what it left in the proxy."""

    outcomes: list[Outcome]
    seconds: float
    client_sockets: list[tuple[int, int, str]]
    upstream_sockets: list[tuple[int, int, str]]
    tasks_before: int
    tasks_after: int
    in_flight: int


def run_storm(proxy: ProxyProcess, upstream_port: int, streams: int) -> Storm:
    """The storm, and what it left: outcomes, sockets, tasks. Shared with the benchmark."""
    baseline = proxy.health()["tasks"]
    began = time.monotonic()
    outcomes = asyncio.run(_storm(proxy.url, streams))
    seconds = time.monotonic() - began
    _wait_for(lambda: proxy.health()["in_flight"] == 0)
    health = proxy.health()

    def client_side() -> list[tuple[int, int, str]]:
        return [s for s in tcp_sockets(proxy.pid) if s[0] == proxy.port and s[2] != "LISTEN"]

    _wait_for(lambda: not client_side(), 5)  # the last /healthz connection closing too
    upstream_side = [s for s in tcp_sockets(proxy.pid) if s[1] == upstream_port]
    return Storm(
        outcomes=outcomes,
        seconds=seconds,
        client_sockets=client_side(),
        upstream_sockets=upstream_side,
        tasks_before=int(str(baseline)),
        tasks_after=int(str(health["tasks"])),
        in_flight=int(str(health["in_flight"])),
    )


def test_many_streams_with_faults_leak_nothing_and_leave_nothing(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    fake = Upstream(pace=0.01)
    with Server(fake.app) as server:
        upstream_port = int(server.url.rsplit(":", 1)[1])
        # 3 s: a hang is still found quickly, and 200 streams on a loaded two-core
        # machine may wait over a second for the upstream's first bytes.
        args = ("--read-timeout", "3", "--max-concurrency", str(STREAMS + 50))
        with ProxyProcess(server.url, *args, audit=audit) as proxy:
            result = run_storm(proxy, upstream_port, STREAMS)
            assert proxy.stop() in (0, -15)  # the audit log is closed on the way out
            # Clients that leave are logged at DEBUG: no traceback, no ERROR for them.
            logged = proxy.stderr()
            assert "Traceback" not in logged
            assert "Exception in ASGI application" not in logged
    outcomes = result.outcomes
    for outcome in outcomes:
        assert outcome.status == 200, outcome
        assert "attacker" not in outcome.body, outcome.rid
        reading = read(ROUTES[outcome.path], outcome.body)
        text = "".join(reading.texts.values())
        if outcome.fault in ("none", "slow-client"):
            assert "All done, see you." in text, outcome.rid
            assert not reading.errors, outcome.rid
        elif outcome.fault in ("error-mid", "hang"):
            assert reading.errors or "withheld" in outcome.body, outcome.rid
    assert result.client_sockets == []
    assert len(result.upstream_sockets) <= 64  # idle in the pool at most
    assert result.in_flight == 0
    assert result.tasks_after <= result.tasks_before
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    events: dict[str, Counter[str]] = {}
    for record in records:
        events.setdefault(record["source"]["request_id"], Counter())[record["event"]] += 1
    for outcome in outcomes:
        seen = events.get(outcome.rid, Counter())
        assert any(seen[event] >= 1 for event in EXPECTED[outcome.fault]), (
            outcome.rid,
            outcome.fault,
            events.get(outcome.rid),
        )
