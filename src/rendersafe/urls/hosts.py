"""Host names: browser-style normalisation, public-suffix facts and allowlist matching.

The public suffix list comes from the snapshot bundled with tldextract, with the
private section on (so `user.github.io` is its own site). Nothing here touches the
network or the disk cache.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

import ada_url
import tldextract

__all__ = [
    "SHARED_TENANT_HOSTS",
    "HostSet",
    "normalise_host",
    "registrable_domain",
    "split_host",
]

# Hosts where anyone can publish content under a path, so allowing the host admits
# every tenant (EchoLeak, the Bard Apps Script leak, ChatGPT's Azure Blob bypass, CamoLeak).
SHARED_TENANT_HOSTS = frozenset(
    {
        "script.google.com",
        "docs.google.com",
        "drive.google.com",
        "sites.google.com",
        "storage.googleapis.com",
        "lh3.googleusercontent.com",
        "raw.githubusercontent.com",
        "gist.githubusercontent.com",
        "camo.githubusercontent.com",
        "user-images.githubusercontent.com",
        "objects.githubusercontent.com",
        "cdn.jsdelivr.net",
        "unpkg.com",
        "i.imgur.com",
        "imgur.com",
        "cdn.discordapp.com",
        "media.discordapp.net",
        "dl.dropboxusercontent.com",
        "files.slack.com",
        "eu-prod.asyncgw.teams.microsoft.com",
        "s3.amazonaws.com",
    }
)


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


def registrable_domain(host: str) -> str:
    """The registrable domain (eTLD+1) of a normalised host, or "" if it has none."""
    return split_host(host)[1]


class HostSet:
    """A compiled allowlist: exact hosts, plus registrable domains that admit subdomains.

    An entry that is a registrable domain (`example.com`) matches itself and every
    subdomain; any other entry (`cdn.example.com`, an IP) matches only itself.
    Entries must already be validated by the policy (no public suffixes).
    """

    __slots__ = ("_domains", "_exact")

    def __init__(self, entries: Iterable[str]) -> None:
        self._exact = frozenset(entries)
        self._domains = frozenset(e for e in self._exact if registrable_domain(e) == e)

    def __bool__(self) -> bool:
        return bool(self._exact)

    def __contains__(self, host: object) -> bool:
        if not isinstance(host, str) or not host:
            return False
        if host in self._exact:
            return True
        if not self._domains:
            return False
        labels = host.split(".")
        return any(".".join(labels[i:]) in self._domains for i in range(1, len(labels)))
