"""A key carried in parts: most of a long key, in pieces, anywhere in a URL's readings.

Dropping separators joins a key split by `-`, `/` or `&b=`, but not one split around a
throwaway value (`?x=4fG7hK2m&t=1&y=Q9xZ3vL7pW1a`, `/4fG7hK2m/v1/Q9xZ3vL7pW1a.png`), cut
short, or with a character swapped for another (`...pW1` and a Cyrillic `a`): the
reading then holds the key's parts, not the key. A key is carried in parts when parts of
it of `MIN_PART` characters or more, found in any of the readings, in any order, cover
three quarters of it (the attacker guesses the rest, or sends it in the next URL).

Only keys and tokens (and canaries) of `PARTS_FROM` characters or more that hold a
letter: the parts of a shorter key are the length of an ordinary word or ID; an e-mail
address is made of words and names that honest URLs hold (most of `python-dev@python.org`
is in `docs.python.org`); the parts of a long number (a timestamp in milliseconds, an
order number) are the numbers honest URLs carry (its seconds, its first digits). A given
part of 6 random letters and digits matches a given place of an unrelated reading about
once in two billion.
"""

from __future__ import annotations

__all__ = ["MIN_PART", "PARTS_FROM", "PARTS_KINDS", "in_parts"]

PARTS_FROM = 12  # characters of a key, at least, for it to be found in parts
PARTS_KINDS = ("key", "canary")  # the pieces found in parts
MIN_PART = 6  # characters of each part (`pieces.MIN_KEY`: the grams meet every one)
_SPARE = 4  # a quarter of the key's characters may be left uncovered


def in_parts(key: bytes, blob: bytes) -> bool:
    """Do parts of `key` in `blob` (each `MIN_PART` or more, anywhere, in any order)
    cover three quarters of it? A part is the union of the `MIN_PART`-character windows
    of the key that `blob` holds: one `bytes` search per window, for the few keys a URL's
    grams meet, stopped once too much is left uncovered."""
    size = len(key)
    if size < PARTS_FROM or key.isdigit():
        return False
    spare = size // _SPARE
    uncovered = covered_to = 0  # characters left out so far; the end of the last window
    for start in range(size - MIN_PART + 1):
        if key[start : start + MIN_PART] in blob:
            uncovered += max(0, start - covered_to)
            covered_to = start + MIN_PART
        elif uncovered + max(0, start + 1 - covered_to) > spare:
            return False  # no later window starts early enough to cover `start`
    return uncovered + size - covered_to <= spare
