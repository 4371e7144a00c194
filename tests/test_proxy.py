"""Signed image-proxy URLs: what a proxy verifies (a real one, over HTTP), and what the
sanitiser keeps of a proxied image it meets again."""

from __future__ import annotations

import time
from collections.abc import Callable
from urllib.parse import quote

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from rendersafe import ImageProxy, Policy, Sanitizer
from rendersafe.image_proxy import proxy_url, sign, verified_target, verify_signature
from servers import Server

KEY = "f3a1c9e07b4d2e8a6c5f1b0d9e7a3c2b"
IMAGE = "https://charts.example.net/c.png"
PLAIN = ImageProxy(url="https://chat.example.com/img-proxy", key=KEY)
BOUND = ImageProxy(
    url="https://chat.example.com/img-proxy", key=KEY, expires_in=600, context_key="user_id"
)


def _query(href: str) -> str:
    return href.partition("?")[2]


def test_a_url_without_expiry_or_context_is_signed_as_before() -> None:
    """The signature of the URL alone is unchanged (tests/fixtures/proxy/proxy.md)."""
    fixture_key = "0123456789abcdef0123456789abcdef"
    assert sign(fixture_key, IMAGE) == (
        "74822db238a987cfb32c424fc8023bab672f025a7f01ef0bd6a5abc97bc7fd59"
    )
    href = proxy_url(PLAIN, IMAGE)
    assert href == f"{PLAIN.url}?url={quote(IMAGE, safe='')}&sig={sign(KEY, IMAGE)}"
    assert verified_target(PLAIN, _query(href)) == IMAGE


@pytest.mark.parametrize(
    "signature",
    [
        "é" * 64,
        "\udcff" * 64,
        "\uff41" * 64,
        "0" * 63,
        "0" * 65,
        "",
        None,
        b"0" * 64,
        64,
        ["0" * 64],
        sign(KEY, IMAGE) + "\n",
    ],
)
def test_a_malformed_signature_is_false_not_an_error(signature: object) -> None:
    assert verify_signature(PLAIN, IMAGE, signature) is False
    assert verify_signature(BOUND, IMAGE, signature, context="u1", expires="99999999999") is False


@pytest.mark.parametrize(
    "expires", ["", "abc", "-5", "1e9", "\uff11\uff12\uff13", "9" * 40, 1.5, True, [], -1]
)
def test_a_malformed_expiry_is_false_not_an_error(expires: object) -> None:
    good = proxy_url(BOUND, IMAGE, context="u1")
    signature = good.rpartition("sig=")[2]
    assert verify_signature(BOUND, IMAGE, signature, context="u1", expires=expires) is False


@given(st.text(max_size=80), st.text(max_size=80), st.text(max_size=20))
def test_verification_never_raises(query: str, signature: str, expires: str) -> None:
    assert verify_signature(BOUND, query, signature, context="u", expires=expires) is False
    assert verified_target(BOUND, query, context="u") is None
    assert verified_target(PLAIN, query) is None


def test_signed_for_one_context_does_not_verify_for_another() -> None:
    href = proxy_url(BOUND, IMAGE, context="alice")
    assert verified_target(BOUND, _query(href), context="alice") == IMAGE
    assert verified_target(BOUND, _query(href), context="bob") is None
    assert verified_target(BOUND, _query(href)) is None
    # Context and URL cannot trade characters: the context's length is signed too.
    assert sign(KEY, "b" + IMAGE, context="a") != sign(KEY, IMAGE, context="ab")


def test_an_expired_url_does_not_verify() -> None:
    made = time.time()
    href = proxy_url(BOUND, IMAGE, context="alice", now=made)
    assert verified_target(BOUND, _query(href), context="alice", now=made + 599) == IMAGE
    assert verified_target(BOUND, _query(href), context="alice", now=made + 661) is None
    old = proxy_url(BOUND, IMAGE, context="alice", now=made - 3600)
    assert verified_target(BOUND, _query(old), context="alice") is None
    # An explicit expiry, even under a proxy without expires_in, is signed and checked.
    soon = proxy_url(PLAIN, IMAGE, expires=int(made) + 30)
    assert f"&exp={int(made) + 30}&" in soon
    assert verified_target(PLAIN, _query(soon), now=made) == IMAGE
    assert verified_target(PLAIN, _query(soon), now=made + 31) is None
    assert verified_target(PLAIN, _query(soon).replace("&exp=", "&x="), now=made) is None


