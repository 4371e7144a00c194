"""`--select`, `--ignore` and `--fail-on`: which findings a scan reports, and which of
them fail it.

    codes = reason_codes("encoded_base64,canary")   # ScanUsageError listing the valid ones
    report = selected(report, select=codes, ignore=frozenset())
    failing(report, "high")                          # findings of severity 7.0 and up
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from ..findings import Reason
from .report import ScanReport, finding_counts
from .rows import FindingRow
from .rules import severity
from .runner import ScanUsageError

__all__ = ["THRESHOLDS", "failing", "reason_codes", "selected"]

# GitHub code scanning's bands of `security-severity`: low from 0.1, medium from 4.0,
# high from 7.0 (critical, 9.0 and up, is part of high here).
THRESHOLDS = MappingProxyType({"low": 0.1, "medium": 4.0, "high": 7.0})


def reason_codes(values: Iterable[str]) -> frozenset[Reason]:
    """The reason codes named in `values` (each comma-separated; case and `-` for `_`
    do not matter); `ScanUsageError` naming an unknown one and listing the valid."""
    known = {str(reason): reason for reason in Reason}
    codes: set[Reason] = set()
    for value in values:
        for name in filter(None, (part.strip() for part in value.split(","))):
            code = name.lower().replace("-", "_")
            if code not in known:
                valid = ", ".join(sorted(known))
                raise ScanUsageError(f"unknown reason code {name!r}; the codes are: {valid}")
            codes.add(known[code])
    return frozenset(codes)


def selected(
    report: ScanReport, select: frozenset[Reason], ignore: frozenset[Reason]
) -> ScanReport:
    """`report` with only the selected reasons (all, if `select` is empty) less the
    ignored; a finding left with no reason goes, and the summary counts what stays."""
    if not select and not ignore:
        return report
    narrowed = (_narrowed(row, select, ignore) for row in report.findings)
    kept = [row for row in narrowed if row is not None]
    summary = report.summary.model_copy(update=finding_counts(kept))
    return report.model_copy(update={"summary": summary, "findings": kept})


def _narrowed(
    row: FindingRow, select: frozenset[Reason], ignore: frozenset[Reason]
) -> FindingRow | None:
    reasons = tuple(r for r in row.reasons if (not select or r in select) and r not in ignore)
    return row.model_copy(update={"reasons": reasons}) if reasons else None


def failing(report: ScanReport, fail_on: str | None) -> int:
    """How many findings are at or above the `fail_on` threshold (None: all)."""
    if fail_on is None:
        return len(report.findings)
    floor = THRESHOLDS[fail_on]
    return sum(1 for row in report.findings if severity(row.reasons) >= floor)
