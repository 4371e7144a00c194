"""Long-run fuzzing: soup from every ingredient, through rendersafe, then every renderer.

    python benchmarks/fuzz_soup.py --cases 200000 --seed 1 [--js] [--out failures.jsonl]
        [--ingredients brackets,backticks,...]   (only these classes of tests/soup.py)

For each case: sanitise (never a `SanitizeError`), render the output with every Python
renderer (and, with --js, every JavaScript renderer in tests/js, in batches), and check
that nothing is fetched off the allowlist, no script URL and no event handler survive,
the output is idempotent, streaming in random chunks equals the one-shot run, and the
output and findings are the same with the fast path forced off (`fast path != pass`). With
--js, a sample of the output's prefixes (a stream's client renders each prefix it gets)
is also healed by remend and rendered, as Streamdown does (`... (prefix)` classes).
Prints the count per class of failure and writes each failing input to --out.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))

from rendersafe import Sanitizer  # noqa: E402
from soup import FAMILIES, INGREDIENTS, page_problems, pick, problems  # noqa: E402

S = Sanitizer()
# The same sanitiser with the fast path (src/rendersafe/units/fast.py) forced off: each
# case's output and findings must be the same with it on (`S`) and off.
SLOW = Sanitizer()
SLOW.units.fast_path = False
# Prefixes healed and rendered per case: cuts next to punctuation, where healing
# differs, then a few anywhere.
PREFIXES = 48
_PLAIN = re.compile(r"\w")


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


def prefix_cuts(text: str, count: int = PREFIXES) -> list[int]:
    """A bounded sample of the proper prefixes of `text` a healing client could render
    (drawn from the text alone, so runs that differ only in some outputs compare)."""
    rng = random.Random(text)
    cuts = range(1, len(text))
    near = [c for c in cuts if not (_PLAIN.match(text[c - 1]) and _PLAIN.match(text[c]))]
    picked = rng.sample(near, min(len(near), count * 3 // 4))
    rest = sorted(set(cuts) - set(picked))
    return sorted(picked + rng.sample(rest, min(len(rest), count - len(picked))))


def _node(inputs: list[object], *flags: str) -> list[dict[str, object]]:
    done = subprocess.run(
        ["node", str(TESTS / "js" / "render.mjs"), *flags],
        input=json.dumps(inputs), capture_output=True, text=True, check=True, timeout=3600,
    )  # fmt: skip
    pages: list[dict[str, object]] = json.loads(done.stdout)
    return pages


def js_failures(outputs: list[str], count: int = PREFIXES) -> list[list[str]]:
    """The JavaScript renderers' problems for each output, and the healing renderers'
    on a sample of its prefixes, in one Node.js process each."""
    whole = _node(list(outputs))
    sampled = [{"text": o, "cuts": prefix_cuts(o, count)} for o in outputs]
    healed = _node(list(sampled), "--prefixes")
    found = []
    for page, prefixes in zip(whole, healed, strict=True):
        problems = [p for name, html in page.items() for p in page_problems(str(html), name)]
        for name, htmls in prefixes.items():
            assert isinstance(htmls, list)
            problems += [p for html in htmls for p in page_problems(html, f"{name} (prefix)")]
        found.append(problems)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--js", action="store_true", help="also the JavaScript renderers")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--ingredients", default=None, help="comma-separated classes")
    parser.add_argument(
        "--prefixes", type=int, default=PREFIXES, help="healed prefixes sampled per case (--js)"
    )
    args = parser.parse_args()
    names = tuple(args.ingredients.split(",")) if args.ingredients else FAMILIES
    unknown = set(names) - set(INGREDIENTS)
    if unknown:
        parser.error(f"unknown ingredients {sorted(unknown)}; known: {', '.join(INGREDIENTS)}")
    rng, counts, start = random.Random(args.seed), Counter[str](), time.process_time()
    failing: list[dict[str, object]] = []
    batch: list[tuple[str, str]] = []
    for _ in range(args.cases):
        text = case(rng, names)
        found = check(text, rng)
        counts.update(set(found))
        if found:
            failing.append({"input": text, "failures": sorted(set(found))})
        if args.js:
            batch.append((text, S.run(text).text))
        if len(batch) >= 500 or (batch and _ == args.cases - 1):
            for (text_in, _out), js in zip(
                batch, js_failures([o for _t, o in batch], args.prefixes), strict=True
            ):
                classes = {p.split(" <")[0] for p in js}
                counts.update(classes)
                if classes:
                    failing.append({"input": text_in, "failures": sorted(classes)})
            batch = []
    seconds = time.process_time() - start
    print(f"{args.cases} cases in {seconds:.0f} s CPU, {len(failing)} failing")
    for name, count in counts.most_common():
        print(f"  {count:7d}  {name}")
    if args.out is not None:
        args.out.write_text("".join(json.dumps(f) + "\n" for f in failing), encoding="utf-8")


if __name__ == "__main__":
    main()
