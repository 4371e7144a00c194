"""The Markdown openers that could fetch or run something, read without a renderer.

- an image opener (`![`, invisibles allowed between): every renderer's image starts
  with one, and takes its URL from a destination slot (`](`) or a label (`[...]`)
  after it, before the paragraph ends. Unless the pass judged and kept it and it is
  written so that every renderer reads the same image (`CANONICAL`), it is escaped
  when any such slot or label holds a URL the policy does not let an image fetch;
- a destination slot (`](`) or a reference definition (`]:`) with a `[` before it in
  its paragraph, whose URL, in any reading a renderer hands to the browser (escapes
  and references decoded, line breaks inside it), is a script URL; a definition an
  image may use, whose URL an image may not fetch;
- an autolink (`<scheme:...>`) to a script URL;
- python-markdown's attribute lists (`{: onclick=... }`, `{: src=... }`), which set
  any attribute on the element before them.

Where renderers disagree on what a construct is, the reading that exposes the most
is the one judged. Every slot and label is judged once, so the cost is linear.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..engine.attributes import FENCE_OPENING, attribute_names
from ..engine.triggers import line_end_after, listed_name
from ..findings import Construct, Reason
from ..markdown.labels import label_keys
from ..urls import INVISIBLE
from .schemes import markdown_readings, script_url

__all__ = [
    "CANONICAL",
    "Opener",
    "Slots",
    "attribute_lists",
    "autolinks",
    "images",
    "list_is_risky",
    "sets_attribute",
]

_IMAGE = re.compile(r"!" + INVISIBLE.pattern + r"*\[")
# What every renderer reads as the same image: no brackets, backticks, angle
# brackets, escapes or character references in it, one line, a plain destination
# (an `&` only where it starts no reference), a plain title.
_PLAIN = r"[^\[\]\\`<>&\r\n]*"
_URL = r"""(?:[^\s()<>\\`"'&\[\]]|&(?!#?\w+;))+"""
CANONICAL = re.compile(
    rf"""!\[{_PLAIN}\](?:\({_URL}(?: "[^"\\`<>&\r\n]*")?\)|\[{_PLAIN}\]|(?![(\[]))"""
)
_SLOT = re.compile(r"\](?:\(|:)")
_AFTER_SLOT = re.compile(r"[ \t]*\n?[ \t]*<?")
_LABEL = re.compile(r"\[((?:[^\[\]\\]|\\.){0,999})\]")
# What may stand before a definition's `[` on its line: indentation and the markers
# of block quotes, list items and definition lists (python-markdown's `: `).
_MARKERS = " \t>-*+.):0123456789"
# ... and footnote definitions, whose content is a container too (GFM's, python-markdown's).
_FOOTNOTES = re.compile(r"\[\^[^\]\n]*\]:")
# A link inside a destination, which python-markdown writes as its text before it reads
# the destination (its own destination and title, to the first `)`).
_INNER_LINK = re.compile(
    r"""(?<!!)\[([^\[\]\n]*)\]\((?>"[^"\n]*"|'[^'\n]*'|[^()\n\\]|\\.|\n(?!\n)|\([^()\n]*\))*+\)"""
)
_INNER_CODE = re.compile(r"(`+)([^`]+)\1")
_INNER_WINDOW = 2048
# A definition's line as python-markdown reads it: a title may follow the destination
# with no space before it (`url" u"` is `url` titled ` u`).
_TITLE_AFTER = re.compile(r"""\S+?(?:(["']).*\1|\(.*\))[ \t]*""")
# A destination that is an attribute's assignment (`onclick=...`, `src=//...`, after a
# `/` the browser reads as a separator: `a/onclick=...`), or a word a handler's name
# starts with (written as the tag's attribute `on"`).
_ASSIGNS = re.compile(
    r"<?(?:[^\s\"'<>=/?#:]+=|on[a-z]*(?![\w./#?%:-])|(?:\S*[/\s])?on[a-z]+[ \t]*=)", re.IGNORECASE
)
_SPACE = re.compile(r"[ \t]")
_BLANK_LINE = re.compile(r"\n[ \t]*(?:\n|\Z)")
# An alt text nothing could end elsewhere: no bracket, backtick, tag or escape in it.
_ALT_END = re.compile(r"[^\[\]`<\\]*\]")
# Raw HTML holding a quote: in an image's text, micromark writes it into `alt` as it
# stands, so the quote ends the attribute and what follows becomes the image's own.
_QUOTED_HTML = re.compile(r"""<[!?/a-zA-Z][^<>]*["']""")
_ALT_BREAKS_OUT = "raw HTML with a quote in an image's text"
_OPEN_BRACKET = re.compile(r"(?<!\\)(?:\\\\)*\[")
_AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^<>\s]*)")
_BRACE = re.compile(r"\{")
# Any `name=` in an attribute list's text, wherever a scanner might start reading it.
_ANY_NAME = re.compile(r"""([^\s="'{}]+)[ \t]*=""")
# A fence's run before an attribute list's `{` on its line.
_SET_ATTRIBUTES = frozenset(
    {
        "src",
        "srcset",
        "href",
        "style",
        "poster",
        "background",
        "data",
        "action",
        "formaction",
        "xlink:href",
        "srcdoc",
        "lowsrc",
        "dynsrc",
    }
)

