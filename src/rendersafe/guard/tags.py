"""Every `<` that starts a tag a browser could read, and whether that tag could fetch
or run anything.

No renderer is modelled: the text from each `<` followed by a letter is read the way
a browser's tokeniser reads a start tag (its name to white space, `/` or `>`;
attribute names to those or `=`; values quoted or up to white space or `>`; no `>`
before the end of the text: read to the end), whatever a Markdown renderer would
have made of the text around it. A `<` inside another tag's attribute is read as a
tag of its own too: some renderer may hand that text to the browser on its own.

Each attribute is read once however many tags read it (a `<` inside a run of tag
names or attributes shares what follows), so the cost is linear in the text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from html import unescape

from ..findings import Reason
from ..urls.parse import strict_references
from .schemes import CSS_DANGER, script_url

__all__ = ["FETCHING_NAMES", "Reading", "Tag", "read_tags"]

# A tag's `<`, and any character references between it and the name: python-markdown
# moves a line's references after raw HTML to its end, leaving `<img` behind.
_TAG_START = re.compile(r"<(?:&#?\w{1,32};)*+(?=[a-zA-Z])")
# A `>` after a backslash ends nothing: marked writes the tag's `<` as it stands and the
# escaped `>` as `&gt;`, so the browser's tag runs on past it (`<o\> src=...`).
_SEPARATOR = re.compile(r"[\t\n\f\r /]|(?<!\\)>")
# One attribute as the tokeniser reads it: white space and `/` before it, a name
# (its first character may be `=`), then `=` and a value; an escaped `>` is in them.
_ATTRIBUTE = re.compile(
    r"""[\t\n\f\r /]*((?:\\>|[^\t\n\f\r />])(?:\\>|[^\t\n\f\r /=>])*)"""
    r"""(?:[\t\n\f\r ]*=[\t\n\f\r ]*("[^"]*"?|'[^']*'?|(?:\\>|[^\t\n\f\r >])*))?"""
)
_BEFORE_END = re.compile(r"[\t\n\f\r /]*")
# A link's, an image's or an autolink's syntax that python-markdown writes as markup
# with quotes; and a tag's name and attributes as the browser reads its output.
_OPENS_MARKUP = re.compile(r"\]\(|!\[|\]\[|<[a-zA-Z][a-zA-Z0-9+.-]*:")
_PLAIN_NAME_END = re.compile(r"[\t\n\f\r />]")
_PLAIN_ATTRIBUTE = re.compile(
    r"""[\t\n\f\r /]*[^\t\n\f\r />][^\t\n\f\r /=>]*"""
    r"""(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:"[^"]*"?|'[^']*'?|[^\t\n\f\r >]*))?"""
)
# What a renderer may take off a line's start before a tag over lines reaches the
# browser: a quote's markers (python-markdown), white space of any kind (marko); and
# whether a text holds any that the browser would not read as white space anyway.
_LINE_START = re.compile(r"(?<=\n)[^\S\n]*(?:>[^\S\n]*)*")
_TAKEN_OFF = re.compile(r"\n[^\S\n]*(?:>|[^\S\n\t\f\r ])")
# Elements that fetch, navigate or run something by being there, whatever their
# attributes say (a stylesheet's `@import`, a refresh, a base for every relative
# URL, a frame, a plug-in); and SVG's elements whose `href` is fetched, since a
# renderer that reads a link inside the tag's text (python-markdown reads `[r]` and
# `[a](u)` before it reads raw HTML) writes an `href` the browser gives the tag.
FETCHING_NAMES = frozenset(
    {
        "applet",
        "base",
        "embed",
        "frame",
        "feimage",
        "frameset",
        "iframe",
        "image",
        "link",
        "meta",
        "object",
        "portal",
        "script",
        "style",
        "use",
    }
)
# SVG animation attributes that set another attribute (an `href` to a script URL).
_ANIMATING = frozenset({"values", "to", "from", "by"})
# Attributes a browser fetches on any element that has them.
_FETCHED = frozenset(
    {
        "src",
        "srcset",
        "lowsrc",
        "dynsrc",
        "poster",
        "background",
        "data",
        "manifest",
        "codebase",
        "archive",
        "icon",
        "imagesrcset",
    }
)
# Attributes that navigate when the user clicks: only a script in them runs unasked.
_NAVIGATING = frozenset({"action", "formaction", "ping", "cite", "longdesc"})
_LINK_ELEMENTS = frozenset({"a", "area"})
# Past this many attributes, or this far, a tag is no tag a person wrote: fail closed.
MAX_ATTRIBUTES = 256
MAX_TAG = 8192

