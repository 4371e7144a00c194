"""Where a text could first need a change: the openers of constructs and the words
that may be URLs. The segmenter cuts, the stream holds back and a forced cut splits
words by these alone, so they must match wherever any later step could edit."""

from __future__ import annotations

import re
from typing import Final

from ..urls import INVISIBLE

__all__ = [
    "CHARACTER_OPENER",
    "OPENER",
    "URLISH",
    "attribute_opener",
    "first_opener",
    "line_end_after",
    "list_opener",
    "listed_name",
    "sendable",
]

# A bracket, a tag or autolink, a control character (made plain first:
# `guard.controls`, which deletes some: an `!` before one may become an image's), an
# image (its `!` may be followed by invisibles).
CHARACTER_OPENER: Final = re.compile(
    r"\[|<|(?:!"
    + INVISIBLE.pattern
    + r"*)?[\x01-\x08\x0b\x0c\x0e-\x1f\x7f\ufeff]|!(?="
    + INVISIBLE.pattern
    + r"*\[)"
)
# An attribute a python-markdown attribute list (`{: onclick=... }`) could set, read
# back from its `=` (`attribute_opener`): searched for on its own, a pattern that starts
# with a look-behind tries every position, fourteen times the cost of the rest.
_NAMES = (
    r"on[a-z]{2,}|src|srcset|href|style|poster|background|data|action"
    r"|formaction|xlink:href|srcdoc|lowsrc|dynsrc"
)
_ATTRIBUTE = rf"(?<![\w-])(?i:{_NAMES})[ \t]*"
_NAME: Final = re.compile(f"(?i:{_NAMES})")
_NAMED_LAST: Final = re.compile(rf"{_ATTRIBUTE}\Z")  # a name, blanks after it, the end
# A word an attribute list reads as a name that sets an event handler, bare or not
# (`{onclick}` sets `onclick="onclick"`): `on` and anything after it (python-markdown
# writes `on&#99;lick` as `on_99_lick`, still counted), inside a list: after a `{` and
# what a list may hold before it, where a name may start (after the `{`, a `:`, white
# space, or a quoted value glued to it: `title="a"onclick`, not `{"on": 1}`). Not
# `{x} on {y}`: a word between two lists is in neither. Read as python-markdown's
# scanner reads a list: a value is quoted only after an `=` (a `}` in it ends nothing),
# any other quote is a word's (`{don't onclick}`), and so is an escaped character (`\}`
# is a placeholder to the scanner). Each item is atomic, so a failed search never tries
# an `="..."` both ways (linear). A URL attribute needs its `=` (`attribute_opener`):
# bare, its value is its own name.
_LISTED_NAME: Final = re.compile(
    r"""\{(?>\\.|=(?:"[^"\n\r]*"|'[^'\n\r]*')|[^{}\n\r\\])*?"""
    r"""(?:(?<=[\s{:])|=(?:"[^"\n\r]*"|'[^'\n\r]*'))on""",
    re.I,
)
# What may let an attribute list set a handler or a URL, read with no regard to where a
# list is: a word starting `on` where a name may start, or a URL attribute's `name=`.
# Every name `listed_name` counts, and every `name=` the second line counts, is one.
_MAY_SET: Final = re.compile(
    rf"""(?:^|[\s{{}}:"'=])on|(?:{_NAMES.removeprefix("on[a-z]{2,}|")})[ \t]*=""", re.I
)
_XLINK: Final = re.compile("(?i:xlink:)")
_LONGEST_ATTRIBUTE = 64  # characters before an `=` its name and blanks may take
_LONGEST_LIST = 256  # characters a stream waits for an open attribute list to close
# Every opener, as one pattern (what `first_opener` finds).
OPENER: Final = re.compile(f"{CHARACTER_OPENER.pattern}|{_ATTRIBUTE}=")
# A word matching this may be (part of) a URL some renderer links: a scheme, `www.`,
# an e-mail's `@`, or a dotted name followed by a path, query, fragment or port.
URLISH: Final = re.compile(r"://|www\.|@|\.[^\W\d_][\w-]{0,62}[/?#:]", re.IGNORECASE)