Skip = Callable[[int], bool]
Reasons = tuple[Reason, ...]
ImageFetches = Callable[[str], Reasons]
LabelFetches = Callable[[frozenset[str]], Reasons]


@dataclass(frozen=True, slots=True)
class Opener:
    """One character to escape so that nothing can start at it, and why."""

    at: int
    replacement: str
    construct: Construct
    reasons: Reasons
    detail: str
    first: int | None = None  # where the construct starts, when not at `at` (a label's `[`)


def escaped(text: str, pos: int) -> bool:
    """Is the character at `pos` backslash-escaped (an odd run of `\\` before it)?"""
    run = pos
    while run > 0 and text[run - 1] == "\\":
        run -= 1
    return (pos - run) % 2 == 1


class Slots:
    """The destination slots, definitions, labels and paragraphs of one text, each
    judged once, asked about by offset."""

    def __init__(
        self, text: str, skip: Skip, fetches: ImageFetches, labels: LabelFetches | None
    ) -> None:
        self.text = text
        self.blanks = [m.start() for m in _BLANK_LINE.finditer(text)]
        self.brackets = [m.end() - 1 for m in _OPEN_BRACKET.finditer(text)]
        # (offset of `]`, is a definition, the text after it a URL starts with)
        self.slots: list[tuple[int, bool, str]] = []
        for match in _SLOT.finditer(text):
            close, definition = match.start(), match.group().endswith(":")
            if skip(close) or escaped(text, close) or not self.opened(close):
                continue
            start = _AFTER_SLOT.match(text, match.end()).end()  # type: ignore[union-attr]
            raw = text[start : start + 512]
            if not definition or (raw.strip() and self._line_start(close)):
                self.slots.append((close, definition, raw))
        self._fetches = fetches
        self._labels = labels
        self._bad_sources: list[int] | None = None

    def paragraph_end(self, pos: int) -> int:
        """Where the paragraph holding `pos` ends, as far as any renderer reads it."""
        i = bisect.bisect_right(self.blanks, pos)
        return self.blanks[i] if i < len(self.blanks) else len(self.text)

    def opened(self, close: int) -> bool:
        """Is there a `[` before `close` in its paragraph?"""
        i = bisect.bisect_left(self.brackets, close) - 1
        if i < 0:
            return False
        j = bisect.bisect_right(self.blanks, self.brackets[i])
        return j >= len(self.blanks) or self.blanks[j] > close

    def opening(self, close: int) -> int:
        """The `[` of the label whose `]` is at `close` (a slot's: `opened`)."""
        return self.brackets[bisect.bisect_left(self.brackets, close) - 1]

    def _first(self, close: int) -> int | None:
        """Where a finding on the slot at `close` starts: its label's `[`, when on the
        same line (a line before may be a prefix the unit's findings leave out)."""
        opening = self.opening(close)
        return None if "\n" in self.text[opening:close] else opening

    def _line_start(self, close: int) -> bool:
        """Does the label whose `]` is at `close` start a line's content (after
        container markers and footnote definitions' labels) or follow a tag, as a
        definition's must?"""
        opening = self.opening(close)
        before = self.text[self.text.rfind("\n", 0, opening) + 1 : opening].rstrip(" \t")
        return not _FOOTNOTES.sub("", before).strip(_MARKERS) or before.endswith(">")

    @staticmethod
    def _complete(raw: str) -> bool:
        """Does a definition's line end after its destination, or go on with a title?
        (Else it defines something only in a prefix cut after the destination.)"""
        first = raw.split("\n", 1)[0]
        line = first.split(None, 1)
        if _TITLE_AFTER.match(first.strip()) is not None:
            return True  # python-markdown's title may start inside the destination's run
        return bool(line) and (len(line) == 1 or line[1][0] in "\"'(")

    def image_may_fetch(self, bang: int, end: int) -> bool:
        """Could the image opened at `bang`, whose sources lie before `end`, take a
        URL the policy does not allow?"""
        bad = self._bad_image_sources()
        i = bisect.bisect_right(bad, bang)
        return i < len(bad) and bad[i] < min(end, self.paragraph_end(bang))

    def _bad_image_sources(self) -> list[int]:
        """Offsets of the inline slots and labels an image may not take, in order."""
        if self._bad_sources is None:
            bad = [c for c, defines, raw in self.slots if not defines and self._bad_slot(raw)]
            if self._labels is not None:
                labels = self._labels
                bad += [
                    m.start() for m in _LABEL.finditer(self.text) if labels(label_keys(m.group(1)))
                ]
            self._bad_sources = sorted(bad)
        return self._bad_sources

    def _bad_slot(self, raw: str) -> bool:
        return bool(_fetch_reasons(raw, self._fetches))

    def openers(self, image_uses: Mapping[str, int]) -> Iterator[Opener]:
        """Every `](` and `]:` whose URL runs a script, and every `]:` an image may use
        whose URL it may not fetch: their `]` escaped. A definition an image used
        before it defines its label in the prefix cut after its destination, whatever
        follows on its line."""
        for close, definition, raw in self.slots:
            construct = Construct.REFERENCE_DEFINITION if definition else Construct.LINK
            sources = _destinations(raw) if not definition else {raw.split(None, 1)[0]}
            readings = {r for source in sources for r in markdown_readings(source)}
            if any(script_url(_up_to_end(r)) for r in readings):
                script: Reasons = (Reason.SCHEME_NOT_ALLOWED,)
                yield Opener(close, "\\]", construct, script, "script URL", self._first(close))
                continue
            if not definition:
                continue
            if self._writes_attributes(close, raw):
                attribute: Reasons = (Reason.HTML_ATTRIBUTE_NOT_ALLOWED,)
                what = "definition written as a tag's attributes"
                yield Opener(close, "\\]", construct, attribute, what, self._first(close))
                continue
            used = self._first_image_use(close, image_uses)
            if used is None or (used > close and not self._complete(raw)):
                continue
            reasons = _fetch_reasons(raw, self._fetches, definition=True)
            if reasons:
                what = "definition an image may use"
                yield Opener(close, "\\]", construct, reasons, what, self._first(close))

    def _writes_attributes(self, close: int, raw: str) -> bool:
        """Would a use of this definition inside a raw tag, wherever it is (python-markdown
        reads the reply's definitions before its text, and a `[label]` inside a tag's
        attribute before the tag), write the tag an attribute: a destination that starts
        `name=`, or a footnote's label holding one (its `id`)? The quotes of the link's
        markup end the tag's value, and what follows is the tag's."""
        label = self.text[self.opening(close) + 1 : close]
        destination = raw.split(None, 1)[0] if raw.strip() else ""
        return _ASSIGNS.match(destination) is not None or (label.startswith("^") and "=" in label)

    def _first_image_use(self, close: int, image_uses: Mapping[str, int]) -> int | None:
        """Where an image first uses the label whose `]` is at `close` (-1: an earlier
        unit; None: no image does)."""
        if not image_uses:
            return None
        i = bisect.bisect_left(self.brackets, close) - 1
        label = self.text[self.brackets[i] + 1 : close]
        uses = [image_uses[key] for key in label_keys(label) if key in image_uses]
        return min(uses) if uses else None


