"""`scan`: find the inputs, scan them on `jobs` worker processes, assemble the fixed
copies, and report.

    report = scan(["logs/"], ScanOptions(fix_dir=Path("cleaned")), jobs=2)
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

from ..audit.log import audit_key
from ..errors import RenderSafeError
from . import progress as meter
from .inputs import DEFAULT_INCLUDE, NO_MATCH, Found, Task, discover, plan, remove_if_stale
from .options import ScanOptions
from .own_reports import is_own_report
from .partition import PartResult, scan_partition
from .report import ScanReport, build_report
from .rows import ErrorRow

__all__ = [
    "Progress",
    "ScanUsageError",
    "check_fix_dir",
    "remove_stale_temporaries",
    "scan",
    "tasks_for",
    "with_audit_key",
]

Progress = Callable[[PartResult], None]
_PR_SET_PDEATHSIG = 1  # prctl(2)


class ScanUsageError(RenderSafeError, ValueError):
    """The scan was asked for something it must not do (overwrite its input)."""


def tasks_for(
    arguments: Sequence[str],
    options: ScanOptions,
    *,
    jobs: int = 1,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    stdin: bytes | None = None,
    outputs: Collection[Path] = (),
    on_skip: Callable[[str], None] | None = None,
) -> tuple[list[Task], list[ErrorRow]]:
    """The tasks a scan of `arguments` runs, and the inputs it cannot read (or fix).

    The scan's own `outputs`, and reports an earlier scan wrote (`own_reports`), are
    not read: `on_skip` is told each earlier report's name.

    Outputs are checked first: `ScanUsageError` if `fix_dir` cannot be written; an
    error row for each file `in_place` cannot rewrite. Temporary files a killed scan
    left where this one writes are removed. `ScanUsageError` too if there is no input
    file at all (an empty directory, a pattern that matches nothing)."""
    if options.in_place and "-" in arguments:
        raise ScanUsageError("standard input cannot be fixed in place; use --fix DIR")
    if options.fix_dir is not None and not options.in_place:
        check_fix_dir(options.fix_dir)
    found: list[Found] = []
    errors: list[ErrorRow] = []
    written = {Path(os.path.abspath(path)) for path in outputs}
    for item in discover(arguments, include, exclude):
        if isinstance(item, ErrorRow):
            errors.append(item)
        elif not _is_report(item, written, on_skip):
            found.append(item)
    if not found and all(error.message == NO_MATCH for error in errors):
        names = " ".join(arguments)
        raise ScanUsageError(f"no input files in {names} (include: {' '.join(include)})")
    _check_fix(found, options)
    tasks, unfixable = plan(found, options, jobs=jobs, stdin=stdin)
    errors += unfixable
    tasks = _check_unique(tasks, options.in_place)
    tasks, unwritable = _writable_tasks(tasks)
    remove_stale_temporaries({t.fix_path.parent for t in tasks if t.fix_path is not None})
    return tasks, errors + unwritable


def _is_report(item: Found, written: set[Path], on_skip: Callable[[str], None] | None) -> bool:
    if item.tree is None:
        return False  # standard input
    if Path(os.path.abspath(item.path)) in written or item.path.resolve() in written:
        return True
    if not is_own_report(item.path):
        return False
    if on_skip is not None:
        on_skip(item.display)
    return True


def check_fix_dir(fix_dir: Path) -> None:
    """`ScanUsageError` naming `fix_dir` unless fixed copies can be written there."""
    try:
        fix_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise ScanUsageError(f"cannot write fixed copies into {fix_dir}: not a directory") from exc
    except OSError as exc:
        raise ScanUsageError(f"cannot write fixed copies into {fix_dir}: {exc.strerror}") from exc
    if not os.access(fix_dir, os.W_OK | os.X_OK):
        raise ScanUsageError(f"cannot write fixed copies into {fix_dir}: permission denied")


def remove_stale_temporaries(directories: Iterable[Path]) -> None:
    """Remove the temporary files a killed scan left in `directories`: those whose
    process id is no live process's."""
    for directory in directories:
        with contextlib.suppress(OSError), os.scandir(directory) as listing:
            for entry in listing:
                remove_if_stale(Path(entry.path))


def _writable_tasks(tasks: list[Task]) -> tuple[list[Task], list[ErrorRow]]:
    """The tasks, without a fixed copy where its directory cannot be written (checked
    before scanning, and reported by name); the file is still scanned."""
    writable: dict[Path, bool] = {}
    errors: list[ErrorRow] = []
    kept: list[Task] = []
    for task in tasks:
        target = task.fix_path
        if target is not None and target.parent.exists():
            folder = target.parent
            if folder not in writable:
                writable[folder] = os.access(folder, os.W_OK | os.X_OK)
            if not writable[folder]:
                if not task.part:
                    why = f"cannot be fixed: {folder} is not writable; scanned, not rewritten"
                    errors.append(ErrorRow(path=task.display, message=why))
                target = None
        kept.append(replace(task, fix_path=target))
    return kept, errors


def with_audit_key(options: ScanOptions) -> ScanOptions:
    """`options` with one audit key for every worker (local or on a cluster), so the
    URL hashes in their records match."""
    if options.audit_path is None or options.audit_key is not None:
        return options
    return replace(options, audit_key=audit_key())


