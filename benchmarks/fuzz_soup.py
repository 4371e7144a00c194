"""Long-run fuzzing: soup from every ingredient, through rendersafe, then every renderer.

    python benchmarks/fuzz_soup.py --cases 200000 --seed 1 [--js] [--jobs 2]
        [--out failures.jsonl] [--every 1000] [--first INDEX] [--only INDEX]
        [--ingredients brackets,backticks,...]   (only these families of tests/soup.py)
        [--inputs cases.jsonl] [--prefixes N] [--renderer-timeout SECONDS]

The soup picks a family of ingredients, then one of its ingredients, up to 40 times:
the families of tests/soup.py, issue 34's among them (raw HTML in containers,
declarations, fetching elements, split hosts, `www.`, image titles), every
construct holding a URL in the renderers' own test suites (`suites`), and what a
browser's parser does that Markdown does not model (`html_parser`, `raw_text`), Unicode
that readers drop or fold (`unicode`), every form of reference definition
(`definitions_more`) and the renderers' extensions (`extensions`). Case `i` of seed
`s` is drawn from `random.Random(f"{s}/{i}")` alone, so it is the same whatever
`--jobs` and `--first` are, and `--only i` replays it (printing every problem in full).
`--inputs` checks the `input` of each line of a JSON-lines file (`--out`'s, or
benchmarks/minimise_failures.py's) instead of soup.

For each case: sanitise (never a `SanitizeError`), render the output with every Python
renderer (and, with --js, every JavaScript renderer in tests/js), and check that
nothing is fetched off the allowlist, no script URL and no event handler survive, the
output is idempotent, streaming in random chunks equals the one-shot run, and the output
and findings are the same with the fast path forced off (`fast path != pass`). With
--js, a sample of the output's prefixes (a stream's client renders each prefix it gets)
is also healed by remend and rendered, as Streamdown does (`... (prefix)` classes).
The checks are benchmarks/fuzz_case.py's. `--jobs N` checks the cases in N worker
processes, each with one long-lived `node tests/js/render.mjs --serve`
(benchmarks/node_server.py).

Each render has `--renderer-timeout` seconds (10): commonmark.py's and commonmark.js's
link-title regexes backtrack for minutes on some replies. A renderer past its time is
counted apart (`renderer timeout: <name> (raw input too | only after rendersafe)`, after
rendering the unsanitised input too), never as a failure, and the run goes on; the
sanitiser past it is a failure. Prints each failing case's index as it is found, then
the count per class and the cases' digest (equal for equal cases), and writes each
failing or timed-out case to --out with its seed and index. Exit status 1 when a case
failed. Chromium on a sample: benchmarks/chromium_sample.py.

Throughput (2026-12-05, the shared two-core machine at load 3-6.6, --js, 48 prefixes):
72-95 ms of CPU a case; --jobs 2: 26-27 cases/s in the best 3,000-case chunks (about 2
hours for 200,000 on two quiet cores); details in docs/design/second-line-measured.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import queue
import random
import resource
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_case import Checker, Outcome
from soup import FAMILIES, INGREDIENTS, PREFIXES, pick


def case(rng: random.Random, families: tuple[str, ...] = FAMILIES) -> str:
    """One soup of up to 40 ingredients."""
    return "".join(pick(rng, families) for _ in range(rng.randint(1, 40)))


@dataclass(frozen=True)
class Settings:
    """What every worker needs to draw and check its cases."""

    seed: int
    families: tuple[str, ...] = FAMILIES
    js: bool = False
    prefixes: int = PREFIXES
    timeout: float = 10.0
    inputs: tuple[str, ...] | None = None

    def case(self, index: int) -> tuple[str, int]:
        """Case `index`: its text and its stream's chunk size, from its own RNG."""
        rng = random.Random(f"{self.seed}/{index}")
        text = case(rng, self.families) if self.inputs is None else self.inputs[index]
        return text, rng.randint(1, 9)

    def checker(self) -> Checker:
        """A checker for one worker."""
        return Checker(js=self.js, prefixes=self.prefixes, timeout=self.timeout)


