"""`Table`: an immutable map that grows, sharing its storage with the tables it
grew from; and `Overlay`, a table with a writable dict in front of it.

A carry hands every unit the reference tables of all the units before it. Copied
per unit, a reply made of definitions costs the square of their number; a table
here grows by layers instead, merged as a binary counter merges its digits, so
adding an entry costs O(log n) over a table's life and a lookup reads O(log n)
layers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, MutableMapping
from functools import reduce
from itertools import chain, islice
from typing import Generic, TypeVar

__all__ = ["Overlay", "Table", "concatenated", "first_wins"]

V = TypeVar("V")

Merge = Callable[[V, V], V]


def first_wins(old: V, _new: V) -> V:
    """The merge for a table whose first entry of a key stands."""
    return old


def concatenated(old: tuple[V, ...], new: tuple[V, ...]) -> tuple[V, ...]:
    """The merge for a table of sequences, one per key, in the order added."""
    return old + new


class Table(Generic[V]):
    """An immutable map from `str`; `grown` returns a bigger one and leaves this one be.

    `merge(old, new)` decides the value of a key added again. Values are never None.
    """

    __slots__ = ("_layers", "_merge", "_size")

    def __init__(self, merge: Merge[V] = first_wins) -> None:
        self._layers: tuple[dict[str, V], ...] = ()  # oldest first, each at most half the last
        self._merge = merge
        self._size = 0

    def get(self, key: str) -> V | None:
        """The value of `key` (every layer's, merged), or None."""
        values = [layer[key] for layer in self._layers if key in layer]
        return reduce(self._merge, values) if values else None

    def __contains__(self, key: object) -> bool:
        return any(key in layer for layer in self._layers)

    def __len__(self) -> int:
        return self._size

    def __bool__(self) -> bool:
        return self._size > 0

    def __iter__(self) -> Iterator[str]:
        """The keys, each once, in the order first added."""
        seen: set[str] = set()
        for key in chain.from_iterable(self._layers):
            if key not in seen:
                seen.add(key)
                yield key

    def depth(self) -> int:
        """How many layers a lookup reads."""
        return len(self._layers)

    def grown(self, entries: Mapping[str, V], *, limit: int | None = None) -> Table[V]:
        """This table with `entries` added (merged into keys it holds); past `limit`
        keys, the keys beyond it are left out (a key it holds still merges)."""
        if not entries:
            return self
        new_keys = [key for key in entries if key not in self]
        if limit is not None and self._size + len(new_keys) > limit:
            room = set(islice(new_keys, max(0, limit - self._size)))
            entries = {k: v for k, v in entries.items() if k in room or k in self}
            new_keys = [key for key in new_keys if key in room]
            if not entries:
                return self
        grown = Table[V](self._merge)
        grown._layers = _pushed(self._layers, dict(entries), self._merge)
        grown._size = self._size + len(new_keys)
        return grown


def _pushed(
    layers: tuple[dict[str, V], ...], layer: dict[str, V], merge: Merge[V]
) -> tuple[dict[str, V], ...]:
    """`layers` with `layer` after them, merging each layer into the one before it
    while it is at least half that one's size (so there are O(log n) of them)."""
    stack = list(layers)
    while stack and 2 * len(layer) >= len(stack[-1]):
        older = stack.pop()
        merged = dict(older)
        for key, value in layer.items():
            merged[key] = merge(merged[key], value) if key in merged else value
        layer = merged
    stack.append(layer)
    return tuple(stack)


class Overlay(MutableMapping[str, V]):
    """A `Table` read through a dict that takes every write: markdown-it's reference
    table for one parse, whose `added` entries are the parse's own."""

    def __init__(self, base: Table[V]) -> None:
        self.base = base
        self.added: dict[str, V] = {}

    def __getitem__(self, key: str) -> V:
        if key in self.added:
            return self.added[key]
        value = self.base.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: V) -> None:
        self.added[key] = value

    def __delitem__(self, key: str) -> None:
        del self.added[key]

    def __contains__(self, key: object) -> bool:
        return key in self.added or key in self.base

    def __iter__(self) -> Iterator[str]:
        yield from self.base
        yield from (key for key in self.added if key not in self.base)

    def __len__(self) -> int:
        return len(self.base) + sum(1 for key in self.added if key not in self.base)
