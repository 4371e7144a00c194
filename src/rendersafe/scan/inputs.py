"""Which files a scan reads, and the tasks it cuts them into.

A large uncompressed JSONL file is cut into byte ranges at line ends (with the line
number each starts at), so workers share it; every other file is one task.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import json
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .options import ScanOptions
from .rows import ErrorRow

__all__ = [
    "DEFAULT_INCLUDE",
    "NO_MATCH",
    "Found",
    "Task",
    "discover",
    "is_temporary",
    "plan",
    "remove_if_stale",
]

DEFAULT_INCLUDE = ("*.jsonl", "*.ndjson", "*.json", "*.parquet", "*.md", "*.markdown", "*.txt")
_FORMATS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".md": "text",
    ".markdown": "text",
    ".txt": "text",
    ".parquet": "parquet",
}
_PART_BYTES = 8 * 1024 * 1024  # a range smaller than this is not worth a task of its own
_COUNT_BLOCK = 1024 * 1024
_TEMPORARY = re.compile(r"\..+\.rendersafe-(\d+)-(\d+)\.tmp")
_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_LINKED_DIRECTORY = "a symbolic link to a directory: not followed (name it to scan it)"
NO_MATCH = "a pattern that matches no file"
_MAGIC = re.compile(r"[*?[]")


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


@dataclass(frozen=True)
class Found:
    """An input to read: its path, its name in the report, where a fixed copy of it
    goes under `--fix`, and the tree it was found in (an in-place fix stays inside)."""

    path: Path
    display: str
    relative: Path
    tree: Path | None = None  # None: standard input


def discover(
    arguments: Sequence[str], include: Sequence[str], exclude: Sequence[str]
) -> Iterator[Found | ErrorRow]:
    """Each input, or an error naming one that cannot be read (an unreadable directory
    or file, a dangling link, a FIFO, a device, a socket, a link to a directory).

    Each input's `relative` (its place under `--fix DIR`) keeps the path of the
    argument that named it below the arguments' common folder: `a/logs b/logs` fix
    into `DIR/a/logs/...` and `DIR/b/logs/...`; one argument's files go straight in."""
    prefixes = _prefixes(arguments)
    for argument in arguments:
        prefix = prefixes.get(argument, Path())
        for item in _argument(argument, include, exclude):
            yield _under(item, prefix)


def _under(item: Found | ErrorRow, prefix: Path) -> Found | ErrorRow:
    if isinstance(item, Found) and prefix != Path():
        return replace(item, relative=prefix / item.relative)
    return item


def _argument(
    argument: str, include: Sequence[str], exclude: Sequence[str]
) -> Iterator[Found | ErrorRow]:
    if argument == "-":
        yield Found(Path("-"), "-", Path("stdin"))
        return
    if _MAGIC.search(argument) and not os.path.lexists(argument):
        yield from _pattern(argument, include, exclude)
        return
    root = Path(argument)
    try:
        mode = root.stat().st_mode
    except OSError as exc:
        yield ErrorRow(path=argument, message=_gone(root, exc))
        return
    if stat.S_ISDIR(mode):
        yield from _walk(root, root, root.resolve(), include, exclude)
    elif stat.S_ISREG(mode):
        yield from _file(Found(root, argument, Path(root.name), root.absolute().parent.resolve()))
    else:
        hint = " (a pipe: scan - and feed it on standard input)" if stat.S_ISFIFO(mode) else ""
        yield ErrorRow(path=argument, message=_special(mode) + hint)


def _prefixes(arguments: Sequence[str]) -> dict[str, Path]:
    """Each argument's folder (a directory itself, a file's parent, a pattern's part
    before its first wildcard) relative to the folder all of them share."""
    folders = {argument: _folder(argument) for argument in arguments if argument != "-"}
    known = {argument: folder for argument, folder in folders.items() if folder is not None}
    if len(known) < 2:
        return {}
    common = os.path.commonpath(list(known.values()))
    return {argument: Path(os.path.relpath(folder, common)) for argument, folder in known.items()}


def _folder(argument: str) -> str | None:
    if _MAGIC.search(argument) and not os.path.lexists(argument):
        parts = Path(argument).parts
        fixed = next(i for i, part in enumerate(parts) if _MAGIC.search(part))
        return os.path.abspath(Path(*parts[:fixed]) if fixed else Path())
    path = Path(argument)
    if path.is_dir():
        return os.path.abspath(path)
    return os.path.abspath(path.parent) if path.exists() else None


def _pattern(
    pattern: str, include: Sequence[str], exclude: Sequence[str]
) -> Iterator[Found | ErrorRow]:
    """The files a glob names (`**` any depth), as if each were named; fixed copies keep
    their paths below the pattern's first wildcard."""
    matches = sorted(glob.glob(pattern, recursive=True))
    if not matches:
        yield ErrorRow(path=pattern, message=NO_MATCH)
        return
    parts = Path(pattern).parts
    fixed = next(i for i, part in enumerate(parts) if _MAGIC.search(part))
    base = Path(*parts[:fixed]) if fixed else Path()
    tree = base.resolve()
    for match in matches:
        path = Path(match)
        if path.is_dir() and not path.is_symlink():
            yield from _walk(path, base, tree, include, exclude)
        elif path.is_file():
            yield from _file(Found(path, match, path.relative_to(base), tree))


def is_temporary(name: str) -> bool:
    """Is `name` one of the scan's own temporary files (`.NAME.rendersafe-PID-N.tmp`)?"""
    return _TEMPORARY.fullmatch(name) is not None


