"""Rendered fences in the real renderers: no request leaves for a host off the allowlist.

Every case of tests/fixtures/rendered is rendered as a chat UI renders it, sanitised
(nothing may reach a host off the policy) and as the model wrote it (most attacks
must leak, or the check proves nothing):

- HTML and SVG artifacts in a sandboxed `srcdoc` iframe (Open WebUI's and LibreChat's
  artifact viewers), CSS in the `<style>` of one, in Debian's Chromium: every request
  the frame makes is caught, none leaves the machine;
- Mermaid diagrams with Mermaid from npm, in Chromium, at the security level Open
  WebUI runs (`loose`) and the default (`strict`): the requests while rendering, the
  links in the diagram, and what clicking every clickable node calls or fetches.

TeX runs in KaTeX from npm in tests/test_js_renderers.py (`rendered_cases` holds what
both read). `npm ci --prefix tests/js` and Chromium come from `.ci/run`.
"""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

try:
    from playwright.sync_api import Browser, sync_playwright
except ImportError:  # a [dev] tool: the README's test command runs without it
    if os.environ.get("REQUIRE_BROWSER_TEST") == "1":
        raise
    pytest.skip("needs playwright: pip install -e '.[dev]'", allow_module_level=True)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from catch_proxy import CatchProxy
from rendered_cases import ALLOWED_IMAGES, ATTACKER, EXAMPLE, Rendered, leaks, rendered, verdict
from renderers import Url
from servers import Server
from test_browser import ARGS, CHROMIUM, REQUIRED

JS = Path(__file__).parent / "js"
MERMAID = JS / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
pytestmark = pytest.mark.skipif(
    not MERMAID.exists() or (not CHROMIUM.exists() and not REQUIRED),
    reason="needs `npm ci --prefix tests/js` and Debian's chromium (done by .ci/run)",
)

# -- Chromium ----------------------------------------------------------------------------
#
# The page is served from 127.0.0.1; every other request of the page and its frames
# goes to a proxy that records its host and refuses it (`CatchProxy`). Each piece's
# attacker host is made its own (`p7.evil.example`), so a request says whose it is.


@dataclass
class _Chromium:
    browser: Browser
    proxy: CatchProxy
    url: str
    pages: dict[str, str]


@pytest.fixture(scope="module")
def chromium() -> Iterator[_Chromium]:
    pages: dict[str, str] = {}

    async def page(request: Request) -> Response:
        body = pages.get(request.path_params["name"])
        return HTMLResponse(body) if body is not None else Response(status_code=404)

    async def mermaid(request: Request) -> Response:
        return FileResponse(MERMAID, media_type="text/javascript")

    app = Starlette(routes=[Route("/mermaid.js", mermaid), Route("/{name}", page)])
    with CatchProxy() as proxy, Server(app) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=ARGS,
            proxy={"server": proxy.url, "bypass": "127.0.0.1"},
        )
        yield _Chromium(browser, proxy, server.url, pages)
        browser.close()


def _own_host(index: int, text: str) -> str:
    return text.replace(ATTACKER, f"p{index}.{ATTACKER}")


def _requests(proxy: CatchProxy, count: int) -> list[list[str]]:
    """The requests off the allowlist, by the piece whose host they name."""
    found: list[list[str]] = [[] for _ in range(count)]
    for host in proxy.hosts:
        if host in ALLOWED_IMAGES or not EXAMPLE.search(host):
            continue  # an allowed image, or Chromium's own (every fixture host is an example)
        piece = re.fullmatch(rf"p(\d+)\.{re.escape(ATTACKER)}", host)
        assert piece is not None, f"a request no piece made: {host}"
        found[int(piece.group(1))].append(f"requested {host}")
    return found


_LINKS = """() => [...document.querySelectorAll('a, area, form, [href]')].flatMap((e) =>
  ['href', 'xlink:href', 'action'].map((n) => e.getAttribute(n)).filter((v) => v))"""
_CSS_URLS = """() => [...document.styleSheets].flatMap((sheet) => {
  const urls = [];
  const walk = (rules) => { for (const rule of rules) {
    if (rule.href) urls.push(rule.href);
    for (const m of rule.cssText.matchAll(/url\\("([^"]*)"\\)/g)) urls.push(m[1]);
    if (rule.cssRules) walk(rule.cssRules); } };
  walk(sheet.cssRules); return urls; })"""


def _frame(piece: Rendered, index: int, *, xml: bool) -> str:
    """A sandboxed iframe showing `piece`: an HTML document (`srcdoc`, as an artifact
    viewer inserts it), or for SVG also an XML document (a `data:` URL, as a viewer
    that loads the file shows it: entities and `xml-stylesheet` are read there)."""
    text = _own_host(index, piece.text)
    if piece.kind == "css":
        text = f'<!doctype html><style>{text}</style><div class="hero logo mask x">x</div>'
    where = f'srcdoc="{html.escape(text, quote=True)}"'
    if xml:
        where = f'src="data:image/svg+xml;base64,{base64.b64encode(text.encode()).decode()}"'
    return f'<iframe name="f{index}" sandbox="allow-scripts" width=300 height=300 {where}></iframe>'


