"""The scan report as a SARIF 2.1.0 log, for code-scanning dashboards.

    log = sarif(report, root=Path.cwd())

Every artifact URI is relative to the `%SRCROOT%` base (`root`, given in
`originalUriBaseIds`), so the log reads the same on any checkout. Each result carries a
`partialFingerprints` hash of what it is (rule, file, construct, redacted URL or host,
role) and its occurrence among equals, never its line: a line inserted above a finding
keeps its fingerprint, and a dashboard tracks it across runs.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .._build import __version__
from ..findings import Reason
from .report import ScanReport
from .rows import ErrorRow, FindingRow
from .rules import HELP_URL, level, sarif_rule, worst_reason

__all__ = ["FINGERPRINT", "SCHEMA_URI", "SRCROOT", "sarif"]

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"
FINGERPRINT = "rendersafeFinding/v1"
_SEMVER = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")


def sarif(report: ScanReport, *, root: Path | None = None) -> dict[str, Any]:
    """The findings (and unreadable inputs, as notifications) as a SARIF 2.1.0 log,
    paths relative to `root` (default: the working directory)."""
    base = Path(os.path.abspath(root or Path.cwd()))
    reasons = list(Reason)
    seen: Counter[str] = Counter()
    results = [_result(row, base, reasons, seen) for row in report.findings]
    run = {
        "tool": {"driver": _driver(reasons)},
        "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
        "invocations": [_invocation(report.errors, base)],
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _driver(reasons: list[Reason]) -> dict[str, Any]:
    driver: dict[str, Any] = {
        "name": "rendersafe",
        "version": __version__,
        "informationUri": HELP_URL,
        "rules": [sarif_rule(reason) for reason in reasons],
    }
    if _SEMVER.fullmatch(__version__):
        driver["semanticVersion"] = __version__
    return driver


def _result(
    row: FindingRow, base: Path, reasons: list[Reason], seen: Counter[str]
) -> dict[str, Any]:
    rule = worst_reason(row.reasons)
    where = f" {row.host}" if row.host else ""
    text = f"{row.kind} {row.action} ({', '.join(row.reasons)}){where}"
    result: dict[str, Any] = {
        "ruleId": str(rule) if rule else "rendersafe",
        "level": level(row.reasons),
        "message": {"text": f"{text}, record {row.record_id}, role {row.role}"},
        "locations": [{"physicalLocation": _physical(row.path, row.line, base)}],
        "partialFingerprints": {FINGERPRINT: _fingerprint(row, base, seen)},
    }
    if rule is not None:
        result["ruleIndex"] = reasons.index(rule)
    return result


def _fingerprint(row: FindingRow, base: Path, seen: Counter[str]) -> str:
    """What the finding is, where its line is not part of it; the nth of its equals."""
    what = "\0".join(
        (
            ",".join(row.reasons),
            _relative(row.path, base) or row.path,
            str(row.kind),
            row.url or row.host or "",
            row.role,
        )
    )
    seen[what] += 1
    return hashlib.sha256(f"{what}\0{seen[what]}".encode()).hexdigest()[:32]


def _artifact(path: str, base: Path) -> dict[str, str]:
    relative = _relative(path, base)
    if relative is None:
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    return {"uri": quote(relative), "uriBaseId": SRCROOT}


def _relative(path: str, base: Path) -> str | None:
    """`path` relative to `base`, with forward slashes; None if it is outside."""
    full = Path(os.path.abspath(path))
    if not full.is_relative_to(base):
        return None
    return full.relative_to(base).as_posix()


def _invocation(errors: list[ErrorRow], base: Path) -> dict[str, Any]:
    notes = [
        {
            "level": "error",
            "message": {"text": error.message},
            "locations": [{"physicalLocation": _physical(error.path, error.line, base)}],
        }
        for error in errors
    ]
    return {"executionSuccessful": not errors, "toolExecutionNotifications": notes}


def _physical(path: str, line: int | None, base: Path) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": _artifact(path, base)}
    if line:
        physical["region"] = {"startLine": line}
    return physical
