"""Streaming cost and latency, measured in one run.

    python benchmarks/bench_stream.py

* cost: the corpus fed in 4-character chunks through `Sanitizer.stream()`, against
  one-shot `Sanitizer.run()` on the same replies (target: <= 2x);
* scaling: one long reply (the corpus joined) streamed at 1x and 16x its length
  (target: 16x the input costs <= ~17x the time);
* latency: after every chunk, how many characters were received but not yet sent
  (mean and percentiles over all chunks of the corpus).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from corpus import corpus
from rendersafe import Policy, Sanitizer


def stream_all(sanitizer: Sanitizer, replies: list[str], size: int) -> list[int]:
    """Stream every reply in `size`-character chunks; return the hold-back after each."""
    held = []
    for reply in replies:
        stream = sanitizer.stream()
        for i in range(0, len(reply), size):
            stream.feed(reply[i : i + size])
            held.append(stream.held)
        stream.close()
    return held


def timed(work: Callable[[], object]) -> float:
    """Wall time of one call."""
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_500_000, help="corpus size in characters")
    args = parser.parse_args()
    replies = corpus(args.size)
    sanitizer = Sanitizer()
    sanitizer.run("warm up")

    one_shot = timed(lambda: [sanitizer.run(r) for r in replies])
    held: list[int] = []
    streamed = timed(lambda: held.extend(stream_all(sanitizer, replies, 4)))
    print(f"corpus: {len(replies)} replies, {sum(map(len, replies)) / 1e6:.2f} MB")
    print(f"one-shot run():        {one_shot:6.2f} s")
    print(f"stream, 4-char chunks: {streamed:6.2f} s")
    print(f"ratio stream / one-shot: {streamed / one_shot:.2f}  (target <= 2)")

    long_reply = "\n\n".join(replies[: max(1, len(replies) // 16)])
    big = Sanitizer(Policy(max_input_chars=10**9))
    base = timed(lambda: stream_all(big, [long_reply], 64))
    grown = timed(lambda: stream_all(big, ["\n\n".join([long_reply] * 16)], 64))
    print(f"scaling: {len(long_reply)} chars {base:.2f} s, 16x {grown:.2f} s: "
          f"{grown / base:.1f}x the time for 16x the input  (target <= ~17)")  # fmt: skip

    held.sort()
    pct = {p: held[int(len(held) * p / 100)] for p in (50, 90, 99)}
    print(f"hold-back after each chunk: mean {statistics.mean(held):.0f} chars, "
          f"p50 {pct[50]}, p90 {pct[90]}, p99 {pct[99]}, max {held[-1]}")  # fmt: skip


if __name__ == "__main__":
    main()
