"""The invariants, over soup built from every ingredient renderers disagree about.

Bounded and derandomised here, so main stays green; `benchmarks/fuzz_soup.py` runs
the same search for as long as you like, with the JavaScript renderers too.
"""

from __future__ import annotations

import random
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rendersafe import Sanitizer
from soup import JS, js_problems, pick, problems, soup

S = Sanitizer()
FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@FUZZ
@given(soup)
def test_no_renderer_fetches_runs_or_handles_events_from_the_output(text: str) -> None:
    output = S.run(text).text  # never raises: no reply is refused
    assert problems(output) == [], output


@FUZZ
@given(soup, st.integers(min_value=1, max_value=9))
def test_every_prefix_a_stream_sends_is_safe_and_the_whole_equals_one_shot(
    text: str, size: int
) -> None:
    stream = S.stream()
    sent = ""
    for start in range(0, len(text), size):
        sent += stream.feed(text[start : start + size])
        assert problems(sent) == [], sent
    sent += stream.close()
    assert sent == S.run(text).text


@pytest.mark.skipif(
    shutil.which("node") is None or not (JS / "node_modules").is_dir(),
    reason="needs Node.js and `npm ci --prefix tests/js`",
)
def test_a_seeded_sample_is_safe_under_the_javascript_renderers_and_healers() -> None:
    rng = random.Random(34)
    texts = ["".join(pick(rng) for _ in range(rng.randint(1, 40))) for _ in range(80)]
    found = js_problems([S.run(text).text for text in texts], prefixes=8)
    assert {text: p for text, p in zip(texts, found, strict=True) if p} == {}


def test_the_checker_sees_what_it_looks_for() -> None:
    # Unsanitised, each of these must be caught, or the fuzz tests prove nothing.
    raw = (
        "![a](https://evil.example/x.png) <img src=x onerror=alert(1)> <a href=javascript:x>"
        " <style>@import 'https://evil.example/s.css'</style>"
        " <meta http-equiv=refresh content='0;url=//evil.example/m'>"
    )
    found = " ".join(problems(raw))
    assert "<style style>" in found
    assert "<meta refresh>" in found
    assert "fetches evil.example" in found
    assert "event handler" in found
    assert "script URL" in found


# `fuzz_soup.py --seed 427` case 8920, whole (shrunk in regressions_second_line.md): an
# edit left a text starting indented, and only one of its readings was re-checked.
_WAS_NOT_IDEMPOTENT = (
    '    <img src=:smile:word ![a](<https://evil.example/a b.png> "`t`")    > <img src=```mermaid'
    '\n<title><!X&#x2F;<div markdown="1">![a](y.png "`java\u200bscript:alert(1)https:evil.example/'
    "n.png<link rel=stylesheet href=&NewLine;<https://docs.python.org/library/>http://www.evil."
    'example![a](y.png "`[0, 1)</a>\\includegraphics{//evil.example/g.png}&NewLine;{: onclick='
    'alert(1)}<!-- <img src=//evil.example/k.png> --><a href="&#x20;javascript:alert(1)">https:'
    "\t//evil.example/t.png"
)


def test_a_soup_whose_rerun_changed_it_is_idempotent() -> None:
    once = Sanitizer().run(_WAS_NOT_IDEMPOTENT).text
    assert Sanitizer().run(once).text == once
