"""The URLs inside a URL: what a service fetches or sends the user on to.

    nested_urls(parse_url("https://portal.azure.com/#create/Microsoft.Template/uri/"
                          "https%3A%2F%2Ftemplates.example.net%2Farm%2F005841.json"))
    # [ParsedUrl("https://templates.example.net/arm/005841.json")]

A sealed service's URL reaches only the service, but one it carries may not: a
"Deploy to Azure" link makes the portal fetch the template it names, a sign-in page
sends the browser on to its `redirect_uri`, a viewer loads the document in `?url=`.
Each URL in the path, query or fragment (percent-decoded up to `DECODE_TIMES` times)
is its own request, to its own observer.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

from .classes import parameters_read_elsewhere
from .hosts import registrable_domain
from .parse import ParsedUrl, parse_url

__all__ = [
    "DECODE_TIMES",
    "credited_on_site",
    "credits_another",
    "nested_urls",
    "redirects_elsewhere",
    "sends_on",
]

DECODE_TIMES = 3
_MAX_NESTED = 8
_URL = re.compile(r"https?://[^\s\"'<>/?#]+[^\s\"'<>]*", re.IGNORECASE)


def nested_urls(url: ParsedUrl) -> list[ParsedUrl]:
    """The http(s) URLs written inside `url`'s path, query or fragment."""
    parts = url.parts
    if parts is None:
        return []
    rest = parts.path + parts.query + parts.fragment
    if "//" not in rest and "%2" not in rest:
        return []
    found: dict[str, ParsedUrl] = {}
    text = rest
    for _ in range(DECODE_TIMES + 1):
        for match in _URL.finditer(text):
            nested = parse_url(match.group())
            if nested.href and nested.host and nested.href not in found:
                found[nested.href] = nested
        decoded = unquote(text)
        if decoded == text or len(found) >= _MAX_NESTED:
            break
        text = decoded
    return list(found.values())[:_MAX_NESTED]


# What a browser or a redirecting server may read as the start of another URL: `//`
# (and `\\`, `/\\`, which browsers read as `//`), or a scheme (`https:/evil`).
_ONWARD = re.compile(r"//|[a-z][a-z0-9+.-]*:/", re.IGNORECASE)
_HOST_SHAPED = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+", re.IGNORECASE)
_RESERVED = frozenset({"example", "test", "invalid", "localhost", "local", "internal", "lan"})
_DOTS = str.maketrans(dict.fromkeys("\u3002\uff0e\uff61", "."))
_INVISIBLE = str.maketrans({"\t": None, "\n": None, "\r": None, "\\": "/"})


def sends_on(url: ParsedUrl) -> bool:
    """Might `url` send the user on to another site, whatever its path, query or
    fragment spells: a URL or a `//`-relative one in any spelling a browser or a
    redirecting server reads (percent-escapes, `\\` for `/`, tabs and newlines
    dropped, `https:/host`), or a name of another registrable domain (`?next=evil.com`)?"""
    text = _where_it_goes(url)
    if text is None or url.parts is None:
        return False
    if _onward(text, url.host):
        return True
    own = registrable_domain(url.host) or url.host
    path, _, file = url.parts.path.rpartition("/")
    if _is_file(_decoded(file)):
        text = _decoded(path + url.parts.query + url.parts.fragment)
    return any(_elsewhere(name.lower(), own) for name in _HOST_SHAPED.findall(text))


# File types whose extension is also a country's domain (`setup.py`, `README.md`,
# `run.sh`, `main.tf`, `Makefile.am`): a path that ends in one names a file, not a site.
# One dot only: `evil.com.py` is a site under `com.py`.
_FILE_TYPES = frozenset(
    [
        "py",
        "md",
        "sh",
        "pl",
        "pm",
        "rs",
        "cc",
        "mk",
        "in",
        "am",
        "ac",
        "so",
        "ml",
        "mm",
        "zip",
        "mov",
        "ps",
        "ai",
        "tf",
        "re",
        "st",
        "ms",
        "gd",
        "gs",
        "cr",
        "cl",
        "do",
        "pt",
        "nu",
    ]
)


def _is_file(segment: str) -> bool:
    """Is the last path segment `segment` a file's name (one dot, a file type's
    extension)?"""
    name, dot, extension = segment.partition(".")
    return bool(dot and name) and extension.lower() in _FILE_TYPES


