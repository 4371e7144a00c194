"""Read data-driven Markdown cases, in markdown-it-py's fixture format.

Each case is a title line, a `.` line, the input, a `.` line, the expected
output, and a closing `.` line. A title may end with `=> reason, reason`: the
reasons the findings must give, exactly. Expected output `<unchanged>` means the
input must come back byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
UNCHANGED = "<unchanged>"


@dataclass(frozen=True)
class Case:
    """One fixture case."""

    path: Path
    line: int
    title: str
    input: str
    expected: str
    reasons: frozenset[str] | None

    @property
    def id(self) -> str:
        return f"{self.path.parent.name}/{self.path.stem}:{self.line}"

    @property
    def benign(self) -> bool:
        return self.expected == self.input


def read_cases(path: Path) -> list[Case]:
    """All cases in one fixture file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    cases: list[Case] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip() or lines[i].startswith("#!"):
            i += 1
            continue
        title, start = lines[i], i + 1
        if i + 1 >= len(lines) or lines[i + 1] != ".":
            raise ValueError(f"{path}:{i + 1}: expected '.' after the title {title!r}")
        source, i = _block(lines, i + 2, path)
        expected, i = _block(lines, i, path)
        text, reasons = _title(title)
        output = source if expected == UNCHANGED else expected
        cases.append(Case(path, start, text, source, output, reasons))
    return cases


def _block(lines: list[str], i: int, path: Path) -> tuple[str, int]:
    start = i
    while i < len(lines) and lines[i] != ".":
        i += 1
    if i >= len(lines):
        raise ValueError(f"{path}:{start}: unterminated block")
    return "\n".join(lines[start:i]), i + 1


def _title(line: str) -> tuple[str, frozenset[str] | None]:
    if "=>" not in line:
        return line.strip(), None
    text, _, reasons = line.rpartition("=>")
    return text.strip(), frozenset(r.strip() for r in reasons.split(",") if r.strip())


def all_cases() -> list[Case]:
    """Every case under tests/fixtures, sorted by file."""
    return [case for path in sorted(FIXTURES.glob("*/*.md")) for case in read_cases(path)]
