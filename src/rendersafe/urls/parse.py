"""Parse a URL the way a browser will: WHATWG rules (ada-url) on a copy cleaned of
invisible characters. `\\` is `/` in http(s), tabs and newlines vanish, `//host` is
remote, hosts are IDNA-mapped and IPs canonical.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import ada_url

__all__ = ["INVISIBLE", "ParsedUrl", "UrlParts", "parse_url", "split_href"]

# Zero-width, bidi controls, soft hyphen and Unicode Tags: invisible in a rendered
# URL, so they can hide where a link goes or smuggle data.
INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
_BASE = "https://rendersafe.invalid/"
_BASE_HOST = "rendersafe.invalid"


@dataclass(frozen=True, slots=True)
class UrlParts:
    """The WHATWG-serialised parts of a URL, still percent-encoded."""

    href: str
    username: str
    password: str
    host: str
    path: str
    query: str
    fragment: str


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    """A URL as a browser would resolve it; `href` is None when it cannot be parsed."""

    raw: str
    href: str | None
    scheme: str
    host: str
    relative: bool
    invisible: bool
    parts: UrlParts | None


def parse_url(raw: str, *, decode_entities: bool = False) -> ParsedUrl:
    """Parse `raw` as a browser would, after removing invisible characters.

    With `decode_entities`, HTML character references are decoded first (for URLs
    read from raw source, where the browser decodes them in an attribute value).
    """
    text = html.unescape(raw) if decode_entities and "&" in raw else raw
    cleaned = INVISIBLE.sub("", text)
    invisible = cleaned != text
    href = _whatwg_href(cleaned)
    relative = href is None
    if relative:
        href = _whatwg_href(cleaned, base=_BASE)
    if href is None:
        return ParsedUrl(raw, None, "", "", False, invisible, None)
    parts = split_href(href)
    relative = relative and parts.host == _BASE_HOST
    host = "" if relative else parts.host.rstrip(".")
    scheme = href.partition(":")[0].lower()
    return ParsedUrl(raw, href, scheme, host, relative, invisible, parts)


def _whatwg_href(text: str, base: str | None = None) -> str | None:
    try:
        url = ada_url.URL(text, base=base) if base else ada_url.URL(text)
    except (ValueError, UnicodeError):
        return None
    return str(url.href)


def split_href(href: str) -> UrlParts:
    """Split a WHATWG-serialised href into its parts.

    A serialised href is already normalised (no backslashes, hosts lower-cased,
    reserved characters percent-encoded), so a plain split is exact. Reading one
    attribute from ada costs as much as parsing, so only `href` is read.
    """
    rest, _, fragment = href.partition("#")
    rest, _, query = rest.partition("?")
    _scheme, _, rest = rest.partition(":")
    username = password = host = ""
    path = rest
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        path = slash + path
        userinfo, at, hostport = authority.rpartition("@")
        if at:
            username, _, password = userinfo.partition(":")
        if hostport.startswith("["):  # IPv6 literal, maybe followed by a port
            host = hostport[: hostport.find("]") + 1]
        else:
            host = hostport.partition(":")[0]
    return UrlParts(
        href=href,
        username=username,
        password=password,
        host=host,
        path=path,
        query=f"?{query}" if query else "",
        fragment=f"#{fragment}" if fragment else "",
    )
