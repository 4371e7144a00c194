"""The peer's bypass suite through every renderer and healer: the table.

    PYTHONPATH=src python benchmarks/peer_bypass.py [--prefixes N] [--raw]

Each of the 165 attempts (tests/peer_suite.py) is sanitised under the default policy
and under the peer's own image hosts; the output must be safe under every Python
renderer, every JavaScript renderer and every healer (remend before remark,
markdown-it, marked and micromark), the healers at every prefix (`--prefixes N`: a
sample of N), settle (a second run changes nothing) and stream in random chunks to
the one-shot output; no attempt may be refused. Prints one row per policy and class
of failure, and exits 1 on any. `--raw` renders the attempts unsanitised instead
(what the suite leaks without rendersafe).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from peer_suite import attempts, image_hosts, sanitizers  # noqa: E402
from rendersafe import Sanitizer  # noqa: E402
from soup import js_problems, problems  # noqa: E402


def settles(sanitizer: Sanitizer, name: str, text: str, output: str) -> list[str]:
    """The classes of failure of the run itself: not idempotent, stream != one-shot."""
    found = []
    if sanitizer.run(output).text != output:
        found.append("not idempotent")
    stream, size, sent = sanitizer.stream(), random.Random(name).randint(1, 9), ""
    for start in range(0, len(text), size):
        sent += stream.feed(text[start : start + size])
    if sent + stream.close() != output:
        found.append("stream != one-shot")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefixes", type=int, default=None, help="healed prefixes (all)")
    parser.add_argument("--raw", action="store_true", help="render the attempts unsanitised")
    args = parser.parse_args()
    cases = list(attempts())
    total = 0
    for policy, sanitizer in sanitizers().items():
        hosts, counts, outputs = image_hosts(policy), Counter[str](), []
        for name, text in cases:
            if args.raw:
                outputs.append(text)
                continue
            try:
                output = sanitizer.run(text).text
            except Exception as exc:  # a refusal is a failure, counted
                counts[f"refused: {type(exc).__name__}"] += 1
                output = ""
            outputs.append(output)
            counts.update(settles(sanitizer, name, text, output))
        for output in outputs:
            counts.update({p.split(" <")[0] for p in problems(output, hosts)})
        for found in js_problems(outputs, hosts, prefixes=args.prefixes):
            counts.update({p.split(" <")[0] for p in found})
        total += sum(counts.values())
        print(f"{policy}: {len(cases)} attempts, {sum(counts.values())} failures")
        for failure, count in counts.most_common():
            print(f"  {count:5d}  {failure}")
    return 1 if total and not args.raw else 0


if __name__ == "__main__":
    sys.exit(main())