def _check_unique(tasks: list[Task], in_place: bool) -> list[Task]:
    """The tasks, each file fixed once: in place, a file also reached through a link is
    rewritten through its first name only; into `--fix DIR`, two inputs for one fixed
    file are a usage error."""
    seen: dict[Path, str] = {}
    kept: list[Task] = []
    for task in tasks:
        target = task.fix_path
        if target is not None:
            other = seen.setdefault(target, task.display)
            if other != task.display and not in_place:
                raise ScanUsageError(
                    f"{other} and {task.display} would both be fixed into "
                    f"{target}; scan them separately"
                )
            if other != task.display:
                target = None
        kept.append(replace(task, fix_path=target))
    return kept


def scan(
    arguments: Sequence[str],
    options: ScanOptions,
    *,
    jobs: int = 1,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str] = (),
    stdin: bytes | None = None,
    progress: Progress | None = None,
    on_start: Callable[[list[Task]], None] | None = None,
    outputs: Collection[Path] = (),
    on_skip: Callable[[str], None] | None = None,
) -> ScanReport:
    """Scan every input; write fixed copies if `options` asks (each moved into place
    as soon as all its parts are done); return the report. `on_start` is given the
    tasks before they run, `progress` each result as it comes; `outputs` (the scan's
    own reports) and earlier reports (each told to `on_skip`) are not read."""
    options = with_audit_key(options)
    tasks, errors = tasks_for(
        arguments,
        options,
        jobs=jobs,
        include=include,
        exclude=exclude,
        stdin=stdin,
        outputs=outputs,
        on_skip=on_skip,
    )
    if on_start is not None:
        on_start(tasks)
    results: list[PartResult | None] = [None] * len(tasks)
    fixes = _Fixes(options)
    for index, result in _run(tasks, options, jobs):
        results[index] = result
        fixes.add(result)
        if progress is not None:
            progress(result)
    return build_report([r for r in results if r is not None], errors + fixes.errors)


def _run(tasks: list[Task], options: ScanOptions, jobs: int) -> Iterator[tuple[int, PartResult]]:
    """Each task's result, with its index, as soon as it is done."""
    if jobs <= 1 or len(tasks) <= 1:
        yield from ((i, scan_partition(task, options)) for i, task in enumerate(tasks))
        return
    workers = ProcessPoolExecutor(
        max_workers=jobs, initializer=_die_with_parent, initargs=(os.getpid(), meter.counter())
    )
    with workers as pool:
        futures = {pool.submit(scan_partition, task, options): i for i, task in enumerate(tasks)}
        for future in as_completed(futures):
            index = futures[future]
            try:
                yield index, future.result()
            except Exception as exc:  # a worker that died: the task is an error, not the batch
                message = f"could not be scanned: {exc!r}"
                task = tasks[index]
                yield index, PartResult(task, errors=[ErrorRow(path=task.display, message=message)])


def _die_with_parent(parent: int, counter: object = None) -> None:
    """In a worker: be killed when the scan is (Linux), so a killed scan leaves no
    worker writing behind it; count what it reads into the progress bar's `counter`."""
    meter.share(counter)
    if sys.platform == "linux":
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)  # the scan died before the line above ran


def assemble_fixes(results: list[PartResult], options: ScanOptions) -> list[ErrorRow]:
    """Join each file's fixed parts, in order, and move the whole into place at once;
    the errors of fixed copies that could not be written."""
    fixes = _Fixes(options)
    for result in results:
        fixes.add(result)
    return fixes.errors


class _Fixes:
    """Collects each file's fixed parts and moves the file into place when the last
    part is in."""

    def __init__(self, options: ScanOptions) -> None:
        self.options = options
        self.waiting: dict[Path, list[PartResult]] = {}
        self.errors: list[ErrorRow] = []

    def add(self, result: PartResult) -> None:
        final = result.task.fix_path
        if final is None:
            return
        parts = self.waiting.setdefault(final, [])
        parts.append(result)
        if len(parts) == result.task.parts:
            del self.waiting[final]
            self._finish(final, sorted(parts, key=lambda r: r.task.part))

    def _finish(self, final: Path, parts: list[PartResult]) -> None:
        pieces = [part.fixed for part in parts]
        complete = all(p is not None for p in pieces)
        if not complete or (self.options.in_place and not any(part.changed for part in parts)):
            _remove(pieces)  # a broken part, or nothing to change in place
            return
        try:
            _join([p for p in pieces if p is not None], final, parts[0].task.path)
        except OSError as exc:
            _remove(pieces)
            why = f"the fixed copy could not be written to {final} ({exc.strerror})"
            self.errors.append(ErrorRow(path=parts[0].task.display, message=why))


def _join(pieces: list[Path], final: Path, source: Path) -> None:
    target = pieces[0]
    with target.open("ab") as out:
        for piece in pieces[1:]:
            with piece.open("rb") as part:
                while block := part.read(1 << 20):
                    out.write(block)
        out.flush()
        os.fsync(out.fileno())  # the data is on disk before the name points at it
    for piece in pieces[1:]:
        piece.unlink()
    _same_access(source, target)
    os.replace(target, final)  # atomic: readers see the old file or the whole new one
    _sync_directory(final.parent)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


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


def _check_fix(found: list[Found], options: ScanOptions) -> None:
    if options.fix_dir is None or options.in_place:
        return
    fix_dir = options.fix_dir.resolve()
    for item in found:
        path = item.path
        if str(path) != "-" and (fix_dir / item.relative) == path.resolve():
            raise ScanUsageError(
                f"--fix {options.fix_dir} would overwrite {path}; "
                "choose another directory, or --in-place"
            )
