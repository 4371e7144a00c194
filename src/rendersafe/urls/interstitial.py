"""Signed click-through links: `{page}?to=<destination>&class=<host class>&exp=<time>&sig=<HMAC>`.

    link = interstitial_url(policy.link_interstitial, "https://blog.example/p?x=1", "unknown")
    found = verified_destination(policy.link_interstitial, request.url.query)
    found.target, found.host_class          # or None: forged, tampered with, or expired

A link the budget takes out (`judging.budget`) may go to the operator's own page
instead, which shows where it leads and lets the user go on deliberately. What is
signed is the destination, its host class and the expiry, under a key of the page's
own, with a label of its own: no other signed URL of rendersafe's verifies here, so
the page is no open redirect.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, quote

if TYPE_CHECKING:
    from ..policy import LinkInterstitial

__all__ = ["Destination", "interstitial_url", "is_interstitial", "verified_destination"]

_LABEL = b"rendersafe-interstitial-v1"
_NAMES = ("to", "class", "exp", "sig")
_SIGNATURE_CHARS = 64
_MAX_EXPIRES_DIGITS = 12


@dataclass(frozen=True, slots=True)
class Destination:
    """Where a verified click-through link leads, and who can read it there."""

    target: str
    host_class: str


def _sign(key: str, target: str, host_class: str, expires: int) -> str:
    message = b"\n".join(
        (
            _LABEL,
            host_class.encode(),
            str(expires).encode(),
            target.encode("utf-8", "surrogatepass"),
        )
    )
    return hmac.new(key.encode("utf-8", "surrogatepass"), message, hashlib.sha256).hexdigest()


def interstitial_url(
    page: LinkInterstitial, target: str, host_class: str, *, now: float | None = None
) -> str:
    """The click-through link to `target` (a host of `host_class`), signed now."""
    moment = time.time() if now is None else now
    expires = math.ceil((moment + page.expires_in) / 60) * 60
    signature = _sign(page.key.get_secret_value(), target, host_class, expires)
    query = f"to={quote(target, safe='')}&class={quote(host_class, safe='')}&exp={expires}"
    return f"{page.url}?{query}&sig={signature}"


def is_interstitial(page: LinkInterstitial | None, href: str) -> bool:
    """Is `href` a verified click-through link of `page` (so it is kept as it is)?"""
    if page is None or not href.startswith(page.url + "?"):
        return False
    return verified_destination(page, href.partition("?")[2]) is not None


def verified_destination(
    page: LinkInterstitial, query: str, *, now: float | None = None
) -> Destination | None:
    """The destination a click-through request's query asks for, when its signature
    verifies and has not expired; None otherwise (and when a parameter is repeated)."""
    params = _params(query)
    if params is None:
        return None
    target, host_class = params.get("to", ""), params.get("class", "")
    stamp, signature = params.get("exp", ""), params.get("sig", "")
    if not (target and _well_formed(stamp, signature)):
        return None
    if int(stamp) <= (time.time() if now is None else now):
        return None
    made = _sign(page.key.get_secret_value(), target, host_class, int(stamp))
    return Destination(target, host_class) if hmac.compare_digest(made, signature.lower()) else None


def _params(query: str) -> dict[str, str] | None:
    """Our parameters of a query, each once (None: unreadable, or one repeated)."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True)
    except (TypeError, ValueError):
        return None
    params: dict[str, str] = {}
    for name, value in pairs:
        if name in _NAMES:
            if name in params:
                return None
            params[name] = value
    return params


def _well_formed(stamp: str, signature: str) -> bool:
    return (
        len(signature) == _SIGNATURE_CHARS
        and signature.isascii()
        and stamp.isascii()
        and stamp.isdigit()
        and len(stamp) <= _MAX_EXPIRES_DIGITS
    )
