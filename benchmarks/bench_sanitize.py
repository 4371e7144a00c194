"""Sanitising cost relative to the floor: parsing the reply once with markdown-it-py.

    python benchmarks/bench_sanitize.py [--rounds R] [--size CHARS]

All sides are measured in this one run, on each of two corpora: today's short answers
(`benchmarks/corpus.py`, default policy) and long answers as models write them now
(`benchmarks/modern_corpus.py`: footnotes, reference definitions, raw HTML with
attributes, escapes, math, about 50 URLs a reply; under its `POLICY`, which allows
its images), each as
CPU time (`time.process_time`, after a full collection) over R interleaved rounds
(parse, sanitize, parse, sanitize, ...), so that load from other processes neither
shows up as time nor favours one side; each line prints the median and the spread
(min-max), and each ratio is taken round by round.

- "parse" is markdown-it-py with the configuration rendersafe uses (CommonMark +
  tables + strikethrough) and nothing else, its tokens dropped after each reply, as a
  client that renders and moves on does (keeping every reply's tokens alive makes the
  collector the floor's cost: that is "parse, tokens kept", printed for comparison);
- "parse with linkify" is the configuration many chat clients use;
- "sanitize" is `Sanitizer().run()` on each reply.

Targets: sanitize / parse at most 0.7 on both corpora (issue 14: faster than the parse
a client does anyway; issue 37: on replies as models write them now too); it was 1.5
before issue 14.

Measured (compiled build, 9f6b8a5, 5 rounds, 2 shared cores): today's corpus
sanitize / parse median 0.58 (0.54-0.61); the modern corpus 1.98 (1.86-2.04), where the
fast path certifies 32.9 % of the characters (`fast_path_share.py`) against 98.8 %.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

from markdown_it import MarkdownIt

import corpus
import modern_corpus
from rendersafe import Policy, Sanitizer
from rendersafe._build import compiled

# Each corpus, by name: its replies (of about a size) and the policy they are read under.
CORPORA: dict[str, tuple[Callable[[int], list[str]], Policy]] = {
    "today": (corpus.corpus, Policy()),
    "modern": (modern_corpus.corpus, modern_corpus.POLICY),
}


def cpu(work: Callable[[], object]) -> float:
    """CPU seconds of one call of `work`, after a full collection."""
    gc.collect()
    start = time.process_time()
    work()
    return time.process_time() - start


def each(parse: Callable[[str], object], replies: list[str]) -> Callable[[], None]:
    """`parse` every reply, keeping nothing."""

    def work() -> None:
        for reply in replies:
            parse(reply)

    return work


def spread(values: list[float]) -> str:
    """Seconds: the median and the range."""
    return f"{statistics.median(values):7.3f} s  ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_500_000, help="corpus size in characters")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", choices=[*CORPORA, "both"], default="both")
    args = parser.parse_args()
    print(f"build: {'compiled (mypyc)' if compiled() else 'interpreted'}")
    for name in CORPORA if args.corpus == "both" else [args.corpus]:
        make, policy = CORPORA[name]
        print(f"\n== {name} corpus")
        measure(make(args.size), Sanitizer(policy), args.rounds)


def measure(replies: list[str], sanitizer: Sanitizer, rounds: int) -> None:
    """Print every side's CPU time on `replies`, and the ratios, over `rounds` rounds."""
    total = sum(map(len, replies))
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    linkify = MarkdownIt("commonmark", {"linkify": True}).enable(
        ["linkify", "table", "strikethrough"]
    )
    for reply in replies:  # warm: the policy's URL verdicts, as a running service has them
        sanitizer.run(reply)
    sides: dict[str, Callable[[], object]] = {
        "parse": each(md.parse, replies),
        "parse, tokens kept": lambda: [md.parse(r) for r in replies],
        "parse with linkify": each(linkify.parse, replies),
        "sanitize": each(sanitizer.run, replies),
    }
    samples: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, work in sides.items():
            samples[name].append(cpu(work))

    changed = sum(1 for r in replies if sanitizer.run(r).findings)
    print(f"corpus: {len(replies)} replies, {total / 1e6:.2f} MB, {changed} changed by sanitize")
    print(f"CPU time over {rounds} interleaved rounds: median (min-max)")
    for name, values in samples.items():
        rate = total / 1e6 / statistics.median(values)
        print(f"  {name:20} {spread(values)}  {rate:5.2f} MB/s")
    for floor, target in (("parse", "target <= 0.7"), ("parse with linkify", "")):
        ratios = [s / p for s, p in zip(samples["sanitize"], samples[floor], strict=True)]
        note = f"; {target}" if target else ""
        print(f"ratio sanitize / {floor}: {_ratio(ratios)}{note}")
    kept = [k / p for k, p in zip(samples["parse, tokens kept"], samples["parse"], strict=True)]
    print(f"ratio parse tokens kept / dropped: {_ratio(kept)}")


def _ratio(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


if __name__ == "__main__":
    main()