def _up_to_end(raw: str) -> str:
    """A destination as the most generous renderer ends it: at `)` or `>`, or at a
    blank line (python-markdown takes line breaks into a destination)."""
    end = len(raw)
    for stop in (")", ">", "\n\n"):
        at = raw.find(stop)
        if at >= 0:
            end = min(end, at)
    return raw[:end]


def _destinations(raw: str) -> set[str]:
    """A destination as renderers end it (`_up_to_end`), and as python-markdown reads it
    with the links and code spans inside it written as their text first
    (`ht[tp](u)s://host` is `https://host` to it, ``` ``javascript:x`` ``` a script)."""
    found = {_up_to_end(raw)}
    if "](" in raw:
        found.add(_up_to_end(_INNER_LINK.sub(r"\1", raw[:_INNER_WINDOW])))
    if "`" in raw:
        found.add(_up_to_end(_INNER_CODE.sub(r"\2", raw[:_INNER_WINDOW])))
    return found


def _fetch_reasons(raw: str, fetches: ImageFetches, *, definition: bool = False) -> Reasons:
    """Why an image may not fetch the URL `raw` starts with, in any reading: up to
    white space, or (python-markdown's inline destinations) up to a space, its line
    breaks taken out by the browser. A destination holding a link (a `[` before its first
    `)`, a `](` after it) is read by python-markdown in ways no one reading models
    whole (its nested parentheses): such an image fetches nothing."""
    if not definition and _holds_link(raw):
        return (Reason.IMAGE_HOST_NOT_ALLOWED,)
    for reading in {r for d in _destinations(raw) for r in markdown_readings(d)}:
        stripped = reading.strip()
        if not stripped:
            continue
        urls = {stripped.split(None, 1)[0]}
        if not definition:
            urls.add(_SPACE.split(stripped, 1)[0])
        for url in urls:
            reasons = fetches(url)
            if reasons:
                return reasons
    return ()


