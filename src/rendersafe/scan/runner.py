"""`scan`: find the inputs, scan them on `jobs` worker processes, assemble the fixed
copies, and report.

    report = scan(["logs/"], ScanOptions(fix_dir=Path("cleaned")), jobs=2)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from ..audit.log import audit_key
from .inputs import DEFAULT_INCLUDE, Task, discover, plan
from .options import ScanOptions
from .partition import PartResult, scan_partition
from .report import ScanReport, build_report
from .rows import ErrorRow

__all__ = ["Progress", "ScanUsageError", "scan", "tasks_for", "with_audit_key"]

Progress = Callable[[PartResult], None]


class ScanUsageError(ValueError):
    """The scan was asked for something it must not do (overwrite its input)."""


def tasks_for(
    arguments: Sequence[str],
    options: ScanOptions,
    *,
    jobs: int = 1,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    stdin: bytes | None = None,
) -> tuple[list[Task], list[ErrorRow]]:
    """The tasks a scan of `arguments` runs, and the arguments it cannot read."""
    found, errors = [], []
    for item in discover(arguments, include, exclude):
        if isinstance(item, str):
            errors.append(ErrorRow(path=item, message="no such file or directory"))
        else:
            found.append(item)
    if options.in_place and "-" in arguments:
        raise ScanUsageError("standard input cannot be fixed in place; use --fix DIR")
    _check_fix(found, options)
    tasks = plan(found, options, jobs=jobs, stdin=stdin)
    _check_unique(tasks)
    return tasks, errors


def with_audit_key(options: ScanOptions) -> ScanOptions:
    """`options` with one audit key for every worker (local or on a cluster), so the
    URL hashes in their records match."""
    if options.audit_path is None or options.audit_key is not None:
        return options
    return replace(options, audit_key=audit_key())


def _check_unique(tasks: list[Task]) -> None:
    seen: dict[Path, str] = {}
    for task in tasks:
        if task.fix_path is None or task.part:
            continue
        other = seen.setdefault(task.fix_path, task.display)
        if other != task.display:
            raise ScanUsageError(
                f"{other} and {task.display} would both be fixed into "
                f"{task.fix_path}; scan them separately"
            )


def scan(
    arguments: Sequence[str],
    options: ScanOptions,
    *,
    jobs: int = 1,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    stdin: bytes | None = None,
    progress: Progress | None = None,
) -> ScanReport:
    """Scan every input; write fixed copies if `options` asks; return the report."""
    options = with_audit_key(options)
    tasks, errors = tasks_for(
        arguments, options, jobs=jobs, include=include, exclude=exclude, stdin=stdin
    )
    results = []
    for result in _run(tasks, options, jobs):
        results.append(result)
        if progress is not None:
            progress(result)
    assemble_fixes(results, options)
    return build_report(results, errors)


def _run(tasks: list[Task], options: ScanOptions, jobs: int) -> Iterator[PartResult]:
    if jobs <= 1 or len(tasks) <= 1:
        yield from (scan_partition(task, options) for task in tasks)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(scan_partition, task, options) for task in tasks]
        for task, future in zip(tasks, futures, strict=True):
            try:
                yield future.result()
            except Exception as exc:  # a worker that died: the task is an error, not the batch
                message = f"could not be scanned: {exc!r}"
                failed = PartResult(task, errors=[ErrorRow(path=task.display, message=message)])
                yield failed


def assemble_fixes(results: list[PartResult], options: ScanOptions) -> None:
    """Join each file's fixed parts, in order, and move the whole into place at once."""
    by_file: dict[Path, list[PartResult]] = {}
    for result in results:
        if result.task.fix_path is not None:
            by_file.setdefault(result.task.fix_path, []).append(result)
    for final, parts in by_file.items():
        pieces = [part.fixed for part in sorted(parts, key=lambda r: r.task.part)]
        complete = len(pieces) == parts[0].task.parts and all(p is not None for p in pieces)
        if not complete or (options.in_place and not any(part.changed for part in parts)):
            _remove(pieces)  # a broken part, or nothing to change in place
            continue
        _join([p for p in pieces if p is not None], final, parts[0].task.path)


def _join(pieces: list[Path], final: Path, source: Path) -> None:
    target = pieces[0]
    if len(pieces) > 1:
        with target.open("ab") as out:
            for piece in pieces[1:]:
                with piece.open("rb") as part:
                    while block := part.read(1 << 20):
                        out.write(block)
                piece.unlink()
    _same_access(source, target)
    os.replace(target, final)  # atomic: readers see the old file or the whole new one


def _same_access(source: Path, target: Path) -> None:
    """Give the fixed file the mode (and, where allowed, the owner) of its source."""
    if str(source) == "-":
        os.chmod(target, 0o644)
        return
    stat = source.stat()
    os.chmod(target, stat.st_mode & 0o7777)
    with contextlib.suppress(PermissionError):
        os.chown(target, stat.st_uid, stat.st_gid)


def _remove(pieces: list[Path | None]) -> None:
    for piece in pieces:
        if piece is not None:
            piece.unlink(missing_ok=True)


def _check_fix(found: list[tuple[Path, str, Path | None]], options: ScanOptions) -> None:
    if options.fix_dir is None or options.in_place:
        return
    fix_dir = options.fix_dir.resolve()
    for path, _display, relative in found:
        if relative is not None and str(path) != "-" and (fix_dir / relative) == path.resolve():
            raise ScanUsageError(
                f"--fix {options.fix_dir} would overwrite {path}; "
                "choose another directory, or --in-place"
            )
