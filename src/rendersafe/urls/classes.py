"""Host classes: how far the data in a URL can travel beyond the service it names.

    operator-trusted  the policy's `trusted_link_hosts`: links kept whatever they carry
                      (decided in `judge`)
    sealed service    a first-party service whose URLs reach only that service (search
                      pages, maps, the Azure portal, diagram editors, meeting links, ...):
                      IDs, queries and diagram payloads are expected and kept there
    shared tenant     anyone can publish there (`hosts.SHARED_TENANT_HOSTS`): every check
    unknown           every check

    >>> sealed_service(parse_url("https://www.google.com/search?q=a+long+question"))
    True
    >>> sealed_service(parse_url("https://www.google.com/url?q=https://evil.example/"))
    False

The sealed services, and their redirect and user-content endpoints that are not, are
data: data/sealed_services.txt, each entry with its reason.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING
from urllib.parse import unquote_plus

from .datafiles import entries

if TYPE_CHECKING:
    from .parse import ParsedUrl, UrlParts

__all__ = ["SEALED_SERVICES", "sealed_parts", "sealed_service"]

SEALED_SERVICES = entries("sealed_services.txt")
_SEALED_SCHEMES = ("https://", "http://")


def _table(wanted: bool) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(exact hosts, wildcard domains) -> lowercase path prefixes, for entries or exceptions."""
    exact: dict[str, list[str]] = defaultdict(list)
    wild: dict[str, list[str]] = defaultdict(list)
    for entry, _why in SEALED_SERVICES:
        if entry.startswith("-") == wanted:
            continue
        host, slash, path = entry.lstrip("-").partition("/")
        table = wild if host.startswith("*.") else exact
        table[host.removeprefix("*.")].append((slash + path).lower())
    return (
        {h: tuple(p) for h, p in exact.items()},
        {h: tuple(p) for h, p in wild.items()},
    )


_ENTRIES = _table(True)
_EXCEPTIONS = _table(False)


def sealed_service(url: ParsedUrl) -> bool:
    """True when `url` reaches a sealed first-party service, and not one of its redirect
    or user-content endpoints (data/sealed_services.txt).

    Only an absolute http(s) URL both readings of which reach the same host, at its
    default port and without userinfo, can be one."""
    if url.parts is None or url.relative or url.mdurl_host is not None:
        return False
    return sealed_parts(url.parts)


def sealed_parts(parts: UrlParts) -> bool:
    """`sealed_service` for the parts of a URL a browser resolved."""
    if not parts.href.startswith(_SEALED_SCHEMES) or parts.port or parts.username:
        return False
    if parts.password or not _prefixes(_ENTRIES, parts.host):
        return False
    path = (parts.path or "/").lower()
    if any(path.startswith(p) for p in _prefixes(_EXCEPTIONS, parts.host)):
        return False
    # A `!bang` sends the search on to another site, the query with it.
    if "!" in unquote_plus(parts.query):
        return False
    return any(_under(path, prefix) for prefix in _prefixes(_ENTRIES, parts.host))


def _prefixes(table: tuple[dict[str, tuple[str, ...]], ...], host: str) -> tuple[str, ...]:
    exact, wild = table
    found = exact.get(host, ())
    labels = host.split(".")
    for i in range(1, len(labels) - 1):
        found += wild.get(".".join(labels[i:]), ())
    return found


def _under(path: str, prefix: str) -> bool:
    """Is `path` the entry's path or below it (whole segments)? "" is the whole host."""
    if not prefix:
        return True
    return path.startswith(prefix) and path[len(prefix) : len(prefix) + 1] in ("", "/")