UrlFetches = Callable[[str], tuple[Reason, ...]]
"""An attribute's URL -> the reasons a browser's fetch of it must not happen (none: it may)."""


@dataclass(frozen=True, slots=True)
class Tag:
    """A start tag that could fetch or run something: where its `<` is, its name, why."""

    start: int
    name: str
    reasons: tuple[Reason, ...]
    detail: str


@dataclass(frozen=True, slots=True)
class _Rest:
    """What the attributes from one offset to the tag's end hold."""

    runs: str | None  # an attribute that runs script or styles, by name
    fetched: tuple[Reason, ...]  # why a value fetched on any element must not be
    href: tuple[Reason, ...]  # why an `href` must not be fetched (unless a link's)
    count: int
    end: int


# Another reading of a text: what a renderer reads, and where each offset of it is in
# the text (a `<` is never one it deleted).
Reading = tuple[str, Callable[[int], int]]


def read_tags(
    text: str,
    skip: Callable[[int], bool],
    fetches: UrlFetches,
    readings: Iterable[Reading] = (),
    *,
    labels: bool = False,
) -> Iterator[Tag]:
    """The start tags in `text` that could fetch or run something, each `<` once
    (`skip`: offsets not to read from, such as code); and those of other `readings`
    of it (python-markdown's, with its definitions' lines taken out), and of the text
    as a renderer may hand it over with its lines' starts taken off (`_Joined`); and
    the tags python-markdown writes markup into (`_Expansions`; `labels`: a definition
    before the text may name a `[label]` in it, one after it is escaped itself)."""
    found = set()
    reader = _Reader(text, fetches)
    for tag in _tags(text, skip, fetches, reader):
        found.add(tag.start)
        yield tag
    others = list(readings)
    if _TAKEN_OFF.search(text) is not None:
        joined = _Joined(text)
        others.append((joined.text, joined.source))
    for seen, source in others:
        for tag in _tags(seen, _mapped(skip, source), fetches):
            start = source(tag.start)
            if start not in found:
                found.add(start)
                yield replace(tag, start=start)
    expands = _Expansions(text, labels or "]:" in text)
    if expands.some:
        for pos, name_start, name_end in _starts(text, skip):
            if pos not in found and expands.within(name_start):
                name = text[name_start:name_end].lower()
                yield Tag(pos, name, (Reason.HTML_ATTRIBUTE_NOT_ALLOWED,), f"{name}[markdown]")


def _mapped(skip: Callable[[int], bool], source: Callable[[int], int]) -> Callable[[int], bool]:
    """`skip`, asked of a reading's offsets."""
    return lambda pos: skip(source(pos))


def _tags(
    text: str, skip: Callable[[int], bool], fetches: UrlFetches, reader: _Reader | None = None
) -> Iterator[Tag]:
    reader = reader or _Reader(text, fetches)
    for pos, name_start, name_end in _starts(text, skip):
        tag = reader.judge(pos, name_start, name_end)
        if tag is not None:
            yield tag


