"""Which files a scan reads, and the tasks it cuts them into.

A large uncompressed JSONL file is cut into byte ranges at line ends (with the line
number each starts at), so workers share it; every other file is one task.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .options import ScanOptions

__all__ = ["DEFAULT_INCLUDE", "Task", "discover", "plan"]

DEFAULT_INCLUDE = ("*.jsonl", "*.ndjson", "*.json", "*.md", "*.markdown", "*.txt")
_FORMATS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".md": "text",
    ".markdown": "text",
    ".txt": "text",
}
_PART_BYTES = 8 * 1024 * 1024  # a range smaller than this is not worth a task of its own
_COUNT_BLOCK = 1024 * 1024


@dataclass(frozen=True)
class Task:
    """One file, or one byte range of one, to scan."""

    path: Path
    display: str  # as reported: relative to the argument that named it, or "-"
    fmt: str  # jsonl, json or text
    gzip: bool
    fix_path: Path | None = None
    start: int = 0
    end: int | None = None  # None: to the end of the file
    first_line: int = 1
    part: int = 0
    parts: int = 1
    data: bytes | None = None  # standard input, read by the parent


def discover(
    arguments: Sequence[str], include: Sequence[str], exclude: Sequence[str]
) -> Iterator[tuple[Path, str, Path | None] | str]:
    """Each input as (path, display name, relative path), or an error message."""
    for argument in arguments:
        root = Path(argument)
        if argument == "-":
            yield Path("-"), "-", Path("stdin")
        elif root.is_dir():
            found = sorted(p for p in root.rglob("*") if p.is_file())
            for path in found:
                relative = path.relative_to(root)
                if _wanted(relative, include, exclude):
                    yield path, str(path), relative
        elif root.is_file():
            yield root, argument, Path(root.name)
        else:
            yield argument  # neither a file nor a directory


def plan(
    found: Sequence[tuple[Path, str, Path | None]],
    options: ScanOptions,
    *,
    jobs: int,
    stdin: bytes | None = None,
) -> list[Task]:
    """The tasks for the files found, read and fixed as `options` say, ranges cut for
    `jobs` workers."""
    tasks: list[Task] = []
    for path, display, relative in found:
        compressed = path.name.endswith(".gz")
        name = path.name[:-3] if compressed else path.name
        fmt = options.fmt
        kind = fmt if fmt != "auto" else _FORMATS.get(Path(name).suffix.lower(), "")
        fix_path = _fix_path(path, relative, options)
        data = stdin if display == "-" else None
        task = Task(path, display, kind or _sniff(data), compressed, fix_path, data=data)
        splittable = task.fmt == "jsonl" and not compressed and data is None
        tasks.extend(_ranges(task, jobs) if splittable and jobs > 1 else [task])
    return tasks


def _fix_path(path: Path, relative: Path | None, options: ScanOptions) -> Path | None:
    """Where the fixed copy of `path` goes, if anywhere."""
    if options.in_place:
        return path.resolve()  # the file a symbolic link points to is the one to clean
    if options.fix_dir is None or relative is None:
        return None
    return options.fix_dir / relative


def _wanted(relative: Path, include: Sequence[str], exclude: Sequence[str]) -> bool:
    name = str(relative)
    plain = name[:-3] if name.endswith(".gz") else name
    included = any(fnmatch.fnmatch(plain, g) or fnmatch.fnmatch(relative.name, g) for g in include)
    return included and not any(fnmatch.fnmatch(name, g) for g in exclude)


def _sniff(data: bytes | None) -> str:
    """The format of standard input (or a file of no known suffix): by its start."""
    head = (data or b"").lstrip()[:1]
    if head == b"[":
        return "json"
    if head == b"{":
        try:
            json.loads(data or b"")
        except ValueError:
            return "jsonl"  # "Extra data": one object per line
        return "json"
    return "text" if data is not None else "jsonl"


def _ranges(task: Task, jobs: int) -> list[Task]:
    """Cut `task`'s file into ranges at line ends, each with its first line number."""
    size = task.path.stat().st_size
    count = min(jobs * 4, size // _PART_BYTES)
    if count < 2:
        return [task]
    targets = [size * i // count for i in range(1, count)]
    cuts = _line_starts(task.path, targets)
    bounds = [(0, 1), *cuts]
    ends: list[int | None] = [start for start, _ in cuts]
    ends.append(None)  # the last range runs to the end of the file
    return [
        replace(task, start=start, end=end, first_line=line, part=i, parts=len(bounds))
        for i, ((start, line), end) in enumerate(zip(bounds, ends, strict=True))
    ]


def _line_starts(path: Path, targets: list[int]) -> list[tuple[int, int]]:
    """For each target offset, the start of the first line at or after it, and that
    line's number: one pass over the file, counting line ends."""
    cuts: list[tuple[int, int]] = []
    pending = iter(targets)
    target = next(pending, None)
    offset, lines = 0, 1
    with path.open("rb") as file:
        while target is not None and (block := file.read(_COUNT_BLOCK)):
            while target is not None and offset + len(block) > target:
                newline = block.find(b"\n", max(target - offset, 0))
                if newline < 0:
                    break
                at = offset + newline + 1
                cuts.append((at, lines + block.count(b"\n", 0, newline + 1)))
                target = next(pending, None)
                while target is not None and target < at:
                    target = next(pending, None)
            lines += block.count(b"\n")
            offset += len(block)
    return sorted(set(cuts))
