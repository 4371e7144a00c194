"""`Selection`: the copies a reply picked, and how many bits picking them says.

    selection = Selection(conversation.given_on())    # the URLs the chat gave, by observer
    selection.bits_with("a.example", "https://a.example/3")

A verbatim copy carries no choice of characters, but which copies a reply picks, and in
what order, is a choice: one image per character, from an alphabet a retrieved page
lists, spells a secret with copies only. Picking `k` of the `N` URLs the conversation
gave one observer says log2 C(N, k) bits, and their order log2 k! more unless it is the
order the conversation gave them in (what a list of citations keeps); the first `k` in
order (a gallery, the top results) say only `k`. Which `m` of the `M` observers get
anything, and in what order, is priced the same way (attackers make observers at will:
one tenant per character is one alphabet). The
sum is the length of a code for the selection, so it bounds what any selection of
copies can tell, whatever it encodes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

__all__ = ["Selection", "choice_bits", "pick_bits"]


def choice_bits(given: int, picked: int) -> float:
    """log2 C(given, picked): the bits of picking `picked` of `given` things."""
    given = max(given, picked)
    return math.log2(math.comb(given, picked)) if picked else 0.0


def pick_bits(given: int, ranks: Sequence[int]) -> float:
    """The bits of picking the things at `ranks` (their places in the given order), in
    that order, of `given` things: the first few in order (a gallery, the top results)
    cost their number; a few in order, which; any, which and their order."""
    given = max(given, len(ranks))
    if len(ranks) < 2:
        return math.log2(given) if ranks else 0.0
    if list(ranks) == list(range(len(ranks))):
        return 1.0 + math.log2(given)
    subset = choice_bits(given, len(ranks))
    if all(a < b for a, b in itertools.pairwise(ranks)):
        return 2.0 + subset
    return 2.0 + subset + math.log2(math.factorial(len(ranks)))


class Selection:
    """The copies picked so far on each observer, in order, of those the chat gave."""

    __slots__ = ("_given", "_observers", "_picked")

    def __init__(self, given: Mapping[str, Mapping[str, int]]) -> None:
        self._given = given
        self._observers = {key: rank for rank, key in enumerate(given)}
        self._picked: dict[str, list[str]] = {}

    def bits(self) -> float:
        """What the copies picked so far say."""
        return self._bits(self._picked)

    def bits_with(self, observer: str, href: str) -> float:
        """What they would say with `href` on `observer` picked too."""
        picked = dict(self._picked)
        picked[observer] = [*self._picked.get(observer, []), href]
        return self._bits(picked)

    def add(self, observer: str, href: str) -> None:
        """Pick `href` on `observer`."""
        self._picked.setdefault(observer, []).append(href)

    def _bits(self, picked: Mapping[str, list[str]]) -> float:
        observers = max(len(self._given), len(picked))
        total = pick_bits(observers, [self._observers.get(key, observers) for key in picked])
        for observer, hrefs in picked.items():
            given = self._given.get(observer, {})
            ranks = {href: rank for rank, href in enumerate(given)}
            total += pick_bits(len(given), [ranks.get(href, len(given)) for href in hrefs])
        return total
