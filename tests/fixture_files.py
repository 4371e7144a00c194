"""Read data-driven Markdown cases, in markdown-it-py's fixture format.

Each case is a title line, a `.` line, the input, a `.` line, the expected
output, and a closing `.` line. A title may end with `=> reason, reason`: the
reasons the findings must give, exactly. Expected output `<unchanged>` means the
input must come back byte for byte.

A case may give the conversation the model saw, as a block before the input that
starts with a `% conversation` line: one message per line, `role: text` (`\n` in
the text is a line break). The case is sanitised with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
UNCHANGED = "<unchanged>"
CONVERSATION = "% conversation"


@dataclass(frozen=True)
class Case:
    """One fixture case."""

    path: Path
    line: int
    title: str
    input: str
    expected: str
    reasons: frozenset[str] | None
    # Messages as {"role", "content"} dicts, when the case gives a conversation.
    conversation: tuple[dict[str, str], ...] | None = None

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
        conversation = None
        if source.startswith(CONVERSATION):
            conversation = _messages(source, path, start)
            source, i = _block(lines, i, path)
        expected, i = _block(lines, i, path)
        text, reasons = _title(title)
        output = source if expected == UNCHANGED else expected
        cases.append(Case(path, start, text, source, output, reasons, conversation))
    return cases


def _block(lines: list[str], i: int, path: Path) -> tuple[str, int]:
    start = i
    while i < len(lines) and lines[i] != ".":
        i += 1
    if i >= len(lines):
        raise ValueError(f"{path}:{start}: unterminated block")
    return "\n".join(lines[start:i]), i + 1


def _messages(block: str, path: Path, line: int) -> tuple[dict[str, str], ...]:
    messages = []
    for entry in block.split("\n")[1:]:
        role, colon, text = entry.partition(":")
        if not colon:
            raise ValueError(f"{path}:{line}: a conversation line is 'role: text', got {entry!r}")
        messages.append({"role": role.strip(), "content": text.strip().replace("\\n", "\n")})
    return tuple(messages)


def _title(line: str) -> tuple[str, frozenset[str] | None]:
    if "=>" not in line:
        return line.strip(), None
    text, _, reasons = line.rpartition("=>")
    return text.strip(), frozenset(r.strip() for r in reasons.split(",") if r.strip())


def all_cases() -> list[Case]:
    """Every case under tests/fixtures, sorted by file."""
    return [case for path in sorted(FIXTURES.glob("*/*.md")) for case in read_cases(path)]
