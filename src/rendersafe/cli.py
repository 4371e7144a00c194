"""The `rendersafe` command: `run(argv) -> int`, one small function per subcommand.

    rendersafe sanitize reply.md            sanitised Markdown on stdout, findings on stderr
    rendersafe sanitize - < reply.md        read stdin
    rendersafe policy schema                the policy's JSON schema
    rendersafe policy check rendersafe.toml validate a policy file
    rendersafe csp [--policy FILE] [--nginx] the Content-Security-Policy for the chat page
    rendersafe demo [--port 8765]           a local chat page behind the middleware
    rendersafe proxy --upstream URL         a sanitising reverse proxy (see `proxy --help`)
    rendersafe scan logs/ [--fix DIR]       scan stored transcripts (see `scan --help`)
    rendersafe audit summary audit.jsonl    counts by host, construct, reason and day
    rendersafe audit schema                 the audit record's JSON schema

Exit codes: 0 nothing found, 1 findings, 2 usage, policy or input error (docs/cli.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import TextIO

from ._build import __version__
from .audit.record import AuditRecord
from .audit.summary import summarise
from .config import load_policy, policy_problems, tool_settings
from .content_security import csp
from .errors import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, RenderSafeError
from .policy import Policy
from .sanitizer import Sanitizer
from .scan.command import add_parser as add_scan_parser
from .scan.command import run_scan, stdin_bytes

__all__ = ["main", "run"]


def run(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command line; return the exit code."""
    streams = _Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    parsers: dict[str, argparse.ArgumentParser] = {}
    parser = _parser(parsers)
    try:
        # --help and --version print through argparse: to the streams given.
        with contextlib.redirect_stdout(streams.out), contextlib.redirect_stderr(streams.err):
            args, unknown = parser.parse_known_args(argv)
            name = _command_name(args)
            if unknown:  # the usage of the command mistyped, not the top level's
                parsers[name].error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return EXIT_CLEAN if exc.code == 0 else EXIT_ERROR
    try:
        return COMMANDS[name](args, streams)
    except OSError as exc:
        streams.err.write(f"rendersafe: error: {_os_error(exc)}\n")
        return EXIT_ERROR
    except (RenderSafeError, UnicodeDecodeError) as exc:
        streams.err.write(f"rendersafe: error: {exc}\n")
        return EXIT_ERROR


def _command_name(args: argparse.Namespace) -> str:
    nested = args.command in ("policy", "audit")
    return f"{args.command} {args.action}" if nested else str(args.command)


def _os_error(exc: OSError) -> str:
    """An operating system error as the command line says it: the file, then why."""
    if exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return exc.strerror or str(exc)


class _InputError(RenderSafeError):
    """An input or an address the command line cannot use (exit 2)."""


def main() -> None:
    """Console entry point."""
    sys.exit(run())


