"""`rendersafe scan`: the command line of the batch scanner.

    rendersafe scan fixtures/transcripts/
    rendersafe scan logs/ --format jsonl --policy rendersafe.toml --json report.json
    rendersafe scan logs/ --fix cleaned/ --audit audit.jsonl
    rendersafe scan conversations.json --sarif - | upload-sarif

Exit codes: 0 nothing found, 1 findings or inputs that could not be read or fixed (each
listed in the report by path), 2 usage or policy errors, an output that cannot be
written (checked before the scan), no input files, or no input could be read at all.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TextIO

from ..config import load_policy
from ..errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, AuditError
from .html_report import html_report
from .inputs import DEFAULT_INCLUDE, Task
from .options import ASSISTANT_ROLES, DEFAULT_MAX_RECORD_BYTES, FORMATS, ScanOptions
from .outputs import ReportFile, check_appendable
from .progress import Bar
from .report import ScanReport, sarif, table
from .runner import ScanUsageError, scan

__all__ = ["EPILOG", "add_parser", "run_scan"]

_DESCRIPTION = """\
Scan stored chat transcripts for replies that would make a browser fetch an attacker's
URL (remote images, links carrying data), and optionally write cleaned copies.

Reads JSONL, JSON and Markdown/text files, and the exports of ChatGPT, Claude.ai,
Open WebUI, LMSYS-Chat-1M/WildChat, Hugging Face Parquet, LangSmith/LangChain, OpenAI
and Anthropic batches, Gemini/Vertex, chat.completion and Responses objects, each
recognised by its shape. Only the model's messages are judged (and fixed); the
messages before each reply are its conversation."""
EPILOG = """\
exit codes:
  0  nothing found
  1  findings, or inputs that could not be read or fixed (each listed by path)
  2  usage or policy error, an output that cannot be written, no input files,
     or no input could be read at all

examples:
  rendersafe scan logs/                              summary table on stdout
  rendersafe scan conversations.json --json -        the JSON report on stdout
  rendersafe scan logs/ --sarif report.sarif --html report.html
  rendersafe scan logs/ --fix cleaned/               sanitised copies, same format
  rendersafe scan data.json --json-path 'mapping.*.message.content.parts[]' \\
      --role-path 'mapping.*.message.author.role'"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `scan` and its options to the command line."""
    parser = sub.add_parser(
        "scan",
        help="scan stored transcripts (and fix them)",
        description=_DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="+",
        help="files, directories (recursive) and globs ('logs/**/*.json'); - for stdin",
    )
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
        help="where the texts are in a custom record: a.b, a[].b, a.*.b (any key)",
    )
    parser.add_argument(
        "--role-path",
        action="append",
        default=[],
        dest="role_paths",
        metavar="PATH",
        help="where each --json-path text's role is (the match sharing most of its path)",
    )
    parser.add_argument(
        "--include",
        action="append",
        metavar="GLOB",
        help=f"files to read in directories (default: {' '.join(DEFAULT_INCLUDE)})",
    )
    parser.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB", help="files and folders to skip"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores)",
    )
    parser.add_argument(
        "--json", dest="json_report", metavar="FILE", help="the JSON report (- for stdout)"
    )
    parser.add_argument(
        "--sarif", metavar="FILE", help="the findings as SARIF 2.1.0 (- for stdout)"
    )
    parser.add_argument("--html", metavar="FILE", help="the report as one self-contained HTML page")
    parser.add_argument("--fix", metavar="DIR", help="write sanitised copies under DIR")
    parser.add_argument("--in-place", action="store_true", help="overwrite the inputs (atomic)")
    parser.add_argument(
        "--keep-unsanitisable",
        action="store_true",
        help="copy records that cannot be sanitised (too long, not JSON, unknown shape) into "
        "fixed copies unchanged; by default a placeholder takes their place",
    )
    parser.add_argument("--audit", metavar="FILE", help="append audit records to this JSONL file")
    parser.add_argument(
        "--max-record-bytes",
        type=int,
        default=DEFAULT_MAX_RECORD_BYTES,
        metavar="N",
        help="a longer JSONL line, record of a JSON list, or other file is reported, not read "
        "(default: 16 MiB)",
    )
    parser.add_argument("--quiet", action="store_true", help="no summary table")


