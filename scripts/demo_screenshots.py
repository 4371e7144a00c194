"""Screenshots of `rendersafe demo` for the README: the prompt-injected reply through
rendersafe (docs/img/demo-protected.png) and bypassed (docs/img/demo-bypassed.png).

    PYTHONPATH=src .venv/bin/python scripts/demo_screenshots.py [--out docs/img]

Starts `rendersafe demo` on a free port, drives Debian's /usr/bin/chromium through
Playwright (nothing downloaded) and runs each mode at the default speed, so both summary
boxes are filled.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "rendersafe", "demo", "--port", str(port)]
    demo = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        assert demo.stderr is not None
        print(demo.stderr.readline().strip())  # the demo says where it runs once it can
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 980})
            page.goto(f"http://127.0.0.1:{port}")
            attack(page, bypass=True)
            attack(page, bypass=False)
            page.screenshot(path=args.out / "demo-protected.png", full_page=True)
            attack(page, bypass=True)
            page.screenshot(path=args.out / "demo-bypassed.png", full_page=True)
            browser.close()
    finally:
        demo.terminate()
        demo.wait(timeout=10)
    print(f"wrote {args.out}/demo-protected.png and {args.out}/demo-bypassed.png")


def attack(page: Page, *, bypass: bool) -> None:
    page.set_checked("#bypass", bypass)
    page.click("#attack")
    page.wait_for_function("document.body.dataset.state === 'streaming'")
    page.wait_for_selector("body[data-state=done]", timeout=60_000)


if __name__ == "__main__":
    main()