class _Streams:
    def __init__(self, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> None:
        self.inp, self.out, self.err = stdin, stdout, stderr


_DESCRIPTION = """\
Sanitise LLM chat replies so no renderer fetches a URL that could carry data away:
remote images off the allowlist, links carrying data, script URLs, event handlers."""
_EPILOG = """\
exit codes:
  0  nothing found (or nothing to report); for scan also: findings only below
     --fail-on, --exit-zero, or --fix / --in-place fixed every finding
  1  findings (something was changed or would be), or inputs that could not be read
  2  usage, policy or input error (the message names the file, flag or address)

Run 'rendersafe COMMAND --help' for a command's options."""


def _parser(parsers: dict[str, argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """The command line's parser; `parsers` is given each command's, by name."""
    parser = argparse.ArgumentParser(
        prog="rendersafe",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rendersafe {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    clean = parsers["sanitize"] = sub.add_parser("sanitize", help="sanitise one Markdown reply")
    clean.add_argument("file", nargs="?", default="-", help="a file, or - for stdin")
    clean.add_argument("--policy", help="policy TOML file (default: $RENDERSAFE_POLICY_FILE)")
    clean.add_argument("--json", action="store_true", help="findings as JSON lines on stderr")
    policy = sub.add_parser("policy", help="inspect policies")
    actions = policy.add_subparsers(dest="action", required=True)
    parsers["policy schema"] = actions.add_parser("schema", help="print the policy's JSON schema")
    check = parsers["policy check"] = actions.add_parser(
        "check",
        help="validate a policy file (with the RENDERSAFE_* environment applied)",
        description="Validate a policy file as every command reads it: the file, then the "
        "RENDERSAFE_* environment on top. Every error is reported, each with its field and "
        "where it came from; an unknown key names the setting it was probably meant to be. "
        "Prints the resulting policy (settings that differ from the defaults).",
        epilog="exit codes: 0 valid, 2 any error",
    )
    check.add_argument("file", nargs="?", help="the TOML file (default: $RENDERSAFE_POLICY_FILE)")
    parsers["csp"] = _add_csp_parser(sub)
    audit = sub.add_parser("audit", help="read audit logs")
    audit_actions = audit.add_subparsers(dest="action", required=True)
    summary = parsers["audit summary"] = audit_actions.add_parser(
        "summary", help="count the records of an audit file"
    )
    summary.add_argument("file")
    summary.add_argument("--json", action="store_true", help="the counts as JSON")
    summary.add_argument("--since", type=_since, help="only records from this time on (ISO 8601)")
    parsers["audit schema"] = audit_actions.add_parser(
        "schema", help="print the audit record's JSON schema"
    )
    parsers["scan"] = add_scan_parser(sub)
    demo = parsers["demo"] = sub.add_parser(
        "demo", help="serve a local chat page behind the middleware"
    )
    demo.add_argument("--port", type=_port, default=8765, help="default 8765")
    demo.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to bind (default 127.0.0.1); its name is also accepted as Host",
    )
    demo.add_argument("--policy", help="policy TOML file (default: $RENDERSAFE_POLICY_FILE)")
    demo.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests with this Host name (default: only 127.0.0.1, "
        "localhost and [::1] on --port)",
    )
    demo.add_argument(
        "--attacker-port",
        type=_port,
        default=0,
        metavar="PORT",
        help="the fake attacker server's port on 127.0.0.1 (default: a free one)",
    )
    parsers["proxy"] = _add_proxy_parser(sub)
    return parser


def _port(value: str) -> int:
    """A TCP port number (0-65535), for argparse."""
    try:
        port = int(value)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port (0-65535): {value!r}")
    return port


def _add_csp_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    header = sub.add_parser(
        "csp",
        help="print the Content-Security-Policy header that matches a policy",
        description="The header value for the chat page: images only from its own origin, "
        "the policy's allowed image hosts and its image proxy; media, frames, fetch and "
        "form posts only from its own origin (add sources below); no <base>, no plug-ins.",
    )
    header.add_argument("--policy", help="policy TOML file (default: $RENDERSAFE_POLICY_FILE)")
    for directive in _CSP_DIRECTIVES:
        header.add_argument(
            f"--{directive}",
            action="append",
            default=[],
            metavar="SOURCE",
            help=f"another {directive} source (repeatable), e.g. https://api.example.com",
        )
    header.add_argument(
        "--nginx", action="store_true", help="print an nginx add_header directive instead"
    )
    header.add_argument(
        "--report-only",
        action="store_true",
        help="with --nginx: Content-Security-Policy-Report-Only (reports, blocks nothing)",
    )
    return header


_CSP_DIRECTIVES = ("img-src", "media-src", "frame-src", "connect-src", "form-action")


def _add_proxy_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    proxy = sub.add_parser(
        "proxy",
        help="a reverse proxy that sanitises chat replies from an upstream server",
        description="Forward every request to --upstream; sanitise OpenAI chat and legacy "
        "completions and Responses, Anthropic Messages and Ollama chat and generate replies, "
        "and the paths a --format is pinned for.",
        epilog="The policy file's [proxy.formats] table pins formats as --format does "
        '(\'"/custom/chat" = "sse"\'); --format wins for the same path.',
    )
    proxy.add_argument(
        "--upstream",
        required=True,
        metavar="URL",
        help="e.g. http://127.0.0.1:11434; credentials in it (https://user:PASS@host) are "
        "sent as Basic auth only when a client sends no Authorization, and never shown",
    )
    proxy.add_argument(
        "--listen", default="127.0.0.1:8787", metavar="HOST:PORT", help="default 127.0.0.1:8787"
    )
    proxy.add_argument("--policy", help="policy TOML file (default: $RENDERSAFE_POLICY_FILE)")
    proxy.add_argument("--audit", metavar="FILE", help="append audit records to this JSONL file")
    proxy.add_argument(
        "--audit-backlog",
        type=int,
        default=10_000,
        metavar="N",
        help="audit records kept for a retry while the file cannot be written; past it the "
        "oldest are dropped and counted (default 10000)",
    )
    proxy.add_argument(
        "--monitor", action="store_true", help="shadow mode: record findings, change nothing"
    )
    proxy.add_argument(
        "--format",
        action="append",
        default=[],
        metavar="PATH=FORMAT",
        help="a chat path (glob) and the format its replies are read in whatever their content "
        "type: sse, ndjson, json, text, sniff or an SSE dialect (openai-chat, anthropic, ...)",
    )
    limits = proxy.add_argument_group("limits")
    limits.add_argument(
        "--max-concurrency", type=int, default=256, metavar="N", help="503 past it (default 256)"
    )
    limits.add_argument(
        "--max-client-connections",
        type=int,
        default=256,
        metavar="N",
        help="connections one client address may hold (default 256)",
    )
    limits.add_argument(
        "--max-body-bytes",
        type=int,
        default=32 * 1024 * 1024,
        metavar="N",
        help="a larger request is a 413 (default 32 MiB)",
    )
    for name, default, what in _TIMEOUTS:
        limits.add_argument(f"--{name}", type=float, default=default, metavar="SECONDS", help=what)
    return proxy


_TIMEOUTS = (
    ("connect-timeout", 10.0, "the longest wait for the upstream to accept (default 10)"),
    (
        "read-timeout",
        300.0,
        "the longest wait for the upstream's next bytes (default 300)",
    ),
    ("header-timeout", 10.0, "a client's request line and headers, at most (default 10)"),
    ("body-timeout", 60.0, "a client's request body, at most (default 60)"),
    ("idle-timeout", 60.0, "a client leaving the reply unread, at most (default 60)"),
    ("grace", 30.0, "on SIGTERM, how long streams in flight may go on (default 30)"),
)


def _sanitize(args: argparse.Namespace, streams: _Streams) -> int:
    policy = load_policy(args.policy)
    text = _read_reply(args.file, streams.inp)
    result = Sanitizer(policy).run(text, context={"source": args.file})
    streams.out.write(result.text)
    for finding in result.findings:
        line = finding.model_dump_json() if args.json else f"{args.file}:{finding.summary()}"
        streams.err.write(line + "\n")
    return EXIT_FINDINGS if result.findings else EXIT_CLEAN


def _read_reply(name: str, stdin: TextIO) -> str:
    """The reply in file `name` (`-`: standard input); `_InputError` naming it if it
    cannot be read or is not UTF-8."""
    where = "standard input" if name == "-" else name
    try:
        # Standard input as bytes: its text layer may pass bad bytes on as surrogates.
        return stdin_bytes(stdin).decode("utf-8") if name == "-" else Path(name).read_text("utf-8")
    except UnicodeDecodeError as exc:
        why = f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
        raise _InputError(f"{where}: {why}") from exc
    except OSError as exc:
        raise _InputError(f"{where}: {exc.strerror or exc}") from exc


def _schema(args: argparse.Namespace, streams: _Streams) -> int:
    streams.out.write(json.dumps(Policy.model_json_schema(), indent=2) + "\n")
    return EXIT_CLEAN


def _check(args: argparse.Namespace, streams: _Streams) -> int:
    policy, problems = policy_problems(args.file)
    for problem in problems:
        streams.err.write(f"rendersafe: {args.file or 'policy'}: {problem}\n")
    if policy is None:
        return EXIT_ERROR
    streams.out.write(policy.model_dump_json(indent=2, exclude_defaults=True) + "\n")
    return EXIT_CLEAN


Command = Callable[[argparse.Namespace, _Streams], int]


def _csp(args: argparse.Namespace, streams: _Streams) -> int:
    added = {d.replace("-", "_"): getattr(args, d.replace("-", "_")) for d in _CSP_DIRECTIVES}
    value = csp(load_policy(args.policy), **added)
    if args.nginx:
        name = "Content-Security-Policy" + ("-Report-Only" if args.report_only else "")
        streams.out.write(f'add_header {name} "{value}" always;\n')
    else:
        streams.out.write(value + "\n")
    return EXIT_CLEAN


def _demo(args: argparse.Namespace, streams: _Streams) -> int:
    try:
        import uvicorn  # noqa: F401, PLC0415  (optional: the demo extra)
    except ImportError:
        streams.err.write("rendersafe demo needs uvicorn: pip install 'rendersafe[demo]'\n")
        return EXIT_ERROR
    from .demo import LOCAL_HOSTS, serve  # noqa: PLC0415  (starlette, only for the demo)
    from .demo.guard import host_names  # noqa: PLC0415

    hosts = [*LOCAL_HOSTS, *host_names(args.host), *args.allow_host]
    policy = load_policy(args.policy)
    try:
        serve(
            policy,
            hosts=hosts,
            port=args.port,
            attacker_port=args.attacker_port,
            out=streams.err,
            bind=args.host,
        )
    except OSError as exc:  # the address taken, or no such host
        raise _InputError(f"cannot serve on {args.host}:{args.port}: {_os_error(exc)}") from exc
    return EXIT_CLEAN


def _proxy(args: argparse.Namespace, streams: _Streams) -> int:
    try:
        import httpx  # noqa: F401, PLC0415  (optional: the proxy extra)
        import uvicorn  # noqa: F401, PLC0415
    except ImportError as exc:
        streams.err.write(f"rendersafe proxy needs {exc.name}: pip install 'rendersafe[proxy]'\n")
        return EXIT_ERROR
    from .audit import AuditLog, JsonlSink  # noqa: PLC0415
    from .gateway import Gateway, Settings, bound_socket, serve, split_listen  # noqa: PLC0415

    policy = load_policy(args.policy, mode="monitor") if args.monitor else load_policy(args.policy)
    try:
        settings = Settings(
            upstream=args.upstream,
            formats=_formats(args),
            max_body_bytes=args.max_body_bytes,
            max_concurrency=args.max_concurrency,
            max_client_connections=args.max_client_connections,
            connect_timeout=args.connect_timeout,
            read_timeout=args.read_timeout,
            header_timeout=args.header_timeout,
            body_timeout=args.body_timeout,
            idle_timeout=args.idle_timeout,
            grace_seconds=args.grace,
        )
        host, port = split_listen(args.listen)
        if args.audit_backlog < 0:
            raise ValueError(f"--audit-backlog must be 0 or more, not {args.audit_backlog}")
        audit = None
        if args.audit:
            audit = AuditLog([JsonlSink(args.audit)], retry_records=args.audit_backlog)
        gateway = Gateway(settings, policy=policy, audit=audit)
    except ValueError as exc:
        streams.err.write(f"rendersafe: error: {exc}\n")
        return EXIT_ERROR
    try:
        sock = bound_socket(host, port)
    except OSError as exc:  # the address taken, or no such host
        raise _InputError(f"cannot listen on {args.listen}: {_os_error(exc)}") from exc
    with sock:
        serve(gateway, sock, out=streams.err)
    return EXIT_CLEAN


def _formats(args: argparse.Namespace) -> dict[str, str]:
    """The formats pinned per path: the policy file's `[proxy.formats]`, then `--format`."""
    table = tool_settings("proxy", args.policy)
    unknown = sorted(set(table) - {"formats"})
    if unknown:
        raise ValueError(f"[proxy] {unknown[0]}: not a setting of [proxy] (it has formats)")
    formats = table.get("formats", {})
    if not isinstance(formats, dict) or not all(isinstance(v, str) for v in formats.values()):
        raise ValueError('[proxy.formats] maps paths to formats: "/custom/chat" = "sse"')
    pins = dict(formats)
    for pair in args.format:
        path, equals, fmt = pair.rpartition("=")
        if not equals or not path:
            raise ValueError(f"--format takes PATH=FORMAT, not {pair!r}")
        pins[path] = fmt
    return pins


def _audit_summary(args: argparse.Namespace, streams: _Streams) -> int:
    summary = summarise(Path(args.file), args.since)
    for warning in summary.skipped:
        streams.err.write(f"rendersafe: warning: {warning}\n")
    if args.json:
        streams.out.write(json.dumps(summary.as_json(), indent=2) + "\n")
    else:
        streams.out.write(summary.table())
    return EXIT_CLEAN


def _scan(args: argparse.Namespace, streams: _Streams) -> int:
    stdin = stdin_bytes(streams.inp) if "-" in args.paths else None
    return run_scan(args, streams.out, streams.err, stdin)


def _audit_schema(args: argparse.Namespace, streams: _Streams) -> int:
    streams.out.write(json.dumps(AuditRecord.model_json_schema(), indent=2) + "\n")
    return EXIT_CLEAN


def _since(value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {value!r}") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


COMMANDS: Mapping[str, Command] = MappingProxyType(
    {
        "sanitize": _sanitize,
        "policy schema": _schema,
        "policy check": _check,
        "csp": _csp,
        "demo": _demo,
        "proxy": _proxy,
        "audit summary": _audit_summary,
        "audit schema": _audit_schema,
        "scan": _scan,
    }
)