def _artifacts_problems(chromium: _Chromium, pieces: list[Rendered]) -> list[list[str]]:
    """Each piece in its sandboxed iframes, all in one page; what each one requested,
    links to, or (CSS) would fetch."""
    shown = [(p, False) for p in pieces] + [(p, True) for p in pieces if p.kind == "svg"]
    chromium.pages["artifacts"] = "<!doctype html>" + "".join(
        _frame(piece, i, xml=xml) for i, (piece, xml) in enumerate(shown)
    )
    chromium.proxy.clear()
    page = chromium.browser.new_page()
    page.goto(f"{chromium.url}/artifacts")
    page.wait_for_timeout(700)
    found = _requests(chromium.proxy, len(shown))
    for frame in page.frames:
        if not re.fullmatch(r"f\d+", frame.name):
            continue
        index = int(frame.name[1:])
        for value in frame.evaluate(_LINKS):
            found[index] += leaks(Url("chromium", "a", "href", value))
        for value in frame.evaluate(_CSS_URLS) if shown[index][0].kind == "css" else ():
            found[index] += leaks(Url("chromium", "style", "style", value))
    page.close()
    by_piece: dict[int, list[str]] = {}
    for (piece, _xml), problems in zip(shown, found, strict=True):
        by_piece.setdefault(id(piece), []).extend(problems)
    return [by_piece[id(piece)] for piece in pieces]


def test_html_svg_and_css_artifacts_request_nothing_off_the_policy(chromium: _Chromium) -> None:
    pieces = [p for kind in ("html", "svg", "css") for p in rendered(kind)]
    found = dict(zip(pieces, _artifacts_problems(chromium, pieces), strict=True))
    assert len({p.case.id for p in pieces if not p.case.benign}) >= 25
    verdict(found)


_RENDER = """async ([diagram, level]) => {
  window.__called = [];
  for (const name of ['showDetails', 'printTask', 'onAccount', 'alert'])
    window[name] = (...args) => window.__called.push(name);
  mermaid.initialize({ startOnLoad: false, securityLevel: level });
  const out = document.getElementById('out');
  out.replaceChildren();
  try {
    const rendered = await mermaid.render('m' + Math.floor(Math.random() * 1e9), diagram);
    out.innerHTML = rendered.svg;
    if (rendered.bindFunctions) rendered.bindFunctions(out);
  } catch (e) { return { error: String(e), links: [], called: [] }; }
  await new Promise((r) => setTimeout(r, 100));
  const links = [...out.querySelectorAll('a, [href]')].flatMap((a) =>
    ['href', 'xlink:href'].map((n) => a.getAttribute(n)).filter((v) => v));
  for (const a of out.querySelectorAll('a'))
    for (const name of ['href', 'xlink:href']) a.removeAttribute(name);
  for (const node of out.querySelectorAll('.clickable, [onclick]'))
    node.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  await new Promise((r) => setTimeout(r, 100));
  return { error: null, links, called: window.__called };
}"""


@pytest.mark.parametrize("level", ["loose", "strict"])
def test_mermaid_diagrams_fetch_link_and_call_nothing_off_the_policy(
    chromium: _Chromium, level: str
) -> None:
    """Rendered, inserted into the page, every clickable node clicked (its links
    recorded first, then taken out so the page stays)."""
    pieces = rendered("mermaid")
    chromium.pages["mermaid"] = (
        "<!doctype html><script src='/mermaid.js'></script><div id=out></div>"
    )
    chromium.proxy.clear()
    page = chromium.browser.new_page()
    page.goto(f"{chromium.url}/mermaid")
    results = [page.evaluate(_RENDER, [_own_host(i, p.text), level]) for i, p in enumerate(pieces)]
    page.wait_for_timeout(200)
    page.close()
    found = _requests(chromium.proxy, len(pieces))
    for problems, result in zip(found, results, strict=True):
        problems.extend(f"called {name}" for name in result["called"])
        for link in result["links"]:
            problems.extend(leaks(Url("mermaid", "a", "href", link)))
    assert len({p.case.id for p in pieces if not p.case.benign}) >= 15
    # What Mermaid 11 refuses itself (a UI on another version or configuration may
    # not), and at its default level, the calls and script links too.
    refused: tuple[str, ...] = ("keeps its own", "DOMPurify", "KaTeX")
    if level == "strict":
        refused += ("loose only", "javascript:")
    verdict(dict(zip(pieces, found, strict=True)), other_renderers=refused)
