"""The peer's bypass suite: every attempt in tests/data/peer_bypass (vercel-labs/
markdown-sanitizers, `markdown-to-markdown-sanitizer/tests/bypass-attempts/` at
9a96abe, MIT, its LICENSE beside the files), sanitised and checked as the fuzzer
checks a case. Used by tests/test_peer_suite.py and benchmarks/peer_bypass.py.

Two policies: the default (no image host allowed) and the peer's own test policy's
image origins (`example.com`, `images.com`, `prefix.com`), so that what the peer
means to keep is kept and still judged.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from rendersafe import Policy, Sanitizer

PEER = Path(__file__).parent / "data" / "peer_bypass"
PEER_IMAGE_HOSTS = ("example.com", "images.com", "prefix.com")
POLICIES = {
    "default": Policy(),
    "peer": Policy(allowed_image_hosts=list(PEER_IMAGE_HOSTS)),
}


def attempts() -> Iterator[tuple[str, str]]:
    """(file name, text) of every bypass attempt, in order."""
    for path in sorted(PEER.glob("*.md")):
        yield path.name, path.read_text(encoding="utf-8")


def image_hosts(policy: str) -> tuple[str, ...]:
    """The hosts a rendered page may fetch from under `policy`."""
    return PEER_IMAGE_HOSTS if policy == "peer" else ()


def sanitizers() -> dict[str, Sanitizer]:
    """One sanitiser per policy."""
    return {name: Sanitizer(policy) for name, policy in POLICIES.items()}
