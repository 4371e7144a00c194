"""One fuzz case checked in full, each renderer under a timeout (benchmarks/fuzz_soup.py).

    checker = Checker(js=True, prefixes=48, timeout=10.0)
    outcome = checker.check(index, text, chunk)   # an Outcome: problems and timeouts
    checker.close()

The checks are tests/soup.py's: under every Python renderer (and, with `js`, every
JavaScript renderer and healer, and the healers at a sample of the output's prefixes)
nothing is fetched off the allowlist, no script URL and no event handler survive; the
sanitiser refuses nothing, its output is idempotent, a stream in chunks of `chunk`
characters equals the one-shot run, and the output and findings are the same with the
fast path forced off.

A renderer that runs past the timeout is not rendersafe's failure: it is listed apart
(`Outcome.timeouts`), with whether it also runs past it on the unsanitised input (then
the slowness is the renderer's own). The sanitiser running past it is a failure.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from node_server import NodeServer
from renderers import RENDERERS
from rendersafe import Sanitizer
from soup import js_page_problems, page_problems, prefix_cuts

S = Sanitizer()
# The same sanitiser with the fast path (src/rendersafe/units/fast.py) forced off: each
# case's output and findings must be the same with it on (`S`) and off.
SLOW = Sanitizer()
SLOW.units.fast_path = False
RAW_TOO, OURS_ONLY = "raw input too", "only after rendersafe"


class Late(BaseException):
    """The alarm rang: a renderer (or the sanitiser) ran past its time. A BaseException,
    so that no renderer's `except Exception` swallows it."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise `Late` in this (main) thread after `seconds`; the `re` module checks for
    signals as it backtracks, so a runaway regex is interrupted too."""

    def ring(_signum: int, _frame: FrameType | None) -> None:
        raise Late

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass(frozen=True)
class Outcome:
    """What one case showed: `problems` (rendersafe's failures, in full) and `timeouts`
    (renderers that ran past their time, by class)."""

    index: int
    text: str
    problems: tuple[str, ...]
    timeouts: tuple[str, ...]

    @property
    def failures(self) -> frozenset[str]:
        """The classes of failure (`marked: fetches evil.example`, `not idempotent`)."""
        return frozenset(p.split(" <")[0] for p in self.problems)


class Checker:
    """The checks of one worker: its sanitisers and, with `js`, its Node.js server."""

    def __init__(self, *, js: bool, prefixes: int | None, timeout: float) -> None:
        self.prefixes = prefixes
        self.timeout = timeout
        self.node = NodeServer(timeout) if js else None

    def check(self, index: int, text: str, chunk: int) -> Outcome:
        """Every check of one case (`chunk`: the stream's chunk size)."""
        output, problems = self.invariants(text, chunk)
        if output is None:
            return Outcome(index, text, tuple(problems), ())
        pages, late = self.python(output, tuple(RENDERERS))
        problems += [p for name, html in pages.items() for p in page_problems(html, name)]
        timeouts = _timeouts(late, text, output, lambda t, names: self.python(t, names)[1])
        if self.node is not None:
            found, late_js = self.javascript(output)
            problems += found
            timeouts += _timeouts(late_js, text, output, self._javascript_late)
        return Outcome(index, text, tuple(problems), tuple(timeouts))

    def invariants(self, text: str, chunk: int) -> tuple[str | None, list[str]]:
        """The output (None when there is none) and the sanitiser's own failures."""
        try:
            with deadline(self.timeout):
                return _invariants(text, chunk)
        except Late:
            return None, ["sanitiser timeout"]

    def python(self, text: str, names: tuple[str, ...]) -> tuple[dict[str, str], list[str]]:
        """The pages of the Python renderers `names`, and those that ran past their time.
        A renderer that crashes shows nothing (as in tests/soup.py's `problems`)."""
        pages, late = dict[str, str](), list[str]()
        for name in names:
            try:
                with deadline(self.timeout):
                    pages[name] = RENDERERS[name](text)
            except Late:
                late.append(name)
            except Exception:
                continue
        return pages, late

    def javascript(self, output: str) -> tuple[list[str], list[str]]:
        """The JavaScript renderers' and healers' problems with `output`, and the names
        of those that ran past their time (healers at prefixes as `name (prefix)`)."""
        assert self.node is not None
        pages, late = self.node.render(output, self.node.renderers)
        healed, late_healed = self.node.render(output, self.node.healing, self._cuts(output))
        whole = {name: found[0] for name, found in pages.items()}
        problems = js_page_problems(output, whole, healed)
        return problems, late + [f"{name} (prefix)" for name in late_healed]

    def close(self) -> None:
        """Stop the Node.js server (waited for, so its CPU time is counted)."""
        if self.node is not None:
            self.node.close()

    def _cuts(self, output: str) -> list[int]:
        if self.prefixes is None:
            return list(range(len(output) + 1))
        return prefix_cuts(output, self.prefixes)

    def _javascript_late(self, text: str, names: tuple[str, ...]) -> list[str]:
        assert self.node is not None
        whole = tuple(n for n in names if not n.endswith(" (prefix)"))
        healers = tuple(n.removesuffix(" (prefix)") for n in names if n.endswith(" (prefix)"))
        late = self.node.render(text, whole)[1] if whole else []
        if healers:
            late += [f"{n} (prefix)" for n in self.node.render(text, healers, self._cuts(text))[1]]
        return late


def _invariants(text: str, chunk: int) -> tuple[str | None, list[str]]:
    try:
        result = S.run(text)
    except Exception as exc:
        return None, [f"refused: {type(exc).__name__}"]
    output, found = result.text, list[str]()
    if S.units.fast_path and SLOW.run(text) != result:
        found.append("fast path != pass")
    if S.run(output).text != output:
        found.append("not idempotent")
    stream, sent = S.stream(), ""
    try:
        for start in range(0, len(text), chunk):
            sent += stream.feed(text[start : start + chunk])
        sent += stream.close()
    except Exception as exc:
        return output, [*found, f"stream refused: {exc}"]
    if sent != output:
        found.append("stream != one-shot")
    return output, found


def _timeouts(
    late: list[str], text: str, output: str, render_raw: Callable[[str, tuple[str, ...]], list[str]]
) -> list[str]:
    """Classes for the renderers that ran past their time on `output`, each saying
    whether it does so on the unsanitised `text` too."""
    if not late:
        return []
    raw_late = set(late) if text == output else set(render_raw(text, tuple(late)))
    return [f"renderer timeout: {n} ({RAW_TOO if n in raw_late else OURS_ONLY})" for n in late]
