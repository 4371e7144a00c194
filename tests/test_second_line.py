"""The second line's readings (rendersafe.guard), piece by piece. Whole replies are in
tests/fixtures/default/second_line.md and regressions_second_line.md; the fuzzer
(tests/test_fuzz.py, benchmarks/fuzz_soup.py) holds the invariants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rendersafe import Sanitizer
from rendersafe.findings import Reason
from rendersafe.guard.schemes import CSS_DANGER, markdown_readings, script_url
from rendersafe.guard.tags import read_tags
from soup import problems

SCRIPTS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " \x01javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "&#106;avascript:alert(1)",
    "&#x6A;&#x61;vascript&colon;alert(1)",
    "jav&#x09;ascript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html,<script>alert(1)</script>",
]
NOT_SCRIPTS = ["https://example.com/javascript:x", "/javascript:x", "java script:x", "mailto:a@b.c"]


@pytest.mark.parametrize("value", SCRIPTS)
def test_every_spelling_a_browser_decodes_is_a_script(value: str) -> None:
    assert script_url(value)


@pytest.mark.parametrize("value", NOT_SCRIPTS)
def test_urls_that_only_mention_a_script_are_not_one(value: str) -> None:
    assert not script_url(value)


def test_a_destination_is_read_with_references_decoded_twice_and_escapes_taken_out() -> None:
    readings = markdown_readings("&amp;#x6a;ava\\script:x")
    assert "javascript:x" in {r.replace("\\", "") for r in readings}
    assert "&#x6a;ava\\script:x" in readings


@pytest.mark.parametrize(
    "css", ["background:url(x)", "b:u\\72l(x)", "@import 'x'", "x:expression(1)"]
)
def test_css_that_could_load_something(css: str) -> None:
    assert CSS_DANGER.search(css)


def _tags(text: str) -> list[tuple[str, tuple[Reason, ...]]]:
    def fetches(url: str) -> tuple[Reason, ...]:
        return (Reason.IMAGE_HOST_NOT_ALLOWED,) if "evil" in url else ()

    return [(tag.name, tag.reasons) for tag in read_tags(text, lambda _pos: False, fetches)]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("<style>", "style"),
        ("<META http-equiv=refresh>", "meta"),
        ("<base href=x>", "base"),
        ("<img src=x onerror=f()>", "img"),
        ("<img/onerror=f() src=x>", "img"),
        ("<img src=//evil.example/x", "img"),  # never closed: read to the end
        ("<svg><image href=//evil.example/x>", "image"),
        ('<img srcset="a.png 1x, //evil.example/b.png 2x">', "img"),
        ("<a href=&#x6A;avascript:f()>", "a"),
        ('<b title="<img src=x onerror=f()>">', "img"),  # a tag in an attribute, read alone
        ("<&amp;img src=//evil.example/x>", "img"),  # references between `<` and the name
        ("<image x=a<https://evil.example/y>", "image"),  # an autolink a renderer makes its href
    ],
)
def test_tags_that_could_fetch_or_run(text: str, name: str) -> None:
    assert name in [found for found, _reasons in _tags(text)]


@pytest.mark.parametrize(
    "text",
    [
        "<kbd>Ctrl</kbd>",
        "<a href=https://evil.example/page>a link is no fetch</a>",
        "<img src=https://cdn.example/x.png alt=x>",
        '<abbr title="see https://evil.example">x</abbr>',
        "a <b and c> d",
    ],
)
def test_tags_that_fetch_and_run_nothing_are_read_as_such(text: str) -> None:
    assert _tags(text) == []


def test_what_the_second_line_changes_is_said_and_placed() -> None:
    result = Sanitizer().run("<!e<base href=//evil.example/>")
    assert result.text == "<!e&lt;base href=//evil.example/>"
    (finding,) = result.findings
    assert finding.detail == "second line: base"
    assert finding.reasons == (Reason.HTML_TAG_NOT_ALLOWED,)
    assert (finding.start, finding.detector) == (3, "lexical")


@pytest.mark.parametrize(
    "text",
    [
        "![r] <kbd>K</kbd> [r]: https://evil.example/r.png Hello world. ",  # found by hypothesis
        "A <kbd>K</kbd> [x](javascript:alert(1)) and more",
    ],
)
def test_a_finding_on_an_escaped_label_starts_at_its_bracket(text: str) -> None:
    """The second line escapes a label's `]`; its finding points at the label's `[`,
    as every finding starts on its construct's first character."""
    (finding,) = Sanitizer().run(text).findings
    assert text[finding.start] == "["
    assert finding.column == finding.start + 1


def _markdown_in_tags() -> list[dict[str, object]]:
    path = Path(__file__).parent / "data" / "markdown_in_tags.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("case", _markdown_in_tags(), ids=lambda case: str(case["input"])[:40])
def test_markdown_python_markdown_writes_inside_a_tag_gives_it_no_attribute(
    case: dict[str, object],
) -> None:
    """A red team's inputs (each gave python-markdown's output an `on*` attribute: a link,
    an image, a reference or an autolink inside a tag's value, the tag's `<` after a
    backslash, a definition after the tag): after sanitising, no renderer's page has an
    event handler, and a second run changes nothing."""
    text = Sanitizer().run(str(case["input"])).text
    assert [p for p in problems(text) if "event handler" in p] == []
    assert Sanitizer().run(text).text == text


LONE_CARRIAGE_RETURNS = [
    "a\r<script'\n\nsrc=//evil.example/p>",
    "\r<script'\n\nsrc=//evil.example/p>",
    "a\r<pre'x\n\n<x src=//evil.example/p>",
    "x\n[r\\]]: \r<script'><base href=//evil.example/>\n\n`<img src=//evil.example/a.p>`",
    "a\r<!--\n\n<img src=//evil.example/p>\n\n-->\n",
    "a\r```\nx\n\n```\r<img src=//evil.example/p>\n",
    "x\n```\ncode\r```\r\n\n<img src=//evil.example/q.png>\n",
    "a\r\r<div>\n\n<img src=//evil.example/p>\n</div>\n",
]


@pytest.mark.parametrize("tail", LONE_CARRIAGE_RETURNS)
@pytest.mark.parametrize("lead", ["", "Intro with a [link](https://example.com/a).\n\n"])
def test_a_lone_carriage_return_ends_a_line_for_the_segmenter(lead: str, tail: str) -> None:
    """A `\\r` not before `\\n` ends a line for every renderer, so a raw block may open
    after it (mistune reads `<script'` to the end of the text, blank lines and all):
    the segmenter reads the lines it ends, cuts no unit inside that block, and no
    renderer fetches anything, whole or streamed in any chunk size."""
    text = lead + tail
    one = Sanitizer().run(text).text
    assert problems(one) == []
    for size in (1, 3, 64):
        stream = Sanitizer().stream()
        out = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
        assert out + stream.close() == one
