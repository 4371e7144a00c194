"""`scan_partition`: scan one task (a file or a byte range of one). The unit of work
for local worker processes and for Dask alike.

JSONL is read a line at a time; a JSON list (a ChatGPT `conversations.json`) a record
at a time (`jsondoc.ArrayReader`); any other JSON or text file whole; Parquet a batch
of rows at a time. Either way no more than `max_record_bytes` of one record is held: a
longer line (record, file) is reported, not loaded. A record that cannot be sanitised
(not UTF-8, not JSON, no known shape, too long to read or to sanitise) is reported with
its file and line, and a fixed copy fails closed: it holds a placeholder in the
record's place (`{"rendersafe_withheld": "<why>"}`; a text file's is a line of text),
never the record, unless `keep_unsanitisable` copies it unchanged as it is. A JSON list
broken past some record, and a gzip file cut short, are reported where they broke, and
no fixed copy of them is written (with `keep_unsanitisable`, a broken list's rest is
copied). A fixed JSON record is the original bytes with only the changed strings
replaced (`jsondoc.splice`).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import json
import os
import re
import stat
import zlib
from collections import Counter
from collections.abc import Sequence
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
from ..shapes import MODEL, Kind, Text
from . import progress
from .inputs import Task
from .jsondoc import ArrayReader, BrokenDocumentError, Item, encoded, is_array, splice
from .options import ScanOptions
from .parquet import ParquetMissingError, scan_parquet
from .paths import PathSpec, path_texts
from .records import (
    RecordText,
    UnknownShapeError,
    conversation_before,
    is_message_list_head,
    recognise,
    record_day,
    record_id,
    texts_of,
)
from .rows import ErrorRow, FindingRow

__all__ = ["PartResult", "scan_partition"]

_BROKEN_GZIP = (EOFError, gzip.BadGzipFile, zlib.error)
_COPIED = "; copied unchanged to the fixed copy"
_WITHHELD = "; withheld from the fixed copy (a placeholder is in its place)"
_BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark: not part of the first record
_COPY_BLOCK = 1 << 20
_HEAD = 1 << 20
# A list of LangChain messages (`messages_to_dict`) is one conversation, read whole.


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
    path_hits: dict[str, int] = field(default_factory=dict)  # fields each --json-path matched


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
            _finish_output(stack, result)
        except _BROKEN_GZIP as exc:
            # Reading the next line failed: that is the line it broke at.
            _failed(result, stack, scanner.line + 1, f"the gzip stream is broken ({exc})")
        except _WriteError as exc:
            _failed(result, stack, None, str(exc))
        except _WithheldError as exc:
            result.unreadable += 1
            _failed(result, stack, exc.line, str(exc))
        except ParquetMissingError as exc:
            result.unreadable += 1
            _failed(result, stack, None, str(exc))
        except OSError as exc:  # unreadable, vanished, or not a regular file any more
            why = f"cannot be read ({exc.strerror or exc})"
            _failed(result, stack, scanner.line or None, why)
        except Exception as exc:  # a nesting too deep for the parser
            _failed(result, stack, scanner.line or None, f"could not be scanned: {exc!r}")
    return result


class _WithheldError(Exception):
    """The rest of the file cannot be read, so no fixed copy of it is written."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


class _WriteError(Exception):
    """The fixed part could not be written: says where."""

    def __init__(self, path: Path | None, exc: OSError) -> None:
        super().__init__(f"the fixed copy could not be written to {path} ({exc.strerror or exc})")