def first_opener(text: str, start: int = 0, end: int | None = None) -> int:
    """Where the first match of `OPENER` in text[start:end] starts, or the first
    attribute list that sets an attribute by its bare name (`list_opener`); or -1."""
    stop = len(text) if end is None else end
    found = CHARACTER_OPENER.search(text, start, stop)
    before = stop if found is None else found.start()
    attribute = attribute_opener(text, start, before)
    if attribute >= 0:
        before = attribute
    listed = list_opener(text, start, before)
    if listed >= 0:
        return listed
    if attribute >= 0:
        return attribute
    return found.start() if found is not None else -1


def list_opener(text: str, start: int, end: int) -> int:
    """Where the first line in text[start:end] with an attribute list that may set an
    event handler starts its braces (its first `{`, a `}` after it), or -1.
    python-markdown reads `{onclick}` as `onclick="onclick"` (`engine.attributes`),
    with no `=` for `attribute_opener` to read back from, a list after any inline
    element on the line, and each to its line's last `}`. A word inside any list of the
    line that starts as a handler's name counts (`_LISTED_NAME`; one pass a line)."""
    brace = text.find("{", start, end)
    while brace >= 0:
        line_end = line_end_after(text, brace, end)
        close = text.rfind("}", brace, line_end)
        if close >= 0 and _LISTED_NAME.search(text, brace, close) is not None:
            return brace
        brace = text.find("{", line_end, end)
    return -1


def may_set_attribute(text: str) -> bool:
    """May an attribute list that reads `text` set an event handler or a URL
    (`_MAY_SET`: more than `listed_name` and a `name=` of one find, never less)?"""
    return _MAY_SET.search(text) is not None


def listed_name(text: str, start: int, end: int) -> bool:
    """Does text[start:end] hold a word an attribute list would read as a name that
    sets an event handler (`list_opener`)?"""
    return _LISTED_NAME.search(text, start, end) is not None


def line_end_after(text: str, start: int, end: int) -> int:
    """Where the line holding `start` ends (a `\n` or a lone `\r`: every renderer
    ends a line there), or `end`."""
    newline = text.find("\n", start, end)
    stop = end if newline < 0 else newline
    ret = text.find("\r", start, stop)
    return stop if ret < 0 else ret


def _settled_words(text: str, *, final: bool, in_list: bool = False) -> int:
    """How much of `text`, which holds no opener, no later word can change: all of it
    when `final`; else up to its last space, tab or line end; `in_list`, not an
    attribute's name that blanks end either (an `=` may still come: `onclick =` is an
    opener, and inside a list whose `{` a forced cut left in the unit before, nothing
    else holds it)."""
    if final:
        return len(text)
    limit = text.rfind(" ")
    if "\n" in text:
        limit = max(limit, text.rfind("\n"))
    if "\t" in text:
        limit = max(limit, text.rfind("\t"))
    if in_list and limit == len(text) - 1:
        named = _NAMED_LAST.search(text, max(0, limit - _LONGEST_ATTRIBUTE))
        if named is not None:
            return named.start()
    return limit + 1


def _first_hold(text: str, hold: re.Pattern[str] | None, *, in_list: bool) -> int:
    """Where `text`'s first opener is, or what else holds it back (`sendable`), or -1."""
    # A stream asks this of a few words per chunk, where a search costs more than
    # the text: each runs only when a character every match holds is there (an
    # opener holds `[`, `<`, `=` or a control, a URL-ish word `:`, `@` or `.`).
    may_open = "[" in text or "<" in text or "=" in text or "{" in text
    opener = first_opener(text) if may_open or not text.isprintable() else -1
    held = hold.search(text) if hold is not None else None
    if held is not None and (opener < 0 or held.start() < opener):
        opener = held.start()
    if in_list:
        closing = text.find("}", 0, line_end_after(text, 0, len(text)))
        if closing >= 0 and (opener < 0 or closing < opener):
            opener = closing
    return opener


