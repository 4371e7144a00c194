"""Where a text could first need a change: the openers of constructs and the words
that may be URLs. The segmenter cuts, the stream holds back and a forced cut splits
words by these alone, so they must match wherever any later step could edit."""

from __future__ import annotations

import re
from typing import Final

from ..urls import INVISIBLE

__all__ = ["OPENER", "URLISH", "sendable"]

# A bracket, a tag or autolink, a control character (made plain first:
# `guard.controls`), an image (its `!` may be followed by invisibles), an attribute
# a python-markdown attribute list (`{: onclick=... }`) could set.
OPENER: Final = re.compile(
    r"\[|<|[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|!(?="
    + INVISIBLE.pattern
    + r"*\[)|(?<![\w-])(?i:on[a-z]{2,}|src|srcset|href|style|poster|background|data|action"
    r"|formaction|xlink:href|srcdoc|lowsrc|dynsrc)[ \t]*="
)
# A word matching this may be (part of) a URL some renderer links: a scheme, `www.`,
# an e-mail's `@`, or a dotted name followed by a path, query, fragment or port.
URLISH: Final = re.compile(r"://|www\.|@|\.[^\W\d_][\w-]{0,62}[/?#:]", re.IGNORECASE)


def sendable(text: str, *, final: bool, hold: re.Pattern[str] | None = None) -> tuple[int, bool]:
    """How much of `text`, a unit's text not sent yet, no later step can change: up
    to its first opener, and never into a word that may be a URL; unless `final`,
    never its last word either, which may still grow into one. Also whether an
    opener or such a word holds the rest back until the unit ends. `hold` finds what
    else holds the rest back: a fence the policy says is rendered (judged whole, so
    held from its opening line), a TeX macro that may fetch (`engine.rendered`)."""
    # A stream asks this of a few words per chunk, where a search costs more than
    # the text: each runs only when a character every match holds is there (an
    # opener holds `[`, `<`, `=` or a control, a URL-ish word `:`, `@` or `.`).
    may_open = "[" in text or "<" in text or "=" in text or not text.isprintable()
    opener = OPENER.search(text) if may_open else None
    held = hold.search(text) if hold is not None else None
    if held is not None and (opener is None or held.start() < opener.start()):
        opener = held
    if opener is not None:
        limit = opener.start()
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
    return limit, opener is not None or urlish is not None
