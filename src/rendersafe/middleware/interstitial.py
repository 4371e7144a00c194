"""The click-through page (`Policy.link_interstitial`): where a link the budget took out
leads, shown before the user goes on.

The middleware (and so `rendersafe proxy`) answers GET and HEAD at the page's path
itself. The page shows the full destination and who can read a request to it, and a
link to go on deliberately; it never fetches the destination, sends no Referer (its
own `Referrer-Policy`, and `rel="noreferrer"` on the link), runs no script, and is no
open redirect: only a destination rendersafe signed for it verifies.
"""

from __future__ import annotations

from html import escape
from urllib.parse import urlsplit

from starlette.types import Scope, Send

from ..policy import LinkInterstitial
from ..urls.interstitial import Destination, verified_destination

__all__ = ["serve_interstitial", "serves"]

_CLASSES = {
    "unknown": "a site rendersafe knows nothing of: whoever runs it reads the whole address",
    "tenant": "a site anyone can open an account on, and then read its visitors' addresses",
    "observable": "a service whose owner, or whoever made the link, reads what it carries "
    "(a short link, a form, a redirect, a paste)",
}
_HEADERS = [
    (b"content-type", b"text/html; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-robots-tag", b"noindex"),
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
        b"form-action 'none'; frame-ancestors 'none'",
    ),
]


def serves(page: LinkInterstitial | None, scope: Scope) -> bool:
    """Is this request one for the click-through page?"""
    if page is None or scope.get("method") not in ("GET", "HEAD"):
        return False
    return scope.get("path") == (urlsplit(page.url).path or "/")


async def serve_interstitial(page: LinkInterstitial, scope: Scope, send: Send) -> None:
    """Answer a request for the page: the destination, or why there is none."""
    query = scope.get("query_string", b"").decode("latin-1")
    found = verified_destination(page, query)
    if found is None or urlsplit(found.target).scheme not in ("http", "https"):
        status, body = (
            403,
            _page("This link is not valid", "<p>It has expired, or was not made here.</p>"),
        )
    else:
        status, body = 200, _destination(found)
    data = body.encode("utf-8")
    headers = [*_HEADERS, (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else data})


def _destination(found: Destination) -> str:
    target = escape(found.target, quote=True)
    who = _CLASSES.get(found.host_class, _CLASSES["unknown"])
    host = escape(urlsplit(found.target).hostname or "", quote=True)
    content = (
        "<p>The assistant's reply linked to an address that carries more of its own choosing "
        "than rendersafe lets through to a site others can read. Look at it before you go "
        "on.</p>"
        f"<p><strong>Site:</strong> {host}<br><strong>Who reads it:</strong> {escape(who)}</p>"
        f"<p><strong>Full address:</strong></p><pre>{target}</pre>"
        f'<p><a href="{target}" rel="noopener noreferrer nofollow">Continue to {host}</a></p>'
    )
    return _page("Leaving the chat", content)


def _page(title: str, content: str) -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name="referrer" content="no-referrer">'
        f"<title>{escape(title)}</title>"
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:3em auto;"
        "padding:0 1em}pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;"
        "padding:.5em}</style></head>"
        f"<body><h1>{escape(title)}</h1>{content}</body></html>"
    )
