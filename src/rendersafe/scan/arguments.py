"""The options of `rendersafe scan`, as ruff and bandit spell them.

rendersafe scan logs/                                 findings and a summary on stdout
rendersafe scan logs/ --output-format sarif -o scan.sarif
rendersafe scan logs/ --output-format github --fail-on high
rendersafe scan logs/ --fix cleaned/ --select encoded_base64,canary
"""

from __future__ import annotations

import argparse
import os

from .inputs import DEFAULT_INCLUDE
from .options import ASSISTANT_ROLES, DEFAULT_MAX_RECORD_BYTES, FORMATS
from .selection import THRESHOLDS

__all__ = ["EPILOG", "OUTPUT_FORMATS", "add_parser"]

OUTPUT_FORMATS = ("text", "json", "sarif", "html", "github")
_DESCRIPTION = """\
Scan stored chat transcripts for replies that would make a browser fetch an attacker's
URL (remote images, links carrying data), and optionally write cleaned copies.

Reads JSONL, JSON and Markdown/text files, and the exports of ChatGPT, Claude.ai,
Open WebUI, LMSYS-Chat-1M/WildChat, Hugging Face Parquet, LangSmith/LangChain, OpenAI
and Anthropic batches, Gemini/Vertex, chat.completion and Responses objects, each
recognised by its shape. Only the model's messages are judged (and fixed); the
messages before each reply are its conversation. Reports rendersafe wrote earlier
(JSON, SARIF, HTML) inside a scanned folder are skipped."""
EPILOG = """\
exit codes:
  0  nothing found; or only findings below --fail-on; or --exit-zero; or --fix /
     --in-place fixed every finding
  1  findings, or inputs that could not be read or fixed (each listed by path)
  2  usage or policy error, an output that cannot be written, no input files,
     or no input could be read at all

examples:
  rendersafe scan logs/                              findings and a summary on stdout
  rendersafe scan logs/ -q                           findings only
  rendersafe scan conversations.json --output-format json     the JSON report
  rendersafe scan logs/ --output-format sarif -o scan.sarif --exit-zero
  rendersafe scan logs/ --output-format github --fail-on high   GitHub Actions
  rendersafe scan logs/ --fix cleaned/               sanitised copies, same format
  rendersafe scan data.json --json-path 'mapping.*.message.content.parts[]' \\
      --role-path 'mapping.*.message.author.role'"""


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Add `scan` and its options to the command line; return its parser."""
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
    _add_inputs(parser)
    _add_outputs(parser)
    _add_verdicts(parser)
    _add_fixes(parser)
    return parser


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("inputs")
    group.add_argument(
        "--input-format",
        choices=FORMATS,
        default="auto",
        dest="fmt",
        help="how to read the files (default: auto, by suffix, or by content on stdin)",
    )
    # Before --input-format, --format named the input format; ruff and bandit use the
    # word for the report's. Hidden, and warned about, so old scripts keep working.
    group.add_argument("--format", choices=FORMATS, dest="old_fmt", help=argparse.SUPPRESS)
    group.add_argument("--policy", help="policy TOML file (default: $RENDERSAFE_POLICY_FILE)")
    group.add_argument(
        "--role",
        action="append",
        dest="roles",
        metavar="ROLE",
        help=f"roles to sanitise (default: {', '.join(sorted(ASSISTANT_ROLES))})",
    )
    group.add_argument("--all-roles", action="store_true", help="sanitise every message")
    group.add_argument(
        "--json-path",
        action="append",
        default=[],
        dest="json_paths",
        metavar="PATH",
        help="where the texts are in a custom record: a.b, a[].b, a.*.b (any key)",
    )
    group.add_argument(
        "--role-path",
        action="append",
        default=[],
        dest="role_paths",
        metavar="PATH",
        help="where each --json-path text's role is (the match sharing most of its path)",
    )
    group.add_argument(
        "--include",
        action="append",
        metavar="GLOB",
        help=f"files to read in directories (default: {' '.join(DEFAULT_INCLUDE)})",
    )
    group.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB", help="files and folders to skip"
    )
    group.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="worker processes (default: all cores)",
    )
    group.add_argument(
        "--max-record-bytes",
        type=int,
        default=DEFAULT_MAX_RECORD_BYTES,
        metavar="N",
        help="a longer JSONL line, record of a JSON list, or other file is reported, not read "
        "(default: 16 MiB)",
    )


def _add_outputs(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        help="the report's format (default: text): github prints GitHub Actions annotations",
    )
    group.add_argument(
        "-o", "--output", metavar="FILE", help="write the report to FILE (default: stdout)"
    )
    group.add_argument(
        "--json", dest="json_report", metavar="FILE", help="also the JSON report (- for stdout)"
    )
    group.add_argument("--sarif", metavar="FILE", help="also a SARIF 2.1.0 log (- for stdout)")
    group.add_argument("--html", metavar="FILE", help="also a self-contained HTML page")
    group.add_argument(
        "-q", "--quiet", action="store_true", help="no summary: only findings and errors"
    )


def _add_verdicts(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("which findings count")
    group.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="CODES",
        help="report only these reason codes (comma-separated, e.g. encoded_base64,canary)",
    )
    group.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="CODES",
        help="do not report these reason codes (comma-separated)",
    )
    group.add_argument(
        "--fail-on",
        choices=tuple(THRESHOLDS),
        help="exit 1 only for findings of this security severity or worse: low (all), "
        "medium (4.0 and up), high (7.0 and up)",
    )
    group.add_argument("--exit-zero", action="store_true", help="exit 0 even if there are findings")


def _add_fixes(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("fixes")
    group.add_argument(
        "--fix",
        metavar="DIR",
        help="write sanitised copies under DIR (several arguments: each keeps its path)",
    )
    group.add_argument("--in-place", action="store_true", help="overwrite the inputs (atomic)")
    group.add_argument(
        "--keep-unsanitisable",
        action="store_true",
        help="copy records that cannot be sanitised (too long, not JSON, unknown shape) into "
        "fixed copies unchanged; by default a placeholder takes their place",
    )
    group.add_argument("--audit", metavar="FILE", help="append audit records to this JSONL file")
