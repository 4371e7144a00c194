"""Rendered pages in a real browser: what Chromium fetches and runs, not what a
tokeniser reads.

    python benchmarks/chromium_sample.py --cases 300 --seed 7 [--raw] [--ingredients a,b]

Each case of the fuzzer's soup (benchmarks/fuzz_soup.py) is sanitised (`--raw`: not),
rendered by every Python and JavaScript renderer and healer (tests/renderers.py,
tests/js/render.mjs), and each page is loaded into Debian's Chromium (Playwright,
`/usr/bin/chromium`, nothing downloaded) at `https://chat.example/`, with every
request the page makes answered by Playwright and none sent: the page's own
document is served, anything else is recorded and aborted. A page fails when it
requests any other host (an image, a style, a frame, a refresh), opens a dialog (an
event handler ran `alert`), or holds an element whose resolved `href`, `src`,
`action`, `formaction` or `xlink:href` is a `javascript:`/`vbscript:` URL or an
attribute named `on*`. Prints the count per renderer and class.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from playwright.sync_api import Dialog, Error, Page, Route, sync_playwright  # noqa: E402

from fuzz_soup import case  # noqa: E402
from renderers import RENDERERS  # noqa: E402
from rendersafe import Sanitizer  # noqa: E402
from soup import FAMILIES, node  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
ORIGIN = "https://chat.example/"
# What the loaded page holds that runs on a click or by itself.
_DOM_CHECK = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      if (a.name.toLowerCase().startsWith('on')) found.push('event handler');
    }
    for (const name of ['href', 'src', 'action', 'formaction', 'xlink:href']) {
      const raw = el.getAttribute(name);
      if (raw === null) continue;
      let url;
      try { url = new URL(raw, document.baseURI); } catch (e) { continue; }
      if (url.protocol === 'javascript:' || url.protocol === 'vbscript:') found.push('script URL');
    }
  }
  return found;
}"""


class Loader:
    """One page of Chromium, loading one rendered page at a time."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.html = ""
        self.requested: list[str] = []
        self.dialogs = 0
        page.route("**/*", self._route)
        page.on("dialog", self._dialog)

    def _route(self, route: Route) -> None:
        with contextlib.suppress(Error):
            self._answer(route)

    def _answer(self, route: Route) -> None:
        url = route.request.url
        if url == ORIGIN and route.request.resource_type == "document" and not self.requested:
            route.fulfill(status=200, content_type="text/html", body=self.html)
            self.requested.append(url)
            return
        self.requested.append(url)
        route.abort()

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs += 1
        with contextlib.suppress(Error):
            dialog.dismiss()

    def problems(self, html: str) -> list[str]:
        """What loading `html` makes Chromium fetch or run."""
        self.html, self.requested, self.dialogs = f"<!doctype html><body>{html}", [], 0
        found: list[str] = []
        try:
            self.page.goto(ORIGIN, wait_until="load", timeout=10_000)
            self.page.wait_for_timeout(20)
            found = list(self.page.evaluate(_DOM_CHECK))
        except Error:
            pass  # the page navigated away (a refresh): its request is what counts
        found += ["dialog"] * self.dialogs
        for url in self.requested[1:]:
            host = urlsplit(url).hostname or ""
            if url.startswith(("http:", "https:")) and host != "chat.example":
                found.append(f"fetches {host}")
        return found


def pages(outputs: list[str]) -> Iterator[list[tuple[str, str]]]:
    """Each output rendered by every renderer: (renderer, html) pairs."""
    js = node(list(outputs))
    for output, rendered in zip(outputs, js, strict=True):
        own = [(name, render(output)) for name, render in RENDERERS.items()]
        yield own + [(name, str(html)) for name, html in rendered.items()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--raw", action="store_true", help="render the soup unsanitised")
    parser.add_argument("--ingredients", default=None, help="comma-separated families")
    args = parser.parse_args()
    families = tuple(args.ingredients.split(",")) if args.ingredients else FAMILIES
    unknown = set(families) - set(FAMILIES)
    if unknown:
        parser.error(f"no such families: {', '.join(sorted(unknown))}")
    rng, sanitizer = random.Random(args.seed), Sanitizer()
    texts = [case(rng, families) for _ in range(args.cases)]
    outputs = texts if args.raw else [sanitizer.run(t).text for t in texts]
    counts, failing = Counter[str](), 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        loader = Loader(browser.new_page())
        for rendered in pages(outputs):
            found = {f"{name}: {p}" for name, html in rendered for p in loader.problems(html)}
            counts.update(found)
            failing += bool(found)
        browser.close()
    print(f"{args.cases} cases, {failing} failing in Chromium")
    for name, count in counts.most_common():
        print(f"  {count:6d}  {name}")
    return 1 if failing and not args.raw else 0


if __name__ == "__main__":
    sys.exit(main())
