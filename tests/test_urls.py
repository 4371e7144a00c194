"""Judging one URL: browser-style parsing, host matching, reasons."""

from __future__ import annotations

import ada_url
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rendersafe import Policy, Reason
from rendersafe.urls import Role, UrlJudge, parse_url, redact, split_href

JUDGE = UrlJudge(Policy(allowed_image_hosts=["cdn.example.com", "example.org"]))


@pytest.mark.parametrize(
    ("raw", "host"),
    [
        ("http:\\\\evil.example\\a.png", "evil.example"),
        ("https://cdn.example.com\\@evil.example/", "cdn.example.com"),
        ("//evil.example/x", "evil.example"),
        ("HTTPS://EVIL.EXAMPLE/x", "evil.example"),
        ("https://\uff25\uff36\uff29\uff2c.example/", "evil.example"),  # full-width
        ("https://evil.example./x", "evil.example"),
        ("https://münchen.example/", "xn--mnchen-3ya.example"),
        ("http://2130706433/", "127.0.0.1"),
        ("http://0x7f.1/", "127.0.0.1"),
        ("http://0177.0.0.1/", "127.0.0.1"),
        ("ht\ttps://evil.example/", "evil.example"),
        ("https://evil\u200b.example/", "evil.example"),
        ("https://user:pw@evil.example/", "evil.example"),
    ],
)
def test_hosts_are_read_as_a_browser_reads_them(raw: str, host: str) -> None:
    assert parse_url(raw).host == host


def test_entities_are_decoded_only_when_asked() -> None:
    assert parse_url("&#104;ttps://evil.example/", decode_entities=True).host == "evil.example"
    assert parse_url("&#104;ttps://evil.example/").relative


def test_relative_urls_have_no_host() -> None:
    for raw in ("/a.png", "a.png", "./x", "#top", "?q=1"):
        url = parse_url(raw)
        assert url.relative
        assert url.host == ""


def test_unparseable_url() -> None:
    assert parse_url("http://[::1/").href is None
    assert JUDGE.judge("http://[::1/", Role.IMAGE).reasons == (Reason.UNPARSEABLE_URL,)


@pytest.mark.parametrize(
    ("raw", "action"),
    [
        ("https://cdn.example.com/a.png", "keep"),
        ("https://example.org/a.png", "keep"),
        ("https://img.example.org/a.png", "keep"),
        ("https://a.cdn.example.com/a.png", "drop"),
        ("https://cdn.example.com.evil.example/a.png", "drop"),
        ("https://notexample.org/a.png", "drop"),
        ("https://cdn.example.com:8443/a.png", "keep"),
    ],
)
def test_image_allowlist_matches_exactly_or_by_registrable_domain(raw: str, action: str) -> None:
    assert JUDGE.judge(raw, Role.IMAGE).action == action


@pytest.mark.parametrize(
    "raw", ["javascript:alert(1)", "JAVASCRIPT:x", "java\tscript:x", "vbscript:x", "file:///etc"]
)
def test_script_and_file_schemes_never_pass(raw: str) -> None:
    assert JUDGE.judge(raw, Role.LINK).reasons == (Reason.SCHEME_NOT_ALLOWED,)
    assert JUDGE.judge(raw, Role.IMAGE).action == "drop"


def test_data_images_follow_the_policy() -> None:
    png = "data:image/png;base64,iVBORw0KGgo="
    svg = "data:image/svg+xml;base64,PHN2Zz4="
    assert JUDGE.judge(png, Role.IMAGE).reasons == (Reason.DATA_IMAGE,)
    allowing = UrlJudge(Policy(allow_data_images=True))
    assert allowing.judge(png, Role.IMAGE).action == "keep"
    assert allowing.judge(svg, Role.IMAGE).reasons == (Reason.DATA_IMAGE,)


def test_relative_images_follow_the_policy() -> None:
    assert JUDGE.judge("/logo.png", Role.IMAGE).reasons == (Reason.RELATIVE_IMAGE,)
    assert UrlJudge(Policy(allow_relative_images=True)).judge("/logo.png", Role.IMAGE).action == (
        "keep"
    )


def test_trusted_link_hosts_skip_the_data_check() -> None:
    url = "https://intranet.example.com/?d=VGhlIHVzZXIncyBwYXNzd29yZCBpcyBodW50ZXIyIGFuZCBsaXZl"
    assert JUDGE.judge(url, Role.LINK).action == "drop"
    trusting = UrlJudge(Policy(trusted_link_hosts=["intranet.example.com"]))
    assert trusting.judge(url, Role.LINK).action == "keep"


def test_nested_url_on_an_allowed_image_host_is_dropped() -> None:
    verdict = JUDGE.judge("https://cdn.example.com/p?u=https://evil.example/x", Role.IMAGE)
    assert verdict.reasons == (Reason.NESTED_URL,)


def test_nested_url_in_a_link_counts_only_with_data() -> None:
    assert (
        JUDGE.judge("https://example.com/login?next=https://example.com/home", Role.LINK).action
        == "keep"
    )


def test_redacted_form_keeps_shape_not_values() -> None:
    url = parse_url("https://user:pw@evil.example/p/secret.png?d=aGVsbG8gd29ybGQ&x=1#frag")
    assert redact(url) == "https://{6}@evil.example/{1}/{10}?d={15}&x={1}#{4}"
    assert "aGVsbG8" not in redact(url)


def test_redacted_form_masks_long_subdomain_labels() -> None:
    url = parse_url("https://mfygsidlmv4sa43lfuytemzu.evil.example/")
    assert redact(url) == "https://{24}.evil.example/"


_URL_PIECES = st.sampled_from(
    ["https://", "http://", "mailto:", "//", "ftp://", "foo://", "user:pw@", "a@", "[::1]",
     "h.example", ":8080", "/", "/p", "?q=1", "?", "#", "#f", "@", ":", "%41", "\\", "é", " ",
     "..", "?a#b?c"]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(_URL_PIECES, min_size=1, max_size=8).map("".join))
def test_split_href_agrees_with_ada(raw: str) -> None:
    """Only `href` is read from ada; the parts are split from it in Python."""
    try:
        url = ada_url.URL(raw)
    except ValueError:
        return
    p = split_href(str(url.href))
    assert (p.username, p.password, p.host, p.path, p.query, p.fragment) == (
        str(url.username), str(url.password), str(url.hostname), str(url.pathname),
        str(url.search), str(url.hash),
    )  # fmt: skip
