"""`scan_partition`: scan one task (a file or a byte range of one). The unit of work
for local worker processes and for Dask alike.

JSONL is read a line at a time (constant memory); a JSON or text file is read whole.
A line that cannot be read (not UTF-8, not JSON, no known shape) is reported with its
file and line and copied unchanged into a fixed copy; a gzip file cut short is
reported at the line it broke, and no fixed copy of it is written.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import os
import zlib
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

from ..audit import AuditLog, JsonlSink, Source
from ..audit.recorder import AuditRecorder
from ..errors import RenderSafeError
from ..findings import Finding
from ..policy import Policy
from ..sanitizer import Sanitizer
from .inputs import Task
from .options import ScanOptions
from .records import Message, UnknownShapeError, conversations, messages_of, record_id
from .rows import ErrorRow, FindingRow

__all__ = ["PartResult", "scan_partition"]

_BROKEN_GZIP = (EOFError, gzip.BadGzipFile, zlib.error)


@dataclass
class PartResult:
    """What scanning one task found, and where its fixed part was written."""

    task: Task
    records: int = 0
    unreadable: int = 0
    bytes_read: int = 0
    findings: list[FindingRow] = field(default_factory=list)
    errors: list[ErrorRow] = field(default_factory=list)
    changed: bool = False
    fixed: Path | None = None  # a temporary file holding this part's output


def scan_partition(task: Task, options: ScanOptions) -> PartResult:
    """Scan `task` under `options`; write its fixed part if `options` asks for one."""
    result = PartResult(task)
    with ExitStack() as stack:
        audit = None
        if options.audit_path is not None:
            audit = stack.enter_context(
                AuditLog([JsonlSink(options.audit_path)], key=options.audit_key)
            )
        out = _output(task, task.fix_path, result, stack) if task.fix_path else None
        scanner = _Scanner(task, options, result, audit, out)
        try:
            scanner.run()
        except _BROKEN_GZIP as exc:
            # Reading the next line failed: that is the line it broke at.
            _failed(result, scanner.line + 1, f"the gzip stream is broken ({exc})")
        except Exception as exc:  # a vanished file, a nesting too deep for the parser
            _failed(result, scanner.line or None, f"could not be scanned: {exc!r}")
    return result


class _Scanner:
    def __init__(
        self,
        task: Task,
        options: ScanOptions,
        result: PartResult,
        audit: AuditLog | None,
        out: IO[bytes] | None,
    ) -> None:
        self.task, self.options, self.result, self.out = task, options, result, out
        self.recorder: AuditRecorder | None = None
        if audit is not None:
            self.recorder = audit.recorder(Source(kind="batch"), options.policy)
        self.line = 0  # the line being read
        self.sanitizer = _sanitizer(options.policy)

    def run(self) -> None:
        with ExitStack() as stack:
            data = _open(self.task, stack)
            if self.task.fmt == "jsonl":
                for line_no, raw in _lines(data, self.task):
                    self.line = line_no
                    self._jsonl_line(line_no, raw)
            else:
                self._whole(data.read())

    def _jsonl_line(self, line_no: int, raw: bytes) -> None:
        self.result.bytes_read += len(raw)
        if not raw.strip():
            self._write(raw)
            return
        body = raw.rstrip(b"\r\n")
        try:
            # utf-8-sig: a byte order mark before the first record is not part of it.
            box = [json.loads(body.decode("utf-8-sig" if line_no == 1 else "utf-8"))]
            changed = self._record_in(box, 0, line_no, f"{self.task.display}:{line_no}")
        except (UnicodeDecodeError, ValueError, RenderSafeError, RecursionError) as exc:
            self._unreadable(line_no, raw, exc)
            return
        self._write((_encoded(box[0]) + raw[len(body) :]) if changed else raw)

    def _whole(self, raw: bytes) -> None:
        self.result.bytes_read += len(raw)
        self.line = 1
        try:
            text = raw.decode("utf-8-sig")
            if self.task.fmt == "text":
                box: list[Any] = [text]
                changed = self._messages([Message("assistant", text, box, 0)], 1, self.task.display)
                self._write(box[0].encode() if changed else raw)
                return
            box = [json.loads(text)]
        except (UnicodeDecodeError, ValueError, RenderSafeError, RecursionError) as exc:
            self._unreadable(1, raw, exc)
            return
        self._json_document(box, raw)

    def _json_document(self, box: list[Any], raw: bytes) -> None:
        """A JSON file: a list of records, or one record."""
        holder = box[0] if isinstance(box[0], list) else box
        changed = False
        for index in range(len(holder)):
            try:
                changed |= self._record_in(holder, index, 1, str(index))
            except (ValueError, RenderSafeError) as exc:
                self.result.unreadable += 1
                message = f"record {index}: {_why(exc)}"
                self.result.errors.append(ErrorRow(path=self.task.display, message=message))
        indent = 2 if b"\n " in raw else None
        self._write(_encoded(box[0], indent) if changed else raw)

    def _record_in(self, holder: list[Any], index: int, line_no: int, fallback: str) -> bool:
        data = holder[index]
        if isinstance(data, str):
            messages = [Message("assistant", data, holder, index)]
        else:
            messages = messages_of(data, self.options.json_paths)
        self.result.records += 1
        return self._messages(messages, line_no, record_id(data, fallback))

    def _messages(self, messages: list[Message], line_no: int, rid: str) -> bool:
        changed = False
        for message, before in zip(messages, conversations(messages), strict=True):
            if not self.options.judges(message.role):
                continue
            context = {"role": message.role}
            result = self.sanitizer.run(message.text, context=context, conversation=before)
            for finding in result.findings:
                self._finding(finding, line_no, rid, message.role)
            if result.findings:
                message.put(result.text)
                changed = True
        self.result.changed |= changed
        return changed

    def _finding(self, finding: Finding, line_no: int, rid: str, role: str) -> None:
        row = FindingRow(
            path=self.task.display,
            line=line_no,
            record_id=rid,
            role=role,
            kind=finding.kind,
            action=finding.action,
            reasons=finding.reasons,
            host=finding.host,
        )
        self.result.findings.append(row)
        if self.recorder is not None:
            source = Source(kind="batch", file=self.task.display, line=line_no, record_id=rid)
            self.recorder.at(source).finding(finding)

    def _unreadable(self, line_no: int, raw: bytes, exc: Exception) -> None:
        self.result.unreadable += 1
        why = _why(exc)
        copied = "; copied unchanged to the fixed copy" if self.out is not None else ""
        self.result.errors.append(
            ErrorRow(path=self.task.display, line=line_no, message=why + copied)
        )
        self._write(raw)

    def _write(self, data: bytes) -> None:
        if self.out is not None:
            self.out.write(data)


def _failed(result: PartResult, line: int | None, why: str) -> None:
    """A task that could not finish: say where, and write no fixed copy of it."""
    message = f"{why}; no fixed copy written" if result.fixed is not None else why
    result.errors.append(ErrorRow(path=result.task.display, line=line, message=message))
    _discard(result.fixed)
    result.fixed = None


def _why(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 (byte {exc.start}: {exc.object[exc.start : exc.start + 1]!r})"
    if isinstance(exc, UnknownShapeError):
        return str(exc)
    if isinstance(exc, RenderSafeError):
        return f"could not be sanitised: {exc}"
    return f"not JSON: {exc}"


def _lines(data: IO[bytes], task: Task) -> Iterator[tuple[int, bytes]]:
    """The lines of the task's range, numbered."""
    position = task.start
    for number, raw in enumerate(data, task.first_line):
        if task.end is not None and position >= task.end:
            return
        position += len(raw)
        yield number, raw


