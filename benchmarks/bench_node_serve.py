"""What one long-lived `render.mjs --serve` saves over one Node.js process per batch.

    PYTHONPATH=src python benchmarks/bench_node_serve.py [--cases 200] [--rounds 3]

The same sanitised soup (benchmarks/fuzz_soup.py's cases 0..N-1 of seed 1) is rendered
by every JavaScript renderer, and by the healers at 48 sampled prefixes, two ways: as
tests/soup.py's `node` does (one process for the whole outputs, one for the prefixes,
a batch of N each), and through benchmarks/node_server.py (one request per renderer and
output, each answer read as it comes). Prints the CPU seconds (this process and Node.js)
and wall seconds of each way, median and spread over interleaved rounds.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_soup import Settings
from node_server import NodeServer
from rendersafe import Sanitizer
from soup import PREFIXES, node, prefix_cuts


def batched(outputs: list[str]) -> None:
    """Both batches, as `soup.js_problems` renders them."""
    node(list(outputs))
    node([{"text": o, "cuts": prefix_cuts(o, PREFIXES)} for o in outputs], "--prefixes")


def served(outputs: list[str]) -> None:
    """Each output through one long-lived server (started here: its start-up counts)."""
    server = NodeServer(timeout=60.0)
    for output in outputs:
        server.render(output, server.renderers)
        server.render(output, server.healing, prefix_cuts(output, PREFIXES))
    server.close()


def measure(way: Callable[[list[str]], None], outputs: list[str]) -> tuple[float, float]:
    """CPU seconds (this process and the children it waited for) and wall seconds."""
    before, wall = _cpu(), time.monotonic()
    way(outputs)
    return _cpu() - before, time.monotonic() - wall


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    """Interleaved rounds of both ways; medians and spreads."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    sanitizer, settings = Sanitizer(), Settings(seed=1)
    outputs = [sanitizer.run(settings.case(i)[0]).text for i in range(args.cases)]
    ways = {"one process per batch": batched, "render.mjs --serve": served}
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, way in ways.items():
            figures[name].append(measure(way, outputs))
    for name, rounds in figures.items():
        cpu, wall = [r[0] for r in rounds], [r[1] for r in rounds]
        print(
            f"{name:22s} {args.cases} outputs: CPU {statistics.median(cpu):6.1f} s "
            f"({min(cpu):.1f}-{max(cpu):.1f}), wall {statistics.median(wall):6.1f} s "
            f"({min(wall):.1f}-{max(wall):.1f}), {args.rounds} rounds"
        )


if __name__ == "__main__":
    main()
