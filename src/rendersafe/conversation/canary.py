"""Canaries: a string only the conversation holds, so any URL carrying it is a leak.

    canary = mint_canary()                    # "rs-7kq2m9x4w8", put it in the system prompt
    policy = Policy(canaries=[canary])        # the judge then looks for it in every URL
    find_canary(parse_url(href), [canary])    # True in any part, any encoding, any case

A minted canary is a key (`pieces`): letters and digits in many blocks, so the
conversation index also reports it as a piece when it is in the conversation.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence

from ..urls.parse import ParsedUrl
from .pieces import canary_keys
from .readings import url_readings

__all__ = ["find_canary", "mint_canary"]

_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no look-alikes (l, o, 0, 1)
_LENGTH = 10
_MIN_BLOCKS = 6
_BLOCKS = re.compile(r"[0-9]+|[a-z]+")


def mint_canary(*, prefix: str = "rs") -> str:
    """A fresh canary, `prefix-` and ten random letters and digits (from `secrets`).

    The random part always mixes letters and digits in several blocks, so it is
    never mistaken for a word and is found even without its prefix."""
    while True:
        body = "".join(secrets.choice(_ALPHABET) for _ in range(_LENGTH))
        if len(_BLOCKS.findall(body)) >= _MIN_BLOCKS:
            return f"{prefix}-{body}" if prefix else body


def find_canary(url: ParsedUrl, canaries: Sequence[str]) -> bool:
    """Does `url` carry one of `canaries`, in any part, in any encoding, in any case?

    Canaries shorter than 6 letters and digits are ignored: they would match by chance."""
    keys = [key for canary in canaries for key in canary_keys(canary)]
    if not keys:
        return False
    blob = url_readings(url).blob
    return any(key in blob for key in keys)
