"""Large JSON documents, a record at a time, and fixes spliced into the original bytes.

    for item in ArrayReader(file.read, head, limit, out.write):   # `[rec, rec, ...]`
        item.raw      # one record's bytes (None: longer than `limit`, not held)
    splice(raw, read, changes)      # `raw` with only the changed strings replaced

`ArrayReader` holds one record at a time (at most `limit` bytes of it, plus a block):
a ChatGPT `conversations.json` of gigabytes is read in constant memory. It finds each
record's end by its brackets and strings alone; the record itself is parsed by the
caller. The bytes between records go to `write` as they are read, so a fixed copy is the
original wherever nothing changed; so do records too long to hold, unless `copy_long`
is False (the caller writes something in their place).

`splice` parses a record again, noting where each string value lies, and replaces
only the strings a fix changed: keys, spacing, escapes and numbers stay as they were.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import RenderSafeError

__all__ = ["ArrayReader", "BrokenDocumentError", "Item", "is_array", "splice"]

_BLOCK = 1 << 20
_STRUCTURE = re.compile(rb'["\[\]{}]')
_SCALAR_END = re.compile(rb"[,\]\s]")
_SPACE = re.compile(rb"\s*")
_NUMBER = re.compile(rb"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LITERALS = {b"true": True, b"false": False, b"null": None}
_BOM = b"\xef\xbb\xbf"
_OPEN, _QUOTE, _BACKSLASH = b"[{", 0x22, 0x5C


class BrokenDocumentError(RenderSafeError, ValueError):
    """The list itself is broken (cut short, or not a list past some point); the rest
    of the file has been copied through unread. `line` is where it broke."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(message)


@dataclass(frozen=True)
class Item:
    """One record of the list: its index, the line it starts on, its bytes (None when
    longer than the limit: not held, and copied through if the reader copies them) and
    its size."""

    index: int
    line: int
    raw: bytes | None
    size: int


def is_array(head: bytes) -> bool:
    """Does a document starting with `head` hold a list (of records)?"""
    return head.removeprefix(_BOM).lstrip()[:1] == b"["


class ArrayReader:
    """The records of a JSON list, one at a time, from `read(n)`; everything else (the
    brackets, commas and spacing, and too-long records) goes to `write` as it passes."""

    def __init__(
        self,
        read: Callable[[int], bytes],
        head: bytes,
        limit: int,
        write: Callable[[bytes], None],
        *,
        copy_long: bool = True,
    ) -> None:
        self.read, self.limit, self.write = read, limit, write
        self.copy_long = copy_long
        self.buf, self.mark, self.line, self.eof = head, 0, 1, False
        self.consumed = 0  # bytes read past so far

    def __iter__(self) -> Iterator[Item]:
        while len(self.buf) < len(_BOM) and self._more():
            pass
        self._gap(self._space(len(_BOM) if self.buf.startswith(_BOM) else 0) + 1)  # the `[`
        index = 0
        if self._peek() == b"]":
            self._gap(self.mark + 1)
        else:
            while True:
                yield self._item(index)
                index += 1
                following = self._peek()
                self._gap(self.mark + 1)
                if following == b"]":
                    break
                if following != b",":
                    self._broken(f"expected ',' or ']' after record {index - 1}, got {following!r}")
                self._peek()
        if self._peek() != b"":
            self._broken("more data after the list")

    def _item(self, index: int) -> Item:
        line = self.line
        first = self.buf[self.mark : self.mark + 1]
        if first in (b"[", b"{", b'"'):
            return self._nested(index, line)
        end = self._scalar_end()
        raw = self.buf[self.mark : end]
        self._consume(end)
        return Item(index, line, raw, len(raw))

    def _scalar_end(self) -> int:
        while not (match := _SCALAR_END.search(self.buf, self.mark)):
            if not self._more():
                return len(self.buf)
        return match.start()

    def _nested(self, index: int, line: int) -> Item:
        depth, in_string, i, flushed = 0, False, self.mark, 0
        while True:
            i, depth, in_string, done = _advance(self.buf, i, depth, in_string)
            if done:
                break
            if flushed or i - self.mark > self.limit:  # too long to hold
                flushed += i - self.mark
                self._long(i)
            offset = i - self.mark
            if not self._more():
                self._broken(f"the file ends inside record {index}")
            i = self.mark + offset
        size = flushed + i - self.mark
        if flushed or size > self.limit:
            self._long(i)
            return Item(index, line, None, size)
        raw = self.buf[self.mark : i]
        self._consume(i)
        return Item(index, line, raw, size)

    def _peek(self) -> bytes:
        """The next byte that is not spacing (spacing is passed through)."""
        self._gap(self._space(self.mark))
        return self.buf[self.mark : self.mark + 1]

    def _space(self, start: int) -> int:
        while True:
            end = _SPACE.match(self.buf, start).end()  # type: ignore[union-attr]
            offset = end - self.mark
            if end < len(self.buf) or not self._more():
                return end
            start = self.mark + offset

    def _gap(self, end: int) -> None:
        self._pass(min(end, len(self.buf)))

    def _long(self, end: int) -> None:
        """A record too long to hold, up to `end`: copied through, or dropped."""
        if self.copy_long:
            self._pass(end)
        else:
            self._consume(end)

    def _pass(self, end: int) -> None:
        """Write the bytes up to `end` through, unread."""
        chunk = self.buf[self.mark : end]
        self.write(chunk)
        self._consume(end, chunk)

    def _consume(self, end: int, chunk: bytes | None = None) -> None:
        chunk = self.buf[self.mark : end] if chunk is None else chunk
        self.line += chunk.count(b"\n")
        self.consumed += len(chunk)
        self.mark = end

    def _more(self) -> bool:
        """Read another block, dropping what has been consumed; False at the end."""
        if self.eof:
            return False
        block = self.read(_BLOCK)
        if not block:
            self.eof = True
            return False
        self.buf = self.buf[self.mark :] + block
        self.mark = 0
        return True

    def _broken(self, why: str) -> None:
        line = self.line
        self._pass(len(self.buf))
        while block := self.read(_BLOCK):
            self.write(block)
            self.consumed += len(block)
        self.eof = True
        raise BrokenDocumentError(line, why)