def _starts(text: str, skip: Callable[[int], bool]) -> Iterator[tuple[int, int, int]]:
    """Each tag's `<`, and where its name starts and ends (names that run into each other
    share one end: found once)."""
    separator = -1
    for match in _TAG_START.finditer(text):
        pos, name = match.start(), match.end()
        if skip(pos):
            continue
        if name >= separator:
            found = _SEPARATOR.search(text, name)
            separator = found.start() if found is not None else len(text)
        yield pos, name, separator


class _Joined:
    """A text with what a renderer takes off its lines' starts taken off (`_LINE_START`):
    python-markdown a quote's markers, marko any white space (`\xa0`, `\x0b`), before
    it hands a tag over several lines to the browser. A tag's `<` is never taken off,
    so each maps back to one offset in the text."""

    def __init__(self, text: str) -> None:
        parts: list[str] = []
        self.starts, self.shifts = [0], [0]  # where each part starts, joined; its shift
        at = length = 0
        for line_start in _LINE_START.finditer(text):
            if line_start.end() == line_start.start():
                continue
            parts.append(text[at : line_start.start()])
            length += line_start.start() - at
            at = line_start.end()
            self.starts.append(length)
            self.shifts.append(at - length)
        parts.append(text[at:])
        self.text = "".join(parts)

    def source(self, pos: int) -> int:
        """The offset in the text of offset `pos` in the joined text."""
        return pos + self.shifts[bisect_right(self.starts, pos) - 1]


class _Reader:
    def __init__(self, text: str, fetches: UrlFetches) -> None:
        self.text = text
        self.fetches = fetches
        self.rests: dict[int, _Rest] = {}

    def judge(self, pos: int, name_start: int, name_end: int) -> Tag | None:
        name = self.text[name_start:name_end].lower()
        rest = self.rest(name_end)
        if name in FETCHING_NAMES:
            return Tag(pos, name, (Reason.HTML_TAG_NOT_ALLOWED,), name)
        if rest.runs is not None:
            return Tag(pos, name, (Reason.HTML_ATTRIBUTE_NOT_ALLOWED,), f"{name}[{rest.runs}]")
        # A tag the text ends inside, no `>` after it at all, may take its attributes
        # from the next unit's text (the segmenter keeps a tag whole, but not where it
        # reads a fence some renderer does not): what it will hold is unknown.
        unfinished = rest.end >= len(self.text) and ">" not in self.text[pos:]
        if rest.count > MAX_ATTRIBUTES or rest.end - pos > MAX_TAG or unfinished:
            return Tag(pos, name, (Reason.MALFORMED_HTML,), name)
        reasons = rest.fetched or (() if name in _LINK_ELEMENTS else rest.href)
        return Tag(pos, name, reasons, name) if reasons else None

    def rest(self, pos: int) -> _Rest:
        """The attributes from `pos` (after a tag's name or an attribute) on."""
        chain: list[tuple[int, str, str | None]] = []
        while pos not in self.rests:
            if len(chain) > MAX_ATTRIBUTES or (chain and pos - chain[0][0] > MAX_TAG):
                self.rests[pos] = _Rest(None, (), (), MAX_ATTRIBUTES + 1, pos + MAX_TAG + 1)
                break
            end = _BEFORE_END.match(self.text, pos).end()  # type: ignore[union-attr]
            if end >= len(self.text) or (self.text[end] == ">" and self.text[end - 1] != "\\"):
                self.rests[pos] = _Rest(None, (), (), 0, end)
                break
            attribute = _ATTRIBUTE.match(self.text, pos)
            assert attribute is not None  # a name character is there
            chain.append((pos, attribute.group(1).lower(), attribute.group(2)))
            pos = attribute.end()
        rest = self.rests[pos]
        for start, name, value in reversed(chain):
            rest = self._with(rest, name, value)
            self.rests[start] = rest
        return rest

    def _with(self, rest: _Rest, name: str, raw: str | None) -> _Rest:
        """`rest` with one more attribute before it."""
        if rest.count >= MAX_ATTRIBUTES:
            return replace(rest, count=MAX_ATTRIBUTES + 1)
        written = raw.strip("\"'") if raw is not None else ""
        value = unescape(written)
        runs = name if _runs(name, value) else rest.runs
        fetched, href = rest.fetched, rest.href
        # Each reading of the value: a browser decodes no legacy reference followed by
        # a letter, a digit or `=` in an attribute (`//&ltx.host` keeps its `&ltx`).
        strict = strict_references(written)
        readings = (value,) if strict == value else (value, strict)
        if name in _FETCHED:
            fetched = next(filter(None, (self._fetches(name, v) for v in readings)), fetched)
        elif name in ("href", "xlink:href"):
            href = next(filter(None, map(self.fetches, readings)), href)
        return _Rest(runs, fetched, href, rest.count + 1, rest.end)

    def _fetches(self, name: str, value: str) -> tuple[Reason, ...]:
        candidates = [c.split()[0] for c in value.split(",") if c.strip()]
        for candidate in candidates if "srcset" in name else [value]:
            reasons = self.fetches(candidate)
            if reasons:
                return reasons
        return ()