def _finish_output(stack: ExitStack, result: PartResult) -> None:
    try:
        stack.close()  # flushed and on disk (see `_output`)
    except OSError as exc:
        raise _WriteError(result.fixed, exc) from exc


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
        self.paths = PathSpec(options.json_paths, options.role_paths)
        self.hits: Counter[str] = Counter({path: 0 for path in options.json_paths})
        self.meter = progress.Meter()
        self.day: str | None = None  # the day of the record being judged
        # A fixed copy fails closed: what cannot be sanitised is not copied into it.
        self.withhold = out is not None and not options.keep_unsanitisable
        self.copied = (_WITHHELD if self.withhold else _COPIED) if out is not None else ""

    def run(self) -> None:
        with ExitStack() as stack:
            stack.callback(self.meter.flush)
            data = _open(self.task, stack)
            if self.task.fmt == "jsonl":
                self._jsonl(data)
            elif self.task.fmt == "parquet":
                self.result.bytes_read += scan_parquet(data, self.out, self._row)
            else:
                self._whole(data)
        self.result.path_hits = dict(self.hits)

    def _jsonl(self, data: IO[bytes]) -> None:
        limit = self.options.max_record_bytes
        position, line_no = self.task.start, self.task.first_line - 1
        while self.task.end is None or position < self.task.end:
            # At most limit + 1 bytes: a longer line is never held whole.
            raw = data.readline(limit + 1)
            if not raw:
                return
            line_no += 1
            self.line = line_no
            if len(raw) > limit and not raw.endswith(b"\n"):
                position += self._too_long(line_no, raw, data)
                continue
            position += len(raw)
            self.meter.add(len(raw))
            self._jsonl_line(line_no, raw)

    def _too_long(self, line_no: int | None, head: bytes, data: IO[bytes]) -> int:
        """Pass the rest of an over-long line (`line_no` None: file) by unread, a block
        at a time, copied or withheld; report it."""
        copy = self._write if not self.withhold else _ignored
        copy(head)
        size = len(head)
        ended = line_no is not None and head.endswith(b"\n")
        read = data.readline if line_no is not None else data.read
        while not ended and (head := read(_COPY_BLOCK)):
            copy(head)
            size += len(head)
            ended = line_no is not None and head.endswith(b"\n")
        what = "line" if line_no is not None else "file"
        self.result.bytes_read += size
        self.meter.add(size)
        self.result.unreadable += 1
        limit = self.options.max_record_bytes
        why = f"a {what} of {size} bytes, over max_record_bytes={limit}: not read{self.copied}"
        self.result.errors.append(ErrorRow(path=self.task.display, line=line_no, message=why))
        if self.withhold:
            self._placeholder("too_long", whole=line_no is None, end=b"\n" if ended else b"")
        return size

    def _jsonl_line(self, line_no: int, raw: bytes) -> None:
        self.result.bytes_read += len(raw)
        bom = _BOM if line_no == 1 and raw.startswith(_BOM) else b""
        content = raw[len(bom) :]
        if not content.strip():
            self._write(raw)
            return
        body = content.rstrip(b"\r\n")
        try:
            record = json.loads(body.decode("utf-8"))
            fixed = self._record(body, record, line_no, f"{self.task.display}:{line_no}")
        except (UnicodeDecodeError, ValueError, RenderSafeError, RecursionError) as exc:
            self._unreadable(line_no, raw, exc, end=content[len(content.rstrip(b"\r\n")) :])
            return
        self._write((bom + fixed + content[len(body) :]) if fixed is not None else raw)

    def _whole(self, data: IO[bytes]) -> None:
        self.line = 1
        limit = self.options.max_record_bytes
        head = data.read(_HEAD)
        if self.task.fmt == "json" and is_array(head) and not is_message_list_head(head):
            self._records(
                ArrayReader(data.read, head, limit, self._write, copy_long=not self.withhold)
            )
            return
        raw = head if len(head) > limit else head + data.read(limit + 1 - len(head))
        if len(raw) > limit:
            self._too_long(None, raw, data)
            return
        self.meter.add(len(raw))
        self.result.bytes_read += len(raw)
        bom = _BOM if raw.startswith(_BOM) else b""
        try:
            text = raw[len(bom) :].decode("utf-8")
            if self.task.fmt == "text":
                self.result.records += 1  # a Markdown or text file is one reply
                changes = self._judge(_whole_reply(text), 1, self.task.display)
                self._write(bom + changes[0].encode() if changes else raw)
                return
            if not text.strip():
                self._write(raw)  # an empty JSON file (or a byte order mark alone): no records
                return
            document = json.loads(text)
            if isinstance(document, list) and recognise(document) != "messages":
                # Not one conversation of LangChain messages after all: a list of records.
                self.result.bytes_read -= len(raw)  # counted again, record by record
                reader = ArrayReader(
                    io.BytesIO().read, raw, limit, self._write, copy_long=not self.withhold
                )
                self._records(reader)
                return
            fixed = self._record(raw[len(bom) :], document, 1, self.task.display)
        except (UnicodeDecodeError, ValueError, RenderSafeError, RecursionError) as exc:
            self._unreadable(1, raw, exc, whole=True)
            return
        self._write(bom + fixed if fixed is not None else raw)

    def _records(self, reader: ArrayReader) -> None:
        """A JSON list: each record read, judged and written (fixed) in turn."""
        done = 0
        try:
            for item in reader:
                self.line = item.line
                self._item(item)
                self.meter.add(reader.consumed - done)
                done = reader.consumed
        except BrokenDocumentError as exc:
            if self.withhold:
                raise _WithheldError(exc.line, f"not JSON: {exc}; the rest was not read") from exc
            self.result.unreadable += 1
            copied = _COPIED if self.out is not None else ""
            why = f"not JSON: {exc}; the rest of the file was not read{copied}"
            self.result.errors.append(ErrorRow(path=self.task.display, line=exc.line, message=why))
        self.meter.add(reader.consumed - done)
        self.result.bytes_read += reader.consumed

    def _item(self, item: Item) -> None:
        display = self.task.display
        if item.raw is None:  # copied through by the reader, or withheld
            self.result.unreadable += 1
            limit = self.options.max_record_bytes
            why = f"record {item.index}: {item.size} bytes, over max_record_bytes={limit}"
            self.result.errors.append(
                ErrorRow(path=display, line=item.line, message=f"{why}: not read{self.copied}")
            )
            if self.withhold:
                self._placeholder("too_long")
            return
        try:
            fixed = self._record(item.raw, json.loads(item.raw), item.line, str(item.index))
        except (UnicodeDecodeError, ValueError, RenderSafeError, RecursionError) as exc:
            self.result.unreadable += 1
            message = f"record {item.index}: {_why(exc)}{self.copied}"
            self.result.errors.append(ErrorRow(path=display, line=item.line, message=message))
            if self.withhold:
                self._placeholder(_reason(exc))
                return
            fixed = None
        self._write(item.raw if fixed is None else fixed)

    def _record(self, raw: bytes, data: Any, line_no: int, fallback: str) -> bytes | None:
        """Judge one JSON record; its fixed bytes if a fix changed it (only the changed
        strings of `raw` replaced), else None."""
        self.result.records += 1
        if isinstance(data, str):
            changes = self._judge(_whole_reply(data), line_no, fallback)
            return encoded(changes[0]) if changes and self.out is not None else None
        self.day = record_day(data)
        changes = self._judge(self._read(data), line_no, record_id(data, fallback))
        if not changes or self.out is None:
            return None
        return splice(raw, functools.partial(self._read, counted=False), changes)

    def _row(self, row: dict[str, Any], number: int) -> bool:
        """Judge one Parquet row (fixing it in place); did it change?"""
        self.line = number
        self.result.records += 1
        self.day = record_day(row)
        messages = self._read(row)
        changes = self._judge(messages, number, record_id(row, f"row {number}"))
        for index, text in changes.items():
            messages[index].put(text)
        return bool(changes)

    def _read(self, data: Any, *, counted: bool = True) -> Sequence[RecordText]:
        if self.paths.paths:
            hits = self.hits if counted else None
            return [RecordText(t, data) for t in path_texts(data, self.paths, hits)]
        return texts_of(data)

    def _judge(self, messages: Sequence[RecordText], line_no: int, rid: str) -> dict[int, str]:
        """Sanitise each text the scan judges; the new text of each that changed."""
        changes: dict[int, str] = {}
        roles = self.options.roles
        for index, message in enumerate(messages):
            if not message.judged(roles):
                continue
            before = conversation_before(messages, index)
            context = {"role": message.role}
            result = self.sanitizer.run(message.text, context=context, conversation=before)
            for finding in result.findings:
                self._finding(finding, line_no, rid, message)
            if result.findings and not self.sanitizer.monitor:  # shadow mode: report only
                changes[index] = result.text
        self.result.changed |= bool(changes)
        return changes

    def _finding(self, finding: Finding, line_no: int, rid: str, message: RecordText) -> None:
        if self.task.fmt == "text":  # one reply per file: the line of the change in it
            line_no += message.text.count("\n", 0, finding.start)
        row = FindingRow(
            path=self.task.display,
            line=line_no,
            record_id=rid,
            role=message.role,
            kind=finding.kind,
            action=finding.action,
            reasons=finding.reasons,
            host=finding.host,
            url=finding.url,
            excerpt=excerpt(message.text, finding),
            day=self.day,
        )
        self.result.findings.append(row)
        if self.recorder is not None:
            source = Source(kind="batch", file=self.task.display, line=line_no, record_id=rid)
            self.recorder.at(source).finding(finding)

    def _unreadable(
        self, line_no: int, raw: bytes, exc: Exception, *, end: bytes = b"", whole: bool = False
    ) -> None:
        """Report a record (a line ending with `end`, or the `whole` file) that could
        not be sanitised; copy it, or withhold it."""
        self.result.unreadable += 1
        self.result.errors.append(
            ErrorRow(path=self.task.display, line=line_no, message=_why(exc) + self.copied)
        )
        if self.withhold:
            self._placeholder(_reason(exc), whole=whole, end=end)
        else:
            self._write(raw)

    def _placeholder(self, reason: str, *, whole: bool = False, end: bytes = b"") -> None:
        """What a fixed copy holds in place of a record it withholds: a JSON value naming
        why (a line of text in place of a whole text file)."""
        if whole and self.task.fmt == "text":
            self._write(f"[rendersafe withheld this file: {reason}]\n".encode())
        else:
            self._write(json.dumps({"rendersafe_withheld": reason}).encode() + end)

    def _write(self, data: bytes) -> None:
        if self.out is not None:
            try:
                self.out.write(data)
            except OSError as exc:  # a full disk: say where, not only that
                raise _WriteError(self.result.fixed, exc) from exc


