"""The audit log on a full disk, and raw text kept out of logs (issue 13, items 1-2).

The disk is made full for real: a child process writes the audit file under a
file-size limit (`tests/full_disk.py`), so the writes fail with EFBIG where they
would with ENOSPC; lifting the limit is space returning.
"""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from full_disk import cap_process, file_size_signal_ignored, lift_process
from proxy_process import ProxyProcess
from proxy_upstream import Upstream
from rendersafe import Policy
from rendersafe.audit import AuditLog, JsonlSink
from rendersafe.audit.summary import summarise
from rendersafe.cli import run
from rendersafe.middleware import RenderSafeMiddleware
from servers import Server

CHILD = Path(__file__).with_name("full_disk.py")
RECORDS = 300
SECRET = "sk-proj-SECRET4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"


def _log(path: Path, *, cap: int, keep: int, lift: bool) -> dict[str, int]:
    args = ["log", str(path), str(cap), str(RECORDS), str(keep), "1" if lift else "0"]
    done = subprocess.run(
        [sys.executable, str(CHILD), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    counts: dict[str, int] = json.loads(done.stdout)
    return counts


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_full_disk_loses_no_record_once_space_returns(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    counts = _log(path, cap=64 * 1024, keep=10_000, lift=True)
    records = _records(path)
    assert counts["failures"] > 0  # the disk was full for most of them
    assert counts["lost"] == 0
    assert len(records) == RECORDS
    assert len({r["event_id"] for r in records}) == RECORDS  # none written twice
    assert [r["source"]["line"] for r in records] == list(range(RECORDS))  # in order


def test_space_returning_in_part_is_filled_in_order(tmp_path: Path) -> None:
    """A full disk, then room for some records: what fits is written at once (not held
    until the whole backlog fits), in order, and the rest when the rest of the room
    returns."""
    path = tmp_path / "audit.jsonl"
    room = 10_000
    done = subprocess.run(
        [sys.executable, str(CHILD), "drain", str(path), str(RECORDS), str(room)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stdout)
    full, partly, lifted = counts["lines"]
    records = _records(path)
    sizes = [len(line) + 1 for line in path.read_text().splitlines()]
    assert full == 0
    assert sum(sizes[:partly]) <= room < sum(sizes[: partly + 1])  # all that fit, no more
    assert partly > 0
    assert counts["backlog"] == RECORDS - partly
    assert lifted == RECORDS
    assert counts["lost"] == 0
    assert [r["source"]["line"] for r in records] == list(range(RECORDS))


def test_records_past_the_retry_bound_are_counted_and_summarised(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    counts = _log(path, cap=64 * 1024, keep=50, lift=True)
    records = _records(path)
    kept = [r for r in records if r["event"] != "lost"]
    marked = sum(int(r["lost"]) for r in records if r["event"] == "lost")
    assert counts["lost"] > 0
    assert marked == counts["lost"]
    assert len(kept) + marked == RECORDS  # every record written or counted
    summary = summarise(path)
    assert summary.lost == marked
    assert not summary.skipped
    out = io.StringIO()
    run(["audit", "summary", str(path)], stdout=out, stderr=io.StringIO())
    assert f"lost records: {marked}" in out.getvalue()


def test_a_disk_that_stays_full_loses_records_it_counts_and_no_partial_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "audit.jsonl"
    counts = _log(path, cap=64 * 1024, keep=10_000, lift=False)
    records = _records(path)  # every line whole: a write cut short is truncated back
    assert path.read_bytes().endswith(b"\n")
    assert counts["lost"] > 0
    assert len(records) + counts["lost"] == RECORDS


def _wait(check: Callable[[], bool], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_the_proxy_reports_a_backlog_as_degraded_and_drains_it(tmp_path: Path) -> None:
    """`rendersafe proxy` on a full disk: its replies go on, `/healthz` and the metrics
    say the audit log is degraded while records wait; room for some writes those, in
    order; all of it writes the rest, and nothing is lost."""
    path = tmp_path / "audit.jsonl"
    fake = Upstream()
    body = {"model": "m", "messages": [{"role": "user", "content": "key?"}]}
    with (
        Server(fake.app) as upstream,
        file_size_signal_ignored(),
        ProxyProcess(upstream.url, audit=path) as proxy,
    ):

        def ask(rid: str) -> None:
            headers = {"x-request-id": rid}
            response = httpx.post(proxy.url + "/v1/chat/completions", json=body, headers=headers)
            assert response.status_code == 200
            assert "attacker" not in response.text

        def audit() -> dict[str, Any]:
            found: dict[str, Any] = proxy.health()["audit"]  # type: ignore[assignment]
            return found

        for number in range(5):
            ask(f"before-{number:02}")
        assert _wait(lambda: len(_records(path)) == 5)
        cap_process(proxy.pid, str(path), 0)  # the disk is full
        for number in range(20):
            ask(f"full-{number:02}")
        assert _wait(lambda: audit()["backlog"] == 20)
        assert proxy.health()["status"] == "degraded"
        assert audit()["status"] == "degraded"
        metrics = httpx.get(proxy.url + "/metrics").text
        assert "rendersafe_audit_degraded 1.0" in metrics
        assert "rendersafe_audit_backlog_records 20.0" in metrics
        line = len(path.read_text().splitlines()[0]) + 1
        room = int(line * 7.5)
        cap_process(proxy.pid, str(path), room)  # room for 7 records
        assert _wait(lambda: audit()["backlog"] < 20)
        partly = _records(path)
        assert len(partly) == 12, len(partly)
        assert proxy.health()["status"] == "degraded"
        lift_process(proxy.pid)
        assert _wait(lambda: audit()["backlog"] == 0)
        assert proxy.health()["status"] == "ok"
        assert audit()["lost"] == 0
        assert "rendersafe_audit_degraded 0.0" in httpx.get(proxy.url + "/metrics").text
    ids = [r["source"]["request_id"] for r in _records(path)]
    expected = [f"before-{n:02}" for n in range(5)] + [f"full-{n:02}" for n in range(20)]
    assert ids == expected  # every record, in order, none twice


@pytest.fixture
def disk_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    path = tmp_path / "audit.jsonl"
    child = subprocess.Popen(
        [sys.executable, str(CHILD), "serve", str(path)], stdout=subprocess.PIPE
    )
    assert child.stdout is not None
    url = f"http://127.0.0.1:{int(child.stdout.readline())}"
    for _ in range(200):
        try:
            httpx.get(url + "/cap?bytes=100000000", timeout=2)
            break
        except httpx.TransportError:
            time.sleep(0.05)
    yield url, path
    child.terminate()
    child.wait(timeout=10)
    child.stdout.close()


def test_audit_required_serves_no_reply_whose_record_is_not_written(
    disk_server: tuple[str, Path],
) -> None:
    url, path = disk_server
    status: dict[str, int] = {}
    with httpx.Client(base_url=url, timeout=30) as client:
        for number in range(5):
            status[f"before-{number}"] = client.get(
                "/reply", headers={"x-request-id": f"before-{number}"}
            ).status_code
        client.get("/cap?bytes=3000")  # room for a few records more
        for number in range(20):
            rid = f"full-{number}"
            status[rid] = client.get("/reply", headers={"x-request-id": rid}).status_code
        lifted = client.get("/lift").text
        for number in range(5):
            rid = f"after-{number}"
            status[rid] = client.get("/reply", headers={"x-request-id": rid}).status_code
    records = _records(path)
    findings = {r["source"]["request_id"] for r in records if r["event"] == "finding"}
    errors = {r["source"]["request_id"] for r in records if r["event"] == "error"}
    served = {rid for rid, code in status.items() if code == 200}
    refused = {rid for rid, code in status.items() if code == 503}
    assert set(status.values()) <= {200, 503}
    assert refused
    assert served >= {f"before-{n}" for n in range(5)} | {f"after-{n}" for n in range(5)}
    assert served <= findings  # every reply served has its record written
    assert refused <= errors  # and every refusal's record was kept and written later
    assert lifted == "lifted True 0"  # nothing lost, nothing left to retry


# --- raw text in error messages, audit records and logs (item 2) -------------------


def _frames(pieces: list[bytes]) -> StreamingResponse:
    async def body() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    return StreamingResponse(body(), media_type="text/event-stream")


async def malformed(request: Request) -> Response:
    good = b'data: {"choices":[{"index":0,"delta":{"content":"Hi "}}]}\n\n'
    bad = b'data: {"choices":[{"index":0,"delta":{"content":"' + SECRET.encode() + b"\n\n"
    return _frames([good, bad])


async def ndjson(request: Request) -> Response:
    line = b'{"message":{"content":"' + SECRET.encode() + b"\n"
    return Response(line, media_type="application/x-ndjson")


async def json_body(request: Request) -> Response:
    return Response(b'{"answer": "' + SECRET.encode(), media_type="application/json")


async def boom(request: Request) -> Response:
    async def body() -> AsyncIterator[bytes]:
        yield b'data: {"choices":[{"index":0,"delta":{"content":"Hi "}}]}\n\n'
        leak = f"https://evil.example/x.png?d={SECRET} data:text/html;base64,{SECRET}"
        raise RuntimeError(f"upstream said {SECRET} at {leak} " + "x" * 5000)

    return StreamingResponse(body(), media_type="text/event-stream")


def test_no_raw_text_reaches_the_audit_file_or_the_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    path = tmp_path / "audit.jsonl"
    routes = [
        Route("/malformed", malformed),
        Route("/ndjson", ndjson),
        Route("/json", json_body),
        Route("/boom", boom),
    ]
    audit = AuditLog([JsonlSink(path)])
    app = RenderSafeMiddleware(Starlette(routes=routes), policy=Policy(), audit=audit)
    with Server(app) as server:
        for route in ("/malformed", "/ndjson", "/json", "/boom"):
            response = httpx.get(server.url + route)
            assert SECRET not in response.text
    audit.close()
    written = path.read_text()
    messages = [r["message"] for r in _records(path) if r["event"] == "error"]
    assert len(messages) == 4, messages
    assert "event 2: its data is not JSON" in messages[0]  # what and where
    assert all(len(m) <= 400 for m in messages)
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    for text in (written, logged):
        assert "SECRET" not in text
        assert "evil.example/x.png" not in text
