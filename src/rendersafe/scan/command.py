"""`rendersafe scan`: run a scan as the command line asks, write its reports, and
choose the exit code (the options are in `arguments`).

    rendersafe scan fixtures/transcripts/
    rendersafe scan logs/ --input-format jsonl --policy rendersafe.toml --json report.json
    rendersafe scan logs/ --fix cleaned/ --audit audit.jsonl
    rendersafe scan conversations.json --output-format sarif -o scan.sarif

Exit codes: 0 nothing found (or only below --fail-on, or --exit-zero, or every finding
fixed by --fix/--in-place), 1 findings or inputs that could not be read or fixed (each
listed in the report by path), 2 usage or policy errors, an output that cannot be
written (checked before the scan), no input files, or no input could be read at all.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import TextIO

from ..config import load_policy
from ..errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, RenderSafeError
from .arguments import EPILOG, add_parser
from .console import github, text
from .html_report import html_report
from .inputs import DEFAULT_INCLUDE, Task
from .options import ASSISTANT_ROLES, ScanOptions
from .outputs import ReportFile, Requested, Stdout, check_appendable, requested
from .progress import Bar
from .report import ScanReport, table
from .runner import ScanUsageError, scan
from .sarif import sarif
from .selection import failing, reason_codes, selected

__all__ = ["EPILOG", "add_parser", "run_scan", "stdin_bytes"]

_DEPRECATED_FORMAT = (
    "rendersafe: warning: scan --format is deprecated: it names the input format; "
    "use --input-format (--output-format chooses the report's format)\n"
)
_RENDER: MappingProxyType[str, Callable[[ScanReport, bool], str]] = MappingProxyType(
    {
        "text": lambda report, quiet: text(report, quiet=quiet),
        "json": lambda report, quiet: report.model_dump_json(indent=2) + "\n",
        "sarif": lambda report, quiet: json.dumps(sarif(report), indent=2) + "\n",
        "html": lambda report, quiet: html_report(report),
        "github": lambda report, quiet: github(report),
    }
)


def run_scan(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: bytes | None) -> int:
    """Run `rendersafe scan`; return the exit code."""
    wanted = requested(
        args.output_format,
        args.output,
        {"json": args.json_report, "sarif": args.sarif, "html": args.html},
    )
    opened: list[tuple[Requested, ReportFile | Stdout]] = []
    bar = _BarStarter(err)
    try:
        _check_usage(args, wanted)
        select, ignore = reason_codes(args.select), reason_codes(args.ignore)
        if args.old_fmt:
            err.write(_DEPRECATED_FORMAT)
        options = _options(args)
        # Every output is checked before the scan: none fails after an hour of work.
        opened = [(want, _open(want, out)) for want in wanted]
        if options.audit_path is not None:
            check_appendable(options.audit_path)
        report = scan(
            args.paths,
            options,
            jobs=max(args.jobs, 1),
            include=args.include or DEFAULT_INCLUDE,
            exclude=args.exclude,
            stdin=stdin,
            on_start=bar.start,
            outputs=_written(wanted, options),
            on_skip=None if args.quiet else _skip_note(err),
        )
        bar.close()  # cleared before the summary
        report = selected(report, select, ignore)
        _write_reports(report, args.quiet, opened, err)
    except RenderSafeError as exc:  # a usage, policy or audit-file error
        bar.close()
        err.write(f"rendersafe: error: {exc}\n")
        return EXIT_ERROR
    except Exception as exc:  # an internal failure is not "findings"
        bar.close()
        err.write(f"rendersafe: internal error: {exc!r}\n")
        return EXIT_ERROR
    finally:
        for _, unwritten in opened:
            unwritten.abandon()
    return _exit_code(report, args, fixing=_fixing(options))


def _check_usage(args: argparse.Namespace, wanted: list[Requested]) -> None:
    """`ScanUsageError` saying what is wrong with the options together."""
    if args.fix and args.in_place:
        raise ScanUsageError("--fix and --in-place exclude each other")
    if args.max_record_bytes < 1:
        raise ScanUsageError("--max-record-bytes must be at least 1")
    if args.role_paths and not args.json_paths:
        raise ScanUsageError("--role-path needs --json-path (the texts it gives roles)")
    if sum(want.target == "-" for want in wanted) > 1:
        raise ScanUsageError("only one of --output, --json, --sarif and --html can be - (stdout)")
    if args.fmt != "auto" and args.old_fmt and args.fmt != args.old_fmt:
        raise ScanUsageError("--format (deprecated) and --input-format disagree")


def _options(args: argparse.Namespace) -> ScanOptions:
    roles = frozenset(role.lower() for role in args.roles or ASSISTANT_ROLES)
    return ScanOptions(
        policy=load_policy(args.policy),
        fmt=args.old_fmt if args.fmt == "auto" and args.old_fmt else args.fmt,
        roles=None if args.all_roles else roles,
        json_paths=tuple(args.json_paths),
        role_paths=tuple(args.role_paths),
        fix_dir=Path(args.fix) if args.fix else None,
        in_place=args.in_place,
        audit_path=Path(args.audit) if args.audit else None,
        max_record_bytes=args.max_record_bytes,
        keep_unsanitisable=args.keep_unsanitisable,
    )


def _open(want: Requested, out: TextIO) -> ReportFile | Stdout:
    return Stdout(out) if want.target == "-" else ReportFile(want.target)


def _written(wanted: list[Requested], options: ScanOptions) -> list[Path]:
    """The files this scan writes besides fixed copies: never read as inputs."""
    files = [Path(want.target) for want in wanted if want.target != "-"]
    return files + ([options.audit_path] if options.audit_path is not None else [])


def _skip_note(err: TextIO) -> Callable[[str], None]:
    def note(path: str) -> None:
        err.write(f"rendersafe: {path}: a report rendersafe wrote; not scanned\n")

    return note


def _write_reports(
    report: ScanReport,
    quiet: bool,
    opened: list[tuple[Requested, ReportFile | Stdout]],
    err: TextIO,
) -> None:
    """Write each report (taking it off `opened`); the summary goes to stderr when no
    text report is on stdout; each unreadable input is named on stderr."""
    brief = quiet or _nothing_read(report)  # no empty table before the error
    console = any(want.fmt == "text" and want.target == "-" for want, _ in opened)
    while opened:
        want, target = opened.pop(0)
        target.write(_RENDER[want.fmt](report, brief))
    if not console and not brief:
        err.write(table(report))
    for error in report.errors:
        where = f"{error.path}:{error.line}" if error.line else error.path
        err.write(f"rendersafe: {where}: {error.message}\n")


def _nothing_read(report: ScanReport) -> bool:
    s = report.summary
    return s.records == 0 and bool(report.errors or s.files == 0)


def _fixing(options: ScanOptions) -> bool:
    """Does this scan fix what it finds? (Shadow mode never does.)"""
    asked = options.fix_dir is not None or options.in_place
    return asked and options.policy.mode != "monitor"


def _exit_code(report: ScanReport, args: argparse.Namespace, *, fixing: bool) -> int:
    if _nothing_read(report):
        return EXIT_ERROR
    if report.errors:
        return EXIT_FINDINGS  # an input not read (or not fixed) is never clean
    if args.exit_zero or fixing or not failing(report, args.fail_on):
        return EXIT_CLEAN
    return EXIT_FINDINGS


class _BarStarter:
    """The progress bar on a terminal, started once the tasks (and their sizes) are
    known; nothing when stderr is not a terminal."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.bar: Bar | None = None
        self.wanted = err.isatty()

    def start(self, tasks: list[Task]) -> None:
        if self.wanted and tasks:
            self.bar = Bar(sum(_size(task) for task in tasks), self.err)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _size(task: Task) -> int:
    if task.data is not None:
        return len(task.data)
    if task.end is not None:
        return task.end - task.start
    try:
        return max(task.path.stat().st_size - task.start, 0)
    except OSError:
        return 0


def stdin_bytes(stream: TextIO) -> bytes:
    """Standard input as bytes."""
    buffer = getattr(stream, "buffer", None)
    return buffer.read() if buffer is not None else stream.read().encode()