def remove_if_stale(path: Path) -> None:
    """Remove `path` if it is a temporary file of a scan that is no more (its process
    id is no live process's): a killed scan's leftover."""
    match = _TEMPORARY.fullmatch(path.name)
    if match and not _alive(int(match.group(1))):
        with contextlib.suppress(OSError):
            path.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Has `pid` exited, waiting to be reaped (where no init reaps, a killed scan's
    workers stay so)?"""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state == "Z"


def _walk(
    directory: Path, root: Path, tree: Path, include: Sequence[str], exclude: Sequence[str]
) -> Iterator[Found | ErrorRow]:
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError as exc:
        if not _excluded(directory.relative_to(root), exclude):
            why = f"cannot read this directory ({exc.strerror}): nothing in it was scanned"
            yield ErrorRow(path=str(directory), message=why)
        return
    for entry in entries:
        if is_temporary(entry.name):  # a fixed copy being written, or left by a killed scan
            remove_if_stale(Path(entry.path))
        else:
            yield from _entry(entry, root, tree, include, exclude)


def _entry(
    entry: os.DirEntry[str], root: Path, tree: Path, include: Sequence[str], exclude: Sequence[str]
) -> Iterator[Found | ErrorRow]:
    path = Path(entry.path)
    relative = path.relative_to(root)
    try:
        link = entry.is_symlink()
        mode = os.stat(path).st_mode  # a link: what it points to
    except OSError as exc:
        if not _excluded(relative, exclude):
            yield ErrorRow(path=str(path), message=_gone(path, exc))
        return
    if stat.S_ISDIR(mode) and not link:
        yield from _walk(path, root, tree, include, exclude)
    elif stat.S_ISREG(mode):
        if _wanted(relative, include, exclude):
            yield from _file(Found(path, str(path), relative, tree))
    elif not _excluded(relative, exclude):
        # Never opened: a FIFO would block the scan, a device never ends.
        why = _LINKED_DIRECTORY if stat.S_ISDIR(mode) else _special(mode)
        yield ErrorRow(path=str(path), message=why)


def _file(found: Found) -> Iterator[Found | ErrorRow]:
    """`found`, if it can be opened for reading."""
    try:
        os.close(os.open(found.path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY))
    except OSError as exc:
        yield ErrorRow(path=found.display, message=f"cannot be read ({exc.strerror})")
        return
    yield found


def _gone(path: Path, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        if path.is_symlink():
            return f"a symbolic link to nothing ({os.readlink(path)}): not read"
        return "no such file or directory"
    return f"cannot be read ({exc.strerror})"


def _special(mode: int) -> str:
    kind = next((name for test, name in _SPECIAL if test(mode)), "not a regular file")
    return f"{kind}, not a regular file: not read"


def plan(
    found: Sequence[Found],
    options: ScanOptions,
    *,
    jobs: int,
    stdin: bytes | None = None,
) -> tuple[list[Task], list[ErrorRow]]:
    """The tasks for the files found, read and fixed as `options` say, ranges cut for
    `jobs` workers; and an error for each file whose fixed copy would leave its tree
    (it is still scanned)."""
    tasks: list[Task] = []
    errors: list[ErrorRow] = []
    for item in found:
        path, display = item.path, item.display
        compressed = path.name.endswith(".gz")
        name = path.name[:-3] if compressed else path.name
        fmt = options.fmt
        kind = fmt if fmt != "auto" else _FORMATS.get(Path(name).suffix.lower(), "")
        fix_path, why = _fix_path(item, options)
        if why:
            errors.append(ErrorRow(path=display, message=why))
        data = stdin if display == "-" else None
        task = Task(path, display, kind or _sniff(data), compressed, fix_path, data=data)
        splittable = task.fmt == "jsonl" and not compressed and data is None
        tasks.extend(_ranges(task, jobs) if splittable and jobs > 1 else [task])
    return tasks, errors


def _fix_path(found: Found, options: ScanOptions) -> tuple[Path | None, str]:
    """Where the fixed copy of `found` goes, if anywhere; or why it cannot go there."""
    monitor = options.policy.mode == "monitor"  # shadow mode reports, never writes a fix
    if options.in_place and not monitor:
        if found.tree is None:
            return None, ""
        final = found.path.resolve()  # a symbolic link: the file it points to is cleaned
        if not final.is_relative_to(found.tree):
            why = f"a symbolic link to {final}, outside {found.tree}: scanned, not rewritten"
            return None, why + " (name its target to fix it)"
        return final, ""
    if options.fix_dir is None or monitor:
        return None, ""
    final = options.fix_dir / found.relative
    fix_tree = options.fix_dir.resolve()
    if not final.parent.resolve().is_relative_to(fix_tree):
        return None, f"{final.parent} is a symbolic link out of {options.fix_dir}: no fixed copy"
    return final, ""


def _wanted(relative: Path, include: Sequence[str], exclude: Sequence[str]) -> bool:
    name = str(relative)
    plain = name[:-3] if name.endswith(".gz") else name
    included = any(fnmatch.fnmatch(plain, g) or fnmatch.fnmatch(relative.name, g) for g in include)
    return included and not _excluded(relative, exclude)


def _excluded(relative: Path, exclude: Sequence[str]) -> bool:
    name = str(relative)
    return any(fnmatch.fnmatch(name, g) or fnmatch.fnmatch(name + "/", g) for g in exclude)


def _sniff(data: bytes | None) -> str:
    """The format of standard input (or a file of no known suffix): by its start."""
    if (data or b"").startswith(b"PAR1"):
        return "parquet"
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
    try:
        size = task.path.stat().st_size
        count = min(jobs * 4, size // _PART_BYTES)
        if count < 2:
            return [task]
        targets = [size * i // count for i in range(1, count)]
        cuts = _line_starts(task.path, targets)
    except OSError:
        return [task]  # gone or unreadable since it was found: its task reports it
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
