"""The scan report: a summary, one row per finding, one per unreadable input; as a
readable table and as JSON (`ScanReport`, schema in docs/scan-report.schema.json);
`sarif` writes it for code-scanning UIs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._build import __version__
from ..audit.summary import TOP, count_rows
from .partition import PartResult
from .rows import ErrorRow, FindingRow

__all__ = ["ScanReport", "ScanSummary", "build_report", "finding_counts", "table"]


class TopRecord(BaseModel):
    """A record with many findings: where to look first."""

    path: str
    record_id: str
    findings: int


class ScanSummary(BaseModel):
    """Counts over the whole scan."""

    model_config = ConfigDict(extra="forbid")

    files: int = 0
    files_unreadable: int = 0
    records: int = 0
    records_unreadable: int = 0
    records_changed: int = 0
    bytes: int = 0
    findings: int = 0
    by_construct: dict[str, int] = Field(default_factory=dict)
    by_reason: dict[str, int] = Field(default_factory=dict)
    by_host: dict[str, int] = Field(default_factory=dict)
    top_records: list[TopRecord] = Field(default_factory=list)


class ScanReport(BaseModel):
    """What `rendersafe scan --json` writes."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = 1
    rendersafe_version: str = __version__
    summary: ScanSummary
    findings: list[FindingRow]
    errors: list[ErrorRow]


def build_report(results: Iterable[PartResult], errors: Iterable[ErrorRow]) -> ScanReport:
    """Merge the parts' results (in task order) with the errors found before scanning."""
    results = list(results)
    findings = [row for result in results for row in result.findings]
    all_errors = [*errors, *(row for result in results for row in result.errors)]
    all_errors += _unmatched_paths(results)
    files = {result.task.display for result in results}
    # A whole file unreadable (no line), or an argument that is no file at all.
    unreadable_files = {e.path for e in all_errors if e.line is None} | {e.path for e in errors}
    summary = ScanSummary(
        files=len(files),
        files_unreadable=len(unreadable_files),
        records=sum(r.records for r in results),
        records_unreadable=sum(r.unreadable for r in results),
        bytes=sum(r.bytes_read for r in results),
        **finding_counts(findings),
    )
    return ScanReport(summary=summary, findings=findings, errors=all_errors)


def finding_counts(findings: list[FindingRow]) -> dict[str, Any]:
    """The summary's fields that count the findings (all but files, records and bytes)."""
    per_record = Counter((row.path, row.record_id) for row in findings)
    return {
        "records_changed": len(per_record),
        "findings": len(findings),
        "by_construct": dict(Counter(str(row.kind) for row in findings).most_common()),
        "by_reason": dict(Counter(str(x) for row in findings for x in row.reasons).most_common()),
        "by_host": dict(Counter(row.host or "(no host)" for row in findings).most_common()),
        "top_records": [
            TopRecord(path=p, record_id=r, findings=n) for (p, r), n in per_record.most_common(TOP)
        ],
    }


def _unmatched_paths(results: list[PartResult]) -> list[ErrorRow]:
    """An error for each `--json-path` that matched nothing in a file it read records
    of (all of the file's parts counted): a silent zero would be a false negative."""
    hits: dict[str, Counter[str]] = {}
    records: Counter[str] = Counter()
    for result in results:
        hits.setdefault(result.task.display, Counter()).update(result.path_hits)
        records[result.task.display] += result.records
    return [
        ErrorRow(path=path, message=f"--json-path {name} matched nothing in this file")
        for path, counts in hits.items()
        if records[path]
        for name in sorted(counts)
        if not counts[name]
    ]


def table(report: ScanReport) -> str:
    """The summary as a readable table."""
    s = report.summary
    lines = [
        f"files {s.files} ({s.files_unreadable} with errors), records {s.records} "
        f"({s.records_unreadable} unreadable, {s.records_changed} with findings), "
        f"{s.bytes / 1e6:.1f} MB",
        f"findings {s.findings}",
    ]
    top_hosts = dict(list(s.by_host.items())[:TOP])
    for title, counts in (
        ("by construct", s.by_construct),
        ("by reason", s.by_reason),
        ("by host", top_hosts),
    ):
        lines += ["", title, *_rows(counts)]
    if s.top_records:
        top = {f"{t.path} {t.record_id}": t.findings for t in s.top_records}
        lines += ["", "top records", *_rows(top)]
    if report.errors:
        lines += ["", f"errors {len(report.errors)}"]
        lines += [
            f"  {e.path}:{e.line if e.line else '-'}: {e.message}" for e in report.errors[:TOP]
        ]
    return "\n".join(lines) + "\n"


def _rows(counts: dict[str, int]) -> list[str]:
    return count_rows(counts.items())
