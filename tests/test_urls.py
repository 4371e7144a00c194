"""Judging one URL: browser-style parsing, host matching, reasons."""

from __future__ import annotations

import ada_url
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it.common.normalize_url import normalizeLink

from rendersafe import Policy, Reason
from rendersafe.urls import Role, UrlJudge, parse_url, redact, split_href
from rendersafe.urls.hosts import HostSet

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
        ("https://cdn.example.com:8443/a.png", "drop"),
        ("https://cdn.example.com:443/a.png", "keep"),
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
    assert (p.username, p.password, p.host, p.port, p.path, p.query, p.fragment) == (
        str(url.username), str(url.password), str(url.hostname), str(url.port),
        str(url.pathname), str(url.search), str(url.hash),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "mdurl_host"),
    [
        ("https://example.\u217dom/", "example.xn--om-4xu"),  # SMALL ROMAN NUMERAL ONE HUNDRED
        ("https://\uff45xample.com/", "xn--xample-hy68a.com"),  # full-width e
        ("https://M\u00dcNCHEN.example/", "xn--mnchen-psa.example"),  # IDNA lower-cases it
        ("https://cdn.example.com\\@evil.example/", "evil.example"),  # mdurl: userinfo
        ("\u00a0//evil.example/x", "evil.example"),  # mdurl trims Unicode spaces
        ("https://example.com\\:8443/", ""),  # markdown-it's serialisation does not parse
    ],
)
def test_markdown_it_serialisation_reaches_another_host(raw: str, mdurl_host: str) -> None:
    assert parse_url(raw).mdurl_host == mdurl_host


@pytest.mark.parametrize(
    "raw",
    [
        "https://example.com/",
        "https://m\u00fcnchen.example/",
        "https://stra\u00dfe.example/",
        "https://example\u3002com/",  # both map the ideographic full stop to `.`
        "https://example\uff0ecom/",
        "https://de.wikipedia.org/wiki/M\u00fcnchen",  # non-ASCII outside the host
        "https://example.com/a\\b.png",
        "/images/M\u00fcnchen.png",
    ],
)
def test_markdown_it_serialisation_agrees(raw: str) -> None:
    assert parse_url(raw).mdurl_host is None


_HOSTISH = st.sampled_from(
    ["https://", "http://", "//", "mailto:", "a", "Ex", "xn--mnchen-3ya", ".", "..", ":", "8443",
     ":0443", "@", "u:p@", "/", "?", "#", "%2e", "%41", "[", "]", "::1", ";", "{", "|", "'",
     "~", "-", "_", "=", "&", "+", "$", "!", "*", "(", ")", ",", "^", "`", '"', "<", ">"]
)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(st.lists(_HOSTISH, min_size=1, max_size=10).map("".join))
@example("https://=:0443")
def test_only_sensitive_characters_change_the_host(raw: str) -> None:
    """In http(s), printable ASCII other than `\\` leaves markdown-it's host and port as
    the browser's, which is why the second reading is skipped for it, or leaves no host at
    all (`https://=:0443` becomes `https://:0443=`, which no browser fetches). (Other
    schemes keep an opaque host, which matches no allowlist entry either way.)"""
    original = parse_url(raw)
    serialised = parse_url(normalizeLink(raw))
    if original.scheme in ("http", "https") and serialised.host:
        assert (serialised.host, serialised.port) == (original.host, original.port)


def test_image_host_only_one_reading_allows_is_ambiguous() -> None:
    for raw in ("https://cdn.\uff45xample.com/x.png", "https://cdn.example.com\\@evil.zz/x.png"):
        assert JUDGE.judge(raw, Role.IMAGE).reasons == (Reason.AMBIGUOUS_HOST,)
    other = "https://evil.\uff45xample/x.png"
    assert JUDGE.judge(other, Role.IMAGE).reasons == (Reason.IMAGE_HOST_NOT_ALLOWED,)


def test_ambiguous_image_goes_through_the_proxy_by_its_browser_href() -> None:
    proxy = {"url": "https://chat.example.com/img", "key": "0123456789abcdef" * 2}
    judge = UrlJudge(Policy(allowed_image_hosts=["cdn.example.com"], image_proxy=proxy))
    verdict = judge.judge("https://cdn.\uff45xample.com/x.png", Role.IMAGE)
    assert (verdict.action, verdict.url.href) == ("proxy", "https://cdn.example.com/x.png")


def test_either_reading_can_block_and_neither_alone_is_trusted() -> None:
    judge = UrlJudge(Policy(trusted_link_hosts=["docs.example.com"], blocked_hosts=["evil.zz"]))
    blocked = judge.judge("https://docs.example.com\\@evil.zz/", Role.LINK)
    assert blocked.reasons == (Reason.BLOCKED_HOST,)
    data = "?d=VGhlIHVzZXIncyBwYXNzd29yZCBpcyBodW50ZXIyIGFuZCBsaXZl"
    assert judge.judge("https://docs.example.com/" + data, Role.LINK).action == "keep"
    assert judge.judge("https://docs.\uff45xample.com/" + data, Role.LINK).action == "drop"
    assert judge.judge("https://docs.\uff45xample.com/", Role.LINK).action == "keep"


