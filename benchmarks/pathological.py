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
}


def seconds(sanitizer: Sanitizer, text: str) -> float:
    """Wall time of one run."""
    start = time.perf_counter()
    sanitizer.run(text)
    return time.perf_counter() - start


def main(size: int = 12_500) -> None:
    """Print the table."""
    sanitizer = Sanitizer(Policy(max_input_chars=10 * size * 4))
    print(f"{'pattern':16} {'n':>8} {'t(n)':>8} {'t(4n)':>8} {'ratio':>6}")
    for name, unit in PATTERNS.items():
        small = unit * (size // len(unit))
        large = unit * (4 * size // len(unit))
        t_small, t_large = seconds(sanitizer, small), seconds(sanitizer, large)
        ratio = t_large / t_small if t_small else float("nan")
        print(f"{name:16} {len(small):8} {t_small:8.3f} {t_large:8.3f} {ratio:6.1f}")


if __name__ == "__main__":
    main()
