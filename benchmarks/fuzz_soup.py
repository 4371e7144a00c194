"""Long-run fuzzing: soup from every ingredient, through rendersafe, then every renderer.

    python benchmarks/fuzz_soup.py --cases 200000 --seed 1 [--js] [--out failures.jsonl]
        [--ingredients brackets,backticks,...]   (only these families of tests/soup.py)
        [--prefixes N] [--every N]

The soup picks a family of ingredients, then one of its ingredients, up to 40 times:
the families of tests/soup.py, issue 34's among them (raw HTML in containers,
declarations, fetching elements, split hosts, `www.`, image titles) and every
construct holding a URL in the renderers' own test suites (`suites`).

For each case: sanitise (never a `SanitizeError`), render the output with every Python
renderer (and, with --js, every JavaScript renderer in tests/js, in batches), and check
that nothing is fetched off the allowlist, no script URL and no event handler survive,
the output is idempotent, streaming in random chunks equals the one-shot run, and the
output and findings are the same with the fast path forced off (`fast path != pass`). With
--js, a sample of the output's prefixes (a stream's client renders each prefix it gets)
is also healed by remend and rendered, as Streamdown does (`... (prefix)` classes).
Prints the count per class of failure and writes each failing input to --out as it
is found; `--every N` prints progress. Chromium on a sample: benchmarks/chromium_sample.py.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TextIO

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from rendersafe import Sanitizer  # noqa: E402
from soup import FAMILIES, INGREDIENTS, PREFIXES, js_problems, pick, problems  # noqa: E402

S = Sanitizer()
# The same sanitiser with the fast path (src/rendersafe/units/fast.py) forced off: each
# case's output and findings must be the same with it on (`S`) and off.
SLOW = Sanitizer()
SLOW.units.fast_path = False


def case(rng: random.Random, families: tuple[str, ...] = FAMILIES) -> str:
    """One soup of up to 40 ingredients."""
    return "".join(pick(rng, families) for _ in range(rng.randint(1, 40)))


def check(text: str, rng: random.Random) -> list[str]:
    """The classes of failure of one case (Python renderers)."""
    try:
        result = S.run(text)
    except Exception as exc:
        return [f"refused: {type(exc).__name__}"]
    output = result.text
    failures = [
        p.split(":")[0] + ": " + p.split(": ", 1)[1].split(" <")[0] for p in problems(output)
    ]
    if S.units.fast_path and SLOW.run(text) != result:
        failures.append("fast path != pass")
    if S.run(output).text != output:
        failures.append("not idempotent")
    stream, size, sent = S.stream(), rng.randint(1, 9), ""
    try:
        for start in range(0, len(text), size):
            sent += stream.feed(text[start : start + size])
        sent += stream.close()
    except Exception as exc:
        return [*failures, f"stream refused: {exc}"]
    if sent != output:
        failures.append("stream != one-shot")
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--js", action="store_true", help="also the JavaScript renderers")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--ingredients", default=None, help="comma-separated classes")
    parser.add_argument("--every", type=int, default=0, help="print progress every N cases")
    parser.add_argument(
        "--prefixes", type=int, default=PREFIXES, help="healed prefixes sampled per case (--js)"
    )
    args = parser.parse_args()
    names = tuple(args.ingredients.split(",")) if args.ingredients else FAMILIES
    unknown = set(names) - set(INGREDIENTS)
    if unknown:
        parser.error(f"unknown ingredients {sorted(unknown)}; known: {', '.join(INGREDIENTS)}")
    rng, counts, start = random.Random(args.seed), Counter[str](), time.process_time()
    out = args.out.open("w", encoding="utf-8") if args.out is not None else None
    failing, batch = 0, list[str]()
    for done in range(1, args.cases + 1):
        text = case(rng, names)
        found = set(check(text, rng))
        if args.js:
            batch.append(text)
        if len(batch) >= 500 or (batch and done == args.cases):
            failing += _js_batch(batch, args.prefixes, counts, out)
            batch = []
        counts.update(found)
        failing += _record(out, text, found)
        if args.every and done % args.every == 0:
            print(f"... {done} cases, {failing} failing", file=sys.stderr, flush=True)
    seconds = time.process_time() - start
    print(f"{args.cases} cases in {seconds:.0f} s CPU, {failing} failing")
    for name, count in counts.most_common():
        print(f"  {count:7d}  {name}")
    if out is not None:
        out.close()


def _js_batch(texts: list[str], prefixes: int, counts: Counter[str], out: TextIO | None) -> int:
    """Render a batch of outputs with the JavaScript renderers; count and record."""
    failing = 0
    outputs = [S.run(t).text for t in texts]
    for text, found in zip(texts, js_problems(outputs, prefixes=prefixes), strict=True):
        classes = {p.split(" <")[0] for p in found}
        counts.update(classes)
        failing += _record(out, text, classes)
    return failing


def _record(out: TextIO | None, text: str, failures: set[str]) -> int:
    """Write a failing case to `out` as it is found; 1 when it failed."""
    if not failures:
        return 0
    if out is not None:
        out.write(json.dumps({"input": text, "failures": sorted(failures)}) + "\n")
        out.flush()
    return 1


if __name__ == "__main__":
    main()
