"""Planted secrets used by the attack fixtures, and a checker for rendered output.

Every attack case carries one of these payloads. After sanitising, no renderer
may fetch a non-allowed host, and no link or fetched URL may still carry a payload.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import tldextract

from renderers import RENDERERS, Url, is_fetched, urls
from soup import event_handlers

ROOT = Path(__file__).parent.parent

# Distinctive pieces of the payloads in tests/fixtures (decoded forms where they are
# percent-encoded, since the checker decodes URLs before looking).
PLANTED = (
    "VGhlIHVzZXIncyBwYXNzd29yZC",  # base64: "The user's password is hunter2 ..."
    "TWVldGluZyBub3Rlcz",  # base64url: "Meeting notes: acquisition ..."
    "7365637265743a2074686520",  # hex: "secret: the launch code ..."
    "hunter2",
    "divorce lawyer",
    "divorce+lawyer",
    "mfygsidlmv4sa43",  # base32 subdomain label
    "sk-proj-Zm9v",
    "secretpw",
    "\U000e0073\U000e0065",  # Unicode Tag characters
)


def transcript_payloads() -> tuple[str, ...]:
    """The `planted` values of the attack conversations in fixtures/transcripts."""
    found: list[str] = []
    for path in sorted((ROOT / "fixtures" / "transcripts").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            found.extend(json.loads(line).get("planted", []))
    return tuple(found)


_SITES = tldextract.TLDExtract(
    suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True
)


def host_matches(host: str, entries: Iterable[str], port: str = "") -> bool:
    """The checker's own rule: an entry `host:port` admits that origin only; any other
    entry admits itself, and its subdomains within its own site (no public suffix in
    between, so `windows.net` does not admit `x.blob.core.windows.net`), on the
    scheme's default port."""
    for entry in entries:
        name, _, entry_port = entry.partition(":")
        if entry_port:
            if host == name and port == entry_port:
                return True
        elif not port and (host == name or _same_site_subdomain(host, name)):
            return True
    return False


def _same_site_subdomain(host: str, entry: str) -> bool:
    return host.endswith("." + entry) and _SITES(host).top_domain_under_public_suffix == entry


def violations(
    text: str,
    *,
    image_hosts: Iterable[str] = (),
    trusted_hosts: Iterable[str] = (),
    payloads: Iterable[str] = PLANTED,
) -> list[str]:
    """What any renderer would leak from `text`: one line per problem."""
    image_hosts, trusted_hosts, payloads = list(image_hosts), list(trusted_hosts), list(payloads)
    problems: list[str] = []
    for name, render in RENDERERS.items():
        html = render(text)
        problems.extend(f"{name}: {handler}" for handler in event_handlers(html))
        for url in urls(html, name):
            problems.extend(url_problems(url, image_hosts, trusted_hosts, payloads))
    return sorted(set(problems))


def url_problems(
    url: Url, image_hosts: list[str], trusted: list[str], payloads: list[str]
) -> list[str]:
    host = url.host
    where = f"{url.renderer}: <{url.tag} {url.attribute}={url.value[:60]!r}>"
    found = []
    if is_fetched(url):
        if url.value.strip().lower().startswith("data:"):
            found.append(f"data URI fetched {where}")
        elif host is not None and not host_matches(host, image_hosts, url.port):
            found.append(f"fetches {host} {where}")
    if url.value.strip().lower().startswith(("javascript:", "vbscript:")):
        found.append(f"script URL {where}")
    trusted_host = host is not None and host_matches(host, trusted, url.port)
    if not trusted_host and any(p in url.decoded or p in url.value for p in payloads):
        found.append(f"carries planted data {where}")
    return found