@dataclass
class Tally:
    """The counts so far, and the failing cases written to `out` as they come."""

    seed: int
    out: TextIO | None
    failures: Counter[str] = field(default_factory=Counter)
    timeouts: Counter[str] = field(default_factory=Counter)
    failing: int = 0
    timed_out: int = 0
    digests: dict[int, str] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        """Count one case; print and record it when it failed or a renderer timed out."""
        self.digests[outcome.index] = hashlib.sha256(outcome.text.encode()).hexdigest()
        self.failures.update(outcome.failures)
        self.timeouts.update(outcome.timeouts)
        self.failing += bool(outcome.failures)
        self.timed_out += bool(outcome.timeouts)
        if outcome.failures:
            print(f"case {outcome.index} failing: {sorted(outcome.failures)}", file=sys.stderr)
        if outcome.timeouts:
            print(f"case {outcome.index}: {list(outcome.timeouts)}", file=sys.stderr)
        if self.out is not None and (outcome.failures or outcome.timeouts):
            self.out.write(json.dumps(_record(self.seed, outcome)) + "\n")
            self.out.flush()

    def digest(self) -> str:
        """The cases' texts in index order, hashed: equal runs, equal digests."""
        joined = "".join(f"{i}:{d}\n" for i, d in sorted(self.digests.items()))
        return hashlib.sha256(joined.encode()).hexdigest()[:16]


def _record(seed: int, outcome: Outcome) -> dict[str, object]:
    return {
        "seed": seed,
        "index": outcome.index,
        "input": outcome.text,
        "failures": sorted(outcome.failures),
        "problems": list(outcome.problems),
        "timeouts": list(outcome.timeouts),
    }


def outcomes(settings: Settings, indices: range, jobs: int) -> Iterator[Outcome]:
    """Every case of `indices` checked, by `jobs` processes (1: this one), in any order."""
    if jobs == 1:
        checker = settings.checker()
        try:
            for index in indices:
                yield checker.check(index, *settings.case(index))
        finally:
            checker.close()
        return
    context = multiprocessing.get_context("fork")
    results: multiprocessing.Queue[Outcome | str | None] = context.Queue()
    workers = [
        context.Process(target=_work, args=(settings, indices[j::jobs], results), daemon=True)
        for j in range(jobs)
    ]
    for worker in workers:
        worker.start()
    yield from _gather(results, workers)
    for worker in workers:
        worker.join()


def _work(
    settings: Settings, indices: range, results: multiprocessing.Queue[Outcome | str | None]
) -> None:
    """One worker: check `indices`, put each outcome, then None (or what went wrong)."""
    checker = settings.checker()
    try:
        for index in indices:
            results.put(checker.check(index, *settings.case(index)))
    except BaseException as exc:
        results.put(f"worker {os.getpid()} stopped: {exc!r}")
        raise
    finally:
        checker.close()
    results.put(None)


def _gather(
    results: multiprocessing.Queue[Outcome | str | None],
    workers: Sequence[multiprocessing.process.BaseProcess],
) -> Iterator[Outcome]:
    running = len(workers)
    while running:
        try:
            got = results.get(timeout=30)
        except queue.Empty:
            if any(w.exitcode not in (None, 0) for w in workers):
                raise RuntimeError("a worker died without a word") from None
            continue
        if isinstance(got, str):
            raise RuntimeError(got)
        if got is None:
            running -= 1
        else:
            yield got


