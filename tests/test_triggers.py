"""`first_opener` finds what one search of `OPENER` finds, without its cost (an
attribute's opener is read back from each `=`), and attribute lists that set a handler
by a bare name; `sendable` waits for a list a stream's line may still open."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rendersafe.engine.triggers import OPENER, first_opener, sendable

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


def test_an_attribute_list_that_names_a_handler_bare_is_an_opener() -> None:
    """python-markdown reads `{onclick}` as `onclick="onclick"`: no `=` to read back
    from, so the list's `{` is the opener (and `OPENER` alone does not find it)."""
    assert first_opener("# Title {onclick}") == 8
    assert first_opener("*em*{ .x ONFOCUS autofocus}") == 4
    assert first_opener("```{on&#99;lick=alert(1)}") == 3  # written `on_99_lick`
    assert first_opener("# Title {.cls #id}") == -1
    assert first_opener("use {curly} braces, {x: 1}") == -1
    assert first_opener("{onclick\n}") == -1  # a list ends on its line
    assert first_opener("{onclick\r}") == -1  # (a lone carriage return ends one too)
    assert first_opener('*a*{"a":1}  *b*{ ONCLICK}') == 3  # read from any brace


def test_a_stream_waits_for_an_open_list_then_holds_a_long_one() -> None:
    """A line still arriving is sent up to its first `{` (a list on it may be read from
    any of its braces), not held; once it ends, as any other; past a few words the
    wait is held as an opener."""
    assert sendable("text {onclick", final=False) == (5, False)
    assert sendable("text {x} more ", final=False) == (5, False)
    assert sendable("text {x} more\nnext ", final=False) == (19, False)
    assert sendable("a `{x}` \\{y} {: on", final=False) == (3, False)
    long = "text {" + "a " * 200
    assert sendable(long, final=False) == (5, True)
    assert sendable("text {onclick", final=True) == (13, False)
    # a word that may be a URL is never sent, a brace after it or not (fuzz seed 460)
    assert sendable("l.example/dGEgb2Yg{", final=False) == (0, False)
    assert sendable("l.example/dGEgb2Yg {", final=False) == (0, True)
    # an opener after the `{` does not end the wait: the list may run to the line's end
    assert sendable('# T {w "}"tabindex=0[href=x ', final=False) == (4, True)


def test_a_stream_holds_what_an_open_list_or_an_equals_sign_may_still_take() -> None:
    """After a forced cut inside an attribute list (`in_list`), a `}` on the first
    line is an opener, and an attribute's name that blanks end is not sent until what
    follows shows it is no `name =` (a stream sent `onclick ` and then `=]( `, which
    the pass escaped at a forced cut: fuzz, 2026-12-08)."""
    assert sendable("a b} c ", final=False, in_list=True) == (3, True)
    assert sendable("a b\nc} d ", final=False, in_list=True) == (9, False)  # not its line
    assert sendable("a b} c", final=True) == (6, False)
    assert sendable('w "onclick ', final=False, in_list=True) == (3, False)
    assert sendable("w onclick \t", final=False, in_list=True) == (2, False)
    assert sendable("w onclick x ", final=False, in_list=True) == (12, False)
    assert sendable("w xonclick ", final=False, in_list=True) == (11, False)
    assert sendable("w onclick\n", final=False, in_list=True) == (10, False)
    assert sendable('w "onclick ', final=False) == (11, False)  # a `<` or `{` holds it
