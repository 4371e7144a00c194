"""One hostile stream must not stall the others (issue 13, item 3).

A real uvicorn server in a child process (`tests/stall_server.py`) serves 20 honest
OpenAI-style streams (a 4-character token every 5 ms) through the middleware while
one more stream floods it with 64 KiB of `[` (in one chunk), of `<img src=a ` or of
paragraphs of 700 `[` (in 1,024). The honest streams' p99 gap between chunks and their
longest gaps, read here, and the p99 lag of the server's event loop (a probe sleeping
1 ms at a time) are compared with a round without the flood. Before heavy feeds moved to
a worker thread, the flood in one chunk held the loop 1.7 to 5 s (every honest stream's
longest gap), the `<img` flood took the honest p99 gap from 8-18 to 315-970 ms, the
paragraphs from 9 to 32-58 ms. The slack is wide because the machine is shared.
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rendersafe import Policy, Sanitizer
from rendersafe.middleware.offload import _QUICK_SWITCH, SWITCH_INTERVAL
from stall_server import FLOOD_CHARS, FLOODS

SERVER = Path(__file__).with_name("stall_server.py")
HONEST = 20
# Slack over the round without a flood: the machine is shared, so a fixed bound would
# measure the neighbours; the stall before the fix was 250 ms to 2.5 s.
SLACK_MS = 50.0
WORST_SLACK_MS = 250.0
ATTEMPTS = 3


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    child = subprocess.Popen([sys.executable, str(SERVER)], stdout=subprocess.PIPE)
    assert child.stdout is not None
    url = f"http://127.0.0.1:{int(child.stdout.readline())}"
    deadline = time.monotonic() + 20
    while True:
        try:
            httpx.get(url + "/lag", timeout=2)
            break
        except httpx.TransportError:
            if time.monotonic() > deadline:
                child.kill()
                raise
            time.sleep(0.05)
    yield url
    child.terminate()
    child.wait(timeout=10)
    child.stdout.close()


async def _honest(client: httpx.AsyncClient, seed: int, gaps: list[float]) -> float:
    """Read one honest stream, adding its gaps between chunks; return its longest."""
    last, longest = None, 0.0
    async with client.stream("GET", f"/honest?seed={seed}") as response:
        async for _ in response.aiter_raw():
            now = time.perf_counter()
            if last is not None:
                gaps.append(now - last)
                longest = max(longest, now - last)
            last = now
    return longest


async def _flood(client: httpx.AsyncClient, kind: str, chunks: int) -> str:
    await asyncio.sleep(0.3)  # the honest streams are under way
    response = await client.get(f"/flood?kind={kind}&chunks={chunks}")
    text = []
    for line in response.text.splitlines():
        if line.startswith("data: {"):
            delta = json.loads(line[6:])["choices"][0]["delta"]
            text.append(delta.get("content") or "")
    return "".join(text)


async def _round(url: str, flood: tuple[str, int] | None) -> tuple[dict[str, float], str]:
    """The honest streams' gaps and the server loop's lags (ms), and the flood's text."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        await client.get("/lag")
        gaps: list[float] = []
        jobs = [_honest(client, seed, gaps) for seed in range(HONEST)]
        flooded = asyncio.ensure_future(_flood(client, *flood)) if flood else None
        longest = await asyncio.gather(*jobs)
        text = await flooded if flooded else ""
        figures = (await client.get("/lag")).json()
    figures["p99_gap_ms"] = statistics.quantiles(gaps, n=100)[98] * 1000
    # Every honest stream waits out a stall: the median of their longest gaps sees it.
    figures["longest_gap_ms"] = statistics.median(longest) * 1000
    return figures, text


@pytest.mark.parametrize(("kind", "chunks"), [("bracket", 1), ("img", 1024), ("paragraphs", 1024)])
def test_a_flood_does_not_stall_honest_streams(server: str, kind: str, chunks: int) -> None:
    # A stall shows in every round; a busy neighbour on a shared machine in some: the
    # flood passes when one of a few calm-then-flooded pairs stays within the slack.
    seen = []
    for _ in range(ATTEMPTS):
        calm, _text = asyncio.run(_round(server, None))
        flooded, text = asyncio.run(_round(server, (kind, chunks)))
        seen.append(", ".join(f"{n} {calm[n]:.1f} -> {flooded[n]:.1f}" for n in calm))
        print(kind, chunks, seen[-1])
        if _within(calm, flooded):
            break
    else:
        pytest.fail(f"every round stalled: {seen}")
    unit = FLOODS[kind]
    flood = unit * (FLOOD_CHARS // len(unit))
    assert text == Sanitizer(Policy()).run(flood).text  # in order, as one-shot


def _within(calm: dict[str, float], flooded: dict[str, float]) -> bool:
    if any(flooded[name] > calm[name] + SLACK_MS for name in ("p99_gap_ms", "p99_ms")):
        return False
    return flooded["longest_gap_ms"] <= calm["longest_gap_ms"] + WORST_SLACK_MS


def test_worker_feeds_shorten_the_switch_interval_and_leave_the_collector_alone() -> None:
    saved = sys.getswitchinterval()
    with _QUICK_SWITCH:
        with _QUICK_SWITCH:
            assert sys.getswitchinterval() <= SWITCH_INTERVAL
            assert gc.isenabled()  # the collector is the process's, not ours to pause
        assert sys.getswitchinterval() <= SWITCH_INTERVAL  # another feed still runs
    assert sys.getswitchinterval() == saved


@pytest.mark.parametrize("unit", ["[", "a[", "<img src=a ", "![a](https://x.example/?d=c2VjcmV0) "])
def test_the_sanitiser_makes_no_cyclic_garbage(unit: str) -> None:
    sanitizer = Sanitizer(Policy())
    gc.collect()
    gc.disable()
    try:
        stream = sanitizer.stream()
        stream.feed(unit * (16_384 // len(unit)))
        stream.close()
        assert gc.collect() == 0
    finally:
        gc.enable()
