"""The texts of a transcript record, each bound to where it is, so a fix writes it back.

    texts = texts_of(record)                   # every text of the record, in order
    [t for t in texts if t.judged(options)]    # the ones a scan sanitises
    before = conversation_before(texts, i)     # what the model saw before text i

Every shape is read by `rendersafe.shapes` (the export formats, request bodies,
messages, replies; or the fields `--json-path` names): the scan only binds each text to
the record, so `--fix` changes only the text and leaves everything else as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..conversation import Conversation
from ..errors import RenderSafeError
from ..shapes import RENDERED, Chat, Kind, Text, put, read, recognise
from ..shapes.exports import is_message_list_head, record_day, record_id
from .paths import PathSpec, path_texts

__all__ = [
    "JUDGED_KINDS",
    "RecordText",
    "UnknownShapeError",
    "conversation_before",
    "is_message_list_head",
    "recognise",
    "record_day",
    "record_id",
    "texts_of",
]

# What a scan may sanitise of a judged role: what a client renders of a message, a
# tool's result and an attachment's text (where they were given as text).
JUDGED_KINDS = RENDERED | {Kind.RESULT, Kind.ATTACHMENT}


class UnknownShapeError(RenderSafeError, ValueError):
    """A record in none of the shapes rendersafe reads."""


@dataclass(frozen=True, slots=True)
class RecordText:
    """One text of a record (`source`), bound to the record (`root`)."""

    source: Text
    root: Any

    @property
    def role(self) -> str:
        """Its author's role."""
        return self.source.role

    @property
    def turn(self) -> int:
        """The message it belongs to."""
        return self.source.turn

    @property
    def after(self) -> tuple[int, ...] | None:
        """The turns it answers, in a tree (None: every turn before it)."""
        return self.source.after

    @property
    def text(self) -> str:
        """The text."""
        return self.source.text

    def judged(self, roles: frozenset[str] | None) -> bool:
        """Does a scan of `roles` (None: all) sanitise it?"""
        source = self.source
        if not source.editable or source.kind not in JUDGED_KINDS or not source.path:
            return False
        return roles is None or source.role in roles

    def put(self, text: str) -> None:
        """Write the sanitised text back into the record, wherever it is held."""
        for path in (self.source.path, *self.source.mirrors):
            put(self.root, path, text)

    def places(self) -> tuple[tuple[Any, Any], ...]:
        """Every (container, key) that holds this text."""
        found = []
        for path in (self.source.path, *self.source.mirrors):
            holder = self.root
            for key in path[:-1]:
                holder = holder[key]
            found.append((holder, path[-1]))
        return tuple(found)


def texts_of(data: Any, json_paths: tuple[str, ...] | PathSpec = ()) -> list[RecordText]:
    """Every text of `data`; `UnknownShapeError` when it has no known shape."""
    if json_paths:
        spec = json_paths if isinstance(json_paths, PathSpec) else PathSpec(json_paths)
        return [RecordText(text, data) for text in path_texts(data, spec)]
    chat = read(data)
    if chat.shape is None or chat.shape == "text":
        keys = sorted(data)[:6] if isinstance(data, dict) else type(data).__name__
        raise UnknownShapeError(
            f"a record of an unknown shape ({keys}); name its text with --json-path"
        )
    return [RecordText(text, data) for text in chat.texts]


def conversation_before(texts: Sequence[RecordText], index: int) -> Conversation | None:
    """What the model saw before text `index`: the record's texts before it, but its own
    message's other texts; in a tree, the turns it answers (`Text.after`) only."""
    own = texts[index].source
    if own.after is not None:
        wanted = set(own.after)
        before = [t.source for t in texts[:index] if t.source.turn in wanted]
    else:
        before = [t.source for t in texts[:index] if t.source.turn != own.turn]
    return Conversation.coerce(Chat(tuple(before), "record")) if before else None
