"""Shrink failing fuzz cases to the few characters that still fail, for fixtures.

    PYTHONPATH=src python benchmarks/minimise_failures.py failures.jsonl [--out min.jsonl]

Reads the failing inputs `benchmarks/fuzz_soup.py --out` wrote and, for each, removes
ever smaller runs of characters while the sanitised output still fails in the same
renderer (delta debugging), under whichever rendersafe is on the path: point
PYTHONPATH at an older tree to shrink the failures it had. A failure under a Python
renderer is checked in this process; one under a JavaScript renderer or healer with
Node.js, in batches. Writes one JSON object per line: the shrunk input and its
failures, deduplicated; prints how many.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from renderers import RENDERERS  # noqa: E402
from rendersafe import Sanitizer  # noqa: E402
from soup import js_problems, problems  # noqa: E402

S = Sanitizer()
Fails = Callable[[list[str]], list[bool]]


def renderer_of(failure: str) -> str:
    """The renderer a failure class names (`marked: fetches x` -> `marked`)."""
    return failure.split(":", maxsplit=1)[0].removesuffix(" (prefix)")


def failing_in(renderers: set[str], *, js: bool) -> Fails:
    """Which texts, sanitised, still fail in one of `renderers`."""

    def fails(texts: list[str]) -> list[bool]:
        outputs = [_sanitised(t) for t in texts]
        found = js_problems(outputs, prefixes=8) if js else [problems(o) for o in outputs]
        return [any(renderer_of(p) in renderers for p in f) for f in found]

    return fails


def _sanitised(text: str) -> str:
    try:
        return S.run(text).text
    except Exception:
        return ""


def shrink(text: str, fails: Fails) -> str:
    """`text` with every run removed that it still fails without (ddmin by halves)."""
    size = max(1, len(text) // 2)
    while size >= 1:
        starts = list(range(0, len(text), size))
        candidates = [text[:s] + text[s + size :] for s in starts]
        verdicts = fails(candidates) if candidates else []
        smaller = next((c for c, v in zip(candidates, verdicts, strict=True) if v), None)
        if smaller is not None:
            text = smaller
            size = min(size, max(1, len(text) // 2))
        else:
            size //= 2
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("failures", type=Path)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    shrunk: dict[str, list[str]] = {}
    for line in args.failures.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        renderers = {renderer_of(f) for f in case["failures"] if ":" in f}
        js = not renderers <= set(RENDERERS)
        fails = failing_in(renderers, js=js)
        if not renderers or not fails([case["input"]])[0]:
            continue  # not a renderer's failure, or it no longer fails here
        text = shrink(case["input"], fails)
        shrunk.setdefault(text, sorted(case["failures"]))
    lines = [json.dumps({"input": t, "failures": f}) + "\n" for t, f in shrunk.items()]
    if args.out is not None:
        args.out.write_text("".join(lines), encoding="utf-8")
    print(f"{len(shrunk)} shrunk cases")


if __name__ == "__main__":
    main()
