"""A key carried in parts: most of a long key, in pieces, anywhere in a URL's readings.

Dropping separators joins a key split by `-`, `/` or `&b=`, but not one split around a
throwaway value (`?x=4fG7hK2m&t=1&y=Q9xZ3vL7pW1a`, `/4fG7hK2m/v1/Q9xZ3vL7pW1a.png`), cut
short, or with a character swapped for another (`...pW1` and a Cyrillic `a`): the
reading then holds the key's parts, not the key. A key is carried in parts when parts of
it of `MIN_PART` characters or more, found in any of the readings, in any order, cover
three quarters of it (the attacker guesses the rest): `covered` says which of the key's
characters the counted parts hold, `enough` whether they make three quarters. Parts
spread over several URLs of one reply (`/a/a8Fk2mQ9.png`, then `/b/c/xZ3vL7pW1c.gif`)
are put together the same way, their `covered` bits added up.

Only keys and tokens (and canaries) of `PARTS_FROM` characters or more that hold a
letter, and only parts that mix letters and digits: a key built of words and numbers
(`TensorFlow2Keras3Migration`) has parts that honest links hold (`/guide/keras3/migration`
on tensorflow.org), where a random key's parts of 6 characters or more nearly all mix
(a half of 9 base62 characters is all letters one time in five). The parts of a shorter
key are the length of an ordinary word or ID; an e-mail
address is made of words and names that honest URLs hold (most of `python-dev@python.org`
is in `docs.python.org`); the parts of a long number (a timestamp in milliseconds, an
order number) are the numbers honest URLs carry (its seconds, its first digits). A given
part of 6 random letters and digits matches a given place of an unrelated reading about
once in two billion.
"""

from __future__ import annotations

import operator

__all__ = [
    "MIN_PART",
    "PARTS_FROM",
    "PARTS_KINDS",
    "can_be_parted",
    "covered",
    "enough",
]

PARTS_FROM = 12  # characters of a key, at least, for it to be found in parts
PARTS_KINDS = ("key", "canary")  # the pieces found in parts
MIN_PART = 6  # characters of each part (`pieces.MIN_KEY`: the grams meet every one)
_SPARE = 4  # a quarter of the key's characters may be left uncovered
_NEXT = bytes((byte + 1) % 256 for byte in range(256))


def can_be_parted(key: bytes) -> bool:
    """Is `key` long enough, not a number, and not a placeholder that counts its way
    along (`1a2b3c4d5e6f7a8b`, `abcdef123456`): one placeholder ID shares long runs
    with another, on another site, where random keys share none."""
    if len(key) < PARTS_FROM or key.isdigit():
        return False
    after = key.translate(_NEXT)  # each character's successor
    steps: int = sum(map(operator.eq, after, key[1:])) + sum(map(operator.eq, after, key[2:]))
    return steps < len(key) // 2


def _lost(part: bytes) -> int:
    """The characters of a part that do not count: all of a word's (`migration`) or a
    number's; none of a part that mixes letters and digits."""
    return len(part) if part.isalpha() or part.isdigit() else 0


def covered(key: bytes, blob: bytes) -> int:
    """The characters of `key` in counted parts of it in `blob`, as bits (bit `i`: the
    key's character `i`): what one URL holds of a key spread over several."""
    if not can_be_parted(key):
        return 0
    mask = run_start = run_end = 0
    for start in range(len(key) - MIN_PART + 1):
        if key[start : start + MIN_PART] in blob:
            if start > run_end:
                mask |= _bits(key, run_start, run_end)
                run_start = start
            run_end = start + MIN_PART
    return mask | _bits(key, run_start, run_end)


def enough(key: bytes, mask: int) -> bool:
    """Do the characters in `mask` (`covered`'s) make three quarters of `key`?"""
    return mask.bit_count() >= len(key) - len(key) // _SPARE


def _bits(key: bytes, start: int, end: int) -> int:
    return 0 if _lost(key[start:end]) else ((1 << (end - start)) - 1) << start