def _holds_link(raw: str) -> bool:
    """Does the destination `raw` starts hold a link, `[` before its first `)`, then a
    `](` and two `)` after it (the link's and the destination's own ends)?"""
    bracket = raw.find("[", 0, _INNER_WINDOW)
    close = raw.find(")", 0, _INNER_WINDOW)
    if bracket < 0 or 0 <= close < bracket:
        return False
    opening = raw.find("](", bracket, _INNER_WINDOW)
    inner_end = raw.find(")", opening + 2, _INNER_WINDOW) if opening >= 0 else -1
    return inner_end >= 0 and raw.find(")", inner_end + 1, _INNER_WINDOW) >= 0


def images(
    text: str, skip: Skip, kept: Collection[tuple[int, int]], slots: Slots
) -> Iterator[Opener]:
    """Every image opener that could fetch a URL the policy does not allow, unless the
    pass kept it and every renderer reads it alike: its `[` escaped."""
    keep = {start for start, end in kept if CANONICAL.fullmatch(text, start, end)}
    quoted: list[int] | None = None
    for match in _IMAGE.finditer(text):
        bang, bracket = match.start(), match.end() - 1
        if bang in keep or skip(bracket) or escaped(text, bang):
            continue
        if slots.image_may_fetch(bang, _sources_end(text, bracket)):
            reason = Reason.IMAGE_HOST_NOT_ALLOWED
            yield Opener(bracket, "\\[", Construct.IMAGE, (reason,), "image not judged", bang)
            continue
        if _ALT_END.match(text, bracket + 1) is None:
            if quoted is None:
                quoted = [m.start() for m in _QUOTED_HTML.finditer(text) if not skip(m.start())]
            i = bisect.bisect_right(quoted, bracket)
            if i < len(quoted) and quoted[i] < slots.paragraph_end(bang):
                reason = Reason.HTML_TAG_NOT_ALLOWED
                yield Opener(bracket, "\\[", Construct.IMAGE, (reason,), _ALT_BREAKS_OUT, bang)