_SENSITIVE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\w*\d\w*")
_AROUND = 48  # characters of context shown each side of a change


def excerpt(text: str, finding: Finding) -> str:
    """The text around `finding`, with the changed span shown as its redacted URL and
    every word holding a digit (or an e-mail address) replaced by its length."""
    start, end = min(finding.start, len(text)), min(finding.end, len(text))
    before = text[max(start - _AROUND, 0) : start]
    after = text[end : end + _AROUND]
    shown = finding.url or str(finding.kind)
    return f"{_redacted(before)}[[{shown}]]{_redacted(after)}".replace("\n", " ")


def _redacted(text: str) -> str:
    return _SENSITIVE.sub(lambda m: f"{{{len(m.group())}}}", text)


def _failed(result: PartResult, stack: ExitStack, line: int | None, why: str) -> None:
    """A task that could not finish: say where, and write no fixed copy of it."""
    message = f"{why}; no fixed copy written" if result.fixed is not None else why
    result.errors.append(ErrorRow(path=result.task.display, line=line, message=message))
    with contextlib.suppress(Exception):  # closing a half-written copy on a full disk
        stack.close()
    _discard(result.fixed)
    result.fixed = None


def _ignored(data: bytes) -> None:
    pass


def _reason(exc: Exception) -> str:
    """Why a record could not be sanitised, as a placeholder names it (none of its text)."""
    if isinstance(exc, UnicodeDecodeError):
        return "not_utf8"
    if isinstance(exc, UnknownShapeError):
        return "unknown_shape"
    if isinstance(exc, RenderSafeError):
        return "not_sanitisable"
    return "not_json"


