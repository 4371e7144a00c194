"""What is read from one message, kept once per process, bounded by characters.

A chat sends its whole history again with every turn, and a gateway serves many chats
and many `Sanitizer`s: a message's reading (its URLs, its candidate pieces) is kept by
the message's text, so a resent history costs only its new messages.

    _pieces = MessageMemo(read_pieces)        # read_pieces(text) -> MessagePieces
    _pieces(text)                             # read once, then served from the memo

Each memo keeps the readings of the texts used last, up to `memo_chars()` characters
of text in all (`RENDERSAFE_MESSAGE_MEMO_CHARS`, default 16 Mi characters: about
16 MiB of text, and the readings kept with it a few times that); the text used
longest ago leaves first. A text longer than `MEMO_CHARS` is read each time, never
kept.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, NamedTuple, TypeVar

__all__ = ["DEFAULT_MEMO_CHARS", "MEMO_BYTES_VARIABLE", "MemoInfo", "MessageMemo", "memo_chars"]

MEMO_BYTES_VARIABLE = "RENDERSAFE_MESSAGE_MEMO_CHARS"
DEFAULT_MEMO_CHARS = 16 * 1024 * 1024

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class MemoInfo(NamedTuple):
    """How full a memo is: its entries, and the characters of their texts."""

    currsize: int
    chars: int
    limit: int


def memo_chars() -> int:
    """The characters of text each memo keeps at most (`RENDERSAFE_MESSAGE_MEMO_CHARS`;
    0 keeps nothing)."""
    value = os.environ.get(MEMO_BYTES_VARIABLE, "").strip()
    if not value:
        return DEFAULT_MEMO_CHARS
    try:
        return max(0, int(value))
    except ValueError:
        raise ValueError(
            f"{MEMO_BYTES_VARIABLE}={value!r}: give a number of characters, such as 16777216"
        ) from None


class MessageMemo(Generic[K, V]):
    """`make(key)`, kept for the keys used last up to `limit` characters (`size(key)`
    each; the LRU by size, not by count). Thread-safe; a reading is made outside the
    lock, so two threads may make the same one once each."""

    __slots__ = ("_chars", "_data", "_lock", "_make", "_size", "limit")

    def __init__(
        self, make: Callable[[K], V], size: Callable[[K], int], limit: int | None = None
    ) -> None:
        self._make = make
        self._size = size
        self._data: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.limit = memo_chars() if limit is None else limit

    def __call__(self, key: K) -> V:
        data = self._data
        found = data.get(key)
        if found is not None:
            # Reordered under the lock: eviction in another thread walks the same links.
            # Evicted meanwhile: still a good reading.
            with self._lock, contextlib.suppress(KeyError):
                data.move_to_end(key)
            return found[0]
        value = self._make(key)
        self._keep(key, value)
        return value

    def _keep(self, key: K, value: V) -> None:
        size = self._size(key)
        if size > self.limit:
            return
        with self._lock:
            if key in self._data:
                return
            self._data[key] = (value, size)
            self._chars += size
            while self._chars > self.limit:
                _, (_, gone) = self._data.popitem(last=False)
                self._chars -= gone

    def cache_clear(self) -> None:
        """Forget every reading (as `functools.lru_cache`'s)."""
        with self._lock:
            self._data.clear()
            self._chars = 0

    def cache_info(self) -> MemoInfo:
        """Its entries and characters kept, and its limit."""
        return MemoInfo(len(self._data), self._chars, self.limit)
