"""Parse a URL the way a browser will: WHATWG rules (ada-url) on a copy cleaned of
invisible characters. `\\` is `/` in http(s), tabs and newlines vanish, `//host` is
remote, hosts are IDNA-mapped and IPs canonical.

markdown-it (JS and Python) first runs a destination through its own normaliser
(mdurl, and punycode without the UTS-46 mapping), so the browser behind it requests
the host of *that* serialisation. Write the `c` of `https://example.com/` as U+217D
SMALL ROMAN NUMERAL ONE HUNDRED: a browser given the raw string maps it back to
`example.com`, markdown-it sends it to `example.xn--om-4xu`. Where the two readings
differ, `ParsedUrl.mdurl_host` says what the other one reaches.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import ada_url
from markdown_it.common.normalize_url import normalizeLink

__all__ = ["INVISIBLE", "ParsedUrl", "UrlParts", "parse_url", "split_href", "strict_references"]

# Zero-width, bidi controls, soft hyphen and Unicode Tags: invisible in a rendered
# URL, so they can hide where a link goes or smuggle data.
INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
# What mdurl and punycode can read otherwise than a browser: non-ASCII (punycoded
# unmapped), `\` (percent-encoded, so no longer a `/`), spaces and controls
# (encoded, not stripped). Any other character leaves the host and port as they were.
_MDURL_SENSITIVE = re.compile(r"[^!-~]|\\")
_BASE = "https://rendersafe.invalid/"
_BASE_HOST = "rendersafe.invalid"


@dataclass(frozen=True, slots=True)
class UrlParts:
    """The WHATWG-serialised parts of a URL, still percent-encoded."""

    href: str
    username: str
    password: str
    host: str
    port: str
    path: str
    query: str
    fragment: str


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    """A URL as a browser would resolve it; `href` is None when it cannot be parsed.

    `port` is "" for the scheme's default port (WHATWG drops `:443` on https).
    `mdurl_host` is None when markdown-it's serialisation reaches the same host and
    port; otherwise it is the host that serialisation reaches ("" if none).
    """

    raw: str
    href: str | None
    scheme: str
    host: str
    relative: bool
    invisible: bool
    parts: UrlParts | None
    port: str = ""
    mdurl_host: str | None = None


# A character reference that ends in `;`: one every reader decodes, whatever follows.
_ENDED_REFERENCE = re.compile(
    r"&(?:#[0-9]{1,8};|#[xX][0-9a-fA-F]{1,8};|[A-Za-z][A-Za-z0-9]{1,31};)"
)


def strict_references(text: str) -> str:
    """`text` with only its references that end in `;` decoded: a CommonMark
    renderer's reading of a destination, and a browser's of an attribute value where
    a legacy name without `;` is followed by a letter, a digit or `=` (`&ltx` stays)."""
    if "&" not in text:
        return text
    return _ENDED_REFERENCE.sub(lambda found: html.unescape(found.group()), text)


def parse_url(raw: str, *, decode_entities: bool = False) -> ParsedUrl:
    """Parse `raw` as a browser would, after removing invisible characters.

    With `decode_entities`, HTML character references are decoded first (for URLs
    read from raw source, where the browser decodes them in an attribute value).
    """
    text = html.unescape(raw) if decode_entities and "&" in raw else raw
    cleaned = INVISIBLE.sub("", text)
    invisible = cleaned != text
    resolved = _resolve(cleaned)
    if resolved is None:
        return ParsedUrl(raw, None, "", "", False, invisible, None)
    parts, relative = resolved
    host = _host_of(parts, relative)
    scheme = parts.href.partition(":")[0].lower()
    other = _mdurl_host(text, host, parts.port)
    return ParsedUrl(raw, parts.href, scheme, host, relative, invisible, parts, parts.port, other)


def _resolve(text: str) -> tuple[UrlParts, bool] | None:
    """The parts of `text` as a WHATWG href, and whether it was relative."""
    href = _whatwg_href(text)
    if href is not None:
        return split_href(href), False
    href = _whatwg_href(text, base=_BASE)
    if href is None:
        return None
    parts = split_href(href)
    return parts, parts.host == _BASE_HOST


def _host_of(parts: UrlParts, relative: bool) -> str:
    return "" if relative else parts.host.rstrip(".")


def _mdurl_host(text: str, host: str, port: str) -> str | None:
    """The host behind markdown-it's serialisation of `text`, if it is not `host:port`."""
    if not _MDURL_SENSITIVE.search(text):
        return None  # nothing mdurl or punycode would change
    try:
        serialised = normalizeLink(text)
    except (ValueError, UnicodeError):
        return ""  # markdown-it would fail to render it: trust neither reading
    resolved = _resolve(serialised)
    if resolved is None:
        return ""
    parts, relative = resolved
    other = _host_of(parts, relative)
    return None if (other, parts.port) == (host, port) else other


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
    username = password = host = port = ""
    path = rest
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        path = slash + path
        userinfo, at, hostport = authority.rpartition("@")
        if at:
            username, _, password = userinfo.partition(":")
        if hostport.startswith("["):  # IPv6 literal, maybe followed by a port
            host = hostport[: hostport.find("]") + 1]
            port = hostport[len(host) + 1 :]
        else:
            host, _, port = hostport.partition(":")
    return UrlParts(
        href=href,
        username=username,
        password=password,
        host=host,
        port=port,
        path=path,
        query=f"?{query}" if query else "",
        fragment=f"#{fragment}" if fragment else "",
    )