def _sources_end(text: str, bracket: int) -> int:
    """Where the sources of the image whose `[` is at `bracket` end: right after its
    `]` and a label or destination's opener (one white space between, as
    python-markdown allows), when nothing between could hide that `]` from a
    renderer or nest in it (a bracket, a backtick, a tag); else the text's end."""
    close = _ALT_END.match(text, bracket + 1)
    return close.end() + 2 if close is not None else len(text)


def autolinks(text: str, skip: Skip) -> Iterator[Opener]:
    """Every autolink to a script URL: its `<` escaped."""
    for match in _AUTOLINK.finditer(text):
        pos = match.start()
        if skip(pos):
            continue
        if any(script_url(r) for r in markdown_readings(match.group(1))):
            reasons = (Reason.SCHEME_NOT_ALLOWED,)
            yield Opener(pos, "&lt;", Construct.AUTOLINK, reasons, "script URL")


def attribute_lists(text: str, skip: Skip) -> Iterator[Opener]:
    """Every attribute list that sets an event handler or a URL: every `}` that could
    close it escaped (the `{` may have been sent already; what follows an attribute
    name is held, `engine.triggers.OPENER`)."""
    done = -1
    for match in _BRACE.finditer(text):
        pos = match.start()
        if pos < done or skip(pos) or escaped(text, pos):
            continue
        line_end = line_end_after(text, pos, len(text))
        # A fence's `{attributes}` are read by python-markdown's fenced_code before any
        # escape is: there a `\}` is a `}` too, and only one that is no `}` any more
        # (`&#125;`) ends nothing.
        line_start = max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1
        fence = FENCE_OPENING.fullmatch(text, line_start, pos) is not None
        after = text.find if fence else functools.partial(_unescaped, text)
        close = after("}", pos, line_end)
        if close < 0:
            continue
        # python-markdown takes the list to the line's last `}` (a quoted value may hold
        # one), and reads its names with its scanner (`engine.attributes`). A later `{`
        # on the line (after an inline element: `*b*{ onclick}`) reads a part of the
        # same text: every `name=` in it, and every word inside a list that starts as
        # a handler's name (`triggers.listed_name`), is counted here, whatever a
        # scanner started there would read, and the line is read once.
        last = text.rfind("}", pos, line_end)
        listed = text[pos + 1 : last]
        done = line_end
        if not list_is_risky(listed):
            continue
        reasons = (Reason.HTML_ATTRIBUTE_NOT_ALLOWED,)
        brace = "&#125;" if fence else "\\}"
        while close >= 0:
            if not skip(close):
                yield Opener(close, brace, Construct.HTML, reasons, "attribute list")
            close = after("}", close + 1, line_end)


def list_is_risky(listed: str) -> bool:
    """Does an attribute list that reads `listed` (between its braces) set, or may it
    set, an event handler or a URL: a name it reads as one (`attribute_names`), a
    `name=` wherever a scanner might start, a handler-like word (`listed_name`)?"""
    return (
        _risky(attribute_names(listed))
        or sets_attribute(listed)
        or listed_name("{" + listed, 0, len(listed) + 1)
    )


def sets_attribute(listed: str) -> bool:
    """Does text an attribute list may read set an event handler or a URL by a `name=`,
    wherever a scanner might start reading it (`_ANY_NAME`)? Each is an opener to a
    stream too (`engine.triggers.OPENER`)."""
    return "=" in listed and _risky(_ANY_NAME.findall(listed))


def _risky(written: Iterable[str]) -> bool:
    # (a list's own `{:` glues its colon to the first name: `{:src=...}`)
    names = {n.lower().lstrip(":") for n in written}
    return any(n.startswith("on") or n in _SET_ATTRIBUTES for n in names)


def _unescaped(text: str, char: str, start: int, end: int) -> int:
    """The first `char` in text[start:end] no backslash escapes, or -1."""
    at = text.find(char, start, end)
    while at >= 0 and escaped(text, at):
        at = text.find(char, at + 1, end)
    return at
