"""`Reader`: one read of a chat, and the walk that gives every string in a value.

    reader = Reader()
    reader.strings(value, At("tool", 3, ("messages", 3, "content")), Kind.RESULT)
    reader.texts, reader.notes

Every string reachable is read, whatever its key and depth: the walk keeps its own
stack (no recursion), reads a container once (a structure that holds itself ends), and
stops after `MAX_NODES` values with a note. A string that is a file's bytes in base64
(a `data:` URL, or a long run of base64 that decodes to text) is read as the text it
decodes to (`attachments`); one that decodes to binary (an image, a signature) is
skipped: it is no text the model read. What cannot be read is noted (`Reader.notes`):
the judge is stricter for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .attachments import Attachment, decode_attachment, sniff_base64
from .record import Kind, Path, Role, Text

__all__ = ["MAX_NODES", "At", "Fields", "Reader", "fields_of", "items"]

Fields = Mapping[Any, object]  # a message's or a part's fields, by name

# Values (strings and containers) one read visits at most: a conversation of any real
# size is far below; a hostile one stops here, noted.
MAX_NODES = 2_000_000
# Strings from this long are looked at as possible base64 (a file's bytes).
_BASE64_FROM = 256
_NUMBER_FROM = 1000
MAX_PATH = 64
# The fields of a tool call no one chose: the id its API or runtime gave it
# (`call_70efdf2ec9b0`, `toolu_01A09q...`) and its type. Read as the model's words, an
# id's random tail looked like a token the model made up, and every tool's answer to
# the call like a function of it.
_GENERATED = frozenset({"id", "call_id", "tool_call_id", "tool_use_id", "toolCallId", "type"})


@dataclass(frozen=True, slots=True)
class At:
    """Where a reader is: whose words these are, which message, by what keys."""

    role: Role
    turn: int
    path: Path = ()

    def __truediv__(self, key: str | int) -> At:
        return At(self.role, self.turn, (*self.path, key))

    def by(self, role: Role) -> At:
        """The same place, written by `role`."""
        return At(role, self.turn, self.path)


class Reader:
    """Collects the `Text`s of one read, and why any part could not be read."""

    __slots__ = ("_seen", "depth", "nodes", "notes", "texts")

    def __init__(self) -> None:
        self.texts: list[Text] = []
        self.notes: dict[str, None] = {}  # an ordered set
        self.nodes = 0
        self.depth = 0  # parts inside parts being read (`content`)
        # Containers read, by id, each kept alive so that no id is reused meanwhile
        # (an SDK object's `model_dump()` is a new dict each time).
        self._seen: dict[int, object] = {}

    def note(self, why: str) -> None:
        """Record that something could not be read, and why."""
        self.notes.setdefault(why, None)

    def enter(self, value: object) -> bool:
        """Mark the container `value` read; False when it was read before (a structure
        that holds itself) or the read has reached `MAX_NODES`."""
        self.nodes += 1
        if self.nodes >= MAX_NODES:
            self.note(f"cut: a conversation of over {MAX_NODES} values was read in part")
            return False
        if id(value) in self._seen:
            return False
        self._seen[id(value)] = value
        return True

    def text(self, value: str, at: At, kind: Kind) -> None:
        """Read one string, as it is (a `data:` URL or base64 of a file as its text)."""
        self.nodes += 1
        if value.startswith("data:") or (len(value) >= _BASE64_FROM and sniff_base64(value)):
            self._decoded(decode_attachment(value), at)
        elif value:
            self.texts.append(Text(at.role, value, kind, at.turn, at.path))

    def attachment(self, data: object, media_type: object, at: At) -> None:
        """Read a file's content given with its media type: text, or base64 of it."""
        if isinstance(data, str):
            self._decoded(decode_attachment(data, media_type), at)
        elif isinstance(data, bytes | bytearray):
            self._decoded(decode_attachment(bytes(data), media_type), at)
        else:
            self.strings(data, at, Kind.ATTACHMENT)

    def _decoded(self, found: Attachment, at: At) -> None:
        if found.note:
            self.note(found.note)
        if found.text:
            self.texts.append(
                Text(
                    at.role,
                    found.text,
                    Kind.ATTACHMENT,
                    at.turn,
                    at.path,
                    editable=not found.decoded,
                )
            )

    def strings(self, value: object, at: At, kind: Kind) -> None:
        """Read every string in `value`, at any depth, as `kind` of `at`'s author."""
        stack: list[tuple[object, Path | None]] = [(value, at.path)]
        while stack:
            item, path = stack.pop()
            if self.nodes >= MAX_NODES:
                self.note(f"cut: a conversation of over {MAX_NODES} values was read in part")
                return
            if isinstance(item, str):
                self._deep(item, At(at.role, at.turn, path or ()), kind, editable=path is not None)
                continue
            if isinstance(item, int | float) and not isinstance(item, bool):
                # An account or card number sent as a JSON number is read as its digits.
                if abs(item) >= _NUMBER_FROM:
                    self._deep(str(item), At(at.role, at.turn, path or ()), kind, editable=False)
                continue
            self.nodes += 1
            children = self.children(item)
            if children is not None:
                # Past MAX_PATH keys a text's path is not kept (it would cost the square of
                # the depth): it is read, and cannot be written back.
                deeper = path is not None and len(path) < MAX_PATH
                stack.extend(
                    (child, (*path, key) if deeper and path is not None else None)
                    for key, child in reversed(children)
                    if kind is not Kind.CALL or key not in _GENERATED
                )

    def _deep(self, value: str, at: At, kind: Kind, *, editable: bool) -> None:
        if editable:
            self.text(value, at, kind)
        else:
            start = len(self.texts)
            self.text(value, at, kind)
            self.texts[start:] = [replace(t, editable=False) for t in self.texts[start:]]

    def children(self, value: object) -> list[tuple[str | int, object]] | None:
        """The (key, value) pairs inside `value` not read before (None for a leaf)."""
        if isinstance(value, bytes | bytearray):
            return [("", bytes(value).decode("utf-8", "replace"))]
        if value is None or isinstance(value, bool | int | float):
            return None
        if id(value) in self._seen:
            return None  # read already: a structure that holds itself ends here
        self._seen[id(value)] = value
        if isinstance(value, Mapping):
            return [(str(key), item) for key, item in value.items()]
        if isinstance(value, list | tuple | set | frozenset):
            return list(enumerate(value))
        fields = fields_of(value)
        return None if fields is None else [(str(key), item) for key, item in fields.items()]


def fields_of(value: object) -> Fields | None:
    """`value` as a mapping: itself, an SDK object's `model_dump()`, a dataclass's
    fields, or an object's `role` and `content`; None for anything else (and for an
    object that raises when asked)."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str | bytes | bytearray | list | tuple | int | float | None):
        return None
    try:
        return _object_fields(value)
    except Exception:  # an object whose attributes raise is read as nothing
        return None


def _object_fields(value: object) -> Fields | None:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            dumped = dump()
        except Exception:  # a broken SDK object is read by its attributes instead
            dumped = None
        if isinstance(dumped, Mapping):
            return dumped
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
    return _attributes(value)


def _attributes(value: object) -> Fields | None:
    content = getattr(value, "content", None)
    if content is None:
        return None
    role = getattr(value, "role", None) or getattr(value, "type", None)
    return {"role": role, "content": content}


def items(value: object) -> Iterator[tuple[int, object]]:
    """The elements of a list-like value, numbered (none for anything else)."""
    if isinstance(value, list | tuple):
        yield from enumerate(value)
