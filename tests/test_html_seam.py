"""The raw-HTML seam: judge, then clean only when something must change."""

from __future__ import annotations

from rendersafe import Reason
from rendersafe.html import clean, review


def _never(tag: str, attribute: str, value: str) -> tuple[Reason, ...]:
    return ()


def _no_evil(tag: str, attribute: str, value: str) -> tuple[Reason, ...]:
    return (Reason.IMAGE_HOST_NOT_ALLOWED,) if "evil" in value else ()


def test_harmless_fragments_have_no_problems() -> None:
    for fragment in [
        "<br>",
        "<kbd>x</kbd>",
        "<Ctrl>",
        '<p align="center">',
        "<!-- c -->",
        "</div>",
    ]:
        assert review(fragment, _never) == ([], {}), fragment


def test_dangerous_tags_and_attributes() -> None:
    problems, _ = review('<iframe src="x"></iframe><b onclick="x" style="y">', _never)
    assert [(p.tag, p.attribute) for p in problems] == [
        ("iframe", None), ("iframe", None), ("b", "onclick"), ("b", "style"),
    ]  # fmt: skip


def test_urls_are_judged_by_the_callback_not_by_bleach() -> None:
    problems, _ = review(
        '<img src="//evil.example/x.png"><img src="https://ok.example/y.png">', _no_evil
    )
    assert [(p.tag, p.attribute, p.value) for p in problems] == [
        ("img", "src", "//evil.example/x.png")
    ]


def test_unterminated_tag_is_malformed() -> None:
    problems, _ = review('<img src="https://evil.example/x', _never)
    assert problems[0].reasons == (Reason.MALFORMED_HTML,)


def test_clean_keeps_judged_urls_and_drops_the_rest() -> None:
    fragment = (
        '<img src="https://evil.example/x.png" alt="a"><a href="tel:123">t</a><style>x</style>'
    )
    problems, rewrites = review(fragment, _no_evil)
    cleaned = clean(fragment, problems, rewrites, frozenset({"tel"}))
    assert cleaned == '<img alt="a"><a href="tel:123">t</a>'


def test_single_inline_tag_stays_a_single_tag() -> None:
    problems, rewrites = review('<b onmouseover="x">', _never)
    assert clean('<b onmouseover="x">', problems, rewrites, frozenset()) == "<b>"


def test_proxy_rewrite() -> None:
    def proxy(tag: str, attribute: str, value: str) -> str:
        return "https://proxy.example/?url=x"

    problems, rewrites = review('<img src="https://a.example/i.png">', proxy)
    assert problems == []
    cleaned = clean('<img src="https://a.example/i.png">', problems, rewrites, frozenset())
    assert cleaned == '<img src="https://proxy.example/?url=x">'
