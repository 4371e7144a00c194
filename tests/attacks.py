"""Planted secrets used by the attack fixtures, and a checker for rendered output.

Every attack case carries one of these payloads. After sanitising, no renderer
may fetch a non-allowed host, and no link or fetched URL may still carry a payload.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from renderers import Url, is_fetched, render_all

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


def host_matches(host: str, entries: Iterable[str]) -> bool:
    """Exact host, or a subdomain of an entry (the checker's own, lenient rule)."""
    return any(host == e or host.endswith("." + e) for e in entries)


def violations(
    text: str,
    *,
    image_hosts: Iterable[str] = (),
    trusted_hosts: Iterable[str] = (),
    payloads: Iterable[str] = PLANTED,
) -> list[str]:
    """What any renderer would leak from `text`: one line per problem."""
    image_hosts, trusted_hosts, payloads = list(image_hosts), list(trusted_hosts), list(payloads)
    problems = []
    for url in render_all(text):
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
        elif host is not None and not host_matches(host, image_hosts):
            found.append(f"fetches {host} {where}")
    if url.value.strip().lower().startswith(("javascript:", "vbscript:")):
        found.append(f"script URL {where}")
    trusted_host = host is not None and host_matches(host, trusted)
    if not trusted_host and any(p in url.decoded or p in url.value for p in payloads):
        found.append(f"carries planted data {where}")
    return found
