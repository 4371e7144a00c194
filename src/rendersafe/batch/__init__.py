"""Sanitise replies a column at a time: data lakes, Spark, Ray, DuckDB.

    import pyarrow.parquet as pq
    from rendersafe.batch import sanitize_arrow

    table = pq.read_table("replies.parquet")
    result = sanitize_arrow(table["reply"], table["messages"], policy=policy)
    result.field("text"), result.field("changed"), result.field("findings")

    cells    one cell read: a reply's text, a conversation in any chat shape
    rows     one row's result; what a null, a number, a broken conversation or a
             reply too long gets (a result, never a failed batch)
    arrow    `sanitize_arrow`: columns in, a `StructArray` out
    pool     `ProcessPool`: `sanitize_arrow` in worker processes, for engines whose
             threads call Python under the GIL (DuckDB)
    worker   the worker process a `ProcessPool` starts

The engines' adapters are in `rendersafe.integrations` (`spark`, `ray`, `duckdb`); which
to choose when is in docs/lake.md. Needs pyarrow: `pip install 'rendersafe[arrow]'`.
"""

from __future__ import annotations

try:
    from .arrow import RESULT_TYPE, sanitize_arrow
except ModuleNotFoundError as exc:  # the extra is not installed
    if exc.name != "pyarrow":
        raise
    raise ModuleNotFoundError(
        "rendersafe.batch needs pyarrow: pip install 'rendersafe[arrow]'", name="pyarrow"
    ) from exc
from .pool import ProcessPool
from .rows import NO_FINDINGS, PLACEHOLDER, ColumnError, Row, sanitize_row, sanitizer_for

__all__ = [
    "NO_FINDINGS",
    "PLACEHOLDER",
    "RESULT_TYPE",
    "ColumnError",
    "ProcessPool",
    "Row",
    "sanitize_arrow",
    "sanitize_row",
    "sanitizer_for",
]
