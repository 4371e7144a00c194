"""`bare.ANCHOR` finds exactly what `URLISH` finds (the bare URL scans rely on it)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rendersafe.engine.triggers import URLISH
from rendersafe.lexical.bare import ANCHOR

_PIECES = [
    "://",
    ":/",
    ":",
    "w",
    "W",
    "ww",
    "www.",
    "WwW.",
    "@",
    ".",
    ".com/",
    ".a?",
    ".ü#",
    ".x_:",
    ".1/",
    ".-a/",
    "a",
    "_",
    "-",
    "/",
    " ",
    "\n",
    "é",
    "\u212a",
    "\u017f",
    "\u00a0",
]


def _spans(pattern: object, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]  # type: ignore[attr-defined]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_anchor_matches_urlish(text: str) -> None:
    assert _spans(ANCHOR, text) == _spans(URLISH, text)


def test_anchor_matches_urlish_on_random_text() -> None:
    rng = random.Random(7)
    alphabet = "wW.:/@?#-_a1 \nü"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        assert _spans(ANCHOR, text) == _spans(URLISH, text)
    long_label = "." + "a" * 70 + "/"  # past the 63 characters a label may take
    assert _spans(ANCHOR, long_label) == _spans(URLISH, long_label)
