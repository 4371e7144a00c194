"""Host names: browser-style normalisation, public-suffix facts and allowlist matching.

The public suffix list comes from the snapshot bundled with tldextract, with the
private section on (so `user.github.io` is its own site). Nothing here touches the
network or the disk cache.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable
from typing import TYPE_CHECKING

import ada_url
import tldextract

from . import classes
from .datafiles import entries

if TYPE_CHECKING:
    from .parse import ParsedUrl

__all__ = [
    "SHARED_TENANT_HOSTS",
    "HostSet",
    "normalise_host",
    "private_suffix",
    "registrable_domain",
    "sealed_service",
    "split_host",
    "split_port",
]

# Hosts where anyone can publish content under a path, so allowing the host admits
# every tenant (EchoLeak, the Bard Apps Script leak, ChatGPT's Azure Blob bypass,
# CamoLeak). The list and each entry's reason: data/shared_tenant_hosts.txt.
SHARED_TENANT_HOSTS = frozenset(host for host, _why in entries("shared_tenant_hosts.txt"))


@functools.cache
def _extractor() -> tldextract.TLDExtract:
    # No URL list and no cache dir: the bundled snapshot is the only source.
    return tldextract.TLDExtract(
        suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True
    )


def warm_up() -> None:
    """Build the suffix trie now, so the first reply does not pay for it."""
    _extractor()("example.com")


def normalise_host(raw: str) -> str | None:
    """Return the host as a browser would send it (lowercase, IDNA, no trailing dot).

    Returns None when a browser would refuse the host.
    """
    try:
        host = ada_url.URL(f"http://{raw}/").hostname
    except ValueError:
        return None
    return str(host).rstrip(".") or None


def is_ip_literal(host: str) -> bool:
    """True for an IPv4 address or a bracketed IPv6 address (as WHATWG prints them)."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def split_host(host: str) -> tuple[str, str, str]:
    """Split a normalised host into (subdomain, registrable domain, public suffix).

    The registrable domain is "" when the host is itself a public suffix, an IP
    literal or a name under no known suffix.
    """
    if is_ip_literal(host):
        return "", "", ""
    parts = _extractor()(host)
    return parts.subdomain, parts.top_domain_under_public_suffix, parts.suffix


def private_suffix(host: str) -> bool:
    """Is `host` under a suffix of the PSL's private section (`github.io`, `vercel.app`,
    `s3.amazonaws.com`): a name anyone can register a subdomain of?"""
    if is_ip_literal(host):
        return False
    return bool(_extractor()(host).is_private)


def registrable_domain(host: str) -> str:
    """The registrable domain (eTLD+1) of a normalised host, or "" if it has none."""
    return split_host(host)[1]


def split_port(entry: str) -> tuple[str, str]:
    """Split an allowlist entry `host` or `host:port` into (host, port); port "" if none."""
    host, sep, port = entry.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or host.endswith(":"):
        return entry, ""
    return host, port


class HostSet:
    """A compiled allowlist: exact hosts, plus registrable domains that admit their site.

    An entry that is a registrable domain (`example.com`) matches itself and every
    subdomain *of the same site*: `windows.net` admits `www.windows.net`, not
    `tenant.blob.core.windows.net`, whose registrable domain is its own (a public
    suffix lies between). With `cross_suffixes` (for blocklists, where matching more
    is the safe side) it matches every subdomain. Any other entry (`cdn.example.com`,
    an IP) matches only itself. An entry `host:port` matches that host at that port
    only; a bare entry matches the scheme's default port. Entries must already be
    validated by the policy (no public suffixes).
    """

    __slots__ = ("_cross", "_ports")

    def __init__(self, entries: Iterable[str], *, cross_suffixes: bool = False) -> None:
        by_port: dict[str, set[str]] = {}
        for entry in entries:
            host, port = split_port(entry)
            by_port.setdefault(port, set()).add(host)
        self._ports = {port: _Site(hosts) for port, hosts in by_port.items()}
        self._cross = cross_suffixes

    def __bool__(self) -> bool:
        return bool(self._ports)

    def __contains__(self, host: object) -> bool:
        return isinstance(host, str) and self.admits(host)

    def admits(self, host: str, port: str = "") -> bool:
        """Does an entry match `host` at `port` ("" for the default port)?"""
        site = self._ports.get(port)
        return bool(host) and site is not None and site.admits(host, cross=self._cross)

    def admits_host(self, host: str) -> bool:
        """Does an entry match `host` at any port?"""
        return any(site.admits(host, cross=self._cross) for site in self._ports.values())

    def names(self, host: str, port: str = "") -> bool:
        """Is `host` itself an entry at `port` (not only under one)?"""
        site = self._ports.get(port)
        return site is not None and site.names(host)


class _Site:
    """The hosts of one port: exact entries, and domains that admit their subdomains."""

    __slots__ = ("_domains", "_exact")

    def __init__(self, hosts: Iterable[str]) -> None:
        self._exact = frozenset(hosts)
        self._domains = frozenset(h for h in self._exact if registrable_domain(h) == h)

    def names(self, host: str) -> bool:
        return host in self._exact

    def admits(self, host: str, *, cross: bool) -> bool:
        if host in self._exact:
            return True
        if not self._domains:
            return False
        labels = host.split(".")
        for i in range(1, len(labels)):
            domain = ".".join(labels[i:])
            if domain in self._domains:
                # Only now pay for the suffix lookup: is `host` still on the entry's site?
                return cross or registrable_domain(host) == domain
        return False


def sealed_service(url: ParsedUrl) -> bool:
    """True when `url`'s host is a sealed first-party service (its URLs reach only that
    service: search pages, maps, the Azure portal, diagram editors, ...) and its path is
    not one of that service's redirect or user-content endpoints.

    The list, with a reason for each entry: data/sealed_services.txt (`classes`)."""
    return classes.sealed_service(url)
