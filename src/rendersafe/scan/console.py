"""The scan report as lines for people and for CI: one line per finding (`text`), or
GitHub Actions workflow commands (`github`) that annotate the files in a pull request.

    logs/a.jsonl:3: encoded_base64 image removed attacker.example (record 7)
    ::error file=logs/a.jsonl,line=3,title=rendersafe encoded_base64::image removed ...
"""

from __future__ import annotations

from .report import ScanReport, table
from .rows import ErrorRow, FindingRow
from .rules import level, severity, worst_reason

__all__ = ["github", "text"]


def text(report: ScanReport, *, quiet: bool = False) -> str:
    """One line per finding, then (unless `quiet`) the summary table."""
    lines = [_line(row) for row in report.findings]
    body = "".join(line + "\n" for line in lines)
    if quiet:
        return body
    return body + ("\n" if body else "") + table(report)


def _line(row: FindingRow) -> str:
    rule = worst_reason(row.reasons)
    return f"{row.path}:{row.line}: {rule or 'rendersafe'} {_what(row)}"


def _what(row: FindingRow) -> str:
    host = f" {row.host}" if row.host else ""
    others = [str(r) for r in row.reasons if r != worst_reason(row.reasons)]
    also = f" (also {', '.join(others)})" if others else ""
    return f"{row.kind} {row.action}{host}{also}, record {row.record_id}, role {row.role}"


def github(report: ScanReport) -> str:
    """A workflow command per finding and per unreadable input: `error` from security
    severity 7.0 up, `warning` from 4.0, `notice` below."""
    lines = [_annotation(row) for row in report.findings]
    lines += [_error_annotation(error) for error in report.errors]
    return "".join(line + "\n" for line in lines)


def _annotation(row: FindingRow) -> str:
    rule = worst_reason(row.reasons)
    kind = level(row.reasons) if severity(row.reasons) >= 4 else "notice"
    properties = {"file": row.path, "line": str(row.line), "title": f"rendersafe {rule}"}
    return _command(kind, properties, _what(row))


def _error_annotation(error: ErrorRow) -> str:
    properties = {"file": error.path, "title": "rendersafe: input not read"}
    if error.line:
        properties["line"] = str(error.line)
    return _command("error", properties, error.message)


def _command(kind: str, properties: dict[str, str], message: str) -> str:
    # GitHub's escaping: % and line ends everywhere, also : and , in property values.
    listed = ",".join(f"{name}={_escape(value, True)}" for name, value in properties.items())
    return f"::{kind} {listed}::{_escape(message, False)}"


def _escape(value: str, in_property: bool) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if in_property:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value
