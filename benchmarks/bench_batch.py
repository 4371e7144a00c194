"""Lake-scale sanitising: rows per second per core of `rendersafe.batch.sanitize_arrow`,
of the per-record paths (`Sanitizer.run` row by row, and `rendersafe scan` of the same
chats), and of Spark, Ray and DuckDB on 1 and 2 workers; every result checked against
`Sanitizer.run` row by row.

    python benchmarks/bench_batch.py [--rows 100000] [--engines arrow,scan,...]
                                     [--workers 1,2] [--lake DIR] [--no-verify]

Writes the lake of benchmarks/lake_data.py (`--rows` replies with their conversations,
kept in `--lake` if given, and reused when it holds as many rows), then runs, one after
the other and each in a fresh process (no run inherits another's warm caches):

    reference  `Sanitizer.run(reply, conversation=messages)` per row: the per-record path
               of a caller, and the results every other run must equal
    arrow      `sanitize_arrow` over the file's record batches (10,000 rows each)
    scan       `rendersafe scan` of chats.parquet (the same chats, the reply as the last
               message: the scanner's per-record path), one process
    spark      `sanitize_udf` in Spark local[N], written as Parquet
    ray        `Sanitize` on N Ray actors (`map_batches(..., batch_format="pyarrow")`),
               written as Parquet
    duckdb     `rendersafe_sanitize(reply, messages)` with DuckDB's `threads` = N, COPY
               to Parquet (its Python functions hold the GIL: expect no gain from N)
    duckdb-pool  the same with `register(..., processes=N)`: each vector sanitised in
               one of N worker processes while DuckDB's thread waits without the GIL

The one-process paths are timed in CPU seconds as well as wall seconds (a busy machine
slows the wall clock, not the CPU a row costs); the engines by wall time from the job's
start to its output on disk (their start-up is printed apart). Per core = rows per
second / workers. The load average is printed before and after each run: on a shared
machine the engines' figures are a floor.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

import lake_data
from rendersafe import Policy, Sanitizer
from rendersafe._build import compiled
from rendersafe.batch import sanitize_arrow
from rendersafe.scan import ScanOptions, scan

POLICY = Policy()
BATCH_ROWS = 10_000  # Spark's Arrow batch size, used for the one-process Arrow path too
ENGINES = ("arrow", "scan", "spark", "ray", "duckdb", "duckdb-pool")
SETTLE_SECONDS = 10


@dataclass
class Timed:
    """One run: rows, wall seconds, CPU seconds (None: not of one process), workers, and
    where its results are (None: not per row)."""

    name: str
    rows: int
    wall: float
    cpu: float | None
    workers: int = 1
    output: Path | None = None
    note: str = ""  # what happened before the clock started (an engine's start-up)
    wrong: int | None = None  # rows unlike the reference (None: not checked)

    def line(self) -> str:
        """The run as one printed line."""
        per_core = self.rows / self.wall / self.workers
        cpu = f"{self.rows / self.cpu:6.0f} rows per CPU-s" if self.cpu else " " * 20
        checked = "" if self.wrong is None else f"  {self.wrong} rows unlike the reference"
        return (
            f"{self.name:11} x{self.workers} {self.wall:7.1f} s {self.rows / self.wall:6.0f} rows/s"
            f" {per_core:6.0f} per core {cpu}{checked}"
        )


@contextmanager
def clock(name: str, rows: int, workers: int = 1, *, cpu: bool = True) -> Iterator[Timed]:
    """Time the block; the `Timed` is filled in when it ends."""
    timed = Timed(name, rows, 0.0, None, workers)
    wall, used = time.perf_counter(), time.process_time()
    yield timed
    timed.wall = time.perf_counter() - wall
    timed.cpu = time.process_time() - used if cpu else None


def _batches(lake: lake_data.Lake) -> Iterator[pa.RecordBatch]:
    source = pq.ParquetFile(lake.replies)
    return source.iter_batches(BATCH_ROWS, columns=["id", "reply", "messages"])  # type: ignore[no-any-return]


def reference(lake: lake_data.Lake, out: Path) -> Timed:
    """Each row through `Sanitizer.run`; the results written to `out`."""
    sanitizer = Sanitizer(POLICY)
    ids, texts, changed, findings = [], [], [], []
    with clock("reference", lake.rows) as timed:
        for batch in _batches(lake):
            for row in batch.to_pylist():
                result = sanitizer.run(row["reply"], conversation=row["messages"])
                ids.append(row["id"])
                texts.append(result.text)
                changed.append(result.text != row["reply"])
                findings.append([f.model_dump(mode="json") for f in result.findings])
    found = {"text": texts, "changed": changed, "findings": [json.dumps(f) for f in findings]}
    table = pa.table({"id": ids, "rendersafe": pa.StructArray.from_arrays(
        [pa.array(v) for v in found.values()], names=list(found))})  # fmt: skip
    timed.output = out / "reference.parquet"
    pq.write_table(table, timed.output)
    return timed


def arrow(lake: lake_data.Lake, out: Path) -> Timed:
    """`sanitize_arrow` a record batch at a time."""
    ids, results = [], []
    with clock("arrow", lake.rows) as timed:
        for batch in _batches(lake):
            results.append(sanitize_arrow(batch["reply"], batch["messages"], policy=POLICY))
            ids.append(batch["id"])
    timed.output = out / "arrow.parquet"
    table = pa.table({"id": pa.chunked_array(ids), "rendersafe": pa.chunked_array(results)})
    pq.write_table(table, timed.output)
    return timed


def scanned(lake: lake_data.Lake, out: Path) -> Timed:
    """`rendersafe scan` of the same chats, one process (its report is not per row)."""
    with clock("scan", lake.rows) as timed:
        report = scan([str(lake.chats)], ScanOptions(policy=POLICY), jobs=1)
    if report.errors:
        raise SystemExit(f"scan: {report.errors[0]}")
    return timed


def on_spark(lake: lake_data.Lake, out: Path, workers: int) -> Timed:
    """`sanitize_udf` on Spark local[workers], written as Parquet."""
    from pyspark.sql import SparkSession  # noqa: PLC0415  (an optional extra)

    from rendersafe.integrations.spark import sanitize_udf  # noqa: PLC0415

    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers run this interpreter
    size = lake.replies.stat().st_size
    started = time.perf_counter()
    session = (
        SparkSession.builder.master(f"local[{workers}]")
        .config("spark.ui.enabled", "false")
        # Ten splits per worker, rounded up so that no eleventh, smaller one is left over
        # for a single core to finish alone (the lake's row groups are equal: 100 of them).
        .config("spark.sql.files.maxPartitionBytes", str(max(-(-size // (10 * workers)), 1 << 20)))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    note = f"session started in {time.perf_counter() - started:.1f} s"
    target = out / f"spark-{workers}"
    frame = session.read.parquet(str(lake.replies))
    udf = sanitize_udf(POLICY)
    try:
        with clock("spark", lake.rows, workers, cpu=False) as timed:
            result = frame.select("id", udf("reply", "messages").alias("rendersafe"))
            result.write.parquet(str(target))
    finally:
        session.stop()
    timed.output, timed.note = target, note
    return timed


def on_ray(lake: lake_data.Lake, out: Path, workers: int) -> Timed:
    """`Sanitize` on `workers` Ray actors, written as Parquet."""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only
    import ray  # noqa: PLC0415  (an optional extra)
    import ray.data  # noqa: PLC0415

    from rendersafe.integrations.ray import Sanitize  # noqa: PLC0415

    started = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    # Blocks of about a thousand replies: Ray Data 2.60 reads this lake in five blocks of
    # up to 32,000 rows (`override_num_blocks` is not honoured), and two actors sharing
    # three large blocks leave one idle for a third of the run (1.30x at 128 MiB, 1.81x).
    context.target_max_block_size = 4 << 20
    note = f"cluster started in {time.perf_counter() - started:.1f} s"
    target = out / f"ray-{workers}"
    try:
        with clock("ray", lake.rows, workers, cpu=False) as timed:
            dataset = ray.data.read_parquet(str(lake.replies))
            dataset.map_batches(
                Sanitize,
                fn_constructor_kwargs={
                    "policy": POLICY,
                    "conversation": "messages",
                    "keep": ["id"],
                },
                batch_format="pyarrow",
                zero_copy_batch=True,  # the actor reads the block in place, copies nothing
                concurrency=workers,
                num_cpus=0.5,  # leaves Ray a CPU to list and write files (two cores run all)
            ).write_parquet(str(target))
    finally:
        ray.shutdown()
    timed.output, timed.note = target, note
    return timed


def on_duckdb(lake: lake_data.Lake, out: Path, workers: int, *, pooled: bool = False) -> Timed:
    """`rendersafe_sanitize` in DuckDB with `threads` = workers, COPY to Parquet; pooled,
    with as many worker processes, started on the clock."""
    import duckdb  # noqa: PLC0415  (an optional extra)

    from rendersafe.integrations.duckdb import register  # noqa: PLC0415

    name = "duckdb-pool" if pooled else "duckdb"
    con = duckdb.connect()
    con.execute(f"SET threads TO {workers}")
    con.execute("SET enable_progress_bar = false")
    target = out / f"{name}-{workers}.parquet"
    query = (
        "COPY (SELECT id, rendersafe_sanitize(reply, messages) AS rendersafe "
        f"FROM read_parquet('{lake.replies}')) TO '{target}' (FORMAT parquet)"
    )
    with clock(name, lake.rows, workers, cpu=False) as timed:
        pool = register(con, POLICY, processes=workers if pooled else None)
        con.execute(query)
    con.close()
    if pool is not None:
        pool.close()
    timed.output = target
    return timed


def on_duckdb_pool(lake: lake_data.Lake, out: Path, workers: int) -> Timed:
    """`on_duckdb` with `register(..., processes=workers)`."""
    return on_duckdb(lake, out, workers, pooled=True)


ONE_PROCESS: dict[str, Callable[[lake_data.Lake, Path], Timed]] = {
    "reference": reference,
    "arrow": arrow,
    "scan": scanned,
}
ENGINE_RUNS: dict[str, Callable[[lake_data.Lake, Path, int], Timed]] = {
    "spark": on_spark,
    "ray": on_ray,
    "duckdb": on_duckdb,
    "duckdb-pool": on_duckdb_pool,
}


def measure(name: str, lake: lake_data.Lake, out: Path, workers: int) -> Timed:
    """One run, in the process this is called in (a fresh one: see `in_fresh_process`)."""
    sanitize_arrow(["warm-up ![x](https://e.example/x.png)"], policy=POLICY)  # imports, lists
    if name in ONE_PROCESS:
        return ONE_PROCESS[name](lake, out)
    return ENGINE_RUNS[name](lake, out, workers)


def in_fresh_process(name: str, lake: lake_data.Lake, out: Path, workers: int) -> Timed:
    """`measure` in a new interpreter, so no run inherits another's caches."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=spawn) as pool:
        return pool.submit(measure, name, lake, out, workers).result()