class _Expansions:
    """Where python-markdown may write markup inside a tag: it reads links, images,
    references and autolinks before raw HTML, so one
    inside an attribute's value is written there as `<img alt="..." src="...">` or
    `<a href="...">`, whose quotes end the value and make the alt text, the destination
    or the title attributes of the tag (`<b title="![x onerror=alert(1) ](y)">`). A
    backslash escapes no `<` there, and none of a tag's `>`: the tag is read as the
    browser reads python-markdown's output."""

    def __init__(self, text: str, labels: bool) -> None:
        self.text = text
        self.openers = [m.start() for m in _OPENS_MARKUP.finditer(text)]
        # A `[label]` a definition names (a later definition that would write attributes
        # is escaped itself: `constructs.Slots`).
        self.opens = [m.start() for m in re.finditer(r"\[", text)] if labels else []
        self.closes = [m.start() for m in re.finditer(r"\]", text)] if self.opens else []
        self.some = bool(self.openers or self.opens)
        self.ends: dict[int, int] = {}

    def within(self, name_start: int) -> bool:
        """Does the tag whose name starts at `name_start` hold one in its attributes?"""
        start = _PLAIN_NAME_END.search(self.text, name_start)
        begin = start.start() if start is not None else len(self.text)
        end = self._end(begin)
        if _first_in(self.openers, begin, end) is not None:
            return True
        opened = _first_in(self.opens, begin, end)
        return opened is not None and _first_in(self.closes, opened, end) is not None

    def _end(self, pos: int) -> int:
        """Where the browser ends the tag whose attributes start at `pos` (each offset's
        end remembered: tags in a run of tags share what follows)."""
        chain: list[int] = []
        text = self.text
        while pos not in self.ends:
            chain.append(pos)
            end = _BEFORE_END.match(text, pos).end()  # type: ignore[union-attr]
            if end >= len(text) or text[end] == ">" or len(chain) > MAX_ATTRIBUTES:
                self.ends[pos] = end
                break
            pos = _PLAIN_ATTRIBUTE.match(text, pos).end()  # type: ignore[union-attr]
        found = self.ends[pos]
        for start in chain:
            self.ends[start] = found
        return found


def _first_in(positions: list[int], start: int, end: int) -> int | None:
    at = bisect_right(positions, start - 1)
    return positions[at] if at < len(positions) and positions[at] < end else None


def _runs(name: str, value: str) -> bool:
    """Does this attribute run script or load a style, whatever the element?"""
    if name.startswith("on") or name == "srcdoc":
        return True
    if name == "style":
        return CSS_DANGER.search(value) is not None
    if name in _NAVIGATING or name in ("href", "xlink:href"):
        return script_url(value)
    return name in _ANIMATING and any(script_url(v) for v in value.split(";"))
