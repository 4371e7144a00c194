"""Streaming cost and latency, measured in one run.

    python benchmarks/bench_stream.py [--rounds R] [--size CHARS]

On each of two corpora (`benchmarks/corpus.py`, today's short answers, and
`benchmarks/modern_corpus.py`, long answers as models write them now; see
bench_sanitize.py), CPU time (`time.process_time`, after a full collection) over R
interleaved rounds,
each side once per round, so that load from other processes favours neither; each
figure is the median and the spread (min-max), each ratio taken round by round:

* cost: the corpus fed in 4-character chunks through `Sanitizer.stream()`, against
  one-shot `Sanitizer.run()` on the same replies (target: <= 1.3x);
* scaling: one long reply (a 16th of the corpus joined) streamed in 64-character
  chunks at 1x and 16x its length (target: 16x the input costs <= 17x the time); the
  1x figure is the mean of 16 streams in one sample (each of its own chunks), so
  both samples run as long and a scheduler's tick weighs on neither more;
* latency: after every chunk, how many characters were received but not yet sent
  (mean and percentiles over all chunks of the corpus).

The streams are timed as a server runs them: fed chunks already cut (as they arrive
off the wire), their output taken, nothing else. The latency is measured in a
separate pass, not timed, that reads `stream.held` after every chunk: that reading
and its bookkeeping are the measurement's cost, not the stream's.

Measured (compiled build, 9f6b8a5, 3 rounds, 2 shared cores): stream / one-shot median
1.34 (1.31-1.36) on today's corpus, 1.12 (1.09-1.14) on the modern one; 16x the input
15.04x the time on today's, 18.22x (17.19-18.28) on the modern one (its long reply is
103 KB, 1.65 MB at 16x); hold-back p99 660 and 3,301 characters.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

import corpus
import modern_corpus
from rendersafe import Policy, Sanitizer
from rendersafe._build import compiled

SCALE = 16  # the scaling sample's factor
# Each corpus, by name: its replies (of about a size) and the policy they are read under.
CORPORA: dict[str, tuple[Callable[[int], list[str]], Policy]] = {
    "today": (corpus.corpus, Policy()),
    "modern": (modern_corpus.corpus, modern_corpus.POLICY),
}


def chunked(replies: list[str], size: int) -> list[list[str]]:
    """Each reply cut in `size`-character chunks, as a server receives them."""
    return [[reply[i : i + size] for i in range(0, len(reply), size)] for reply in replies]


def stream_all(sanitizer: Sanitizer, replies: list[list[str]]) -> None:
    """Stream every reply, chunk by chunk, keeping what each call returns."""
    for chunks in replies:
        stream = sanitizer.stream()
        feed = stream.feed
        out = [feed(chunk) for chunk in chunks]
        out.append(stream.close())


def held_after_each(sanitizer: Sanitizer, replies: list[list[str]]) -> list[int]:
    """The hold-back after every chunk of every reply (the latency; not timed)."""
    held = []
    for chunks in replies:
        stream = sanitizer.stream()
        for chunk in chunks:
            stream.feed(chunk)
            held.append(stream.held)
        stream.close()
    return held


def run_all(sanitizer: Sanitizer, replies: list[str]) -> None:
    for reply in replies:
        sanitizer.run(reply)


def cpu(work: Callable[[], object]) -> float:
    """CPU seconds of one call of `work`, after a full collection."""
    gc.collect()
    start = time.process_time()
    work()
    return time.process_time() - start


def ratio(top: list[float], bottom: list[float]) -> str:
    values = [a / b for a, b in zip(top, bottom, strict=True)]
    return f"median {statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def seconds(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} s ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_500_000, help="corpus size in characters")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", choices=[*CORPORA, "both"], default="both")
    args = parser.parse_args()
    print(f"build: {'compiled (mypyc)' if compiled() else 'interpreted'}")
    for name in CORPORA if args.corpus == "both" else [args.corpus]:
        make, policy = CORPORA[name]
        print(f"\n== {name} corpus")
        measure(make(args.size), policy, args.rounds)


def measure(replies: list[str], policy: Policy, rounds: int) -> None:
    """Print the cost, scaling and latency figures on `replies` read under `policy`."""
    sanitizer = Sanitizer(policy)
    run_all(sanitizer, replies)  # warm: the policy's URL verdicts, as a running service has them
    long_reply = "\n\n".join(replies[: max(1, len(replies) // 16)])
    grown_reply = "\n\n".join([long_reply] * SCALE)
    big = Sanitizer(Policy.model_validate({**policy.model_dump(), "max_input_chars": 10**8}))
    in_fours = chunked(replies, 4)
    # The 1x sample's SCALE streams read chunks of their own, as many objects as the
    # 16x stream reads: one list read 16 times stays in the cache, and flatters it.
    long_chunks = chunked([long_reply] * SCALE, 64)
    grown_chunks = chunked([grown_reply], 64)
    stream_all(big, long_chunks[:1])  # warm, as `sanitizer` is

    one_shot, streamed, base, grown = [], [], [], []
    for _ in range(rounds):
        one_shot.append(cpu(lambda: run_all(sanitizer, replies)))
        streamed.append(cpu(lambda: stream_all(sanitizer, in_fours)))
        base.append(cpu(lambda: stream_all(big, long_chunks)) / SCALE)
        grown.append(cpu(lambda: stream_all(big, grown_chunks)))
    held = held_after_each(sanitizer, in_fours)

    print(f"corpus: {len(replies)} replies, {sum(map(len, replies)) / 1e6:.2f} MB")
    print(f"CPU time over {rounds} interleaved rounds: median (min-max)")
    print(f"one-shot run():        {seconds(one_shot)}")
    print(f"stream, 4-char chunks: {seconds(streamed)}")
    print(f"ratio stream / one-shot: {ratio(streamed, one_shot)}  (target <= 1.3)")
    print(
        f"scaling: {len(long_reply)} chars {seconds(base)} (mean of {SCALE}), 16x {seconds(grown)}"
    )
    print(f"  16x the input: {ratio(grown, base)} the time  (target <= 17)")

    held.sort()
    pct = {p: held[int(len(held) * p / 100)] for p in (50, 90, 99)}
    print(f"hold-back after each chunk: mean {statistics.mean(held):.0f} chars, "
          f"p50 {pct[50]}, p90 {pct[90]}, p99 {pct[99]}, max {held[-1]}")  # fmt: skip


if __name__ == "__main__":
    main()
