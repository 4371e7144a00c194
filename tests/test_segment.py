"""Segmenter: the same units whatever the chunking, cut where nothing reaches across."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixture_files import all_cases
from rendersafe.units.segment import Segmenter, Unit
from test_properties import mixed

TEXTS = [c.input for c in all_cases()]


def _units(text: str, limit: int, sizes: list[int]) -> list[Unit]:
    segmenter, units, pos, i = Segmenter(limit), [], 0, 0
    while pos < len(text):
        size = sizes[i % len(sizes)]
        units += segmenter.push(text[pos : pos + size])
        pos, i = pos + size, i + 1
    return units + segmenter.finish()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.sampled_from(TEXTS), mixed),
    st.sampled_from([64, 256, 8192]),
    st.lists(st.integers(1, 50), min_size=1, max_size=10),
)
def test_units_do_not_depend_on_chunking(text: str, limit: int, sizes: list[int]) -> None:
    whole = _units(text, limit, [max(len(text), 1)])
    assert _units(text, limit, sizes) == whole
    assert "".join(u.text for u in whole) == text
    assert all(len(u.text) <= limit for u in whole if u.forced)


# What makes a line blank, or not, to each way the segmenter reads lines (one at a
# time, or many at once where nothing can happen): they must agree.
_LINES = ["", " ", "\t", "\r", "\r ", " \r", "\r\t", "\xa0", "\x0c", "a", "word", "[x](u)", "[x",
          "<a =</script>", "```", "> q", "- i", "<!--", "-->", "www.e.example/x"]  # fmt: skip


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(_LINES), max_size=12).map("\n".join),
    st.lists(st.integers(1, 6), min_size=1, max_size=6),
)
def test_blank_lines_are_read_alike_line_by_line_and_at_once(text: str, sizes: list[int]) -> None:
    text += "\n"
    assert _units(text, 8192, sizes) == _units(text, 8192, [len(text)])


def test_a_line_of_a_carriage_return_and_spaces_is_blank_both_ways() -> None:
    text = "<a =</script>\n\r \na\n"  # red team: one unit at once, two line by line
    assert _units(text, 8192, [1]) == _units(text, 8192, [len(text)])


def test_plain_text_is_one_unit() -> None:
    text = "First paragraph.\n\nSecond paragraph.\n\nThird.\n"
    assert _units(text, 8192, [7]) == [Unit(0, text)]


def test_a_unit_ends_after_the_paragraph_with_a_construct() -> None:
    text = "Plain.\n\nSee [docs](https://example.com/).\n\nMore plain.\n\nEnd.\n"
    cut = text.index("More")
    assert [u.text for u in _units(text, 8192, [3])] == [text[:cut], text[cut:]]


def test_no_cut_inside_a_fence_or_comment() -> None:
    text = (
        "[a](b)\n\n```\n[x](y)\n\nnot a cut\n```\n\n<!--\n[c](d)\n\nstill a comment\n-->\n\nend\n"
    )
    starts = [u.start for u in _units(text, 8192, [5])]
    assert starts == [0, text.index("```"), text.index("<!--"), text.index("end")]


def test_forced_cut_inside_a_fence_carries_the_fence() -> None:
    text = "```python\n" + "x = [1]\n" * 40 + "```\n"
    units = _units(text, 64, [9])
    assert units[0].forced
    assert units[0].prefix == ""
    assert all(u.prefix == "```python\n" for u in units[1:-1])


def test_no_cut_at_a_fence_that_interrupts_a_paragraph() -> None:
    """python-markdown reads an unclosed fence as part of the paragraph before it."""
    text = "![a\n```\nb](https://evil.example/x.png)\n"
    assert [u.text for u in _units(text, 8192, [2])] == [text]


def test_a_backtick_info_string_is_no_fence_to_carry() -> None:
    text = "```a`b [x](y)\n" + "word " * 40 + "\n"
    units = _units(text, 64, [5])
    assert len(units) > 1
    assert all(u.prefix == "" for u in units)


def test_a_fence_context_line_cannot_pair_with_the_unit() -> None:
    text = "```js [see <b\n" + "x = 1;\n" * 30 + "```\n"
    units = _units(text, 64, [7])
    assert all(u.prefix == "```js ?see ?b\n" for u in units[1:])


def test_raw_blocks_open_without_a_blank_line_and_nest() -> None:
    """python-markdown keeps `<div>` raw from any line start to the end tag that
    balances it: no cut before then."""
    text = "[a](b)\n<div><div></div>\n\n[c](d)\n\n</div>\n\nend\n"
    starts = [u.start for u in _units(text, 8192, [3])]
    assert starts == [0, text.index("end")]


def test_a_forced_cut_in_nested_raw_html_carries_its_depth() -> None:
    text = "<div><div>\n" + "[a](b) word\n" * 20 + "</div>\n" + "[c](d)\n" * 10
    units = _units(text, 64, [11])
    assert units[1].prefix == "<div><div>\n"


FENCED = (
    "Intro [a](https://e.example/x)\n\n```python\nx = 1\n\n  ``\n    ```\n~~~\n```` no\n"
    "[b](https://e.example/y)\n```\n\nAfter.\n\n~~~\n```\n~~~~\n\nLast ![c](u.png)\n"
)


@given(st.lists(st.integers(1, 30), min_size=1, max_size=8), st.sampled_from([48, 8192]))
def test_lines_inside_a_fence_taken_at_once_cut_alike(sizes: list[int], limit: int) -> None:
    # One push reads a fence's lines at once (`Segmenter._take_fenced`); these
    # chunkings read them line by line or cut inside them.
    whole = _units(FENCED, limit, [len(FENCED)])
    assert _units(FENCED, limit, sizes) == whole
    line_by_line = _units(FENCED, limit, [len(line) for line in FENCED.splitlines(True)])
    assert line_by_line == whole


def test_only_a_fence_line_ends_the_fence_text() -> None:
    # `  ```, an indented ```` ``` ````, `~~~` and a longer fence with an info string
    # are the fence's text; its closing line ends it, and the unit after the blank line.
    units = _units(FENCED, 8192, [len(FENCED)])
    assert [u.text for u in units] == [
        "Intro [a](https://e.example/x)\n\n",
        "```python\nx = 1\n\n  ``\n    ```\n~~~\n```` no\n[b](https://e.example/y)\n```\n\n",
        "After.\n\n~~~\n```\n~~~~\n\nLast ![c](u.png)\n",
    ]
