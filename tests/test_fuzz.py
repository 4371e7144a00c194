"""The invariants, over soup built from every ingredient renderers disagree about.

Bounded and derandomised here, so main stays green; `benchmarks/fuzz_soup.py` runs
the same search for as long as you like, with the JavaScript renderers too.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rendersafe import Sanitizer
from soup import problems, soup

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


def test_the_checker_sees_what_it_looks_for() -> None:
    # Unsanitised, each of these must be caught, or the fuzz tests prove nothing.
    raw = "![a](https://evil.example/x.png) <img src=x onerror=alert(1)> <a href=javascript:x>"
    found = " ".join(problems(raw))
    assert "fetches evil.example" in found
    assert "event handler" in found
    assert "script URL" in found
