"""Encoded-data detection, measured on corpora: honest links pass, exfiltration does not.

real_urls.txt: 1,219 documentation links from two awesome lists. benign_urls.txt:
hand-collected honest links with IDs, hashes, percent-encoding and queries.
exfil_urls.txt: one or more URLs per known technique. The generated corpus plants
random chat-like sentences with every encoding.
"""

from __future__ import annotations

import base64
import binascii
import random
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from rendersafe import Policy, Reason
from rendersafe.urls import Role, UrlJudge, parse_url

# Reasons that mean "this URL carries data", as opposed to "this host is not allowed".
DATA_REASONS = frozenset(
    {
        Reason.ENCODED_BASE64,
        Reason.ENCODED_HEX,
        Reason.PERCENT_ENCODED_RUN,
        Reason.URLENCODED_TEXT,
        Reason.HIGH_ENTROPY_TOKEN,
        Reason.SECRET_PATTERN,
        Reason.NESTED_URL,
        Reason.USERINFO,
        Reason.SUBDOMAIN_DATA,
        Reason.LONG_URL,
        Reason.INVISIBLE_CHARACTERS,
    }
)
DATA = Path(__file__).parent / "data"
JUDGE = UrlJudge(Policy())
WORDS = [
    "the",
    "user",
    "said",
    "their",
    "password",
    "is",
    "hunter2",
    "and",
    "they",
    "live",
    "at",
    "elm",
    "street",
    "with",
    "a",
    "dog",
    "named",
    "rex",
    "account",
    "number",
    "salary",
    "bank",
    "transfer",
    "diagnosis",
    "meeting",
    "notes",
    "acquisition",
    "friday",
    "secret",
    "project",
    "launch",
    "code",
    "private",
    "address",
    "phone",
    "email",
    "birthday",
    "card",
]


def _load(name: str) -> list[str]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _data_reasons(url: str) -> set[Reason]:
    return set(JUDGE.judge(url, Role.LINK).reasons) & DATA_REASONS


@pytest.mark.parametrize("name", ["real_urls.txt", "benign_urls.txt"])
def test_honest_links_carry_no_data(name: str) -> None:
    urls = _load(name)
    flagged = {url: sorted(_data_reasons(url)) for url in urls if _data_reasons(url)}
    assert flagged == {}
    assert len(urls) >= (1000 if name == "real_urls.txt" else 100)


@pytest.mark.parametrize("name", ["real_urls.txt", "benign_urls.txt"])
def test_honest_links_reach_one_host_in_every_renderer(name: str) -> None:
    """markdown-it's serialisation and the browser's reading agree on every honest host."""
    assert [url for url in _load(name) if parse_url(url).mdurl_host is not None] == []


@pytest.mark.parametrize("url", _load("exfil_urls.txt"))
def test_known_exfiltration_links_are_flagged(url: str) -> None:
    assert JUDGE.judge(url, Role.LINK).action == "drop"


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


ENCODINGS: dict[str, Callable[[str], str]] = {
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "base64url": lambda s: base64.urlsafe_b64encode(s.encode()).decode().rstrip("="),
    "hex": lambda s: binascii.hexlify(s.encode()).decode(),
    "quote_plus": quote_plus,
    "quote": lambda s: quote(s, safe=""),
    "percent-all": lambda s: "".join(f"%{b:02X}" for b in s.encode()),
}
PLACES = {
    "query": "https://collector.example/i.png?d={}",
    "path": "https://collector.example/p/{}/x.png",
    "fragment": "https://collector.example/#{}",
    "name": "https://collector.example/?{}=1",
}


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
@pytest.mark.parametrize("place", sorted(PLACES))
def test_generated_exfiltration_is_flagged(encoding: str, place: str) -> None:
    rng = random.Random(f"{encoding}-{place}")
    missed = []
    # Encoded forms are caught from 6 words; readable prose from `text_words` (10) up.
    shortest = 10 if encoding in ("quote", "quote_plus") else 6
    for _ in range(50):
        payload = ENCODINGS[encoding](_sentence(rng, rng.randint(shortest, 30)))
        url = PLACES[place].format(payload)
        if not _data_reasons(url):
            missed.append(url)
    assert missed == []


def test_documented_limit_short_readable_prose_passes() -> None:
    """Below `text_words`, URL-encoded prose looks like a search query: it passes."""
    url = "https://collector.example/?q=" + quote_plus("my pin is 4921 ok")
    assert _data_reasons(url) == set()


def test_short_search_queries_pass() -> None:
    for query in ("python asyncio", "how to reverse a list in python", "weather berlin"):
        assert _data_reasons(f"https://www.google.com/search?q={quote_plus(query)}") == set()


def test_thresholds_are_configurable() -> None:
    url = "https://collector.example/?q=" + quote_plus("one two three four five")
    assert _data_reasons(url) == set()
    strict = UrlJudge(Policy(thresholds={"text_words": 4}))
    assert Reason.URLENCODED_TEXT in strict.judge(url, Role.LINK).reasons
