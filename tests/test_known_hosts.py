"""The well-known sites (`urls/data/known_hosts.txt`): each a registrable domain with its
reason, none a host anyone else reads, and what the list changes in a judgement."""

from __future__ import annotations

from collections import Counter

import pytest

from rendersafe.urls.datafiles import entries
from rendersafe.urls.known import BRAND_SITES, BRANDS, KNOWN_SITES, known_site
from rendersafe.urls.observers import HostClass, observer_of, site_of
from rendersafe.urls.parse import parse_url

LISTED = entries("known_hosts.txt")


def test_every_entry_is_listed_once() -> None:
    counts = Counter(entry for entry, _why in LISTED)
    assert [entry for entry, n in counts.items() if n > 1] == []
    assert len(KNOWN_SITES) == len(LISTED) > 1000


@pytest.mark.parametrize(("entry", "why"), LISTED)
def test_an_entry_is_its_own_site_and_read_by_no_one_else(entry: str, why: str) -> None:
    assert why
    assert entry == entry.lower()
    assert site_of(entry) == entry
    for url in (f"https://{entry}/docs/guide", f"https://www.{entry}/", f"https://docs.{entry}/a"):
        observer = observer_of(parse_url(url))
        assert observer.cls in (HostClass.UNKNOWN, HostClass.SEALED), url
        assert observer.key == entry


@pytest.mark.parametrize(
    "site",
    [
        "github.com",
        "github.io",
        "medium.com",
        "substack.com",
        "bit.ly",
        "pypi.org",
        "npmjs.com",
        "youtube.com",
        "reddit.com",
        "x.com",
        "vercel.app",
        "readthedocs.io",
        "pastebin.com",
        "typeform.com",
    ],
)
def test_platforms_anyone_publishes_on_are_not_known(site: str) -> None:
    assert not known_site(site)


def test_a_tenant_of_no_listed_site_is_known_by_its_key() -> None:
    observer = observer_of(parse_url("https://nest-guides.github.io/guards"))
    assert observer.cls is HostClass.TENANT
    assert not known_site(observer.key)


@pytest.mark.parametrize(
    ("site", "known"),
    [
        ("food.gov.uk", True),  # only a UK public body holds a gov.uk name
        ("clinicaltrials.gov", True),
        ("ox.ac.uk", True),
        ("mit.edu", True),
        ("who.int", True),
        ("digital.go.jp", True),
        ("driftmail.app", False),
        ("evil.ac", False),  # the top-level .ac is open to anyone
        ("evil.co.uk", False),
    ],
)
def test_a_public_body_s_suffix_makes_a_site_known(site: str, known: bool) -> None:
    assert known_site(site) is known


BRAND_LISTED = entries("brand_sites.txt")


def test_every_brand_site_is_listed_once_and_names_its_brand() -> None:
    counts = Counter(entry for entry, _why in BRAND_LISTED)
    assert [entry for entry, n in counts.items() if n > 1] == []
    assert BRAND_SITES <= BRANDS


@pytest.mark.parametrize(("entry", "why"), BRAND_LISTED)
def test_a_brand_site_is_its_own_site(entry: str, why: str) -> None:
    """An entry names a registrable domain whose own pages are read by its company:
    never a tenant or an observable host as a whole (their parts are told apart)."""
    assert why
    assert entry == entry.lower()
    assert site_of(entry) == entry
    observer = observer_of(parse_url(f"https://support.{entry}/requests/2847163"))
    assert observer.cls in (HostClass.UNKNOWN, HostClass.SEALED), entry
    assert observer.key == entry