def _why(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 (byte {exc.start}: {exc.object[exc.start : exc.start + 1]!r})"
    if isinstance(exc, UnknownShapeError):
        return str(exc)
    if isinstance(exc, RenderSafeError):
        return f"could not be sanitised: {exc}"
    return f"not JSON: {exc}"


def _open(task: Task, stack: ExitStack) -> IO[bytes]:
    raw: IO[bytes] = io.BytesIO(task.data) if task.data is not None else _open_file(task.path)
    stack.enter_context(raw)
    if task.start:
        raw.seek(task.start)
    if task.gzip:
        return stack.enter_context(cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb")))
    return raw


def _open_file(path: Path) -> IO[bytes]:
    """`path` for reading; an error, never a wait, if it is not a regular file now."""
    # O_NONBLOCK: opening a FIFO put in the file's place does not wait for a writer.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    file = os.fdopen(descriptor, "rb")
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        file.close()
        raise OSError(0, "not a regular file any more", str(path))
    return file


def _output(task: Task, final: Path, result: PartResult, stack: ExitStack) -> IO[bytes] | None:
    """A temporary file beside the fixed copy, for this part's output (synced to disk
    when `stack` closes); None, and an error naming it, if it cannot be created."""
    temporary = final.parent / f".{final.name}.rendersafe-{os.getpid()}-{task.part}.tmp"
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        # Private until it is complete; it takes the original's mode when moved into place.
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        why = f"no fixed copy: cannot write {exc.filename or temporary} ({exc.strerror})"
        result.errors.append(ErrorRow(path=task.display, message=why))
        return None
    result.fixed = temporary
    raw = stack.enter_context(os.fdopen(descriptor, "wb"))
    stack.callback(_sync, raw)
    if task.gzip:
        name = final.name[:-3] if final.name.endswith(".gz") else final.name
        packed = cast(IO[bytes], gzip.GzipFile(name, mode="wb", fileobj=raw, mtime=0))
        return stack.enter_context(packed)
    return raw


def _sync(file: IO[bytes]) -> None:
    file.flush()
    os.fsync(file.fileno())


def _discard(path: Path | None) -> None:
    if path is not None:
        path.unlink(missing_ok=True)


@functools.lru_cache(maxsize=4)
def _sanitizer(policy: Policy) -> Sanitizer:
    return Sanitizer(policy).counted_as("scan")


def _whole_reply(text: str) -> list[RecordText]:
    """A reply that is the whole record (a Markdown file, a JSON string)."""
    box: list[Any] = [text]
    return [RecordText(Text(MODEL, text, Kind.TEXT, 0, (0,)), box)]
