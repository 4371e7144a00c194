"""The well-known sites (`urls/data/known_hosts.txt`): each a registrable domain with its
reason, none a host anyone else reads, and what the list changes in a judgement."""

from __future__ import annotations

from collections import Counter

import pytest

from rendersafe.urls.classes import SEALED_EXCEPTIONS
from rendersafe.urls.datafiles import entries
from rendersafe.urls.known import BRAND_PAGES, BRAND_SITES, BRANDS, KNOWN_SITES, known_site
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


def test_every_brand_page_is_listed_once_and_names_its_brand() -> None:
    counts = Counter(entry for entry, _why in BRAND_LISTED)
    assert [entry for entry, n in counts.items() if n > 1] == []
    assert BRAND_SITES <= BRANDS


@pytest.mark.parametrize(("entry", "why"), BRAND_LISTED)
def test_a_brand_page_is_its_company_s_own(entry: str, why: str) -> None:
    """An entry is a path of a registrable domain its company reads: never a tenant's
    or an observable host's (their parts are other observers), and never one of
    sealed_services.txt's redirect or user-content exceptions."""
    assert why
    assert entry == entry.lower()
    host, _, path = entry.partition("/")
    url = parse_url(f"https://{host}/{path}/2847163".replace("//2847163", "/2847163"))
    observer = observer_of(url)
    assert observer.cls in (HostClass.UNKNOWN, HostClass.SEALED), entry
    assert observer.key == site_of(host)
    assert BRAND_PAGES.covers(host, f"/{path}/2847163".replace("//", "/"))
    assert not SEALED_EXCEPTIONS.covers(host, f"/{path}")
