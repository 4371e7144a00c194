"""Camo-style image proxy URLs: `{proxy}?url=<image URL>[&exp=<unix time>]&sig=<HMAC-SHA256>`.

The proxy verifies the signature before fetching, so a reply cannot make it fetch
a URL rendersafe did not approve. In the proxy itself:

    url = verified_target(policy.image_proxy, request.url.query, context=session.user_id)
    if url is None: return 403                       # forged, tampered, expired or elsewhere

What is signed is the image URL, the expiry (`ImageProxy.expires_in`) and a context
(the value of `ImageProxy.context_key` in the caller's context, e.g. the user the reply
was made for). The context is not in the URL: the proxy supplies it from the request,
so a URL signed for one user or conversation does not load for another (the CamoLeak
lesson: signed URLs made elsewhere were replayed into a victim's reply). Without an
expiry and a context the signature is HMAC-SHA256 of the URL alone, as before.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, quote

if TYPE_CHECKING:
    from .policy import ImageProxy

__all__ = ["expiry", "proxy_url", "sign", "verified_target", "verify_signature"]

# A signature is 64 hex digits; an expiry a Unix time in seconds (12 digits reach year 33658).
_SIGNATURE_CHARS = 64
_MAX_EXPIRES_DIGITS = 12
_DOMAIN = b"rendersafe-proxy-v2"  # sets the signed message with expiry or context apart


def sign(key: str, url: str, *, context: str | None = None, expires: int | None = None) -> str:
    """Hex HMAC-SHA256 under `key` of `url`, or of `url`, `expires` and `context`
    together when either is given."""
    message = _encode(url)
    if context or expires is not None:
        ctx = _encode(context or "")
        stamp = b"" if expires is None else str(expires).encode()
        message = b"\n".join((_DOMAIN, b"%d:%s" % (len(ctx), ctx), stamp, message))
    return hmac.new(_encode(key), message, hashlib.sha256).hexdigest()


def expiry(proxy: ImageProxy, now: float | None = None) -> int | None:
    """When a URL proxied now expires (Unix seconds, rounded up to the minute so that
    the same reply sanitised twice within a minute reads the same); None: never."""
    if proxy.expires_in is None:
        return None
    moment = time.time() if now is None else now
    return math.ceil((moment + proxy.expires_in) / 60) * 60


def proxy_url(
    proxy: ImageProxy,
    url: str,
    *,
    context: str | None = None,
    now: float | None = None,
    expires: int | None = None,
) -> str:
    """The proxied form of the (already normalised) image `url`, signed for `context`,
    expiring at `expires` (Unix seconds) or else as the proxy's `expires_in` says."""
    expires = expiry(proxy, now) if expires is None else expires
    signature = sign(proxy.key.get_secret_value(), url, context=context, expires=expires)
    query = f"{proxy.url_param}={quote(url, safe='')}"
    if expires is not None:
        query += f"&{proxy.expires_param}={expires}"
    return f"{proxy.url}?{query}&{proxy.sig_param}={signature}"


def verify_signature(
    proxy: ImageProxy,
    url: object,
    signature: object,
    *,
    context: str | None = None,
    expires: object = None,
    now: float | None = None,
) -> bool:
    """True when `signature` was made by `proxy_url` for `url` and `context`, and its
    expiry (`expires`, as read from the query) has not passed (constant-time compare).

    Never raises: a signature or expiry of the wrong type, length or alphabet is False.
    Under a proxy with `expires_in`, a URL without an expiry is False.
    """
    if not isinstance(url, str) or not isinstance(signature, str):
        return False
    if len(signature) != _SIGNATURE_CHARS or not signature.isascii():
        return False
    if context is not None and not isinstance(context, str):
        return False
    if expires is None and proxy.expires_in is not None:
        return False
    readable, stamp = _expires(expires)
    if not readable or (stamp is not None and stamp <= (time.time() if now is None else now)):
        return False
    made = sign(proxy.key.get_secret_value(), url, context=context, expires=stamp)
    return hmac.compare_digest(made, signature.lower())


def verified_target(
    proxy: ImageProxy, query: str, *, context: str | None = None, now: float | None = None
) -> str | None:
    """The image URL a proxied request's query string (`url=...&sig=...`) asks for,
    when its signature verifies for `context` and has not expired; None otherwise
    (also when a parameter is repeated: two readers could take different ones)."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True)
    except (TypeError, ValueError):
        return None
    names = (proxy.url_param, proxy.sig_param, proxy.expires_param)
    params: dict[str, str] = {}
    for name, value in pairs:
        if name in names:
            if name in params:
                return None
            params[name] = value
    target = params.get(proxy.url_param)
    signature = params.get(proxy.sig_param)
    expires = params.get(proxy.expires_param)
    if target and verify_signature(
        proxy, target, signature, context=context, expires=expires, now=now
    ):
        return target
    return None


def _expires(value: object) -> tuple[bool, int | None]:
    """Whether the expiry is one a signer writes, and its value (None: none given)."""
    if value is None:
        return True, None
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value) if len(value) <= _MAX_EXPIRES_DIGITS else -1
    if isinstance(value, int) and not isinstance(value, bool):
        return 0 <= value < 10**_MAX_EXPIRES_DIGITS, value
    return False, None


def _encode(text: str) -> bytes:
    # A lone surrogate (from a decoded JSON string) must sign, not raise.
    return text.encode("utf-8", "surrogatepass")