def _where_it_goes(url: ParsedUrl) -> str | None:
    """`url`'s path, query and fragment as a redirect reads them (`_decoded`); None
    for a URL that goes nowhere on (not http(s): a draft goes where its recipients say)."""
    parts = url.parts
    if parts is None or url.scheme not in ("http", "https"):
        return None
    return _decoded(parts.path + parts.query + parts.fragment)


def _onward(text: str, host: str) -> bool:
    """Does `text` (decoded) hold the start of another URL, besides `url`'s own?"""
    return _ONWARD.search(text.replace("://" + host, "")) is not None


# A parameter's value, where a redirect reads its target (`?url=evil.example/c/x`).
_VALUE = re.compile(r"[?&#;=]\s*([a-z0-9-]+(?:\.[a-z0-9-]+)+)", re.IGNORECASE)


def redirects_elsewhere(url: ParsedUrl) -> bool:
    """Might `url` send the user on to another site as a redirect reads it: a URL or a
    `//`-relative one anywhere in it (`sends_on`'s spellings), or a parameter whose
    value starts with another site's name (an exit page's `?URL=evil.example/c/x`)? A
    file's name in a path (`pangu.py`, `awsm.fish`) is not read as a site."""
    text = _where_it_goes(url)
    if text is None or url.parts is None:
        return False
    if _onward(text, url.host):
        return True
    own = registrable_domain(url.host) or url.host
    query = _decoded(url.parts.query + url.parts.fragment)
    return any(_elsewhere(m.group(1).lower(), own) for m in _VALUE.finditer(query))


# Parameters that credit a visit to someone other than the site (a campaign's, an
# affiliate's, a referrer's, an ad's click): they exist for that party's reports. A name
# ending in `_` stands for every name it begins.
_CREDITS = frozenset(
    {
        "utm_",
        "ref",
        "ref_",
        "referrer",
        "referral",
        "refcode",
        "refid",
        "aff",
        "aff_",
        "affid",
        "affiliate",
        "affiliate_",
        "partner",
        "partner_",
        "partnerid",
        "campaign",
        "campaign_",
        "ct",
        "cid",
        "ocid",
        "tag",
        "src",
        "clickid",
        "irclickid",
        "gclid",
        "fbclid",
        "msclkid",
        "mc_cid",
        "mc_eid",
    }
)


def credits_another(url: ParsedUrl) -> bool:
    """Does `url` carry a parameter that credits the visit to another party (`?ref=`,
    `utm_source=`, an affiliate's `tag=`), whose reports then say what it holds?"""
    parts = url.parts
    if parts is None or url.scheme not in ("http", "https") or not (parts.query or parts.fragment):
        return False
    for item in re.split(r"[?&;#]", _decoded(parts.query + parts.fragment)):
        name = item.partition("=")[0].strip().lower()
        if name in _CREDITS or any(name.startswith(c) for c in _CREDITS if c[-1] == "_"):
            return True
    return False


def credited_on_site(url: ParsedUrl) -> bool:
    """Does `url` name a parameter that data/sealed_services.txt's exceptions name for any
    host of its site (an Associates `tag`, a Booking.com `aid` or `label`, an eBay
    `customid`): a partner reads it in a report, whatever page of the site it is on?"""
    parts = url.parts
    if parts is None or not parts.query.strip("?"):
        return False
    read = parameters_read_elsewhere(registrable_domain(parts.host) or parts.host)
    if not read:
        return False
    names = {pair.partition("=")[0].strip().lower() for pair in _decoded(parts.query).split("&")}
    return "*" in read or not read.isdisjoint(n.lstrip("?") for n in names)


def _decoded(text: str) -> str:
    """`text` percent-decoded as a redirect may (up to `DECODE_TIMES` times), then as a
    browser reads a host (UTS #46: full-width letters, ideographic full stops)."""
    for _ in range(DECODE_TIMES + 1):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    return unicodedata.normalize("NFKC", text.translate(_INVISIBLE)).translate(_DOTS)


def _elsewhere(name: str, own: str) -> bool:
    """Is the host-shaped `name` another site than `own` (a name under a suffix the
    list does not hold counts only under the names reserved for tests and networks; an
    IPv4 address is a host of its own)?"""
    site = registrable_domain(name)
    if site:
        return site != own
    return name.rpartition(".")[2] in _RESERVED or _ipv4(name)


def _ipv4(name: str) -> bool:
    parts = name.split(".")
    return len(parts) == 4 and all(p.isdigit() and int(p) <= 255 for p in parts)
