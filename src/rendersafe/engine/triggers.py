"""Where a text could first need a change: the openers of constructs and the words
that may be URLs. The segmenter cuts, the stream holds back and a forced cut splits
words by these alone, so they must match wherever any later step could edit."""

from __future__ import annotations

import re
from typing import Final

from ..urls import INVISIBLE

__all__ = ["CHARACTER_OPENER", "OPENER", "URLISH", "attribute_opener", "first_opener", "sendable"]

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
_XLINK: Final = re.compile("(?i:xlink:)")
_LONGEST_ATTRIBUTE = 64  # characters before an `=` its name and blanks may take
# Every opener, as one pattern (what `first_opener` finds).
OPENER: Final = re.compile(f"{CHARACTER_OPENER.pattern}|{_ATTRIBUTE}=")
# A word matching this may be (part of) a URL some renderer links: a scheme, `www.`,
# an e-mail's `@`, or a dotted name followed by a path, query, fragment or port.
URLISH: Final = re.compile(r"://|www\.|@|\.[^\W\d_][\w-]{0,62}[/?#:]", re.IGNORECASE)


def first_opener(text: str, start: int = 0, end: int | None = None) -> int:
    """Where the first match of `OPENER` in text[start:end] starts, or -1."""
    stop = len(text) if end is None else end
    found = CHARACTER_OPENER.search(text, start, stop)
    attribute = attribute_opener(text, start, stop if found is None else found.start())
    if attribute >= 0:
        return attribute
    return found.start() if found is not None else -1


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
    text: str, *, final: bool, hold: re.Pattern[str] | None = None, prefix: str = ""
) -> tuple[int, bool]:
    """How much of `text`, a unit's text not sent yet, no later step can change: up
    to its first opener, and never into a word that may be a URL; unless `final`,
    never its last word either, which may still grow into one. Also whether an
    opener or such a word holds the rest back until the unit ends. `hold` finds what
    else holds the rest back: a fence the policy says is rendered (judged whole, so
    held from its opening line), a TeX macro that may fetch (`engine.rendered`);
    `prefix`, what the unit starts inside (a fence's opening line a forced cut split),
    holds all of it when `hold` finds it there: the rest of a rendered fence."""
    if prefix and hold is not None and hold.search(prefix) is not None:
        return 0, True
    # A stream asks this of a few words per chunk, where a search costs more than
    # the text: each runs only when a character every match holds is there (an
    # opener holds `[`, `<`, `=` or a control, a URL-ish word `:`, `@` or `.`).
    may_open = "[" in text or "<" in text or "=" in text or not text.isprintable()
    opener = first_opener(text) if may_open else -1
    held = hold.search(text) if hold is not None else None
    if held is not None and (opener < 0 or held.start() < opener):
        opener = held.start()
    if opener >= 0:
        limit = opener
    elif final:
        limit = len(text)
    else:
        limit = text.rfind(" ")
        if "\n" in text:
            limit = max(limit, text.rfind("\n"))
        if "\t" in text:
            limit = max(limit, text.rfind("\t"))
        limit += 1
    urlish = None
    if ":" in text or "@" in text or "." in text:
        urlish = URLISH.search(text, 0, limit)
    if urlish is not None:
        limit = urlish.start()
        while limit > 0 and not text[limit - 1].isspace():
            limit -= 1
    return limit, opener >= 0 or urlish is not None
