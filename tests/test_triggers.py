"""`first_opener` finds what one search of `OPENER` finds, without its cost: an
attribute's opener is read back from each `=` (`engine.triggers`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rendersafe.engine.triggers import OPENER, first_opener

ATOMS = (
    "[", "<", "!", "![", "x", "=", " ", "\t", "\n", ":", "-", "_", "9", "a", "\u200b", "\x0b",
    "src", "SRC", "-src", "a:src", "on", "onclick", "on\u017fx", "data", "style ", "dynsrc",
    "xlink:href", "XLINK:HREF", "xlin", "k:", "xlink:", "\u212a", "\u017f", "\u00e9",
)  # fmt: skip
texts = st.lists(st.sampled_from(ATOMS), max_size=16).map("".join)


@settings(max_examples=2000, deadline=None, derandomize=True)
@given(texts, st.data())
def test_first_opener_is_where_opener_matches_first(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    found = OPENER.search(text, start, end)
    assert first_opener(text, start, end) == (found.start() if found else -1)


def test_an_attribute_is_found_from_its_equals_sign() -> None:
    assert first_opener("a {: onclick = x}") == 5
    assert first_opener("<svg xlink:href=x>") == 0
    assert first_opener("svg xlink:href=x") == 4
    assert first_opener("a-src=x data-x=1 ok") == -1
