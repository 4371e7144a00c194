"""`rendersafe.integrations.duckdb.register` on a real DuckDB: the lake's Parquet file
(tests/lake_cases.py) queried with `rendersafe_sanitize(reply, messages)` equals
`Sanitizer.run` row by row, with conversations as lists of structs and as JSON text;
NULLs, numbers and broken cells each get a result; the same with the rows sanitised in
worker processes (`processes=2`), which run two of DuckDB's threads at once.

Skipped without duckdb, unless REQUIRE_DUCKDB_TEST=1 (.ci/run sets it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from lake_cases import EVIL, POLICY, bad_rows, lake, mismatches
from rendersafe import sanitize
from rendersafe.batch import PLACEHOLDER

REQUIRED = os.environ.get("REQUIRE_DUCKDB_TEST") == "1"
if not REQUIRED and importlib.util.find_spec("duckdb") is None:
    pytest.skip(
        "needs duckdb: pip install 'rendersafe[duckdb]' (done by .ci/run)",
        allow_module_level=True,
    )
import duckdb  # noqa: E402  (after the skip above)

from rendersafe.batch.pool import _Worker  # noqa: E402  (after the skip above)
from rendersafe.integrations.duckdb import register  # noqa: E402  (after the skip above)


@pytest.fixture(params=[None, 2], ids=["in-process", "processes=2"])
def con(request: pytest.FixtureRequest) -> Iterator[Any]:
    connection = duckdb.connect()
    pool = register(connection, POLICY, processes=request.param)
    connection.execute(f"SET threads TO {request.param or 1}")
    yield connection
    connection.close()
    if pool is not None:
        pool.close()


def test_in_process_there_is_no_pool_to_close() -> None:
    assert register(duckdb.connect(), POLICY) is None


def test_worker_processes_serve_two_threads_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both DuckDB threads are inside the function together: each call waits on its
    worker with the GIL released."""
    inside, most = 0, 0
    lock = threading.Lock()
    run = _Worker.run

    def counting(worker: _Worker, *columns: Any) -> Any:
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        try:
            return run(worker, *columns)
        finally:
            with lock:
                inside -= 1

    monkeypatch.setattr(_Worker, "run", counting)
    connection = duckdb.connect()
    pool = register(connection, POLICY, processes=2)
    assert pool is not None
    with pool:
        connection.execute("SET threads TO 2")
        rows = connection.execute(
            "SELECT id, rendersafe_sanitize(reply, messages) FROM read_parquet(?) ORDER BY id",
            [str(lake().replies)],
        ).fetchall()
    assert mismatches([r[0] for r in rows], [r[1] for r in rows]) == []
    assert most == 2


@pytest.mark.parametrize("column", ["messages", "conversation"])
def test_the_lake_equals_sanitize_row_by_row(con: Any, column: str) -> None:
    path = str(lake().replies)
    rows = con.execute(
        f"SELECT id, rendersafe_sanitize(reply, {column}) FROM read_parquet(?) ORDER BY id",
        [path],
    ).fetchall()
    assert len(rows) == lake().rows
    assert mismatches([r[0] for r in rows], [r[1] for r in rows]) == []


def test_one_argument_and_sql_values(con: Any) -> None:
    (row,) = con.execute(
        "SELECT rendersafe_sanitize(?), rendersafe_sanitize(NULL), rendersafe_sanitize(42),"
        " rendersafe_sanitize(?, NULL)",
        [EVIL, EVIL],
    ).fetchall()
    alone, null, number, no_conversation = row
    assert alone["text"] == no_conversation["text"] == sanitize(EVIL)
    assert null == {"text": None, "changed": False, "findings": "[]"}
    assert number["text"] == PLACEHOLDER


def test_bad_cells_each_get_a_result(con: Any) -> None:
    con.execute("CREATE TABLE bad (n INTEGER, reply VARCHAR, conversation VARCHAR)")
    con.executemany("INSERT INTO bad VALUES (?, ?, ?)", [(n, *c) for n, c in enumerate(bad_rows())])
    rows = con.execute(
        "SELECT rendersafe_sanitize(reply, conversation) FROM bad ORDER BY n"
    ).fetchall()
    assert len(rows) == len(bad_rows())
    assert rows[1][0]["text"] == PLACEHOLDER
    assert all(isinstance(json.loads(r[0]["findings"]), list) for r in rows)


def test_the_findings_read_as_json_in_sql(con: Any) -> None:
    (row,) = con.execute(
        "SELECT (rendersafe_sanitize(?).findings::JSON)->0->>'construct'", [EVIL]
    ).fetchall()
    assert row == ("image",)


def test_three_arguments_are_refused(con: Any) -> None:
    with pytest.raises(duckdb.Error, match="takes one or two arguments"):
        con.execute("SELECT rendersafe_sanitize('a', 'b', 'c')").fetchall()
