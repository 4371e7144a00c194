"""Batch scan throughput with 1 and 2 worker processes, measured in one run, and of
each big export format.

    python benchmarks/bench_scan.py [--mb 4] [--files 8] [--format-mb 2] [--rounds 3]

Writes the corpus of benchmarks/corpus.py as OpenAI-style JSONL transcripts (one
conversation per line: a user turn and the assistant's reply, one in ten an attack)
into `--files` files in a temporary directory, then times `rendersafe.scan.scan` over
them with `jobs=1` and `jobs=2` in interleaved rounds (1 2 1 2 ..., `--rounds` of each
after a warm-up scan), and prints for each the median and range of MB per second of
wall time and of MB per CPU-second (this process's CPU time and that of the workers
it reaped: what the scan costs, whatever else the machine runs), and the speed-up. Then,
for a ChatGPT `conversations.json`, a Claude.ai export, LMSYS JSONL and Hugging Face
Parquet of `--format-mb` MB each (benchmarks/exports.py), the MB scanned per CPU-second
and per second of wall time, of one process.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import exports
from corpus import corpus
from rendersafe.scan import ScanOptions, scan


def write_transcripts(folder: Path, megabytes: float, files: int) -> int:
    """Write the transcripts; return their size in bytes."""
    replies = corpus(int(megabytes * 1_000_000))
    size = 0
    for index in range(files):
        path = folder / f"part-{index:03d}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for number, reply in enumerate(replies[index::files]):
                turns = [
                    {"role": "user", "content": "Summarise this, please."},
                    {"role": "assistant", "content": reply},
                ]
                out.write(json.dumps({"id": f"c{index}-{number}", "messages": turns}) + "\n")
        size += path.stat().st_size
    return size


@dataclass
class Timed:
    """One scan: seconds of wall time and of CPU time, and its findings."""

    wall: float
    cpu: float
    findings: int
    error: str | None = None  # the first input that could not be read


def cpu_seconds() -> float:
    """CPU seconds of this process and of the children it reaped (scan workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed_scan(paths: list[str], jobs: int) -> Timed:
    """One scan of `paths` with `jobs` workers (its pool is shut down, its workers
    reaped, before the CPU time is read)."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    report = scan(paths, ScanOptions(), jobs=jobs)
    error = str(report.errors[0]) if report.errors else None
    return Timed(time.perf_counter() - wall, cpu_seconds() - cpu, report.summary.findings, error)


def spread(values: list[float]) -> str:
    """The median of `values` and their range, as printed."""
    ordered = sorted(values)
    return f"{statistics.median(ordered):.2f} ({ordered[0]:.2f}-{ordered[-1]:.2f})"


def format_rates(folder: Path, megabytes: float) -> list[tuple[str, float, Timed]]:
    """Per big format: its size in MB and its scan, by one process."""
    rates = []
    for kind, suffix in (("chatgpt", "json"), ("claude", "json"), ("lmsys", "jsonl"),
                         ("parquet", "parquet")):  # fmt: skip
        path = folder / f"{kind}.{suffix}"
        try:
            size = exports.write(kind, path, int(megabytes * 1e6))
        except ImportError:  # no pyarrow
            continue
        run = timed_scan([str(path)], 1)
        if run.error is not None:
            raise SystemExit(f"{kind}: {run.error}")
        rates.append((kind, size / 1e6, run))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=4.0, help="corpus size in MB")
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--format-mb", type=float, default=2.0, help="MB of each export format")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of each")
    args = parser.parse_args()
    runs: dict[int, list[Timed]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        size = write_transcripts(folder, args.mb, args.files)
        paths = [str(path) for path in sorted(folder.glob("*.jsonl"))]
        timed_scan(paths, 1)  # warm: imports, the suffix list, first parses
        for _ in range(args.rounds):
            for jobs, done in runs.items():
                done.append(timed_scan(paths, jobs))
        rates = format_rates(folder, args.format_mb)
    found = {run.findings for done in runs.values() for run in done}
    if len(found) != 1:
        raise SystemExit(f"the scans disagree on the findings: {sorted(found)}")
    mb = size / 1e6
    print(f"transcripts: {args.files} files, {mb:.2f} MB, {found.pop()} findings")
    print(f"interleaved rounds: {args.rounds} of each (medians, with their range)")
    for jobs, done in runs.items():
        wall = spread([mb / run.wall for run in done])
        cpu = spread([mb / run.cpu for run in done])
        seconds = spread([run.wall for run in done])
        print(f"jobs={jobs}: {seconds} s  {wall} MB/s  {cpu} MB per CPU-second")
    speedups = [one.wall / two.wall for one, two in zip(runs[1], runs[2], strict=True)]
    print(f"speed-up with 2 jobs: {spread(speedups)}x  (2 cores; ideal 2.0)")
    for kind, megabytes, run in rates:
        print(
            f"{kind:8} {megabytes:6.2f} MB  {megabytes / run.cpu:5.2f} MB per CPU-second  "
            f"{megabytes / run.wall:5.2f} MB/s  ({run.findings} findings)"
        )


if __name__ == "__main__":
    main()