@pytest.mark.parametrize(
    "tamper",
    [
        lambda q: q.replace("charts.example.net", "attacker.example"),
        lambda q: q.replace("&exp=", "&exp=1"),
        lambda q: q.replace("&exp=", "&exp=9"),
        lambda q: q.split("&exp=")[0] + "&sig=" + q.rpartition("sig=")[2],  # expiry removed
        lambda q: q[:-1] + ("0" if q[-1] != "0" else "1"),
        lambda q: q + "&url=" + quote("https://attacker.example/x", safe=""),
        lambda q: "url=" + quote("https://attacker.example/x", safe="") + "&" + q,
        lambda q: q + "&sig=" + "0" * 64,
    ],
)
def test_a_tampered_url_does_not_verify(tamper: Callable[[str], str]) -> None:
    query = _query(proxy_url(BOUND, IMAGE, context="alice"))
    assert verified_target(BOUND, query, context="alice") == IMAGE
    assert verified_target(BOUND, tamper(query), context="alice") is None


def test_a_url_without_expiry_does_not_verify_under_a_proxy_that_sets_one() -> None:
    unbounded = ImageProxy(url=BOUND.url, key=KEY, context_key="user_id")
    href = proxy_url(unbounded, IMAGE, context="alice")
    assert verified_target(unbounded, _query(href), context="alice") == IMAGE
    assert verified_target(BOUND, _query(href), context="alice") is None


def _proxy_app(proxy: ImageProxy) -> Starlette:
    """A proxy as docs/reference/policy.md tells one to write it: the context is the requesting
    user (here a header standing in for its session), never read from the URL."""

    async def image(request: Request) -> Response:
        target = verified_target(proxy, request.url.query, context=request.headers.get("x-user"))
        if target is None:
            return PlainTextResponse("forbidden", status_code=403)
        return PlainTextResponse(target)  # a real proxy would fetch it now

    return Starlette(routes=[Route("/img-proxy", image)])


def test_a_real_proxy_refuses_replayed_expired_and_tampered_urls() -> None:
    """The CamoLeak replay: URLs signed in the attacker's session, planted in the
    victim's reply, reach the proxy with the victim's session and are refused."""
    with Server(_proxy_app(BOUND)) as server:
        sanitizer = Sanitizer(Policy(image_proxy=BOUND))
        mine = sanitizer.run(f"![chart]({IMAGE})", context={"user_id": "mallory"}).text
        href = mine.partition("](")[2].rstrip(")")
        assert href.startswith(BOUND.url + "?url=")

        def status(href: str, user: str) -> tuple[int, str]:
            # The proxy's public https origin, served here by a local server behind it.
            local = href.replace(BOUND.url, server.url + "/img-proxy", 1)
            answer = httpx.get(local, headers={"x-user": user})
            return answer.status_code, answer.text

        assert status(href, "mallory") == (200, IMAGE)
        assert status(href, "victim")[0] == 403
        assert status(href.replace("charts.example.net", "attacker.example"), "mallory")[0] == 403
        expired = proxy_url(BOUND, IMAGE, context="mallory", now=time.time() - 3600)
        assert status(expired, "mallory")[0] == 403
        assert status(href.replace("sig=", "sig=%C3%A9"), "mallory")[0] == 403
        assert status(href.replace("sig=", "sig=\u00e9")[:-1], "mallory")[0] == 403


def test_the_sanitiser_keeps_only_images_it_signed_for_this_reply() -> None:
    policy = Policy(image_proxy=BOUND)
    sanitizer = Sanitizer(policy)
    first = sanitizer.run(f"![c]({IMAGE})", context={"user_id": "alice"}).text
    assert first.startswith(f"![c]({BOUND.url}?url=")
    # Sanitised again for the same user: unchanged (idempotence).
    assert sanitizer.run(first, context={"user_id": "alice"}).text == first
    # Planted in another user's reply: removed, never kept as "already signed".
    replayed = sanitizer.run(first, context={"user_id": "bob"})
    assert BOUND.url not in replayed.text
    assert replayed.findings
    # Expired: removed too.
    stale = proxy_url(BOUND, IMAGE, context="alice", now=time.time() - 3600)
    assert BOUND.url not in sanitizer.run(f"![c]({stale})", context={"user_id": "alice"}).text


def test_the_stream_signs_as_the_one_shot_run() -> None:
    sanitizer = Sanitizer(Policy(image_proxy=BOUND))
    reply = f"Chart: ![c]({IMAGE}) and <img src='{IMAGE}'>\n"
    whole = sanitizer.run(reply, context={"user_id": "alice"}).text
    stream = sanitizer.stream(context={"user_id": "alice"})
    streamed = "".join(stream.feed(reply[i : i + 3]) for i in range(0, len(reply), 3))
    assert streamed + stream.close() == whole
    assert whole.count(BOUND.url) == 2
