"""Where renderers stop agreeing on fence lines (`engine.agreement`): the line found,
the state carried from text to text, and the pass trusting no code after it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rendersafe import Policy, Sanitizer
from rendersafe.engine.agreement import (
    _BREAK,
    _FENCE_LIKE,
    _PENDING_CHARS,
    AGREED,
    FenceAgreement,
    _State,
)

FENCE = "```html\n<img src=//evil.example/x.png>\n```\n"


@pytest.mark.parametrize(
    ("text", "at"),
    [
        ("Here:\n```python\nx = 1\n```\nMore.\n", None),  # canonical, after prose
        ("<x>\n```\n", 4),  # a line that may open an HTML block, then a fence line
        ("```js title\nx\n```\n", 0),  # an info string python-markdown refuses
        ("- a\n  ```\n", 4),  # indented: python-markdown's pattern needs column 0
        ("<!--\n```\n-->\n", 5),  # inside a comment: a fence to python-markdown only
        ("```\na\n```\t\n", 6),  # a tab after the closer: commonmark.py keeps it open
        ("```\na\n````\n", 6),  # a longer closer: CommonMark closes, python-markdown not
        ("[a]:\n```\n", 5),  # mistune and marko take the fence line as a destination
        ("</x\n\n>\n```\n", 5),  # marked reads the tag over lines: an HTML block at `>`
        ("<\u212a>\n```\n", 4),  # a Kelvin sign: a `<k>` to commonmark.py
        ("[a]: \\\n```\n", 7),  # marko continues a destination over its backslash
        ("~~~{} \nx\n~~~\n", 0),  # python-markdown reads no fence after `{} `
        ("<x\n<!-- >\n\n```\n", 11),  # a comment opened on the line ending a tag
        ("<x>\n\n```\nok\n```\n", None),  # a blank line ends the HTML block first
        ('[a]: /u "\n```\n"\n', 10),  # a title over lines (marko, mistune, marked)
        ('[a]: /u "t\n\n```\n', 12),  # ... blank lines and all (marked)
        ("[a]: /u\n't\n```\n", 11),  # a title may open on the next line
        ('[a]: /u "t"\n\n```\nok\n```\n', None),  # a title closed on its line
        ("[a\n```\n]: /u\n", 3),  # a label over lines (mistune, marko)
        ("- [a\n\n```\n", 6),  # ... in a list item, blank lines and all
        ("[a](b) and [c]\n```\nok\n```\n", None),  # brackets closed on their line
        ("<pre></PRE>\n```\n", 0),  # mistune ends a `<pre>` only at `</pre>`
        ("~~~{a|b}\n-|-\n", 0),  # markdown-it reads a table first
        ("[a]:\n/u '\n```\n", 10),  # a title after a destination on the label's next line
        ("```{onclick=alert(1)}\n```\n", 0),  # python-markdown sets it on the <code>
        ('```{ .py hl_lines="2" }\nx\n```\n', None),  # inert attributes
    ],
)
def test_the_first_line_renderers_may_read_otherwise(text: str, at: int | None) -> None:
    assert AGREED.disagreement(text) == at


def test_the_state_carries_across_texts_and_a_line_cut_in_two() -> None:
    whole = "Intro\n```html\n<b>x</b>\n```\n<x>\n```\n"
    for cut in range(len(whole) + 1):
        first = AGREED.after(whole[:cut])
        found = first.disagreement(whole[cut:])
        if AGREED.disagreement(whole[:cut]) is not None:
            assert first.broken
        else:
            assert found is not None, cut  # the break is in the second part
    assert AGREED.after(whole).broken


@pytest.mark.parametrize(
    "prefix", ["<x>\n```\nz\n```\n", "- a\n  ```\n  b\n  ```\n\n", "```js title\n```\n\n"]
)
def test_no_code_is_trusted_after_a_disagreement(prefix: str) -> None:
    assert "&lt;img" in Sanitizer().run(prefix + "\n" + FENCE).text


def test_agreed_fences_stay_code_and_unchanged() -> None:
    text = "Intro:\n" + FENCE + "\nAnd `<img src=//evil.example/y.png>` inline.\n"
    assert Sanitizer().run(text).text == text


def test_a_stream_and_a_forced_cut_find_the_same_line() -> None:
    text = "<x>\n```\n" + "x" * 300 + "<img src=x onerror=alert(1)>\n```"
    sanitizer = Sanitizer(Policy(max_hold_chars=256))
    whole = sanitizer.run(text).text
    stream = sanitizer.stream()
    parts = [stream.feed(text[i : i + 7]) for i in range(0, len(text), 7)]
    assert "".join(parts) + stream.close() == whole
    assert "&lt;img" in whole


def _reference(state: FenceAgreement, text: str) -> tuple[int | None, FenceAgreement]:
    """The scan read line by line, every line: what `_lines` may skip must not matter."""
    if state.broken:
        return 0, state
    raw = (state.raw, state.raw_name)
    scan = _State(state.fence, raw, (state.tag_line, state.tag_open), state.label, state.waiting)
    pos, head = 0, state.pending
    for found in _BREAK.finditer(text):
        start = 0 if head else pos
        whole = head + text[pos : found.end()]
        tail = "\x00" if text[pos : found.end()].strip(" \t\r\n") else ""
        line = head + tail + "\n" if head and state.long else whole
        waiting, was_long = scan.label, bool(head) and state.long
        head, pos = "", found.end()
        if not scan.read(line):
            return start, FenceAgreement(broken=True)
        if was_long and whole.rstrip("\r\n").endswith("\\"):
            scan.label = waiting or "]:" in line or scan.label
    rest = head + text[pos:]
    if rest and _FENCE_LIKE.match(rest) and len(rest) > _PENDING_CHARS:
        return (0 if head else pos), FenceAgreement(broken=True)
    return None, FenceAgreement(
        fence=scan.fence,
        raw=scan.raw,
        raw_name=scan.raw_name,
        tag_line=scan.tag_line,
        tag_open=scan.tag_line_open,
        label=scan.label,
        waiting=scan.waiting,
        pending=rest[:_PENDING_CHARS],
        long=len(rest) > _PENDING_CHARS or (state.long and bool(head)),
    )


_SHAPES = [
    "```",
    "```py",
    "```js x",
    "~~~",
    "````",
    "  ```",
    "- ```",
    "```\t",
    "text",
    "",
    " ",
    "<x>",
    "</x",
    ">",
    "<!--",
    "-->",
    "<pre>",
    "</pre>",
    "[a]:",
    "[a]: u",
    "a <b> c",
    "a > b",
    "1. x",
    "| a |",
    "<?x",
    "?>",
    "<\u212a>",
    "[a]: \\",
    "~~~{} ",
    "<x",
    "<!-- >",
    "<pre>" + "a" * 250 + "</pr",
    "e>",
    "[a",
    "]: /u",
    '[a]: /u "t',
    '"',
    "[a]: /u",
    "'t",
    "'",
    "- [a",
    "<pre></PRE>",
    "/u '",
    "/u",
    "```{onclick=x}",
]


@given(
    st.lists(st.sampled_from(_SHAPES), max_size=14),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.integers(min_value=0, max_value=600),
)
def test_the_scan_skips_only_lines_that_change_nothing(
    shapes: list[str], end: str, cut: int
) -> None:
    text = end.join(shapes) + (end if shapes else "")
    cut = min(cut, len(text))
    first = AGREED.after(text[:cut])
    assert AGREED._scan(text) == _reference(AGREED, text)
    assert first._scan(text[cut:]) == _reference(_reference(AGREED, text[:cut])[1], text[cut:])
