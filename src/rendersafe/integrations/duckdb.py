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
conversation leaves its reply judged without one.

A Python function runs under the GIL: one core's worth, whatever DuckDB's thread count.
With `processes=N`, each vector is sanitised in one of N spawned worker processes while
the DuckDB thread that called waits with the GIL released, so `SET threads TO N` runs N
vectors at once (`rendersafe.batch.pool`); close the pool `register` returns when done:

    with register(con, policy, processes=2):
        con.execute("SET threads TO 2")
        con.sql("COPY (SELECT id, rendersafe_sanitize(reply, messages) ...) TO ...")
"""

from __future__ import annotations

import functools
from typing import Any

import pyarrow as pa

from ..batch import ColumnError, sanitize_arrow
from ..batch.pool import ProcessPool
from ..policy import Policy

__all__ = ["FUNCTION", "RESULT_SQL", "register"]

FUNCTION = "rendersafe_sanitize"
# `rendersafe.batch.RESULT_TYPE` as DuckDB declares it.
RESULT_SQL = "STRUCT(text VARCHAR, changed BOOLEAN, findings VARCHAR)"


def register(
    con: Any, policy: Policy | None = None, *, name: str = FUNCTION, processes: int | None = None
) -> ProcessPool | None:
    """Register `name(reply[, conversation])` on the DuckDB connection `con`, sanitising
    under `policy` (the default policy if None): in DuckDB's own threads, one at a time,
    or with `processes=N` in N worker processes, whose `ProcessPool` is returned (close
    it, or use it as a context manager, when the connection is done)."""
    pool = ProcessPool(policy, processes=processes) if processes is not None else None
    run = pool if pool is not None else functools.partial(sanitize_arrow, policy=policy)

    # DuckDB reads the parameters from the signature: varargs alone register `name(ANY...)`.
    def sanitize(*columns: pa.ChunkedArray) -> pa.Array:
        if len(columns) not in (1, 2):
            raise ColumnError(f"{name}(reply[, conversation]) takes one or two arguments")
        return run(*columns)

    con.create_function(
        name, sanitize, None, RESULT_SQL, type="arrow", null_handling="special", side_effects=False
    )
    return pool
