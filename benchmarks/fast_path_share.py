"""What share of each corpus the fast path certifies, and what sends the rest to the pass.

    python benchmarks/fast_path_share.py [--size CHARS]

Counts characters, not time, so the figures hold on a busy machine: every unit
`units.fast.certified` is asked about, on both corpora (see bench_sanitize.py), and
each unit it refuses is put under the first of the fast path's conditions it fails,
in the order `fast._plain` tests them ("other": the URLs or angles it judged).

Measured on the compiled build at 9f6b8a5 (before any fast-path change):
today's corpus 98.8 % certified; the modern corpus 32.9 % (backslash 25.5 %,
`]:` 23.5 %, `<` 15.0 %, other 2.9 %, image 0.2 %). At 29a784d (2026-12-07): today's
98.8 %, the modern corpus 97.0 % (backslash 1.9 %, `<` 0.7 %, image 0.3 %).
"""

from __future__ import annotations

import argparse
from collections import Counter

from bench_sanitize import CORPORA
from rendersafe import Sanitizer
from rendersafe.engine.carry import Carry, Delta
from rendersafe.judging import Judge
from rendersafe.units import angles, fast


def refusal(text: str, carry: Carry) -> str:
    """The first fast-path condition `text` fails (after `carry`), in the order
    `fast._plain` and `fast._certified` test them."""
    if fast._label_uses(text, carry) is None:
        return "may use a label"
    if "]:" in text and (
        carry.labels_overflowed
        or not fast._defines_nothing(text)
        or (carry.image_labels and fast._may_label_an_image(text, carry.image_labels))
    ):
        return "]: definition"
    if "![" in text:
        return "image"
    if "\\" in text:
        return "backslash"
    return "<" if "<" in text and angles.autolinks(text) is None else "other"


def shares(replies: list[str], sanitizer: Sanitizer) -> Counter[str]:
    """Characters certified and, by reason, refused, over every unit of `replies`."""
    counts: Counter[str] = Counter()
    original = fast.certified

    def counted(text: str, carry: Carry, judge: Judge) -> Delta | None:
        delta = original(text, carry, judge)
        counts["certified" if delta is not None else refusal(text, carry)] += len(text)
        return delta

    fast.certified = counted
    try:
        for reply in replies:
            sanitizer.run(reply)
    finally:
        fast.certified = original
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_500_000, help="corpus size in characters")
    args = parser.parse_args()
    for name, (make, policy) in CORPORA.items():
        replies = make(args.size)
        total = sum(map(len, replies))
        counts = shares(replies, Sanitizer(policy))
        print(f"{name}: {counts.pop('certified', 0) / total:.1%} of characters certified")
        for reason, count in counts.most_common():
            print(f"  to the pass, {reason:16} {count / total:6.1%}")


if __name__ == "__main__":
    main()
