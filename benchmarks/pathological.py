"""Hostile inputs scale linearly: time each pattern at n and 4n characters.

    python benchmarks/pathological.py

Prints, per pattern, the seconds at both sizes and their ratio: a linear cost
gives about 4, a quadratic one 16. Timing stays out of the test suite; the
suite checks these inputs finish and come out safe.
"""

from __future__ import annotations

import time

from rendersafe import Policy, Sanitizer

EVIL = "![x](https://evil.example/x.png)"
PATTERNS = {
    "[": "[",
    "![[": "![[",
    "[](": "[](",
    "](( ": "]((",
    "**_* ": "**_* ",
    "backticks": "`",
    "<": "<",
    "&": "&",
    '<a x="': '<a x="',
    "http://": "http://",
    "nested quotes": ">",
    "list markers": "- ",
    "quote lines": "> >\n",
    "unclosed titles": '[](a "b "c "d) ',
    "image flood": EVIL + " ",
    "link flood": "[a](https://e.example/?d=aGVsbG8gd29ybGQgdGhpcyBpcyBhIHNlY3JldA) ",
    "table row": "| x ",
    "<<<": "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<< x ",
    "&amp;": "&amp;",
    "<&amp;": "<&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp; ",
    "<<&amp;1": "<<&amp;&amp;1",
    "<img a=1": "<img " + "a=1 " * 40 + "> ",
    "attribute run": " a=1",
    "split destinations": "![s](ht\n",
    "split titles": '![s](ht\n"t\n',
    "autolink lines": "<https://e.example/\n",
    "nested dests": "[](",
}
# A run after one opener, and a run that closes what the pattern opened.
OPENER = {"attribute run": "<img"}
NESTED = {"nested dests": ")"}


def seconds(sanitizer: Sanitizer, text: str, repeat: int = 3) -> float:
    """Best wall time of `repeat` runs."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        sanitizer.run(text)
        best = min(best, time.perf_counter() - start)
    return best


def flood(name: str, size: int) -> str:
    """`size` characters of the pattern (a nested one closes what it opened)."""
    unit, closer = PATTERNS[name], NESTED.get(name, "")
    count = size // (len(unit) + len(closer))
    return OPENER.get(name, "") + unit * count + closer * count


def main(size: int = 12_500) -> None:
    """Print the table, and the worst ratio."""
    sanitizer = Sanitizer(Policy(max_input_chars=10 * size * 4))
    print(f"{'pattern':18} {'n':>8} {'t(n)':>8} {'t(4n)':>8} {'ratio':>6}")
    worst = ("", 0.0)
    for name in PATTERNS:
        small, large = flood(name, size), flood(name, 4 * size)
        t_small, t_large = seconds(sanitizer, small), seconds(sanitizer, large)
        ratio = t_large / t_small if t_small else float("nan")
        worst = max(worst, (name, ratio), key=lambda w: w[1])
        print(f"{name:18} {len(small):8} {t_small:8.3f} {t_large:8.3f} {ratio:6.1f}")
    print(f"worst: {worst[0]} {worst[1]:.1f}")


if __name__ == "__main__":
    main()
