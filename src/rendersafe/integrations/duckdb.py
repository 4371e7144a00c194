"""`register`: rendersafe as a DuckDB SQL function (`pip install 'rendersafe[duckdb]'`).

    import duckdb
    from rendersafe.integrations.duckdb import register

    con = duckdb.connect()
    register(con, policy)
    con.sql('''
        SELECT id, s.text, s.findings::JSON AS findings
        FROM (SELECT id, rendersafe_sanitize(reply, messages) AS s
              FROM 'chats/*.parquet')
        WHERE s.changed
    ''')

`rendersafe_sanitize(reply)` and `rendersafe_sanitize(reply, conversation)` return a
STRUCT(text, changed, findings) per row, as `rendersafe.batch.sanitize_arrow` gives
them; the conversation may be a JSON string or a list of structs in any chat shape.
DuckDB hands the function Arrow vectors (2,048 rows each); nulls reach it, so a null
conversation leaves its reply judged without one. Python functions run under the GIL:
one core's worth, whatever DuckDB's thread count (docs/lake.md).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..batch import ColumnError, sanitize_arrow
from ..policy import Policy

__all__ = ["FUNCTION", "RESULT_SQL", "register"]

FUNCTION = "rendersafe_sanitize"
# `rendersafe.batch.RESULT_TYPE` as DuckDB declares it.
RESULT_SQL = "STRUCT(text VARCHAR, changed BOOLEAN, findings VARCHAR)"


def register(con: Any, policy: Policy | None = None, *, name: str = FUNCTION) -> None:
    """Register `name(reply[, conversation])` on the DuckDB connection `con`, sanitising
    under `policy` (the default policy if None)."""

    # DuckDB reads the parameters from the signature: varargs alone register `name(ANY...)`.
    def sanitize(*columns: pa.ChunkedArray) -> pa.Array:
        if len(columns) not in (1, 2):
            raise ColumnError(f"{name}(reply[, conversation]) takes one or two arguments")
        return sanitize_arrow(*columns, policy=policy)

    con.create_function(
        name, sanitize, None, RESULT_SQL, type="arrow", null_handling="special", side_effects=False
    )