def open_list(text: str) -> int:
    """Where `text`'s last line, still arriving, has its first `{`, or -1: a stream
    waits for the line's end before sending from there (a list on it may be read
    from any of its braces, and each of its `}` written out of reach)."""
    line = max(text.rfind("\n"), text.rfind("\r")) + 1
    return text.find("{", line)


def attribute_opener(text: str, start: int, end: int) -> int:
    """Where the first attribute an attribute list could set starts in text[start:end]
    (its name, before its `=`), or -1: each `=` read back, as `OPENER` reads it."""
    equals = text.find("=", start, end)
    while equals >= 0:
        found = _named_before(text, max(start, equals - _LONGEST_ATTRIBUTE), equals)
        if found >= 0:
            return found
        equals = text.find("=", equals + 1, end)
    return -1


def _named_before(text: str, start: int, equals: int) -> int:
    """Where the attribute name before the `=` at `equals` starts (blanks between),
    read no further back than `start`; -1 when none is."""
    end = equals
    while end > start and text[end - 1] in " \t":
        end -= 1
    begin = end
    while begin > start and _word(text[begin - 1]):
        begin -= 1
    if begin == end or (begin > 0 and _word(text[begin - 1])):
        return -1  # no name, or one that runs on before `start` (the look-behind)
    before = text[begin - 1] if begin > 0 else ""
    if before == ":" and _xlink_before(text, start, begin) and text[begin:end].lower() == "href":
        return begin - 6  # `xlink:href` starts before `href` does
    if before == "-" or _NAME.fullmatch(text, begin, end) is None:
        return -1
    return begin


def _xlink_before(text: str, start: int, at: int) -> bool:
    """Does `xlink:` end at `at`, from `start` on, with no word or `-` before it?"""
    begin = at - 6
    if begin < start or _XLINK.fullmatch(text, begin, at) is None:
        return False
    return begin == 0 or not _word_or_dash(text[begin - 1])


def _word(character: str) -> bool:
    return character.isalnum() or character == "_"


def _word_or_dash(character: str) -> bool:
    return _word(character) or character == "-"


def sendable(
    text: str,
    *,
    final: bool,
    hold: re.Pattern[str] | None = None,
    prefix: str = "",
    in_list: bool = False,
) -> tuple[int, bool]:
    """How much of `text`, a unit's text not sent yet, no later step can change: up
    to its first opener, and never into a word that may be a URL; unless `final`,
    never its last word either, which may still grow into one. Also whether an
    opener or such a word holds the rest back until the unit ends. `hold` finds what
    else holds the rest back: a fence the policy says is rendered (judged whole, so
    held from its opening line), a TeX macro that may fetch (`engine.rendered`);
    `prefix`, what the unit starts inside (a fence's opening line a forced cut split),
    holds all of it when `hold` finds it there: the rest of a rendered fence.
    `in_list`: the text starts inside an attribute list a forced cut left open
    (`Carry.cut_tail`), so a `}` on its first line is an opener: the pass writes it
    out of the list's reach (`units.forced_cut`)."""
    if prefix and hold is not None and hold.search(prefix) is not None:
        return 0, True
    opener = _first_hold(text, hold, in_list=in_list)
    waiting = -1
    if not final and "{" in text:
        # An attribute list its last line may still open: waited for, and read again
        # with what comes next; past a few words, held as an opener (each chunk
        # would read the whole wait again). An opener after its `{` does not end the
        # wait: the list may take the line to its end.
        waiting = open_list(text)
        if waiting < 0 or 0 <= opener < waiting:
            waiting = -1
        elif len(text) - waiting > _LONGEST_LIST:
            opener, waiting = waiting, -1
    limit = opener if opener >= 0 else _settled_words(text, final=final, in_list=in_list)
    if waiting >= 0:
        limit = min(limit, waiting)
    urlish = None
    if ":" in text or "@" in text or "." in text:
        urlish = URLISH.search(text, 0, limit)
    if urlish is not None:
        limit = urlish.start()
        while limit > 0 and not text[limit - 1].isspace():
            limit -= 1
    return limit, opener >= 0 or urlish is not None