def _open(task: Task, stack: ExitStack) -> IO[bytes]:
    raw: IO[bytes] = io.BytesIO(task.data) if task.data is not None else task.path.open("rb")
    stack.enter_context(raw)
    if task.start:
        raw.seek(task.start)
    if task.gzip:
        return stack.enter_context(cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb")))
    return raw


def _output(task: Task, final: Path, result: PartResult, stack: ExitStack) -> IO[bytes]:
    """A temporary file beside the fixed copy, for this part's output."""
    final.parent.mkdir(parents=True, exist_ok=True)
    result.fixed = final.parent / f".{final.name}.rendersafe-{os.getpid()}-{task.part}.tmp"
    # Private until it is complete; it takes the original's mode when moved into place.
    descriptor = os.open(result.fixed, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    raw = stack.enter_context(os.fdopen(descriptor, "wb"))
    if task.gzip:
        name = final.name[:-3] if final.name.endswith(".gz") else final.name
        packed = cast(IO[bytes], gzip.GzipFile(name, mode="wb", fileobj=raw, mtime=0))
        return stack.enter_context(packed)
    return raw


def _discard(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


def _encoded(data: Any, indent: int | None = None) -> bytes:
    """A record as UTF-8 JSON; escaped where it holds a lone surrogate (`\\ud83d`)."""
    try:
        return json.dumps(data, ensure_ascii=False, indent=indent).encode()
    except UnicodeEncodeError:
        return json.dumps(data, indent=indent).encode()


@functools.lru_cache(maxsize=4)
def _sanitizer(policy: Policy) -> Sanitizer:
    return Sanitizer(policy)
