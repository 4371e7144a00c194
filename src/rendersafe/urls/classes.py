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

__all__ = [
    "SEALED_ENTRIES",
    "SEALED_EXCEPTIONS",
    "SEALED_SERVICES",
    "PathTable",
    "parameters_read_elsewhere",
    "sealed_parts",
    "sealed_service",
]

SEALED_SERVICES = entries("sealed_services.txt")
_SEALED_SCHEMES = ("https://", "http://")


class PathTable:
    """Entries `host`, `host/path` and `*.domain[/path]`: does one cover a host and path?

    A path entry covers its path and what is below it, whole segments ("" covers the
    whole host); `prefix=True` matches any prefix, whole segment or not (exceptions)."""

    __slots__ = ("_exact", "_prefix", "_wild")

    def __init__(self, entries: list[str], *, prefix: bool = False) -> None:
        exact: dict[str, list[str]] = defaultdict(list)
        wild: dict[str, list[str]] = defaultdict(list)
        for entry in entries:
            host, slash, path = entry.partition("/")
            table = wild if host.startswith("*.") else exact
            table[host.removeprefix("*.")].append((slash + path).lower())
        self._exact = {h: tuple(p) for h, p in exact.items()}
        self._wild = {h: tuple(p) for h, p in wild.items()}
        self._prefix = prefix

    def prefixes(self, host: str) -> tuple[str, ...]:
        """The paths the entries for `host` (exact, or a wildcard above it) name."""
        found = self._exact.get(host, ())
        labels = host.split(".")
        for i in range(1, len(labels) - 1):
            found += self._wild.get(".".join(labels[i:]), ())
        return found

    def covers(self, host: str, path: str) -> bool:
        """Does an entry cover `path` (lowercase) on `host`?"""
        if self._prefix:
            return any(path.startswith(p) for p in self.prefixes(host))
        return any(_under(path, p) for p in self.prefixes(host))


SEALED_ENTRIES = PathTable([e for e, _ in SEALED_SERVICES if not e.startswith("-")])
SEALED_EXCEPTIONS = PathTable(
    [e[1:] for e, _ in SEALED_SERVICES if e.startswith("-") and "?" not in e], prefix=True
)


def _parameter_exceptions() -> dict[str, list[tuple[str, str]]]:
    """Exceptions by a query parameter: host -> [(path prefix, parameter or "*")]."""
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for entry, _why in SEALED_SERVICES:
        if entry.startswith("-") and "?" in entry:
            where, _, parameter = entry[1:].partition("?")
            host, slash, path = where.partition("/")
            found[host].append(((slash + path).lower(), parameter))
    return dict(found)


_BY_PARAMETER = _parameter_exceptions()


def parameters_read_elsewhere(site: str) -> frozenset[str]:
    """The query parameters an exception names for any host of the registrable domain
    `site` (`*`: any query at all): a party other than the site reads them."""
    return _SITE_PARAMETERS.get(site, frozenset())


def _by_site() -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for host, rules in _BY_PARAMETER.items():
        labels = host.split(".")
        # Every suffix of two labels or more: the table is keyed by registrable domain,
        # which this module cannot compute (urls.hosts imports it).
        for start in range(len(labels) - 1):
            found[".".join(labels[start:])].update(p.lower() for _, p in rules)
    return {site: frozenset(names) for site, names in found.items()}


_SITE_PARAMETERS = _by_site()


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
    if parts.password or not SEALED_ENTRIES.prefixes(parts.host):
        return False
    path = (parts.path or "/").lower()
    if SEALED_EXCEPTIONS.covers(parts.host, path):
        return False
    # A `!bang` sends the search on to another site, the query with it.
    if "!" in unquote_plus(parts.query) or _parameter_excepted(parts.host, path, parts.query):
        return False
    return SEALED_ENTRIES.covers(parts.host, path)


def _parameter_excepted(host: str, path: str, query: str) -> bool:
    """Does a `-host/path?param` exception cover the URL: an affiliate's tag, a query a
    page's ads would read?"""
    rules = _BY_PARAMETER.get(host)
    if not rules or not query.strip("?"):
        return False
    names = {pair.partition("=")[0].lower() for pair in query.lstrip("?").split("&")}
    return any(
        path.startswith(prefix) and (parameter == "*" or parameter.lower() in names)
        for prefix, parameter in rules
    )


def _under(path: str, prefix: str) -> bool:
    """Is `path` the entry's path or below it (whole segments)? "" is the whole host."""
    if not prefix:
        return True
    return path.startswith(prefix) and path[len(prefix) : len(prefix) + 1] in ("", "/")
