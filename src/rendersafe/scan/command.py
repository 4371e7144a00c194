"""`rendersafe scan`: the command line of the batch scanner.

    rendersafe scan fixtures/transcripts/
    rendersafe scan logs/ --format jsonl --policy rendersafe.toml --json report.json
    rendersafe scan logs/ --fix cleaned/ --audit audit.jsonl

Exit codes: 0 nothing found, 1 findings or inputs that could not be read or fixed (each
listed in the report by path), 2 usage or policy errors, an output that cannot be
written (checked before the scan), or no input could be read at all.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import TextIO

from ..config import load_policy
from ..errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, AuditError
from .inputs import DEFAULT_INCLUDE
from .options import ASSISTANT_ROLES, DEFAULT_MAX_RECORD_BYTES, FORMATS, ScanOptions
from .outputs import ReportFile, check_appendable
from .partition import PartResult
from .report import ScanReport, sarif, table
from .runner import ScanUsageError, scan

__all__ = ["add_parser", "run_scan"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `scan` and its options to the command line."""
    parser = sub.add_parser("scan", help="scan stored transcripts (and fix them)")
    parser.add_argument("paths", nargs="+", help="files and directories (recursive); - for stdin")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        dest="fmt",
        help="how to read the files (default: by their suffix)",
    )
    parser.add_argument("--policy", help="policy TOML file (default: $RENDERSAFE_POLICY_FILE)")
    parser.add_argument(
        "--role",
        action="append",
        dest="roles",
        metavar="ROLE",
        help=f"roles to sanitise (default: {', '.join(sorted(ASSISTANT_ROLES))})",
    )
    parser.add_argument("--all-roles", action="store_true", help="sanitise every message")
    parser.add_argument(
        "--json-path",
        action="append",
        default=[],
        dest="json_paths",
        metavar="PATH",
        help="where the reply is in a custom record: a.b, a[].b",
    )
    parser.add_argument(
        "--include",
        action="append",
        metavar="GLOB",
        help=f"files to read in directories (default: {' '.join(DEFAULT_INCLUDE)})",
    )
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores)",
    )
    parser.add_argument("--json", dest="json_report", metavar="FILE", help="the JSON report")
    parser.add_argument("--sarif", metavar="FILE", help="the findings as SARIF 2.1.0")
    parser.add_argument("--fix", metavar="DIR", help="write sanitised copies under DIR")
    parser.add_argument("--in-place", action="store_true", help="overwrite the inputs (atomic)")
    parser.add_argument("--audit", metavar="FILE", help="append audit records to this JSONL file")
    parser.add_argument(
        "--max-record-bytes",
        type=int,
        default=DEFAULT_MAX_RECORD_BYTES,
        metavar="N",
        help="a longer JSONL line (or JSON/text file) is reported, not read (default: 16 MiB)",
    )
    parser.add_argument("--quiet", action="store_true", help="no summary table on stdout")


def run_scan(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: bytes | None) -> int:
    """Run `rendersafe scan`; return the exit code."""
    if args.fix and args.in_place:
        err.write("rendersafe: error: --fix and --in-place exclude each other\n")
        return EXIT_ERROR
    if args.max_record_bytes < 1:
        err.write("rendersafe: error: --max-record-bytes must be at least 1\n")
        return EXIT_ERROR
    roles = frozenset(role.lower() for role in args.roles or ASSISTANT_ROLES)
    options = ScanOptions(
        policy=load_policy(args.policy),
        fmt=args.fmt,
        roles=None if args.all_roles else roles,
        json_paths=tuple(args.json_paths),
        fix_dir=Path(args.fix) if args.fix else None,
        in_place=args.in_place,
        audit_path=Path(args.audit) if args.audit else None,
        max_record_bytes=args.max_record_bytes,
    )
    reports: dict[str, ReportFile] = {}
    try:
        # Every output is checked before the scan: none fails after an hour of work.
        for name in ("json_report", "sarif"):
            if getattr(args, name):
                reports[name] = ReportFile(getattr(args, name))
        if options.audit_path is not None:
            check_appendable(options.audit_path)
        report = scan(
            args.paths,
            options,
            jobs=max(args.jobs, 1),
            include=args.include or DEFAULT_INCLUDE,
            exclude=args.exclude,
            stdin=stdin,
            progress=_Progress(err) if err.isatty() else None,
        )
        _write_reports(report, args, reports, out, err)
    except (ScanUsageError, AuditError) as exc:
        err.write(f"rendersafe: error: {exc}\n")
        return EXIT_ERROR
    except Exception as exc:  # an internal failure is not "findings"
        err.write(f"rendersafe: internal error: {exc!r}\n")
        return EXIT_ERROR
    finally:
        for unwritten in reports.values():
            unwritten.abandon()
    return _exit_code(report)


def _write_reports(
    report: ScanReport,
    args: argparse.Namespace,
    reports: dict[str, ReportFile],
    out: TextIO,
    err: TextIO,
) -> None:
    if "json_report" in reports:
        reports.pop("json_report").write(report.model_dump_json(indent=2) + "\n")
    if "sarif" in reports:
        reports.pop("sarif").write(json.dumps(sarif(report), indent=2) + "\n")
    if not args.quiet:
        out.write(table(report))
    for error in report.errors:
        where = f"{error.path}:{error.line}" if error.line else error.path
        err.write(f"rendersafe: {where}: {error.message}\n")


def _exit_code(report: ScanReport) -> int:
    s = report.summary
    if s.records == 0 and (report.errors or s.files == 0):
        return EXIT_ERROR  # nothing could be read at all
    return EXIT_FINDINGS if s.findings or report.errors else EXIT_CLEAN


class _Progress:
    """One line on a terminal: tasks done, records, MB/s."""

    def __init__(self, err: TextIO) -> None:
        self.err, self.start = err, time.monotonic()
        self.done = self.records = self.bytes = 0

    def __call__(self, result: PartResult) -> None:
        self.done += 1
        self.records += result.records
        self.bytes += result.bytes_read
        rate = self.bytes / 1e6 / max(time.monotonic() - self.start, 1e-6)
        self.err.write(
            f"\rscan: {self.done} parts, {self.records} records, "
            f"{self.bytes / 1e6:.1f} MB, {rate:.1f} MB/s "
        )
        self.err.flush()


def stdin_bytes(stream: TextIO) -> bytes:
    """Standard input as bytes."""
    buffer = getattr(stream, "buffer", None)
    return buffer.read() if buffer is not None else stream.read().encode()
