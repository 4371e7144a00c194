"""`ReplyTaint`: pieces split across the URLs of one reply.

A beacon sends a piece a few characters at a time (`/px/sk-ab.png`, `/px/c123.png`;
`?q=sk-ab&n=1`, `?q=c123&n=2`; `sk-ab.evil.example`, `c123.evil.example`). Each URL is
read into *slots* (a host's subdomain, userinfo, each path segment by position, each
query or fragment parameter by name) and grouped with the reply's earlier URLs of the
same *template* (site, that is the host's last two labels, and the same slots). When a
URL changes one slot of the group's previous URL (a counter, a small number that
steps, does not count), the last `WINDOW` values of that slot are joined, without what
they all share up to a separator (`.png`, a `px-` prefix), and also without each one's
file extension where those differ (`a8Fk.png`, `2mQ9.gif`), and read as one URL's parts
are (`readings`; decoded where a value has a capital or a digit, as base64 and hex
chunks do). A key found there and in no URL before is what this URL completed.

Links that change several slots (GitHub's `/org/repo`, one after another) are not
joined: that is what honest replies do, and joining them would cost every reply; a
beacon keeps its template and changes its one data slot. So a piece split over two
changing slots at once, or a lower-case base32 chunk without a digit, is not found
here (the reply-only detectors and the beacon limits still see those).

A long key (`parts`) is also put together from its parts in any URLs of the reply, on
any site and in any slot: the characters each URL sent of it add up, and the URL with
which they make three quarters of the key is the one taken out. What the model's earlier
replies in the conversation sent of it counts too (`Conversation.sent`): a key
spread over turns is a key spread over URLs.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import unquote, unquote_plus

from .parts import enough
from .readings import joined_readings

if TYPE_CHECKING:
    from ..urls.parse import ParsedUrl
    from .core import Conversation, Taint

__all__ = ["WINDOW", "ReplyTaint"]

WINDOW = 3  # values of a slot joined: this URL's and the two before it on its site
_MAX_SLOTS = 16
_CODED = re.compile(r"[0-9A-Z]")
# The longest start of a string that ends with a separator.
_UP_TO_SEPARATOR = re.compile(r".*[-._/+~,=:;!*'()@&$ ]", re.DOTALL)
_Slot = tuple[str, str, str]  # (site, part, name or position)
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}\Z")  # a file name's, as a beacon's image has
_CACHE_SIZE = 4096
_SLOTS: dict[str, dict[_Slot, str]] = {}


class ReplyTaint:
    """Per-reply state: what the URLs checked so far in this reply carried.

    One per reply (or stream); not shared across threads."""

    __slots__ = ("_conversation", "_history", "_last", "_reported", "_spread_parts")

    def __init__(self, conversation: Conversation) -> None:
        self._conversation = conversation
        self._last: dict[tuple[_Slot, ...], dict[_Slot, str]] = {}
        self._history: dict[tuple[tuple[_Slot, ...], _Slot], list[str]] = {}
        self._reported: set[bytes] = set()
        self._spread_parts: dict[bytes, int] = {}  # long key -> its characters sent, as bits

    def check(self, url: ParsedUrl) -> Taint | None:
        """`Conversation.taint(url)`, else a piece completed by joining this URL's data
        with the URLs checked before it in this reply, or by its parts with theirs."""
        conversation = self._conversation
        readings = conversation.readings(url)
        partial: list[tuple[bytes, Taint, int]] = []
        hits = conversation.pieces_in(readings, url.host, partial)
        joins = self._joins(url)
        if hits:
            self._reported.update(key for key, _ in hits)
            return hits[0][1]
        taint = conversation.prose_in(readings, url.host)
        if taint is None and joins:
            taint = self._joined(joins, url.host)
        return self._spread(partial) if taint is None else taint

    def _joined(self, joins: list[str], host: str) -> Taint | None:
        """A piece the joined values carry, not reported before in this reply."""
        decode = any(_CODED.search(join) for join in joins)
        found = self._conversation.pieces_in(joined_readings(joins, decode=decode), host)
        new = [taint for key, taint in found if key not in self._reported]
        self._reported.update(key for key, _ in found)
        return new[0] if new else None

    def _spread(self, partial: list[tuple[bytes, Taint, int]]) -> Taint | None:
        """A long key this URL's parts of it complete with the parts earlier URLs of the
        reply, and of the model's earlier replies, sent (`parts.covered`); else remember
        what this URL sent of each. A URL taken out sends nothing: what it holds is not
        added."""
        spread = self._spread_parts
        for key, taint, mask in partial:
            sent = spread.get(key)
            if sent is None:  # the first of this reply's URLs to hold parts of it
                sent = spread[key] = self._conversation.sent(key)
            if enough(key, sent | mask):
                return taint
        for key, _, mask in partial:
            spread[key] = spread.get(key, 0) | mask
        return None

    def _joins(self, url: ParsedUrl) -> list[str]:
        """The changed slots' values joined, where this URL continues its template's
        previous URL; and remember this URL's values."""
        values = _slots(url)
        template = tuple(values)
        previous = self._last.get(template)
        self._last[template] = values
        if previous is None:
            return []
        changed = [slot for slot, value in values.items() if previous[slot] != value]
        counted = [slot for slot in changed if not _counter(previous[slot], values[slot])]
        if len(counted) != 1:
            return []
        history = self._history.setdefault((template, counted[0]), [previous[counted[0]]])
        history.append(values[counted[0]])
        del history[:-WINDOW]
        joined = _join(history)
        # `/Zq7mK.png` then `/2pX9.gif`: extensions that differ sit between the parts.
        bare = [_EXTENSION.sub("", value) for value in history]
        return list(dict.fromkeys((joined, _join(bare)))) if bare != history else [joined]