def cpu_seconds() -> float:
    """User and system time of this process and of the children it waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--cases", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first", type=int, default=0, help="index of the first case")
    p.add_argument("--only", type=int, default=None, help="replay case INDEX alone")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--js", action="store_true", help="also the JavaScript renderers")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--inputs", type=Path, default=None, help="JSON lines; check each `input`")
    p.add_argument("--ingredients", default=None, help="comma-separated classes")
    p.add_argument("--every", type=int, default=0, help="print progress every N cases")
    p.add_argument("--prefixes", type=int, default=PREFIXES, help="healed prefixes per case")
    p.add_argument("--renderer-timeout", type=float, default=10.0, help="seconds per render")
    return p


def settings_of(args: argparse.Namespace, p: argparse.ArgumentParser) -> Settings:
    """Settings from the parsed command line (usage errors exit 2)."""
    names = tuple(args.ingredients.split(",")) if args.ingredients else FAMILIES
    unknown = set(names) - set(INGREDIENTS)
    if unknown:
        p.error(f"unknown ingredients {sorted(unknown)}; known: {', '.join(INGREDIENTS)}")
    if args.jobs < 1 or args.renderer_timeout <= 0:
        p.error("--jobs needs 1 or more, --renderer-timeout a positive number of seconds")
    inputs = None
    if args.inputs is not None:
        lines = args.inputs.read_text(encoding="utf-8").splitlines()
        inputs = tuple(str(json.loads(line)["input"]) for line in lines if line.strip())
    return Settings(args.seed, names, args.js, args.prefixes, args.renderer_timeout, inputs)


def run(argv: list[str] | None = None) -> int:
    """The fuzz run; 0 when no case failed, 1 when one did."""
    p = parser()
    args = p.parse_args(argv)
    settings = settings_of(args, p)
    if args.only is not None:
        return replay(settings, args.only, args.out)
    cases = len(settings.inputs) if settings.inputs is not None else args.cases
    indices = range(args.first, args.first + cases) if settings.inputs is None else range(cases)
    out = args.out.open("w", encoding="utf-8") if args.out is not None else None
    tally, wall, load = Tally(args.seed, out), time.monotonic(), os.getloadavg()
    for done, outcome in enumerate(outcomes(settings, indices, args.jobs), start=1):
        tally.add(outcome)
        if args.every and done % args.every == 0:
            rate = done / (time.monotonic() - wall)
            print(f"... {done} cases, {tally.failing} failing, {rate:.1f}/s", file=sys.stderr)
    if out is not None:
        out.close()
    wall = time.monotonic() - wall
    report(tally, len(indices), wall, (load, os.getloadavg()), args)
    return 1 if tally.failing else 0


def report(
    tally: Tally,
    cases: int,
    wall: float,
    loads: tuple[tuple[float, ...], tuple[float, ...]],
    args: argparse.Namespace,
) -> None:
    """The run's figures, its failures by class and its renderer timeouts."""
    cpu = cpu_seconds()
    what = "every renderer and healer" if args.js else "the Python renderers"
    print(f"{cases} cases (seed {args.seed}, --jobs {args.jobs}, {what}): {tally.failing} failing")
    print(
        f"  {wall:.0f} s wall, {cpu:.0f} s CPU (with workers and Node.js): "
        f"{cases / wall:.1f} cases/s, {cases / max(cpu, 1e-9):.1f} per CPU-second; "
        f"load {loads[0][0]:.2f} -> {loads[1][0]:.2f}"
    )
    print("failures by class:" + ("" if tally.failures else " none"))
    for name, count in sorted(tally.failures.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:7d}  {name}")
    print(f"renderer timeouts (a renderer's own run time, not failures): {tally.timed_out} cases")
    for name, count in sorted(tally.timeouts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {count:7d}  {name}")
    print(f"cases digest: {tally.digest()}")


def replay(settings: Settings, index: int, out: Path | None) -> int:
    """Check case `index` alone and print all it showed; 1 when it failed."""
    text, chunk = settings.case(index)
    checker = settings.checker()
    try:
        outcome = checker.check(index, text, chunk)
    finally:
        checker.close()
    print(f"case {index} of seed {settings.seed} (stream chunks of {chunk}):")
    print(f"  input   {json.dumps(text)}")
    print(f"  digest  {hashlib.sha256(text.encode()).hexdigest()}")
    for line in (*outcome.problems, *outcome.timeouts) or ("no failure, no timeout",):
        print(f"  {line}")
    if out is not None:
        out.write_text(json.dumps(_record(settings.seed, outcome)) + "\n", encoding="utf-8")
    return 1 if outcome.failures else 0


if __name__ == "__main__":
    sys.exit(run())
