"""The batch scanner: find and clean exfiltration beacons in stored transcripts.

    from rendersafe.scan import ScanOptions, scan
    report = scan(["logs/"], ScanOptions(fix_dir=Path("cleaned")), jobs=4)
    report.summary.findings, report.findings, report.errors

`scan_partition(task, options)` is the unit of work (a file, or a byte range of a large
JSONL file); `tasks_for` lists the tasks. `rendersafe.scan.bags` runs the same on Dask.
"""

from .inputs import Task
from .options import ASSISTANT_ROLES, ScanOptions
from .partition import PartResult, scan_partition
from .report import ScanReport, ScanSummary, build_report, table
from .rows import ErrorRow, FindingRow
from .runner import ScanUsageError, assemble_fixes, scan, tasks_for
from .sarif import sarif

__all__ = [
    "ASSISTANT_ROLES",
    "ErrorRow",
    "FindingRow",
    "PartResult",
    "ScanOptions",
    "ScanReport",
    "ScanSummary",
    "ScanUsageError",
    "Task",
    "assemble_fixes",
    "build_report",
    "sarif",
    "scan",
    "scan_partition",
    "table",
    "tasks_for",
]
