"""Sanitising cost relative to the floor: parsing the reply once with markdown-it-py.

    python benchmarks/bench_sanitize.py

Both sides are timed in this one run, on the same corpus (benchmarks/corpus.py),
reply by reply, best of several repeats. "parse" is markdown-it-py with the
configuration rendersafe uses (CommonMark + tables + strikethrough) and nothing
else; "sanitize" is `Sanitizer().run()` on each reply. The ratio is the number to
watch: the README states it and the target is <= 1.5.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from markdown_it import MarkdownIt

from corpus import corpus
from rendersafe import Sanitizer


def best_of(repeats: int, work: Callable[[], object]) -> float:
    """The fastest of `repeats` runs, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_500_000, help="corpus size in characters")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    replies = corpus(args.size)
    total = sum(map(len, replies))
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    linkify = MarkdownIt("commonmark", {"linkify": True}).enable(
        ["linkify", "table", "strikethrough"]
    )
    sanitizer = Sanitizer()
    sanitizer.run("warm up ![x](https://example.com/x.png)")

    parse = best_of(args.repeats, lambda: [md.parse(r) for r in replies])
    parse_linkify = best_of(args.repeats, lambda: [linkify.parse(r) for r in replies])
    sanitize = best_of(args.repeats, lambda: [sanitizer.run(r) for r in replies])
    changed = sum(1 for r in replies if sanitizer.run(r).findings)

    print(f"corpus: {len(replies)} replies, {total / 1e6:.2f} MB, {changed} changed by sanitize")
    mb = total / 1e6
    print(f"parse only (markdown-it-py, same config): {parse:6.3f} s  {mb / parse:5.2f} MB/s")
    print(f"parse with linkify (as many clients do):  {parse_linkify:6.3f} s")
    print(f"sanitize (Sanitizer.run):                 {sanitize:6.3f} s  {mb / sanitize:5.2f} MB/s")
    print(f"ratio sanitize / parse: {sanitize / parse:.2f}  (target <= 1.5)")
    print(f"ratio sanitize / parse with linkify: {sanitize / parse_linkify:.2f}")


if __name__ == "__main__":
    main()