def _advance(buf: bytes, i: int, depth: int, in_string: bool) -> tuple[int, int, bool, bool]:
    """Scan `buf` on from `i` (inside a string or not, `depth` brackets deep): where it
    stopped, the depth, whether in a string, and whether the value ended there (if not,
    `buf` ran out: a trailing run of backslashes is left to scan with what follows)."""
    while True:
        if in_string:
            j = buf.find(b'"', i)
            if j < 0:
                return len(buf) - _trailing_backslashes(buf, i), depth, True, False
            k = j
            while k > i and buf[k - 1] == _BACKSLASH:
                k -= 1
            i, in_string = j + 1, (j - k) % 2 == 1  # an escaped quote: still inside
            if not in_string and depth == 0:
                return i, depth, False, True
            continue
        match = _STRUCTURE.search(buf, i)
        if not match:
            return len(buf), depth, False, False
        i, char = match.end(), buf[match.start()]
        if char == _QUOTE:
            in_string = True
            continue
        depth += 1 if char in _OPEN else -1
        if depth == 0:
            return i, depth, False, True


def _trailing_backslashes(buf: bytes, start: int) -> int:
    end = len(buf)
    k = end
    while k > start and buf[k - 1] == _BACKSLASH:
        k -= 1
    return end - k


Reader = Callable[[Any], Sequence[Any]]  # a record -> its messages (with `places()`)


def splice(raw: bytes, read: Reader, changes: dict[int, str]) -> bytes:
    """`raw` (one JSON record) with message `i` of `read(record)` set to `changes[i]`,
    only those strings replaced; re-serialised if the record cannot be mapped so."""
    try:
        data, spans = _parse(raw)
        messages = read(data)
        edits = [
            (spans[(id(holder), key)], text)
            for index, text in changes.items()
            for holder, key in messages[index].places()
        ]
    except (KeyError, IndexError, ValueError, RecursionError):
        return _rewritten(raw, read, changes)
    pieces, at = [], 0
    for (start, end), text in sorted(edits, key=lambda edit: edit[0]):
        pieces += [raw[at:start], _string(text, raw[start:end])]
        at = end
    pieces.append(raw[at:])
    return b"".join(pieces)


