"""What the conversation adds to `Sanitizer.run`, in instructions: a figure load on the
machine does not move.

    python benchmarks/conversation_instructions.py      # needs valgrind

CPU time on a shared machine moves by a third between samples (see
bench_conversation.py), so this counts the instructions each workload executes under
`valgrind --tool=callgrind` (hash seed fixed), one process per workload, minus a
process that only sets up: the same replies with and without a 20 KB conversation, as
bench_conversation.py's wired cases. Instructions are not time (cache misses are not
counted): read it beside the CPU figures, not instead of them.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import bench_conversation as bench
from corpus import corpus
from rendersafe import Sanitizer

PAIRS = (
    ("one chat's turns, 40 replies", "plain-chat", "chat"),
    ("each reply a new chat, 40 replies", "plain", "new-chat"),
    ("a 4 KB reply with 36 links, new chat, x5", "links", "links-new-chat"),
)


def workload(name: str) -> None:
    """Run one workload in this process (the child side)."""
    typical = corpus(200_000)[40:80]
    twenty = bench.conversation(20_000)
    text = bench.links_reply()
    Sanitizer().run(typical[0], conversation=twenty)  # imports and first-use caches
    bench.cold()
    if name == "plain-chat":
        bench.run_plain_chat(Sanitizer(), typical)
    elif name == "chat":
        bench.run_chat(Sanitizer(), typical, twenty)
    elif name == "plain":
        bench.run_all(Sanitizer(), typical)
    elif name == "new-chat":
        bench.run_with(Sanitizer(), typical, twenty)
    for _ in range(5 if name.startswith("links") else 0):
        if name == "links":
            bench.run_all(Sanitizer(), [text])
        else:
            bench.run_with(Sanitizer(), [text], twenty)


def count(name: str) -> int:
    """Instructions of one workload's process, under callgrind."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        sys.executable, __file__, "--workload", name,
    ]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from callgrind for {name}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.workload:
        workload(args.workload)
        return
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing measured")
        return
    names = ["setup", *{n for _, plain, wired in PAIRS for n in (plain, wired)}]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        counts = dict(zip(names, pool.map(count, names), strict=True))
    base = counts["setup"]
    for label, plain, wired in PAIRS:
        a, b = counts[plain] - base, counts[wired] - base
        print(
            f"{label}: +{(b / a - 1) * 100:.1f} % instructions ({a / 1e6:.0f} M -> {b / 1e6:.0f} M)"
        )


if __name__ == "__main__":
    main()
