"""Newlines inside a destination: after sanitising, no renderer fetches a remote image
or keeps a `javascript:` link, with newlines and tabs stripped as the browser does."""

from __future__ import annotations

import pytest

from fixture_files import FIXTURES, Case, read_cases
from renderers import Url, is_fetched, render_all
from rendersafe import Sanitizer
from rendersafe.lexical.destinations import PythonMarkdown

ATTACKS = [c for c in read_cases(FIXTURES / "default" / "destinations_newlines.md") if not c.benign]


def _leaks(text: str) -> list[Url]:
    found = []
    for url in render_all(text):
        href = url.value.replace("\n", "").replace("\r", "").replace("\t", "").strip().lower()
        if (is_fetched(url) and url.host is not None) or href.startswith("javascript:"):
            found.append(url)
    return found


@pytest.mark.parametrize("case", ATTACKS, ids=[c.id for c in ATTACKS])
def test_attack_is_safe_in_every_renderer(case: Case) -> None:
    assert _leaks(Sanitizer().run(case.input).text) == []


def test_the_check_sees_the_attacks() -> None:
    assert sum(bool(_leaks(c.input)) for c in ATTACKS) >= len(ATTACKS) * 3 // 4


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(ht\ntps://e.example/x.png)", ("ht\ntps://e.example/x.png", 26)),
        ('(x(y "t")', ("x(y ", 9)),
        ('(a "b) c" d)', ('a "b', 6)),
        ('(a "b) c")', ("a ", 10)),
        ("(u\n\n)", None),
        ('(ht\ntps://e/x.png "(\nmore', ('ht\ntps://e/x.png "(\nmo', 25)),
    ],
)
def test_python_markdown_reading(text: str, expected: tuple[str, int] | None) -> None:
    """Cases checked against python-markdown's LinkInlineProcessor.getLink."""
    assert PythonMarkdown.index(text).destination(1, 4096) == expected


# Sized for the renderers the check runs (python-markdown is quadratic in some).
FLOODS = [
    "<" * 20_000 + "&amp;img src=https://evil.example/x.png>",
    "<" + "&amp;" * 5_000 + "img src=https://evil.example/x.png>",
    "<<&amp;&amp;1" * 1_000 + "<&amp;img src=https://evil.example/x.png>",
    "<img " + "a=1 " * 5_000 + "src=https://evil.example/x.png>",
    '<a x="' * 2_000,
    "![s](ht\n" * 500 + "tps://evil.example/x.png)",
    '![s](ht\n"t\n' * 500,
    "<https://e.example/\n" * 500,
    "[](" * 500 + ")" * 500,
]


@pytest.mark.parametrize("text", FLOODS, ids=lambda t: repr(t[:8]))
def test_floods_finish_and_come_out_safe(text: str) -> None:
    assert _leaks(Sanitizer().run(text).text) == []