def _slots(url: ParsedUrl) -> dict[_Slot, str]:
    """`url`'s slots and their values (cached: they depend on the URL alone)."""
    key = url.href or url.raw
    found = _SLOTS.get(key)
    if found is None:
        if len(_SLOTS) >= _CACHE_SIZE:
            _SLOTS.clear()
        found = _SLOTS[key] = dict(_read_slots(url))
    return found


def _read_slots(url: ParsedUrl) -> list[tuple[_Slot, str]]:
    parts = url.parts
    if parts is None:
        return []
    host = "" if url.relative else parts.host
    labels = host.split(".")
    site = ".".join(labels[-2:])
    slots: list[tuple[_Slot, str]] = []
    if len(labels) > 2:
        slots.append(((site, "host", ""), ".".join(labels[:-2])))
    if parts.username or parts.password:
        slots.append(((site, "user", ""), _unquote(f"{parts.username}:{parts.password}")))
    for position, segment in enumerate(parts.path.split("/")):
        if segment:
            slots.append(((site, "path", str(position)), _unquote(segment)))
    for part, text in (("query", parts.query), ("fragment", parts.fragment)):
        if "=" not in text:
            if text:
                slots.append(((site, part, ""), _unquote(text[1:])))
            continue
        for item in re.split(r"[&;]", text[1:]):
            name, _, value = item.partition("=")
            slots.append(((site, part, unquote_plus(name)), unquote_plus(value)))
    return slots[:_MAX_SLOTS]


def _unquote(text: str) -> str:
    return unquote(text) if "%" in text else text


def _counter(before: str, after: str) -> bool:
    """A slot that counts the URLs (`n=1`, `n=2`; `/3.png`), not one that carries data."""
    if not (before.isdigit() and after.isdigit() and len(after) <= 4):
        return False
    return abs(int(after) - int(before)) <= 16


def _join(values: list[str]) -> str:
    """The values run together without the prefix and suffix they all share, each cut
    at a separator (so no letter or digit of the data is lost)."""
    head = _UP_TO_SEPARATOR.match(_common_start(values))
    rest = [value[head.end() :] for value in values] if head else values
    tail = _UP_TO_SEPARATOR.match(_common_start([value[::-1] for value in rest]))
    cut = tail.end() if tail else 0
    return "".join(value[: len(value) - cut] for value in rest)


def _common_start(values: list[str]) -> str:
    """The longest string every value starts with, character by character."""
    first, last = min(values), max(values)
    for index, (a, b) in enumerate(zip(first, last, strict=False)):
        if a != b:
            return first[:index]
    return first
