"""Who can read a request to a URL: its host class, and the observer it reaches.

    observer_of(parse_url("https://alice.github.io/p?x=1"))
    # Observer(cls=HostClass.TENANT, key="alice.github.io")

    own         a relative URL (the chat's own origin), the user's own machine (loopback)
                and network (a private or link-local address; a name under a suffix
                reserved for private networks, `.internal`, `.local`, `.home.arpa`:
                nobody outside the user's network receives those requests)
    trusted     the policy's `trusted_link_hosts` (decided by the judge, which has them)
    sealed      a first-party service only the service itself reads (data/sealed_services.txt)
    observable  a host whose purpose lets someone else read the request: shorteners,
                forms, bins, analytics collectors, pastes, redirects, uploads, fetchers
                (data/observable_hosts.txt)
    tenant      a host anyone can claim a name on and then read: every subdomain of a
                private suffix of the public suffix list (`alice.github.io`), and a code
                host's repository pages (`github.com/<owner>/...`: its traffic insights),
                and a person's directory on a shared web server (`/~name`,
                `people.<site>/<name>`: whoever publishes there reads its logs)
    unknown     anything else, read as observable: whoever runs it

The observer is who reads the request: the registrable domain (a tenant's own name under
a private suffix, a repository owner on a code host). Its ports are its own, not other
observers: whoever runs a host listens on any of them. What the model sends to one
observer adds up, across URLs and replies.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass
from enum import StrEnum
from importlib.resources import files
from typing import TYPE_CHECKING
from urllib.parse import unquote

from .classes import PathTable, sealed_service
from .datafiles import entries
from .hosts import is_ip_literal, private_suffix, registrable_domain, split_host

if TYPE_CHECKING:
    from .parse import ParsedUrl

__all__ = ["CODE_HOSTS", "HostClass", "Observer", "observer_of", "private_name", "site_of"]


class HostClass(StrEnum):
    """Who, besides the user, can read a request to a host."""

    OWN = "own"
    TRUSTED = "trusted"
    SEALED = "sealed"
    OBSERVABLE = "observable"
    TENANT = "tenant"
    UNKNOWN = "unknown"


# Hosts whose pages below the first path segment belong to an account that reads its
# visitors' paths (a repository's traffic insights, a project's README images), and the
# hosts that serve an account's files under its name (the same owner reads them).
CODE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"})
_OWNED_FILES = frozenset(
    {
        "raw.githubusercontent.com",
        "gist.githubusercontent.com",
        "gist.github.com",
        "res.cloudinary.com",  # /<cloud name>/image/fetch/<any URL>: the account's
        "ik.imagekit.io",  # /<account>/...: the account's origin and its logs
        "storage.googleapis.com",  # /<bucket>/...: the bucket owner's access logs
        "storage.cloud.google.com",
        "s3.amazonaws.com",  # path-style S3: the bucket owner's server access logs
        # /<tenant>/...: a tenant's sign-in sends its users (and what the URL carries)
        # to the identity provider the tenant federates with.
        "login.microsoftonline.com",
    }
)
# Consoles that name a global bucket below a fixed path: the bucket owner's access logs
# keep the console's requests (its prefix= included). Keyed as path-style S3 and GCS.
_BUCKET_PATHS: dict[str, tuple[str, str]] = {
    "s3.console.aws.amazon.com": ("/s3/buckets/", "s3.amazonaws.com"),
    "console.aws.amazon.com": ("/s3/buckets/", "s3.amazonaws.com"),
    "console.cloud.google.com": ("/storage/browser/", "storage.googleapis.com"),
}
_TENANT_SECTION = "# tenant suffixes"
# Top-level names no registry delegates (RFC 6761, 6762, 8375; ICANN's 2024 `.internal`
# reservation): they resolve only inside the user's own network.
# First labels of hosts that serve people's own pages (a university's, a company's).
_HOME_HOSTS = frozenset(
    {"people", "homes", "homepages", "personal", "staff", "students", "faculty", "www-personal"}
)
# First path segments under which a university's web server keeps its people's own
# directories (`www.andrew.cmu.edu/user/jdoe/`): the person publishes there, scripts
# included, and reads its logs.
_HOME_SEGMENTS = frozenset(
    {"user", "users", "people", "homes", "home", "staff", "faculty", "students", "u"}
    # ... and its groups', classes' and student organisations' (`web.stanford.edu/group/
    # <name>`, `/class/<name>`, `www.andrew.cmu.edu/org/<name>`): their members publish.
    | {"group", "groups", "class", "org", "orgs", "lab", "labs"}
)
# A university's hosts of many sites, one per first path segment (WordPress networks:
# `sites.duke.edu/<site>`, `wp.nyu.edu`, `u.osu.edu`, `blogs.ucl.ac.uk`; people's pages:
# `scholar.harvard.edu/<name>`): each site's owner publishes, scripts included.
_ACADEMIC_SITE_HOSTS = frozenset({"sites", "blogs", "wp", "u", "scholar", "websites"})
# Paths on well-known hosts under which the next segment is someone else's publication:
# a package's own HTML on CRAN (its vignettes run the author's scripts), a custom GPT
# (its builder's actions are sent what the user asks it).
_PUBLISHED_UNDER: dict[str, tuple[str, ...]] = {
    "cran.r-project.org": ("/web/packages/",),
    "chatgpt.com": ("/g/",),
    "chat.openai.com": ("/g/",),
}
_PRIVATE_SUFFIXES = frozenset({"localhost", "local", "internal", "lan", "localdomain"})
# A home's or an office's own addresses (RFC 1918, link-local, unique local). Not the
# documentation ranges Python also calls private: they stand for anyone's address.
_OWN_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "169.254.0.0/16",
        "fc00::/7",
        "fe80::/10",
    )
)


def _tables() -> tuple[PathTable, PathTable]:
    """The observable entries, and the tenant suffixes (the file's last section)."""
    listed = entries("observable_hosts.txt")
    text = (files(__package__).joinpath("data", "observable_hosts.txt")).read_text("utf-8")
    tenant_lines = text.partition(f"\n{_TENANT_SECTION}\n")[2].splitlines()
    tenants = {line.split()[0] for line in tenant_lines if line.strip() and line[0] != "#"}
    observable = [entry for entry, _why in listed if entry not in tenants]
    return PathTable(observable), PathTable(sorted(tenants))


_OBSERVABLE, _TENANTS = _tables()


@dataclass(frozen=True, slots=True)
class Observer:
    """The class of a URL's host, and who reads requests to it (`key`)."""

    cls: HostClass
    key: str

    @property
    def reads_data(self) -> bool:
        """Can someone other than the user and the service read what the URL carries?"""
        return self.cls in (HostClass.OBSERVABLE, HostClass.TENANT, HostClass.UNKNOWN)


@functools.lru_cache(maxsize=8192)
def observer_of(url: ParsedUrl) -> Observer:
    """The host class of `url` and who reads it (trusted hosts are the judge's to say)."""
    parts = url.parts
    if url.scheme == "mailto" and parts is not None:
        return _recipients(parts.path, parts.query)
    if url.relative or parts is None or not url.host or _own_network(url.host):
        return Observer(HostClass.OWN, "")
    host = url.host
    path = (parts.path or "/").lower()
    owner = path.split("/", 2)[1] if path.count("/") >= 2 else ""
    bucket = _bucket(host, path)
    if bucket:
        return Observer(HostClass.TENANT, bucket)
    if sealed_service(url):
        return Observer(HostClass.SEALED, site_of(host))
    account = _account(host, owner, path)
    if account:
        found = Observer(HostClass.TENANT, account)
    elif _OBSERVABLE.covers(host, path):
        found = Observer(HostClass.OBSERVABLE, site_of(host))
    elif private_suffix(host):
        found = Observer(HostClass.TENANT, site_of(host))
    elif _TENANTS.covers(host, path):  # a tenant host the suffix list does not know
        found = Observer(HostClass.TENANT, host)
    elif host.removeprefix("www.") in CODE_HOSTS and owner:  # not `support.github.com`
        found = Observer(HostClass.TENANT, f"{site_of(host)}/{owner}")
    else:
        found = Observer(HostClass.UNKNOWN, site_of(host))
    return found


def _account(host: str, owner: str, path: str) -> str:
    """The account that reads what is under it, as its observer's key: one whose files
    `host` serves under its name (`owner`), or a person's directory; else ""."""
    if host in _OWNED_FILES and owner:
        return f"{host}/{owner}"
    home = _home_directory(host, path)
    return f"{host}/{home}" if home else ""


def _home_directory(host: str, path: str) -> str:
    """The person whose directory on a shared web server `path` (lower case) is in,
    who publishes there and reads its logs: `/~name` on any host, the first segment on
    a host of people's pages (`people.csail.mit.edu/jdoe`); else ""."""
    segment = path.split("/", 2)[1] if path.startswith("/") and len(path) > 1 else ""
    if segment.startswith(("~", "%7e")):
        return segment
    label, _, below = host.partition(".")
    homes = label in _HOME_HOSTS and below != "" and site_of(host) != host
    if homes or (label in _ACADEMIC_SITE_HOSTS and site_of(host) != host and _academic(host)):
        return segment
    for prefix in _PUBLISHED_UNDER.get(host, ()):
        if path.startswith(prefix):
            return prefix[1:] + path[len(prefix) :].split("/", 1)[0]
    name = path.split("/", 3)[2] if path.count("/") >= 2 else ""
    if segment in _HOME_SEGMENTS and name and _academic(host):
        return f"{segment}/{name}"
    return ""


def _academic(host: str) -> bool:
    """Is `host` a university's (under `.edu`, `ac.<country>` or `edu.<country>`)?"""
    suffix = split_host(host)[2]
    return suffix == "edu" or suffix.startswith(("ac.", "edu.")) or ".edu." in f".{suffix}."


def _bucket(host: str, path: str) -> str:
    """The bucket a console URL browses, as the bucket's own observer key; else ""."""
    found = _BUCKET_PATHS.get(host)
    if found is None or not path.startswith(found[0]):
        return ""
    name = re.split(r"[/;]", path[len(found[0]) :], maxsplit=1)[0]
    return f"{found[1]}/{name}" if name else ""


def _recipients(path: str, query: str) -> Observer:
    """A `mailto:` draft's observer: its one recipient (the address is the key), or,
    for several or none, a key nobody names. The user sends the draft, not the click."""
    addresses = {unquote(a).strip().lower() for a in path.split(",") if a.strip()}
    for item in query.lstrip("?").split("&"):
        name, _, value = item.partition("=")
        if name.lower() in ("to", "cc", "bcc"):
            addresses |= {a.strip().lower() for a in unquote(value).split(",") if a.strip()}
    if len(addresses) == 1:
        return Observer(HostClass.UNKNOWN, addresses.pop())
    return Observer(HostClass.UNKNOWN, "mailto:" + ",".join(sorted(addresses)))


def private_name(host: str) -> bool:
    """Is `host` a name under a suffix reserved for private networks (`.internal`,
    `.local`, `.lan`, `.home.arpa`; not `localhost` itself): a host of the user's own
    network, which only its owners name so?"""
    if host == "localhost":
        return False
    return host.rpartition(".")[2] in _PRIVATE_SUFFIXES or host.endswith(".home.arpa")


def _own_network(host: str) -> bool:
    """Is `host` on the user's own machine or network (localhost, a loopback, private or
    link-local address, a name under a private-use suffix): no one else's?"""
    if host == "localhost" or private_name(host):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return address.is_loopback or any(address in network for network in _OWN_NETWORKS)


@functools.lru_cache(maxsize=8192)
def site_of(host: str) -> str:
    """The site of `host`: its registrable domain (itself for an IP, or a name under no
    known suffix)."""
    if is_ip_literal(host):
        return host
    return registrable_domain(host) or host
