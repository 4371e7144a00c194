"""Runs of the conversation's prose words in a URL.

The rule, and why. The classic false positive is an honest link whose words repeat the
user's: an article slug (`/how-to-configure-nginx-as-a-reverse-proxy-for-apache`) or a
search query. Slugs are titles, and a user who asks "How to install and secure
phpMyAdmin with Nginx on an Ubuntu 20.04 server?" shares 13 consecutive words, five
of them rare, with DigitalOcean's tutorial URL; so no rule on the run alone of fewer
than 16 words can tell that from a leak. A leak of the conversation copies more, or
copies across sentences, which a title never does. So a URL carries prose when a
reading holds a run of consecutive words of the conversation (URLs left out), with
at least `RARE_WORDS` rare words (6+ letters and not common, or with a digit), that is

- `LONG_RUN` (16) words long, or
- `SHORT_RUN` (10) words long and crosses a sentence or message boundary,

and the URL's host (or a parent domain) was not seen in the conversation. The judge
does not apply prose to sealed first-party hosts (search engines): a query repeating
the question stays. Short runs are left to the pieces (`pieces`): an e-mail, a number
or a key is what a short leak carries.

The word index is built only when a URL's reading could hold such a run, and then
once per conversation; a check is a few `str` searches.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence

from .messages import MEMO_CHARS, Message

__all__ = [
    "LONG_RUN",
    "MIN_PROSE_CHARS",
    "RARE_WORDS",
    "SHORT_RUN",
    "ProseIndex",
    "could_carry",
    "words_of",
]

LONG_RUN = 16
SHORT_RUN = 10
RARE_WORDS = 3
# Shorter texts cannot hold SHORT_RUN words, RARE_WORDS of them rare (2 characters
# at least: a digit and a letter), with a separator between each.
MIN_PROSE_CHARS = RARE_WORDS * 2 + (SHORT_RUN - RARE_WORDS) + SHORT_RUN - 1
_WINDOW = 6  # sampled every _STEP words: meets every run of SHORT_RUN words
_STEP = SHORT_RUN - _WINDOW + 1

_WORD = re.compile(r"[^\W_]+")
_TOKEN = re.compile(r"[^\W_]+|\|")
_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+", re.IGNORECASE)
# Where a sentence ends. Not `:` nor `;`: a title or an error message quoted in a
# question crosses them (`error: RPC failed; curl 92 ...`, a Stack Overflow slug).
_BOUNDARY = re.compile(r"[.!?]+(?=\s|$)|\n")
# Words too common to make a run rare, whatever their length.
_COMMON_WORDS = """
    about above across action actually after again against almost already always among
    another answer anyone anything around because become before behind being believe
    better between change choose collection complete configure could create current
    default detail details different during either enough example first follow following
    friend general getting github google guide having however important include including
    inside install instead little looking making manage method might minute moment
    mostly nothing number others people person please policy possible pretty problem
    program project python question rather really reason recent return right second
    server service should simple single something sometimes source special started still
    system things thought through today together tutorial under update using usually
    various version website whatever where whether which while without within working
    would writing
"""
COMMON = frozenset(_COMMON_WORDS.split())


def words_of(text: str) -> list[str]:
    """The words of a lower-case reading."""
    return _WORD.findall(text)


def is_rare(word: str) -> bool:
    """A word that makes a run specific to this conversation."""
    if word in COMMON:
        return False
    return len(word) >= 6 or (len(word) >= 2 and not word.isalpha())


def could_carry(words: Sequence[str]) -> bool:
    """Could these words hold a run at all (cheap, before any index is built)?"""
    return len(words) >= SHORT_RUN and sum(map(is_rare, words)) >= RARE_WORDS


class ProseIndex:
    """The conversation's words, space-separated, with and without sentence marks."""

    __slots__ = ("_plain", "_sentences", "_starts")

    def __init__(self, messages: Sequence[Message]) -> None:
        plain: list[str] = []
        sentences: list[str] = []
        self._starts: list[int] = []
        offset = 0
        for message in messages:
            text = message.text
            words, marked = _words(text) if len(text) <= MEMO_CHARS else _read_words(text)
            self._starts.append(offset)
            plain.append(words)
            sentences.append(marked)
            offset += len(words) + 1
        self._plain = " " + " ".join(plain) + " "
        self._sentences = " " + " | ".join(sentences) + " "

    def find(self, words: Sequence[str], *, long_only: bool = False) -> int | None:
        """The position of the message a qualifying run of `words` came from
        (`long_only`: only a run of `LONG_RUN` words qualifies)."""
        covered = 0
        for start in range(0, len(words) - _WINDOW + 1, _STEP):
            if start < covered or not self._has(words[start : start + _WINDOW]):
                continue
            lo, hi = start, start + _WINDOW
            while lo > 0 and self._has(words[lo - 1 : hi]):
                lo -= 1
            while hi < len(words) and self._has(words[lo : hi + 1]):
                hi += 1
            covered = hi
            found = self._qualifies(words, lo, hi, long_only)
            if found is not None:
                return found
        return None

    def _has(self, run: Sequence[str]) -> bool:
        return f" {' '.join(run)} " in self._plain

    def _qualifies(self, words: Sequence[str], lo: int, hi: int, long_only: bool) -> int | None:
        run = words[lo:hi]
        needle = f" {' '.join(run)} "
        at = self._plain.find(needle)
        length = len(run) + self._glued(words, lo, hi, at, len(needle))
        if length < SHORT_RUN or sum(map(is_rare, run)) < RARE_WORDS:
            return None
        if length < LONG_RUN and (long_only or needle in self._sentences):
            return None  # within one sentence, and short: a title's length
        return bisect.bisect_right(self._starts, at) - 1

    def _glued(self, words: Sequence[str], lo: int, hi: int, at: int, size: int) -> int:
        """Words at the run's ends glued to what a decoding put before or after them
        (`xq3konaga` for `konaga`): the conversation's word there ends or starts it."""
        before = self._plain.rfind(" ", 0, at)
        after = self._plain.find(" ", at + size)
        glued = 0
        if lo > 0 and before >= 0 and words[lo - 1].endswith(self._plain[before + 1 : at]):
            glued += at > before + 1
        if hi < len(words) and after >= 0:
            glued += words[hi].startswith(self._plain[at + size : after]) and after > at + size
        return glued


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, str]:
    """`_read_words`, once per process (a chat sends its history again)."""
    return _read_words(text)


def _read_words(text: str) -> tuple[str, str]:
    """A message's words (URLs left out), space-separated, without and with `|` where
    a sentence or a URL ends."""
    text = _BOUNDARY.sub(" | ", _URL.sub(" | ", text.lower()))
    tokens = _TOKEN.findall(text)
    return " ".join(t for t in tokens if t != "|"), " ".join(tokens)
