"""Batch scan throughput with 1 and 2 worker processes, measured in one run, and of
each big export format.

    python benchmarks/bench_scan.py [--mb 4] [--files 8] [--format-mb 2]

Writes the corpus of benchmarks/corpus.py as OpenAI-style JSONL transcripts (one
conversation per line: a user turn and the assistant's reply, one in ten an attack)
into `--files` files in a temporary directory, then times `rendersafe.scan.scan` over
them with `jobs=1` and `jobs=2`, and prints MB/s for each and the speed-up. Then, for
a ChatGPT `conversations.json`, a Claude.ai export, LMSYS JSONL and Hugging Face
Parquet of `--format-mb` MB each (benchmarks/exports.py), the MB scanned per CPU-second
of one process.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
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


def timed_scan(folder: Path, jobs: int) -> tuple[float, int]:
    """Seconds for one scan of `folder` with `jobs` workers, and its findings."""
    start = time.perf_counter()
    report = scan([str(folder)], ScanOptions(), jobs=jobs)
    return time.perf_counter() - start, report.summary.findings


def format_rates(folder: Path, megabytes: float) -> list[tuple[str, float, float, int]]:
    """Per big format: its size in MB, MB per CPU-second of one process, findings."""
    rates = []
    for kind, suffix in (("chatgpt", "json"), ("claude", "json"), ("lmsys", "jsonl"),
                         ("parquet", "parquet")):  # fmt: skip
        path = folder / f"{kind}.{suffix}"
        try:
            size = exports.write(kind, path, int(megabytes * 1e6))
        except ImportError:  # no pyarrow
            continue
        start = time.process_time()
        report = scan([str(path)], ScanOptions(), jobs=1)
        cpu = time.process_time() - start
        if report.errors:
            raise SystemExit(f"{kind}: {report.errors[0]}")
        rates.append((kind, size / 1e6, size / 1e6 / cpu, report.summary.findings))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=4.0, help="corpus size in MB")
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--format-mb", type=float, default=2.0, help="MB of each export format")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        size = write_transcripts(folder, args.mb, args.files)
        timed_scan(folder, 1)  # warm: imports, the suffix list, first parses
        one, found_one = timed_scan(folder, 1)
        two, found_two = timed_scan(folder, 2)
        rates = format_rates(folder, args.format_mb)
    if found_one != found_two:
        raise SystemExit(f"jobs=2 found {found_two}, jobs=1 {found_one}: they must agree")
    mb = size / 1e6
    print(f"transcripts: {args.files} files, {mb:.2f} MB, {found_one} findings")
    print(f"jobs=1: {one:.2f} s  {mb / one:.2f} MB/s")
    print(f"jobs=2: {two:.2f} s  {mb / two:.2f} MB/s")
    print(f"speed-up with 2 jobs: {one / two:.2f}x  (2 cores; ideal 2.0)")
    for kind, megabytes, rate, found in rates:
        print(f"{kind:8} {megabytes:6.2f} MB  {rate:5.2f} MB per CPU-second  ({found} findings)")


if __name__ == "__main__":
    main()
