"""The host data files agree with each other and with the Public Suffix List.

data/sealed_services.txt    first-party services whose requests only they read
data/observable_hosts.txt   hosts where someone an attacker can become reads the request
data/shared_tenant_hosts.txt  hosts where anyone publishes under a path
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rendersafe.urls import classes
from rendersafe.urls.classes import SEALED_SERVICES, sealed_service
from rendersafe.urls.datafiles import entries
from rendersafe.urls.hosts import SHARED_TENANT_HOSTS, _extractor, normalise_host
from rendersafe.urls.parse import parse_url

DATA = Path(__file__).parent / "data"
FILES = ("sealed_services.txt", "observable_hosts.txt", "shared_tenant_hosts.txt")
OBSERVABLE = entries("observable_hosts.txt")
POSITIVE = [entry for entry, _why in SEALED_SERVICES if not entry.startswith("-")]
EXCEPTIONS = [entry[1:] for entry, _why in SEALED_SERVICES if entry.startswith("-")]


def _split(entry: str) -> tuple[str, str]:
    """(host, path) of an entry; the host keeps its `*.`."""
    host, slash, path = entry.lstrip("-").partition("/")
    return host, (slash + path).lower()


def _sample_host(host: str) -> str:
    return "x" + host[1:] if host.startswith("*.") else host


def _host_matches(pattern: str, host: str) -> bool:
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern


def _under(path: str, prefix: str) -> bool:
    return not prefix or (
        path.startswith(prefix) and path[len(prefix) : len(prefix) + 1] in ("", "/")
    )


def _observable(host: str, path: str) -> str | None:
    """The observable entry matching `host` and `path` (the sealed file's rules)."""
    for entry, _why in OBSERVABLE:
        pattern, prefix = _split(entry)
        if _host_matches(pattern, host) and _under(path.lower() or "/", prefix):
            return entry
    return None


def _sealed(host: str, path: str) -> bool:
    return sealed_service(parse_url(f"https://{host}{path or '/'}"))


def _private(host: str) -> bool:
    return _extractor()(host).is_private


@pytest.mark.parametrize("name", FILES)
def test_every_line_is_an_entry_with_a_reason(name: str) -> None:
    listed = entries(name)  # raises ValueError for an entry without a reason
    assert all(len(reason) >= 8 for _entry, reason in listed)
    names = [entry for entry, _why in listed]
    assert len(names) == len(set(names)), "duplicate entries"


@pytest.mark.parametrize("name", ["sealed_services.txt", "observable_hosts.txt"])
def test_entries_are_lowercase_hosts_and_paths(name: str) -> None:
    for listed, _why in entries(name):
        entry, _, parameter = listed.partition("?")
        assert not parameter or (listed.startswith("-") and name == "sealed_services.txt"), listed
        assert parameter == "*" or parameter.isidentifier() or not parameter, listed
        host, path = _split(entry)
        assert entry == entry.lower(), entry
        assert "*" not in host[2:], entry
        assert "*" not in path, entry
        for mark in ("://", "?", "#"):
            assert mark not in entry, entry
        bare = host.removeprefix("*.")
        assert normalise_host(bare) == bare, entry


def test_the_files_are_big_enough_to_matter() -> None:
    assert len(POSITIVE) >= 300
    assert len(OBSERVABLE) >= 250
    text = (Path(classes.__file__).parent / "data" / "observable_hosts.txt").read_text()
    assert "\n# tenant suffixes\n" in text


def test_no_sealed_entry_is_a_tenant_domain() -> None:
    """A sealed host under a PSL private suffix would admit every tenant's site."""
    for entry in POSITIVE:
        host, _path = _split(entry)
        for sample in {host.removeprefix("*."), _sample_host(host)}:
            assert not _private(sample), f"{entry}: {sample} is under a PSL private suffix"


def test_no_sealed_entry_opens_a_shared_tenant_host() -> None:
    """Only a first-party path of a shared-tenant host may be sealed, never the host."""
    whole = {entry for entry in POSITIVE if "/" not in entry}
    assert whole.isdisjoint(SHARED_TENANT_HOSTS)
    for host in SHARED_TENANT_HOSTS:
        assert not _sealed(host, "/"), host
        assert not _sealed(host, "/x/y"), host


def test_no_observable_entry_is_sealed() -> None:
    """Every observable path, and anything below it, gets every check."""
    for entry, _why in OBSERVABLE:
        host, path = _split(entry)
        sample = _sample_host(host)
        for tail in (path or "/", path + "/x", path + "/x?q=1"):
            assert not _sealed(sample, tail), f"{entry} is sealed at {sample}{tail}"
        if not path:  # a whole observable host: none of its sealed prefixes may hold
            for prefix in classes.SEALED_ENTRIES.prefixes(sample):
                assert not _sealed(sample, prefix or "/"), f"{entry}: {prefix} sealed"


def test_observable_paths_on_sealed_hosts_are_sealed_exceptions() -> None:
    """An observable path on a host that has sealed entries is listed there as a `-`."""
    for entry, _why in OBSERVABLE:
        host, path = _split(entry)
        sample = _sample_host(host)
        if not classes.SEALED_ENTRIES.prefixes(sample):
            continue
        covered = any(
            _host_matches(_split(exception)[0], sample)
            and (path or "/").startswith(_split(exception)[1] or "/")
            for exception in EXCEPTIONS
        )
        assert covered, f"{entry} is on a sealed host without a `-` exception"


def test_no_sealed_entry_is_observable() -> None:
    for entry in POSITIVE:
        host, path = _split(entry)
        sample = _sample_host(host)
        for tail in (path or "/", path + "/x"):
            if _sealed(sample, tail):
                assert _observable(sample, tail) is None, f"{entry} is also observable"


def _urls(name: str) -> list[str]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("url", _urls("exfil_urls.txt"))
def test_no_exfil_url_is_sealed(url: str) -> None:
    assert not sealed_service(parse_url(url))


@pytest.mark.parametrize(
    ("url", "sealed"),
    [
        ("https://www.google.de/search?q=wetter+berlin", True),
        ("https://www.google.de/url?q=https://evil.example/", False),
        ("https://www.google.com/maps/dir/Paris/Lyon", True),
        ("https://www.google.com/maps/d/viewer?mid=1abc", False),
        ("https://en.m.wikipedia.org/wiki/Python", True),
        ("https://en.wikipedia.org/wiki/Special:GoToInterwiki/google:x", False),
        ("https://acme.sentry.io/issues/?query=is%3Aunresolved", True),
        ("https://o123.ingest.sentry.io/issues/", False),
        ("https://o123.ingest.us.sentry.io/api/1/store/", False),
        ("https://us-east-1.console.aws.amazon.com/ec2/home?region=us-east-1", True),
        ("https://s3.console.aws.amazon.com/s3/buckets/evil?prefix=secret", False),
        ("https://console.aws.amazon.com/s3/buckets/evil?prefix=secret", False),
        ("https://acme.signin.aws.amazon.com/console", True),
        ("https://console.cloud.google.com/storage/browser/evil", False),
        ("https://github.com/settings/tokens", True),
        ("https://github.com/login/oauth/authorize?client_id=x&state=y", False),
        ("https://github.com/python/cpython/issues", False),
        ("https://www.etsy.com/listing/123/mug", True),
        ("https://www.etsy.com/shop/SomeSeller", False),
        ("https://www.amazon.com/dp/B08N5WRWNW?tag=x-20", False),
        ("https://docs.rs/tokio/latest/tokio/", False),
        ("https://docs.rs/releases/search?query=tokio", True),
        ("https://bugzilla.mozilla.org/show_bug.cgi?id=1", True),
        ("https://bugzilla.mozilla.org/attachment.cgi?id=1", False),
        ("https://savannah.gnu.org/bugs/download.php?file_id=1", False),
        ("https://www.tracking.example/ups.com/track", False),
        ("https://www.ups.com/track?tracknum=1Z999AA10123456784", True),
        ("https://svelte.dev/playground/hello-world", False),
        ("https://www.typescriptlang.org/play?#code/x", False),
        ("https://translate.google.com/?sl=de&tl=en&text=Hallo", True),
        ("https://translate.google.com/translate?u=https://evil.example/", False),
    ],
)
def test_sealed_examples(url: str, sealed: bool) -> None:
    assert sealed_service(parse_url(url)) is sealed


@pytest.mark.parametrize(
    ("host", "path", "entry"),
    [
        ("bit.ly", "/3abc", "bit.ly"),
        ("abc.ngrok-free.app", "/x", "*.ngrok-free.app"),
        ("www.google.com", "/url", "www.google.com/url"),
        ("www.google.com", "/urlx", None),
        ("user.github.io", "/", "*.github.io"),
        ("github.io", "/", None),
        ("docs.google.com", "/forms/d/e/x/formResponse", "docs.google.com/forms"),
    ],
)
def test_observable_matching(host: str, path: str, entry: str | None) -> None:
    assert _observable(host, path) == entry