def run_scan(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: bytes | None) -> int:
    """Run `rendersafe scan`; return the exit code."""
    wrong = _usage_error(args)
    if wrong:
        err.write(f"rendersafe: error: {wrong}\n")
        return EXIT_ERROR
    roles = frozenset(role.lower() for role in args.roles or ASSISTANT_ROLES)
    options = ScanOptions(
        policy=load_policy(args.policy),
        fmt=args.fmt,
        roles=None if args.all_roles else roles,
        json_paths=tuple(args.json_paths),
        role_paths=tuple(args.role_paths),
        fix_dir=Path(args.fix) if args.fix else None,
        in_place=args.in_place,
        audit_path=Path(args.audit) if args.audit else None,
        max_record_bytes=args.max_record_bytes,
        keep_unsanitisable=args.keep_unsanitisable,
    )
    reports: dict[str, ReportFile | _Stdout] = {}
    bar = _BarStarter(err)
    try:
        # Every output is checked before the scan: none fails after an hour of work.
        for name in ("json_report", "sarif", "html"):
            target = getattr(args, name)
            if target:
                reports[name] = _Stdout(out) if target == "-" else ReportFile(target)
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
        )
        bar.close()  # cleared before the summary
        _write_reports(report, args, reports, out, err)
    except (ScanUsageError, AuditError) as exc:
        bar.close()
        err.write(f"rendersafe: error: {exc}\n")
        return EXIT_ERROR
    except Exception as exc:  # an internal failure is not "findings"
        bar.close()
        err.write(f"rendersafe: internal error: {exc!r}\n")
        return EXIT_ERROR
    finally:
        for unwritten in reports.values():
            unwritten.abandon()
    return _exit_code(report)


def _usage_error(args: argparse.Namespace) -> str:
    """What is wrong with the options together, or ""."""
    if args.fix and args.in_place:
        return "--fix and --in-place exclude each other"
    if args.max_record_bytes < 1:
        return "--max-record-bytes must be at least 1"
    if args.role_paths and not args.json_paths:
        return "--role-path needs --json-path (the texts it gives roles)"
    if [args.json_report, args.sarif, args.html].count("-") > 1:
        return "only one of --json, --sarif and --html can be - (stdout)"
    return ""


def _write_reports(
    report: ScanReport,
    args: argparse.Namespace,
    reports: dict[str, ReportFile | _Stdout],
    out: TextIO,
    err: TextIO,
) -> None:
    to_stdout = any(isinstance(r, _Stdout) for r in reports.values())
    if "json_report" in reports:
        reports.pop("json_report").write(report.model_dump_json(indent=2) + "\n")
    if "sarif" in reports:
        reports.pop("sarif").write(json.dumps(sarif(report), indent=2) + "\n")
    if "html" in reports:
        reports.pop("html").write(html_report(report))
    if not args.quiet:
        # stdout holds the report: the table goes to stderr, so the report parses.
        (err if to_stdout else out).write(table(report))
    for error in report.errors:
        where = f"{error.path}:{error.line}" if error.line else error.path
        err.write(f"rendersafe: {where}: {error.message}\n")


def _exit_code(report: ScanReport) -> int:
    s = report.summary
    if s.records == 0 and (report.errors or s.files == 0):
        return EXIT_ERROR  # nothing could be read at all
    return EXIT_FINDINGS if s.findings or report.errors else EXIT_CLEAN


class _Stdout:
    """A report written to standard output (`--json -`)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> None:
        """Write the report."""
        self.out.write(text)
        self.out.flush()

    def abandon(self) -> None:
        """Nothing to close."""


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
