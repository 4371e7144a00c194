"""`NdjsonCodec`: Ollama's `/api/chat` and `/api/generate` streams, a JSON object a line.

Chat lines carry `message.content` (and `message.thinking`); generate lines carry
`response` (and `thinking`). The tails of the texts go into the `done: true` line.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from ..errors import FormatError
from .dialect import dumps, require
from .error_text import json_error, safe_name
from .jsonlib import loads
from .shapes import STRING, TEXT, text_of, with_text
from .sse import MAX_PENDING
from .text_streams import ENDS, IDLE, Texts, escaped_ends

__all__ = ["NdjsonCodec"]

_CHAT_FIELDS: tuple[str, ...] = ("content", "thinking")
_GENERATE_FIELDS: tuple[str, ...] = ("response", "thinking")
_DONE = re.compile(rb'"done"')
_NOT_DONE = re.compile(rb'"done"\s*:\s*false')
# The usual lines, all of them: one token of a chat's content, of a generated response.
_ENVELOPE = rf'\{{"model":{STRING},"created_at":{STRING},'
_CHAT_LINE = re.compile(
    rf'{_ENVELOPE}"message":\{{"role":"assistant","content":"({TEXT})"\}},"done":false\}}\n'
)
_GENERATE_LINE = re.compile(rf'{_ENVELOPE}"response":"({TEXT})","done":false\}}\n')
# A line holding only these (and not done) carries nothing but its text: emptied, it
# is not sent.
_BARE_CHAT = frozenset({"model", "created_at", "message", "done"})
_BARE_GENERATE = frozenset({"model", "created_at", "response", "done"})
_BARE_MESSAGE = frozenset({"role", "content"})


class NdjsonCodec:
    """Rewrites the text fields of each line; other lines pass byte for byte."""

    buffered = False

    def __init__(self, texts: Texts, *, quick: bool = True) -> None:
        self.texts = texts
        self._quick_on = quick  # False: every line read in full (for tests that compare)
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._partial = ""
        self._line = 0
        self._envelope: dict[str, Any] = {}
        self._last_line: str | None = None  # the envelope's line, when it was not parsed
        self._fields: tuple[str, ...] = _CHAT_FIELDS
        self._text_lines = 0
        self._idle = False  # the decoder holds nothing (read in `feed`, not per token)

    def feed(self, data: bytes) -> bytes:
        """Take body bytes; return the rewritten lines they completed."""
        text = self._partial + self._decoder.decode(data)
        self._idle = self._decoder.getstate() == IDLE
        cut = text.rfind("\n") + 1
        self._partial = text[cut:]
        if len(self._partial) > MAX_PENDING:
            raise FormatError(f"a line longer than {MAX_PENDING} characters")
        lines = text[:cut].split("\n")[:-1]  # "\n" only: JSON strings may hold U+2028
        return "".join(self._rewrite(line + "\n") for line in lines).encode()

    def token(self, data: bytes) -> bytes | None:
        """`feed` for the usual body message, one whole line of the usual shape, taken
        as it is; None, having read nothing, for any other."""
        if (
            not self._quick_on
            or self._partial
            or not self._idle
            or data.find(b"\n") != len(data) - 1
        ):
            return None
        try:
            line = data.decode()
        except UnicodeDecodeError:
            return None
        out = self._quick(line)
        if out is None:
            return None
        return data if out is line else out.encode()

    def close(self) -> bytes:
        """The body ended: the last line, and a line with the tails of open texts."""
        last = self._partial + self._decoder.decode(b"", final=True)
        out = self._rewrite(last) if last else ""
        tails = {key: rest for key in self.texts.open_keys() if (rest := self.texts.close(key))}
        if self._last_line is not None:
            self._envelope = _envelope_of(loads(self._last_line))
        if tails:
            out += dumps(self._tail_line(tails)) + "\n"
        return out.encode()

    def reach(self, data: bytes, *, final: bool) -> tuple[int, int]:
        """At most how many characters of text feeding `data` (with a cut line held)
        hands the texts, and how many line ends (escaped, in JSON; `ENDS` when it may
        end a text: `done` not false)."""
        if self._partial:
            data = self._partial.encode() + data
        if final or len(_DONE.findall(data)) != len(_NOT_DONE.findall(data)):
            return len(data), ENDS
        return len(data), escaped_ends(data)

    def error_frame(self, message: str) -> bytes:
        """Ollama's error line."""
        return (dumps({"error": message}) + "\n").encode()

    def _quick(self, line: str) -> str | None:
        """The usual line rewritten without parsing it: itself, "" when its text was
        emptied (unless it is the first), or its text replaced; None for any other."""
        fields, match = _CHAT_FIELDS, _CHAT_LINE.fullmatch(line)
        if match is None:
            fields, match = _GENERATE_FIELDS, _GENERATE_LINE.fullmatch(line)
            if match is None:
                return None
        self._line += 1
        self._text_lines += 1
        self._last_line, self._fields = line, fields
        text = text_of(match[1])
        out = self.texts.feed(fields[0], text)
        if out == text:
            return line
        if not out and self._text_lines > 1:
            return ""
        return with_text(line, match, 1, out)

    def _rewrite(self, line: str) -> str:
        quick = self._quick(line) if self._quick_on else None
        if quick is not None:
            return quick
        self._line += 1
        body = line.strip()
        if not body:
            return line
        try:
            data = loads(body)
        except ValueError as exc:
            why = json_error(exc, len(body))
            raise FormatError(f"NDJSON line {self._line} is not JSON ({why})") from exc
        data = require(data, dict, f"NDJSON line {self._line}")
        holder, fields = _texts_of(data)
        if holder is None:
            return line  # an error line, or one with no text
        self._envelope, self._last_line = _envelope_of(data), None
        self._fields = fields
        self._text_lines += 1
        changed = self._sanitise(holder, fields, done=data.get("done") is True)
        if not changed:
            return line
        if self._text_lines > 1 and _emptied(data, holder, fields):
            return ""
        return dumps(data) + line[len(line.rstrip("\r\n")) :]

    def _sanitise(self, holder: dict[str, Any], fields: tuple[str, ...], *, done: bool) -> bool:
        changed = False
        for field in fields:
            text = holder.get(field)
            out = text if text is None else self.texts.feed(field, require(text, str, field))
            if done and (rest := self.texts.close(field)):
                out = (out or "") + rest
            if out != text:
                holder[field], changed = out, True
        return changed

    def _tail_line(self, tails: dict[Any, str]) -> dict[str, Any]:
        if self._fields is _GENERATE_FIELDS:
            return {**self._envelope, **tails, "done": False}
        return {**self._envelope, "message": {"role": "assistant", **tails}, "done": False}


def _envelope_of(data: dict[str, Any]) -> dict[str, Any]:
    return {k: data[k] for k in ("model", "created_at") if k in data}


def _emptied(data: dict[str, Any], holder: dict[str, Any], fields: tuple[str, ...]) -> bool:
    """Is a changed line's one text now empty, and nothing else in it a client needs?"""
    bare = _BARE_GENERATE if fields is _GENERATE_FIELDS else _BARE_CHAT
    if data.get("done") is not False or not data.keys() <= bare:
        return False
    if fields is _CHAT_FIELDS and holder.keys() != _BARE_MESSAGE:
        return False
    return holder.get(fields[0]) == ""


def _texts_of(data: dict[str, Any]) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    message = data.get("message")
    if isinstance(message, dict):
        return message, _CHAT_FIELDS
    if "response" in data:
        return data, _GENERATE_FIELDS
    if "error" in data or "done" in data:
        return None, ()
    keys = ", ".join(safe_name(key) for key in sorted(data)[:6])
    raise FormatError(f"an NDJSON line of an unknown shape (keys {keys})")
