"""The demo page in a real headless Chromium (Debian's, driven by Playwright), with the
demo's fake attacker server on a second loopback port. Through rendersafe, the page
requests nothing but the demo's own origin, the attacker server receives nothing and the
page's attacker log stays empty; bypassed, the attacker server receives the user's key
(decoded from base64, hex and percent-encoding), and the page's log shows it in clear."""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

from rendersafe.demo import Attacker, build_demo
from rendersafe.demo.replies import KEY, SECRET
from servers import Server

CHROMIUM = Path("/usr/bin/chromium")
# CI installs Chromium and sets this, so the test cannot be skipped there.
REQUIRED = os.environ.get("REQUIRE_BROWSER_TEST") == "1"


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


# Why the browser tests cannot run here ("" when they can, or CI requires them).
MISSING = (
    ""
    if REQUIRED
    else "needs Debian's chromium (apt-get install chromium; done by .ci/run)"
    if not CHROMIUM.exists()
    else "needs playwright, a [dev] tool: pip install -e '.[dev]'"
    if not _importable("playwright.sync_api")
    else ""
)
pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)
# Chromium's own background traffic is switched off: only the page's requests remain.
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@dataclass
class Demo:
    url: str
    attacker: Attacker


@dataclass
class Run:
    requested: list[str]  # every URL the page requested
    reply: str  # the reply's HTML
    reply_text: str
    audit: str  # the audit table's HTML
    log_text: str  # what the page's attacker log shows
    log_count: int  # its data-count
    received: list[dict[str, Any]]  # what the attacker server itself recorded meanwhile


@pytest.fixture(scope="module")
def demo() -> Iterator[Demo]:
    attacker = Attacker()
    with attacker.running(), Server(build_demo(attacker=attacker)) as server:
        yield Demo(server.url, attacker)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright  # noqa: PLC0415  (a [dev] tool)

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


def run_scenario(
    browser: Browser, demo: Demo, button: str, *, bypass: bool, speed: str = "0", path: str = ""
) -> Run:
    """Click `button` on the demo page (at `path`) and wait for the reply and the
    attacker's log."""
    before = demo.attacker.log.next_seq
    page = browser.new_page()
    page.context.add_cookies([{"name": "session", "value": "demo", "url": demo.url}])
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(demo.url + path)
    if bypass:
        page.check("#bypass")
    page.select_option("#speed", speed)
    page.click(button)
    page.wait_for_selector("body[data-state=done]", timeout=60_000)
    page.wait_for_timeout(300)  # any request the page would still make
    run = Run(
        requested,
        page.inner_html("#reply"),
        page.inner_text("#reply"),
        page.inner_html("#records"),
        page.inner_text("#attacker-log"),
        int(page.get_attribute("#attacker-log", "data-count") or "-1"),
        demo.attacker.log.since(before),
    )
    page.close()
    return run


def origins(urls: list[str]) -> set[str]:
    return {
        f"{urlsplit(u).hostname}:{urlsplit(u).port}"
        for u in urls
        if not u.startswith(("data:", "about:"))
    }


def own(url: str) -> str:
    return url.removeprefix("http://")


def _prefix_of(attacker: str, origin: str) -> bool:
    """Is `origin` (host:port, port None without one) what a prefix of the attacker's
    address fetches: that address cut short, its host read as a browser reads a cut
    IPv4 address (`127` is 0.0.0.127, `127.0.0` is 127.0.0.0)?"""
    host, _, port = attacker.rpartition(":")
    cut_hosts = {_browser_ipv4(host[:end]) for end in range(1, len(host) + 1)}
    cut_ports = {port[:end] for end in range(1, len(port) + 1)}
    seen_host, _, seen_port = origin.rpartition(":")
    if seen_port == "None":
        return seen_host in cut_hosts
    return seen_host in cut_hosts and seen_port in cut_ports


def _browser_ipv4(host: str) -> str:
    """A host of decimal parts as the WHATWG URL parser reads it: the last part fills
    the bytes the others leave (`127.0` is 127.0.0.0, `12` is 0.0.0.12)."""
    parts = [int(part) for part in host.removesuffix(".").split(".")]
    number = parts[-1]
    for place, part in enumerate(parts[:-1]):
        number += part << (8 * (3 - place))
    return ".".join(str(number >> shift & 255) for shift in (24, 16, 8, 0))


def test_attack_through_rendersafe_leaks_nothing(browser: Browser, demo: Demo) -> None:
    run = run_scenario(browser, demo, "#attack", bypass=False)
    assert origins(run.requested) == {own(demo.url)}  # not even the attacker's port
    assert run.received == []
    assert run.log_count == 0
    assert "No requests received" in run.log_text
    assert "127.0.0.1:" + str(demo.attacker.port) not in run.reply
    assert "[image removed]" in run.reply_text
    assert "complete![1]" in run.reply_text  # the reference image, its definition gone
    assert KEY not in run.reply  # the raw key, caught because the request carried it
    assert "image_host_not_allowed" in run.audit
    assert "conversation_data" in run.audit
    assert KEY not in run.audit


