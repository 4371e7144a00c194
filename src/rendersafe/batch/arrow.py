"""`sanitize_arrow`: a column of replies (and of their conversations) in, a struct out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa

from ..policy import Policy
from .rows import ColumnError, Row, sanitize_row, sanitizer_for

__all__ = ["RESULT_TYPE", "sanitize_arrow"]

# One row's result: the text to keep, whether it changed, its findings as a JSON list.
RESULT_TYPE = pa.struct(
    [
        pa.field("text", pa.string()),
        pa.field("changed", pa.bool_(), nullable=False),
        pa.field("findings", pa.string(), nullable=False),
    ]
)
_DEFAULT = Policy()


def sanitize_arrow(
    replies: Any, conversations: Any = None, *, policy: Policy | None = None
) -> pa.StructArray:
    """Sanitise a column of replies; one result per row, in order, as a `StructArray` of
    `RESULT_TYPE` (`text`, `changed`, `findings` as a JSON list).

        table = pyarrow.parquet.read_table("replies.parquet")
        result = sanitize_arrow(table["reply"], table["messages"], policy=policy)
        table.append_column("rendersafe", result)

    `replies` and `conversations` are Arrow arrays (chunked or not) or Python sequences
    of equal length. A conversation cell is a JSON string or a list-of-struct value in
    any chat shape (`rendersafe.shapes`), or null. Each row's text equals
    `Sanitizer(policy).run(reply, conversation=...)`'s; no cell fails the batch (see
    `rendersafe.batch.rows`). One `Sanitizer` per policy serves every batch of this
    process. Raises `ColumnError` when the columns' lengths differ.
    """
    texts = _values(replies)
    cells = _values(conversations) if conversations is not None else None
    if cells is not None and len(cells) != len(texts):
        raise ColumnError(
            f"{len(texts)} replies but {len(cells)} conversations: pass one conversation "
            "per reply (null where there is none)"
        )
    sanitizer = sanitizer_for(policy if policy is not None else _DEFAULT)
    if cells is None:
        rows = [sanitize_row(sanitizer, reply) for reply in texts]
    else:
        rows = [sanitize_row(sanitizer, r, c) for r, c in zip(texts, cells, strict=True)]
    return _struct(rows)


def _values(column: Any) -> Sequence[object]:
    """The Python values of a column (maps as dicts, as chat shapes are read)."""
    if isinstance(column, pa.ChunkedArray | pa.Array):
        return column.to_pylist(maps_as_pydicts="lossy")  # type: ignore[no-any-return]
    if isinstance(column, str | bytes):
        raise ColumnError("a column is a sequence of replies, not one reply: wrap it in a list")
    if isinstance(column, Sequence):
        return column
    if isinstance(column, Iterable):
        return list(column)
    raise ColumnError(f"a column is an Arrow array or a sequence, not {type(column).__name__}")


def _struct(rows: Sequence[Row]) -> pa.StructArray:
    arrays = [
        pa.array([row.text for row in rows], pa.string()),
        pa.array([row.changed for row in rows], pa.bool_()),
        pa.array([row.findings for row in rows], pa.string()),
    ]
    return pa.StructArray.from_arrays(arrays, fields=list(RESULT_TYPE))
