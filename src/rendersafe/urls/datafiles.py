"""The host lists shipped as data files (`data/*.txt`): one entry a line, then its reason."""

from __future__ import annotations

from importlib.resources import files

__all__ = ["entries", "words"]


def entries(name: str) -> tuple[tuple[str, str], ...]:
    """(entry, reason) for each line of `data/<name>`; `#` starts a comment line.

    Raises ValueError for an entry without a reason: every entry says why it is there.
    """
    text = files(__name__.rpartition(".")[0]).joinpath("data", name).read_text(encoding="utf-8")
    found: list[tuple[str, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        entry, _sep, reason = line.strip().partition(" ")
        if not reason.strip():
            raise ValueError(f"data/{name}:{number}: {entry!r} has no reason")
        found.append((entry, reason.strip()))
    return tuple(found)


def words(name: str) -> frozenset[str]:
    """The first word of each line of `data/<name>` (`#` starts a comment line)."""
    text = files(__name__.rpartition(".")[0]).joinpath("data", name).read_text(encoding="utf-8")
    return frozenset(
        line.split()[0] for line in text.splitlines() if line.strip() and line[0] != "#"
    )