def _rewritten(raw: bytes, read: Reader, changes: dict[int, str]) -> bytes:
    data = json.loads(raw)
    messages = read(data)
    for index, text in changes.items():
        messages[index].put(text)
    return encoded(data, 2 if b"\n " in raw else None)


def encoded(data: Any, indent: int | None = None) -> bytes:
    """A record as UTF-8 JSON; escaped where it holds a lone surrogate (`\\ud83d`)."""
    try:
        return json.dumps(data, ensure_ascii=False, indent=indent).encode()
    except UnicodeEncodeError:
        return json.dumps(data, indent=indent).encode()


def _string(text: str, old: bytes) -> bytes:
    """`text` as a JSON string, escaped as the one it replaces was (ASCII or not)."""
    ascii_only = old.isascii() and b"\\u" in old
    try:
        return json.dumps(text, ensure_ascii=ascii_only).encode()
    except UnicodeEncodeError:
        return json.dumps(text).encode()


Spans = dict[tuple[int, Any], tuple[int, int]]


def _parse(raw: bytes) -> tuple[Any, Spans]:
    """The record, and where each string value in it lies: (id(container), key) ->
    (start, end) in `raw`."""
    spans: Spans = {}
    value, end = _value(raw, _skip(raw, 0), spans)
    if _skip(raw, end) != len(raw):
        raise ValueError("extra data")
    return value, spans


def _skip(raw: bytes, i: int) -> int:
    return _SPACE.match(raw, i).end()  # type: ignore[union-attr]


def _value(raw: bytes, i: int, spans: Spans) -> tuple[Any, int]:
    char = raw[i : i + 1]
    if char == b"{":
        return _object(raw, i + 1, spans)
    if char == b"[":
        return _array(raw, i + 1, spans)
    if char == b'"':
        return _text(raw, i)
    for word, value in _LITERALS.items():
        if raw.startswith(word, i):
            return value, i + len(word)
    match = _NUMBER.match(raw, i)
    if not match:
        raise ValueError(f"not JSON at byte {i}")
    return json.loads(match.group()), match.end()


def _object(raw: bytes, i: int, spans: Spans) -> tuple[Any, int]:
    result: dict[str, Any] = {}
    i = _skip(raw, i)
    if raw[i : i + 1] == b"}":
        return result, i + 1
    while True:
        key, i = _text(raw, _skip(raw, i))
        i = _skip(raw, i)
        if raw[i : i + 1] != b":":
            raise ValueError(f"expected ':' at byte {i}")
        start = _skip(raw, i + 1)
        result[key], i = _value(raw, start, spans)
        if isinstance(result[key], str):
            spans[(id(result), key)] = (start, i)
        i = _skip(raw, i)
        if raw[i : i + 1] == b"}":
            return result, i + 1
        if raw[i : i + 1] != b",":
            raise ValueError(f"expected ',' at byte {i}")
        i += 1


def _array(raw: bytes, i: int, spans: Spans) -> tuple[Any, int]:
    result: list[Any] = []
    i = _skip(raw, i)
    if raw[i : i + 1] == b"]":
        return result, i + 1
    while True:
        start = _skip(raw, i)
        value, i = _value(raw, start, spans)
        if isinstance(value, str):
            spans[(id(result), len(result))] = (start, i)
        result.append(value)
        i = _skip(raw, i)
        if raw[i : i + 1] == b"]":
            return result, i + 1
        if raw[i : i + 1] != b",":
            raise ValueError(f"expected ',' at byte {i}")
        i += 1


def _text(raw: bytes, i: int) -> tuple[str, int]:
    if raw[i : i + 1] != b'"':
        raise ValueError(f"expected a string at byte {i}")
    j = i + 1
    while True:
        j = raw.find(b'"', j)
        if j < 0:
            raise ValueError("a string that does not end")
        k = j
        while raw[k - 1] == _BACKSLASH:
            k -= 1
        if (j - k) % 2 == 0:
            break
        j += 1
    token = raw[i : j + 1]
    text = json.loads(token) if b"\\" in token else token[1:-1].decode("utf-8")
    return text, j + 1