def test_relative_image_markdown_it_makes_remote() -> None:
    judge = UrlJudge(Policy(allow_relative_images=True, blocked_hosts=["evil.zz"]))
    assert judge.judge("\u00a0//a.zz/x.png", Role.IMAGE).reasons == (Reason.AMBIGUOUS_HOST,)
    assert judge.judge("\u00a0//evil.zz/x.png", Role.IMAGE).reasons == (Reason.BLOCKED_HOST,)
    assert judge.judge("/M\u00fcnchen.png", Role.IMAGE).action == "keep"


@pytest.mark.parametrize(
    ("raw", "reasons"),
    [
        ("https://cdn.example.com:8443/x.png", (Reason.IMAGE_PORT_NOT_ALLOWED,)),
        ("http://cdn.example.com:443/x.png", (Reason.IMAGE_PORT_NOT_ALLOWED,)),
        ("https://img.example.org:8443/x.png", (Reason.IMAGE_PORT_NOT_ALLOWED,)),
        ("https://evil.example:8443/x.png", (Reason.IMAGE_HOST_NOT_ALLOWED,)),
        ("https://cdn.example.com:443/x.png", ()),
        ("http://cdn.example.com:80/x.png", ()),
        ("https://cdn.example.com:00443/x.png", ()),
    ],
)
def test_image_ports_are_part_of_the_origin(raw: str, reasons: tuple[Reason, ...]) -> None:
    assert JUDGE.judge(raw, Role.IMAGE).reasons == reasons


def test_port_entries_admit_their_port_only() -> None:
    judge = UrlJudge(Policy(allowed_image_hosts=["cdn.example.com:8443", "example.org:9000"]))
    assert judge.judge("https://cdn.example.com:8443/x.png", Role.IMAGE).action == "keep"
    assert judge.judge("https://img.example.org:9000/x.png", Role.IMAGE).action == "keep"
    assert judge.judge("https://cdn.example.com/x.png", Role.IMAGE).reasons == (
        Reason.IMAGE_PORT_NOT_ALLOWED,
    )
    assert judge.judge("https://cdn.example.com:8444/x.png", Role.IMAGE).action == "drop"


def test_links_keep_their_port_but_trust_is_per_origin() -> None:
    judge = UrlJudge(Policy(trusted_link_hosts=["docs.example.com"], blocked_hosts=["evil.zz"]))
    data = "?d=VGhlIHVzZXIncyBwYXNzd29yZCBpcyBodW50ZXIyIGFuZCBsaXZl"
    assert judge.judge("http://localhost:8000/docs", Role.LINK).action == "keep"
    assert judge.judge("https://docs.example.com:443/" + data, Role.LINK).action == "keep"
    assert judge.judge("https://docs.example.com:8443/" + data, Role.LINK).action == "drop"
    assert judge.judge("https://evil.zz:8080/", Role.LINK).reasons == (Reason.BLOCKED_HOST,)


@pytest.mark.parametrize(
    ("entry", "host", "admitted"),
    [
        ("windows.net", "www.windows.net", True),
        ("windows.net", "a.b.windows.net", True),
        ("windows.net", "tenant.blob.core.windows.net", False),
        ("windows.net", "x.tenant.blob.core.windows.net", False),
        ("fastly.net", "attacker.global.ssl.fastly.net", False),
        ("amazoncognito.com", "x.auth.us-east-1.amazoncognito.com", False),
        ("amazoncognito.com", "login.amazoncognito.com", True),
        ("scw.cloud", "bucket.s3.fr-par.scw.cloud", False),
        ("me.github.io", "img.me.github.io", True),
        ("example.com", "a.b.example.com", True),
        ("cdn.example.com", "a.cdn.example.com", False),
    ],
)
def test_a_domain_entry_admits_its_own_site_only(entry: str, host: str, admitted: bool) -> None:
    assert (host in HostSet([entry])) is admitted


def test_a_blocklist_crosses_suffixes() -> None:
    blocked = HostSet(["windows.net"], cross_suffixes=True)
    assert "tenant.blob.core.windows.net" in blocked


def test_host_set_ports() -> None:
    hosts = HostSet(["cdn.example.com", "img.example.com:8443"])
    assert hosts.admits("cdn.example.com")
    assert not hosts.admits("cdn.example.com", "8443")
    assert hosts.admits("img.example.com", "8443")
    assert not hosts.admits("img.example.com")
    assert hosts.admits_host("img.example.com")
    assert not hosts.admits_host("evil.example")
