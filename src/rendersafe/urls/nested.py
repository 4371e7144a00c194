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
from urllib.parse import unquote

from .parse import ParsedUrl, parse_url

__all__ = ["DECODE_TIMES", "nested_urls"]

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