def wrong_rows(output: Path, expected: dict[str, dict[str, Any]]) -> int:
    """How many rows of `output` (id, rendersafe) differ from the reference's."""
    table = pq.read_table(output, columns=["id", "rendersafe"])
    wrong: int = abs(len(expected) - table.num_rows)
    for rid, got in zip(table["id"].to_pylist(), table["rendersafe"].to_pylist(), strict=True):
        want = expected[rid]
        same = (got["text"], got["changed"]) == (want["text"], want["changed"])
        wrong += not same or json.loads(got["findings"]) != json.loads(want["findings"])
    return int(wrong)


def load() -> str:
    """The load average, as printed."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def the_lake(rows: int, folder: Path) -> lake_data.Lake:
    """The lake in `folder`, written unless it is there with `rows` rows already."""
    lake = lake_data.Lake(folder / "replies.parquet", folder / "chats.parquet", rows)
    if lake.chats.exists() and pq.ParquetFile(lake.replies).metadata.num_rows == rows:
        return lake
    started = time.perf_counter()
    lake = lake_data.write(folder, rows)
    print(f"wrote {rows} chats in {time.perf_counter() - started:.1f} s")
    return lake


def run(args: argparse.Namespace, folder: Path, out: Path) -> list[Timed]:
    """Every run the arguments ask for, each printed as it ends."""
    lake = the_lake(args.rows, folder)
    out.mkdir(parents=True, exist_ok=True)
    size = lake.replies.stat().st_size / 1e6
    print(f"{lake.rows} replies with conversations, {size:.0f} MB of Parquet; {load()}")
    print(f"{os.cpu_count()} cores; the per-chunk modules compiled: {compiled()}")
    plan = [("reference", 1)] + [
        (name, workers)
        for name in args.engines
        for workers in (args.workers if name in ENGINE_RUNS else [1])
    ]
    runs: list[Timed] = []
    expected = None
    for name, workers in plan:
        if runs:  # the last run's output written back and its engine's processes gone
            os.sync()  # (Ray's daemons outlive `ray.shutdown()` by seconds), not on this clock
            time.sleep(SETTLE_SECONDS)
        before = load()
        timed = in_fresh_process(name, lake, out, workers)
        if name == "reference" and args.verify and timed.output is not None:
            expected = _by_id(timed.output)
        elif expected is not None and timed.output is not None:
            timed.wrong = wrong_rows(timed.output, expected)
        note = f"; {timed.note}" if timed.note else ""
        print(f"{timed.line()}   ({before} -> {load()}{note})", flush=True)
        runs.append(timed)
    return runs


def _by_id(output: Path) -> dict[str, dict[str, Any]]:
    table = pq.read_table(output)
    return dict(zip(table["id"].to_pylist(), table["rendersafe"].to_pylist(), strict=True))


def summary(runs: list[Timed]) -> None:
    """The comparisons the issue asks for; exits non-zero if any row differs."""
    by = {(r.name, r.workers): r for r in runs}
    arrow, scanner = by.get(("arrow", 1)), by.get(("scan", 1))
    if arrow and scanner and arrow.cpu and scanner.cpu:
        ratio = (arrow.rows / arrow.cpu) / (scanner.rows / scanner.cpu)
        print(f"arrow / scan, rows per CPU-second: {ratio:.2f}x (at least 1.0 wanted)")
    for name in ENGINE_RUNS:
        one, two = by.get((name, 1)), by.get((name, 2))
        if one and two:
            print(f"{name}: 2 workers {one.wall / two.wall:.2f}x one (1.7 wanted on 2 cores)")
    alone, pooled = by.get(("duckdb", 1)), by.get(("duckdb-pool", 2))
    if alone and pooled:
        print(f"duckdb-pool x2 / duckdb x1 (in-process): {alone.wall / pooled.wall:.2f}x")
    wrong = sum(r.wrong or 0 for r in runs)
    if wrong:
        raise SystemExit(f"{wrong} rows differ from Sanitizer.run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--lake", type=Path, help="keep the lake here (reused if it fits)")
    parser.add_argument("--no-verify", dest="verify", action="store_false")
    args = parser.parse_args()
    args.engines = [e for e in args.engines.split(",") if e]
    args.workers = [int(w) for w in args.workers.split(",")]
    unknown = set(args.engines) - set(ENGINES)
    if unknown:
        parser.error(f"unknown engines: {sorted(unknown)}")
    scratch = Path(tempfile.mkdtemp(prefix="rendersafe-bench-batch-"))
    try:
        runs = run(args, args.lake or scratch / "lake", scratch / "out")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    summary(runs)


if __name__ == "__main__":
    main()
