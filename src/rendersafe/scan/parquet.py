"""Hugging Face datasets' Parquet files: each row a record (`messages`,
`conversations` or `conversation` columns, as in JSONL). An optional extra:
`pip install 'rendersafe[parquet]'` (pyarrow).

A fixed copy is a new Parquet file of the same schema (its metadata kept) and
compression, with only the judged texts of the rows changed; batches with nothing to
change are written as they were read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Any

from ..errors import RenderSafeError

__all__ = ["ParquetMissingError", "scan_parquet"]

_BATCH_ROWS = 256  # rows held at once


class ParquetMissingError(RenderSafeError):
    """pyarrow is not installed: the file cannot be read."""


def scan_parquet(
    data: IO[bytes], out: IO[bytes] | None, judge: Callable[[dict[str, Any], int], bool]
) -> int:
    """Pass each row of `data` to `judge(row, number)` (which may change its texts);
    write the rows to `out` if given; return the file's size."""
    try:
        import pyarrow as pa  # noqa: PLC0415  (an optional extra)
        import pyarrow.parquet as pq  # noqa: PLC0415
    except ImportError:
        raise ParquetMissingError(
            "a Parquet file: reading it needs pyarrow (pip install 'rendersafe[parquet]'); not read"
        ) from None
    source = pq.ParquetFile(data)
    schema = source.schema_arrow
    writer = None
    if out is not None:
        writer = pq.ParquetWriter(pa.PythonFile(out, mode="w"), schema, compression=_codec(source))
    number = 0
    try:
        for batch in source.iter_batches(batch_size=_BATCH_ROWS):
            rows = batch.to_pylist()
            changed = False
            for row in rows:
                number += 1
                changed |= judge(row, number)
            if writer is not None:
                table = pa.Table.from_pylist(rows, schema=schema) if changed else None
                writer.write_table(table or pa.Table.from_batches([batch], schema=schema))
    finally:
        if writer is not None:
            writer.close()
    return int(data.seek(0, 2))


def _codec(source: Any) -> str:
    metadata = source.metadata
    if metadata.num_row_groups and metadata.num_columns:
        return str(metadata.row_group(0).column(0).compression).lower()
    return "snappy"
