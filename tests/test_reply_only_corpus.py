"""The honest corpus: 7,900 real links, every one kept unchanged (issue 12, item 4).

tests/data/honest_links.txt is rebuilt by benchmarks/harvest_links.py from links people
wrote (package documentation, changelogs and READMEs on this machine, and the earlier
corpora), plus a hand-written section of the shapes that carry IDs by design: the Azure
portal, Mermaid, Kroki and PlantUML payloads, presigned S3, GCS and Azure SAS URLs,
long search queries, meeting links.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rendersafe import Policy, PolicyError, Sanitizer
from rendersafe.guard.controls import made_plain
from rendersafe.urls import Role, UrlJudge, parse_url

CORPUS = Path(__file__).parent / "data" / "honest_links.txt"
LINES = CORPUS.read_text(encoding="utf-8").splitlines()
LINKS = [line for line in LINES if line and not line.startswith("#")]
HAND = LINES[LINES.index("# --- hand-written") : LINES.index("# --- harvested")]
IMAGE = re.compile(r"\.(?:png|jpe?g|gif|svg|webp)(?:[?#]|$)", re.IGNORECASE)
BATCH = 100


def test_the_corpus_is_large_and_varied() -> None:
    assert len(LINKS) >= 3000
    assert len(set(LINKS)) == len(LINKS)
    assert len({parse_url(url).host for url in LINKS}) >= 1000


@pytest.mark.parametrize(
    "shape",
    [
        "portal.azure.com/#@",
        "mermaid.live/edit#pako:",
        "mermaid.live/edit#base64:",
        "kroki.io/",
        "plantuml.com/plantuml/",
        "X-Amz-Signature=",
        "X-Amz-Security-Token=",
        "X-Goog-Signature=",
        "GoogleAccessId=",
        "&sig=",
        "www.google.com/search?q=",
        "teams.microsoft.com/l/meetup-join/",
        "camo.githubusercontent.com/",
    ],
)
def test_the_hand_written_section_has_the_named_shapes(shape: str) -> None:
    assert any(shape in line for line in HAND if not line.startswith("#"))


def test_every_link_carries_no_data_to_the_judge() -> None:
    judge = UrlJudge(Policy())
    dropped = {url: judge.judge(url, Role.LINK).reasons for url in LINKS}
    assert {url: reasons for url, reasons in dropped.items() if reasons} == {}


def _unchanged(sanitizer: Sanitizer, texts: list[str]) -> list[str]:
    """The texts the sanitiser changes (each checked alone when a batch changes)."""
    changed: list[str] = []
    for start in range(0, len(texts), BATCH):
        batch = texts[start : start + BATCH]
        reply = "\n".join(f"- {text}" for text in batch)
        # A control character is made plain (`guard.controls`): a harvested URL may hold one.
        if sanitizer.run(reply).text != made_plain(reply):
            changed += [text for text in batch if sanitizer.run(text).text != made_plain(text)]
    return changed


def test_every_link_is_kept_as_a_markdown_link() -> None:
    assert _unchanged(Sanitizer(), [f"[link]({url})" for url in LINKS]) == []


def _allowed(host: str) -> bool:
    try:
        Policy(allowed_image_hosts=[host])
    except PolicyError:
        return False  # a shared-tenant host or a public suffix: never allowed
    return True


def test_every_image_is_kept_on_an_allowed_host() -> None:
    images = [url for url in LINKS if IMAGE.search(url)]
    hosts = sorted({parse_url(url).host for url in images})
    allowed = [host for host in hosts if _allowed(host)]
    policy = Policy(allowed_image_hosts=allowed, max_images=None)
    kept = [url for url in images if parse_url(url).host in allowed]
    assert len(kept) >= 100
    assert _unchanged(Sanitizer(policy), [f"![image]({url})" for url in kept]) == []