def test_attack_without_rendersafe_reaches_the_attacker(browser: Browser, demo: Demo) -> None:
    run = run_scenario(browser, demo, "#attack", bypass=True)
    attacker = own(demo.attacker.origin or "")
    requested = origins(run.requested)
    assert {own(demo.url), attacker} <= requested
    # Unprotected, the page renders each prefix of the reply: a prefix that ends inside
    # the attacker's address (`127.0.0.1:4359`, or `127.0.0` which a browser reads as
    # 127.0.0.0) is fetched too, and which ones depends on the timing. Nothing else is.
    others = {o for o in requested if o != own(demo.url) and not _prefix_of(attacker, o)}
    assert not others, f"fetched besides the attacker's address: {sorted(others)}"
    # The attacker server's own record: every image, the key decoded from each encoding.
    paths = {entry["path"].split("/")[1] for entry in run.received}
    assert {"pixel.png", "t.gif", "badge"} <= paths
    encodings = {
        d["encoding"] for entry in run.received for d in entry["decoded"] if d["text"] == SECRET
    }
    assert {"hex", "percent+base64"} <= encodings
    assert encodings & {"base64", "base64url"}
    # 127.0.0.1's cookies go to every port: the browser sent the demo's, the log drops it.
    assert all("cookie" not in dict(entry["headers"]) for entry in run.received)
    assert all(dict(entry["headers"])["referer"] == demo.url + "/" for entry in run.received)
    # The page's log shows the same requests, the secret in clear.
    assert run.log_count == len(run.received) > 0
    assert SECRET in run.log_text
    assert "carrying the user's key" in run.log_text
    assert f"{demo.attacker.origin}/c?" in run.reply  # one click from leaking the key:
    assert f'&amp;k={KEY}"' in run.reply


def test_under_the_csp_header_a_bypassed_reply_reaches_nobody(browser: Browser, demo: Demo) -> None:
    """`/csp/` is the page sent with `rendersafe.csp(policy)`: rendersafe bypassed, the
    reply holds the attacker's images, and the browser fetches none of them."""
    run = run_scenario(browser, demo, "#attack", bypass=True, path="/csp/")
    assert f"{demo.attacker.origin}/" in run.reply  # the unsanitised reply, images and all
    # The page tried (Playwright reports the attempts, prefixes of the address too, as
    # in the bypassed run); the header stopped each one.
    attacker = own(demo.attacker.origin or "")
    tried = origins(run.requested) - {own(demo.url)}
    assert all(_prefix_of(attacker, origin) or origin == attacker for origin in tried)
    assert run.received == []
    assert run.log_count == 0


def test_honest_reply_renders_whole(browser: Browser, demo: Demo) -> None:
    run = run_scenario(browser, demo, "#honest", bypass=False)
    assert origins(run.requested) == {own(demo.url)}
    assert run.received == []
    assert '<a href="https://docs.python.org/3/library/collections.html">' in run.reply
    assert "<table>" in run.reply
    assert "nothing was removed" in run.audit


def test_the_page_shows_the_conversation_and_both_runs(browser: Browser, demo: Demo) -> None:
    page = browser.new_page()
    page.goto(demo.url)
    assert page.inner_text("#conversation mark") == KEY
    page.select_option("#speed", "0")
    for bypass in (False, True):
        page.set_checked("#bypass", bypass)
        page.click("#attack")
        page.wait_for_function("document.body.dataset.state === 'streaming'")
        page.wait_for_selector("body[data-state=done]", timeout=60_000)
    assert "received 0 requests" in page.inner_text("#compare-protected")
    assert "received 0 requests" not in page.inner_text("#compare-bypassed")
    assert page.get_attribute("#compare-bypassed", "class") == "leak"
    page.close()


def test_the_default_speed_shows_text_held_back(browser: Browser, demo: Demo) -> None:
    """At the default speed, through rendersafe, the reply stops short of the image for
    a second or more (its URL is being judged), then the held text comes out at once."""
    page = browser.new_page()
    page.goto(demo.url)
    assert page.input_value("#speed") == "40"
    page.click("#attack")
    page.wait_for_function("document.body.dataset.state === 'streaming'")
    samples: list[tuple[float, int]] = []  # (time, length of the reply's text)
    while page.get_attribute("body", "data-state") == "streaming":
        samples.append((time.monotonic(), len(page.inner_text("#reply"))))
        if len(samples) > 1 and samples[-1][1] - samples[-2][1] > 15:
            break  # a held-back span released in one piece
        page.wait_for_timeout(20)
    page.close()
    released, length = samples[-1][0], samples[-2][1]
    assert samples[-1][1] - length > 15, "no text was released at once"
    held_since = min(t for t, n in samples if n == length)
    assert length > 0
    assert released - held_since > 1.0  # held back long enough to see
