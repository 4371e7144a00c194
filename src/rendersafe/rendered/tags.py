"""The tags of a rendered fence's markup, with where each tag and attribute stands.

A browser's tokenizer in its data state (WHATWG 13.2.5), as html5lib's runs it on
its own: start and end tags with their attributes, comments, and the bogus comments
that `<!DOCTYPE`, `<![CDATA[`, `<?` and `</1` start. `read` gives each with its
offsets, so a judge can cut out one attribute and leave every other byte.
`html5lib_reading` is the same text as html5lib reads it; where that reading finds
something to cut, `agrees` must hold for these offsets to be used (`markup`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from bleach.html5lib_shim import HTMLTokenizer, constants

from ..html.review import decoded_attribute

__all__ = ["Attribute", "Comment", "Tag", "agrees", "html5lib_reading", "read"]

_SKIPPED = " \t\n\f\r/"
_NAME_END = re.compile(r"[ \t\n\f\r/>]")
_ATTRIBUTE_NAME_END = re.compile(r"[ \t\n\f\r/>=]")
_UNQUOTED_END = re.compile(r"[ \t\n\f\r>]")
_NOT_SPACE = re.compile(r"[^ \t\n\f\r]")
_COMMENT_END = re.compile(r"--!?>")
_TOKEN_TYPES = {value: name for name, value in constants.tokenTypes.items()}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True, slots=True)
class Attribute:
    """One attribute: its name (lower case), its value as the browser reads it
    (entities decoded), and its offsets (`start`: the name; `end`: after the value)."""

    name: str
    value: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Tag:
    """A start or end tag, `text[start:end]` (`end` is the text's end when no `>` came)."""

    name: str
    start: int
    end: int
    attributes: tuple[Attribute, ...]
    closing: bool = False
    complete: bool = True

    def first(self, name: str) -> Attribute | None:
        """The attribute a browser keeps under `name` (the first one written)."""
        return next((a for a in self.attributes if a.name == name), None)


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment or bogus comment, `text[start:end]`; `body` what it holds."""

    start: int
    end: int
    body: str


def read(text: str) -> Iterator[Tag | Comment]:
    """The tags and comments of `text`, in order."""
    pos = text.find("<")
    while 0 <= pos < len(text) - 1:
        token = _token(text, pos)
        if token is None:
            pos = text.find("<", pos + 1)
            continue
        yield token
        pos = text.find("<", token.end)


def _token(text: str, pos: int) -> Tag | Comment | None:
    after = text[pos + 1]
    if after == "!":
        return _comment(text, pos) if text.startswith("<!--", pos) else _bogus(text, pos, pos + 2)
    if after == "?":
        return _bogus(text, pos, pos + 1)
    if after == "/":
        return _end_tag(text, pos)
    return _tag(text, pos, pos + 1, closing=False) if _letter(after) else None


def _end_tag(text: str, pos: int) -> Tag | Comment | None:
    first = text[pos + 2 : pos + 3]
    if _letter(first):
        return _tag(text, pos, pos + 2, closing=True)
    if first == ">":
        return Comment(pos, pos + 3, "")  # `</>` is dropped, as nothing
    return _bogus(text, pos, pos + 2) if first else None


def _letter(char: str) -> bool:
    return char.isascii() and char.isalpha()


def _comment(text: str, pos: int) -> Comment:
    body_start = pos + 4
    if text.startswith(">", body_start):  # `<!-->`
        return Comment(pos, body_start + 1, "")
    if text.startswith("->", body_start):  # `<!--->`
        return Comment(pos, body_start + 2, "")
    found = _COMMENT_END.search(text, body_start)
    if found is None:
        return Comment(pos, len(text), text[body_start:])
    return Comment(pos, found.end(), text[body_start : found.start()])


def _bogus(text: str, pos: int, body_start: int) -> Comment:
    close = text.find(">", body_start)
    if close < 0:
        return Comment(pos, len(text), text[body_start:])
    return Comment(pos, close + 1, text[body_start:close])


def _tag(text: str, pos: int, name_start: int, *, closing: bool) -> Tag:
    found = _NAME_END.search(text, name_start)
    at = len(text) if found is None else found.start()
    name = text[name_start:at].translate(_ASCII_LOWER).replace("\0", "\ufffd")
    attributes: list[Attribute] = []
    while True:
        at = _skip(text, at)
        if at >= len(text):
            return Tag(name, pos, len(text), tuple(attributes), closing, complete=False)
        if text[at] == ">":
            return Tag(name, pos, at + 1, tuple(attributes), closing)
        attribute, at = _attribute(text, at)
        if attribute is None:
            return Tag(name, pos, len(text), tuple(attributes), closing, complete=False)
        attributes.append(attribute)


def _skip(text: str, at: int) -> int:
    """Past white space and `/` (a `/` not before `>` is read as nothing)."""
    while at < len(text) and text[at] in _SKIPPED:
        if text[at] == "/" and text.startswith("/>", at):
            return at + 1
        at += 1
    return at


def _attribute(text: str, start: int) -> tuple[Attribute | None, int]:
    """The attribute at `start` and where it ends; None when the text ends in it."""
    # The first character is the name's, even an `=` (WHATWG: a parse error).
    found = _ATTRIBUTE_NAME_END.search(text, start + 1)
    name_end = len(text) if found is None else found.start()
    name = text[start:name_end].translate(_ASCII_LOWER).replace("\0", "\ufffd")
    at = _space_end(text, name_end)
    if not text.startswith("=", at):
        return Attribute(name, "", start, name_end), name_end
    at = _space_end(text, at + 1)
    if at >= len(text):
        return None, at
    quote = text[at]
    if quote in "\"'":
        close = text.find(quote, at + 1)
        if close < 0:
            return None, len(text)
        raw, end = text[at + 1 : close], close + 1
    else:
        found = _UNQUOTED_END.search(text, at)
        end = len(text) if found is None else found.start()
        if end >= len(text):
            return None, end
        raw = text[at:end]
    value = decoded_attribute(raw) if "&" in raw else raw
    return Attribute(name, value.replace("\0", "\ufffd"), start, end), end


def _space_end(text: str, at: int) -> int:
    found = _NOT_SPACE.search(text, at)
    return len(text) if found is None else found.start()


def html5lib_reading(text: str) -> list[Tag | Comment]:
    """The tags and comments html5lib's tokenizer reads in `text`, without offsets
    (every one at 0): the second reading a judge checks."""
    tokens: list[Tag | Comment] = []
    for token in HTMLTokenizer(text):
        kind = _TOKEN_TYPES.get(token["type"])
        if kind in ("StartTag", "EmptyTag", "EndTag"):
            data = token.get("data") or {}
            pairs = data.items() if isinstance(data, dict) else data
            attributes = tuple(Attribute(str(n), str(v), 0, 0) for n, v in pairs)
            tokens.append(Tag(str(token["name"]), 0, 0, attributes, closing=kind == "EndTag"))
        elif kind == "Comment":
            tokens.append(Comment(0, 0, str(token.get("data", ""))))
    return tokens


def agrees(ours: list[Tag | Comment], theirs: list[Tag | Comment]) -> bool:
    """Do two readings hold the same complete tags, names and attributes (the first
    of each name), in the same order?"""
    return _shape(ours) == _shape(theirs)


def _shape(tokens: list[Tag | Comment]) -> list[tuple[str, bool, dict[str, str]]]:
    return [
        (t.name, t.closing, {} if t.closing else _first(t))
        for t in tokens
        if isinstance(t, Tag) and t.complete
    ]


def _first(tag: Tag) -> dict[str, str]:
    attributes: dict[str, str] = {}
    for attribute in tag.attributes:
        attributes.setdefault(attribute.name, attribute.value)
    return attributes
