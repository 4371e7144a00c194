"""Camo-style image proxy URLs: `{proxy}?url=<image URL>&sig=<HMAC-SHA256>`.

The proxy verifies the signature before fetching, so a reply cannot make it fetch
a URL rendersafe did not approve. Use `verify_signature` in the proxy itself.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from .policy import ImageProxy

__all__ = ["proxy_url", "sign", "verify_signature"]


def sign(key: str, url: str) -> str:
    """Hex HMAC-SHA256 of `url` under `key`."""
    return hmac.new(key.encode(), url.encode(), hashlib.sha256).hexdigest()


def proxy_url(proxy: ImageProxy, url: str) -> str:
    """The proxied form of the (already normalised) image `url`."""
    signature = sign(proxy.key.get_secret_value(), url)
    return f"{proxy.url}?{proxy.url_param}={quote(url, safe='')}&{proxy.sig_param}={signature}"


def verify_signature(proxy: ImageProxy, url: str, signature: str) -> bool:
    """True when `signature` was made by `proxy_url` for `url` (constant-time compare)."""
    return hmac.compare_digest(sign(proxy.key.get_secret_value(), url), signature)
