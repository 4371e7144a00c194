"""The batch scan on Dask: the same tasks, mapped over a cluster.

    from distributed import Client
    from rendersafe.scan import ScanOptions
    from rendersafe.scan.bags import scan_with_dask

    with Client("scheduler:8786") as client:        # or LocalCluster() to try it
        report = scan_with_dask(["/data/logs/"], ScanOptions(), partitions=64)

Each task (a file, or a byte range of a large JSONL file cut at line ends) becomes an
element of a `dask.bag`, mapped through `scan_partition`, the function the local scan
runs; the results are merged into the same `ScanReport`. Inputs must be readable at
the same paths on every worker (a shared or network file system), and so must `--fix`
and audit output. Dask is an optional extra: `pip install 'rendersafe[dask]'`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .inputs import DEFAULT_INCLUDE
from .options import ScanOptions
from .partition import PartResult, scan_partition
from .report import ScanReport, build_report
from .runner import assemble_fixes, tasks_for, with_audit_key

__all__ = ["scan_bag", "scan_with_dask"]


def scan_bag(tasks: Sequence[Any], options: ScanOptions) -> Any:
    """A `dask.bag` of `PartResult`s, one per task, computed where Dask puts it."""
    import dask.bag as db  # noqa: PLC0415  (an optional extra)

    return db.from_sequence(tasks, npartitions=max(len(tasks), 1)).map(  # type: ignore[no-untyped-call]
        scan_partition, options=options
    )


def scan_with_dask(
    arguments: Sequence[str],
    options: ScanOptions,
    *,
    partitions: int = 16,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
) -> ScanReport:
    """Scan `arguments` on the current Dask scheduler (a `distributed.Client` if one is
    active); large JSONL files are cut into about `partitions` ranges."""
    options = with_audit_key(options)
    tasks, errors = tasks_for(
        arguments, options, jobs=max(partitions // 4, 1), include=include, exclude=exclude
    )
    results: list[PartResult] = list(scan_bag(tasks, options).compute())
    return build_report(results, errors + assemble_fixes(results, options))
