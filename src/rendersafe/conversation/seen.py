"""The URLs and hosts a conversation holds: was a reply URL copied, was its host seen?

A reply URL was copied when it equals a URL of the conversation once both are
normalised as browsers agree they are the same: scheme and host lower case, the
default port dropped, `/` for an empty path, percent-escapes in upper case; nothing
looser. A URL written in text loses the punctuation that closes its sentence or its
Markdown link (`https://x.example/a).`), entity-decoded where it has an `&`, and is
compared in its WHATWG serialisation too where that differs (non-ASCII, `\\`, dot
segments). A bare `www.` URL is taken as written with `http://` or `https://`.

A host was seen when it is the host of such a URL, or a bare domain in the text
(`example.com`, under a known public suffix); `www.` before a host is not a difference.

Only where it was first seen counts: a URL or a host the model wrote first (`given` is
False for its message) proves nothing, though a tool echoes it back after (a call's
arguments, then a tool's error message quoting them).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterable, Iterator, Sequence

from ..urls.hosts import split_host
from ..urls.observers import observer_of
from ..urls.parse import parse_url
from .index import Corpus, MessageText, host_of, registered
from .messages import MEMO_CHARS

__all__ = [
    "SeenHosts",
    "SeenUrls",
    "bare_of",
    "given_by_observer",
    "normal_url",
    "trimmed_url",
]

# A URL already normal: lower-case scheme and host, no port, a path, no escapes.
_NORMAL = re.compile(r"https?://[a-z0-9.-]+/[^%\s]*")
_SPLIT = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(//([^/?#]*))?(.*)", re.DOTALL)
_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}
_SPECIAL = frozenset({"http", "https", "ws", "wss", "ftp", "file"})
_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")
# What the WHATWG serialisation changes beyond the normalisation above.
_WHATWG = re.compile(r"[^!-~]|\\|/\.|[\"<>`{}|^]")
_CLOSERS = ".,;:!?*_~'\")]}>"
_PAIRS = {")": "(", "]": "[", "}": "{"}
_TLD = re.compile(rb"\.[a-z]{2,24}(?![a-z0-9-])")
_LABEL_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789-.")


def normal_url(url: str) -> str | None:
    """`url` normalised for comparison (None if it has no scheme)."""
    found = _normalise(url)
    return None if found is None else found[0]


def _normalise(url: str) -> tuple[str, str] | None:
    """`url` normalised, and its host."""
    if _NORMAL.fullmatch(url):
        return url, url.split("/", 3)[2]  # already in normal form: the common case
    match = _SPLIT.fullmatch(url.strip())
    if match is None:
        return None
    scheme, authority, rest = match[1].lower(), match[3], match[4]
    if "%" in rest:
        rest = _ESCAPE.sub(lambda m: m.group().upper(), rest)
    if authority is None:
        return f"{scheme}:{rest}", ""
    userinfo, at, hostport = authority.rpartition("@")
    if hostport.startswith("["):
        host, _, port = hostport.partition("]")
        host, port = host + "]", port.removeprefix(":")
    else:
        host, _, port = hostport.partition(":")
    if port == _DEFAULT_PORTS.get(scheme):
        port = ""
    if scheme in _SPECIAL and (not rest or rest[0] in "?#"):
        rest = "/" + rest
    host = host.lower()
    return f"{scheme}://{userinfo}{at}{host}{':' if port else ''}{port}{rest}", host


def _whatwg(url: str) -> tuple[str, str] | None:
    href = parse_url(url).href
    return _normalise(href) if href else None


class SeenUrls:
    """The URLs of a conversation first seen in a message the model did not write
    (`given`, by message), and in which message; each host's normalised on first ask,
    message by message (a message's are normalised once per process)."""

    __slots__ = ("_given", "_normal", "_texts")

    def __init__(self, corpus: Corpus, given: Sequence[bool]) -> None:
        self._texts = corpus.texts
        self._given = given
        self._normal: dict[str, dict[str, int]] = {}

    def __contains__(self, href: object) -> bool:
        return isinstance(href, str) and self.first(href) is not None

    def first(self, href: str) -> int | None:
        """The message `href` was first seen in, if that message was given; else None."""
        forms = [_normalise(href)]
        if _WHATWG.search(href):
            forms.append(_whatwg(href))
        for form in forms:
            if form is not None and (found := self._of(form[1]).get(form[0])) is not None:
                return found
        return None

    def on_host(self, host: str) -> int:
        """How many distinct URLs on `host` were given: the choices a copy is made from."""
        return len(self._of(host))

    def _of(self, host: str) -> dict[str, int]:
        normal = self._normal.get(host)
        if normal is None:
            first: dict[str, tuple[bool, int]] = {}
            for index, (text, given) in enumerate(zip(self._texts, self._given, strict=True)):
                if text.has_host(host):
                    small = len(text.chunk) <= MEMO_CHARS
                    for url in (_normal_urls if small else _read_normal_urls)(text, host):
                        first.setdefault(url, (given, index))
            normal = self._normal[host] = {
                url: index for url, (given, index) in first.items() if given
            }
        return normal


@functools.lru_cache(maxsize=4096)
def _normal_urls(text: MessageText, host: str) -> frozenset[str]:
    """`_read_normal_urls`, once per process (for messages of at most `MEMO_CHARS`)."""
    return _read_normal_urls(text, host)


def _read_normal_urls(text: MessageText, host: str) -> frozenset[str]:
    """The URLs on `host` of one message, normalised (with their variants)."""
    normal: set[str] = set()
    hosts = text.hosts()
    for raw in {text.url(i) for i, seen in enumerate(hosts) if seen == host}:
        for variant in _variants(raw):
            normal.add(normal_url(variant) or variant)
            whatwg = _whatwg(variant) if _WHATWG.search(variant) else None
            if whatwg is not None:
                normal.add(whatwg[0])
    return frozenset(normal)


def _variants(raw: str) -> Iterator[str]:
    """A URL as written, without what closes the sentence around it, entity-decoded."""
    for url in _trimmed(raw):
        if url[:4].lower() == "www.":
            yield "http://" + url
            yield "https://" + url
        else:
            yield url
        if "&" in url and ";" in url:
            yield html.unescape(url)


def trimmed_url(raw: str) -> str:
    """A URL written in text without what closes the sentence or the link around it
    (a balanced `(...)` is the URL's own)."""
    return list(_trimmed(raw))[-1]


def _trimmed(raw: str) -> Iterator[str]:
    yield raw
    while raw and raw[-1] in _CLOSERS:
        opener = _PAIRS.get(raw[-1])
        if opener and raw.count(opener) >= raw.count(raw[-1]):
            return  # balanced: `(...)` belongs to the URL (Wikipedia's titles)
        raw = raw[:-1]
        yield raw


class SeenHosts:
    """The hosts of a conversation's URLs, then (scanned on first need, each message
    once per process) its bare domains."""

    __slots__ = ("_bare", "_given", "_texts", "_urls")

    def __init__(self, corpus: Corpus, given: Sequence[bool]) -> None:
        self._texts = corpus.texts
        self._given = given
        self._urls = self._first_given(text.hosts() for text in self._texts)
        self._urls.discard("")
        self._bare: set[str] | None = None

    def __contains__(self, host: object) -> bool:
        if not isinstance(host, str) or not host:
            return False
        host = _normal_host(host)
        if _among(host, self._urls):
            return True
        if self._bare is None:
            self._bare = self._first_given(map(bare_of, self._texts))
        return _among(host, self._bare)

    def _first_given(self, by_message: Iterator[Iterable[str]]) -> set[str]:
        """The names first seen in a given message."""
        first: dict[str, bool] = {}
        for names, given in zip(by_message, self._given, strict=True):
            for name in names:
                first.setdefault(name, given)
        return {name for name, given in first.items() if given}

    def covers(self, host: str) -> bool:
        """Was `host`, or a domain above it, seen?"""
        labels = _normal_host(host).split(".")
        return any(".".join(labels[i:]) in self for i in range(len(labels) - 1))


def bare_of(text: MessageText) -> frozenset[str]:
    """The bare domains of one message (once per process, up to `MEMO_CHARS`)."""
    if len(text.chunk) > MEMO_CHARS:
        return frozenset(_bare_domains(text.chunk.lower()))
    return _memo_bare_of(text)


@functools.lru_cache(maxsize=4096)
def _memo_bare_of(text: MessageText) -> frozenset[str]:
    return frozenset(_bare_domains(text.chunk.lower()))


def _among(host: str, hosts: set[str]) -> bool:
    return host in hosts or host.removeprefix("www.") in hosts or f"www.{host}" in hosts


def _normal_host(host: str) -> str:
    return host_of(host) if not host.isascii() or host != host.lower() else host.rstrip(".")


def _bare_domains(text: bytes) -> Iterator[str]:
    """Names like `example.com` in lower-case text: a dot and a top-level label first
    (so the scan skips in C), then the labels before it."""
    for match in _TLD.finditer(text):
        start = match.start()
        if not start or text[start - 1] not in _LABEL_BYTES or not _is_tld(match.group()[1:]):
            continue
        while start > 0 and text[start - 1] in _LABEL_BYTES:
            start -= 1
        name = text[start : match.end()].strip(b".-").decode("ascii")
        if "." in name and ".." not in name and registered(name):
            yield name


@functools.lru_cache(maxsize=2048)
def _is_tld(label: bytes) -> bool:
    return split_host("x." + label.decode("ascii"))[2] == label.decode("ascii")


def given_by_observer(corpus: Corpus, given: Sequence[bool]) -> dict[str, dict[str, int]]:
    """The distinct URLs the given messages hold, by the observer each reaches
    (someone's other than the user's and a sealed service's), each with the message
    that gave it first."""
    found: dict[str, dict[str, int]] = {}
    for position, (text, was_given) in enumerate(zip(corpus.texts, given, strict=True)):
        if was_given and text.links():
            for key, url in _observed_urls(text):
                found.setdefault(key, {}).setdefault(url, position)
    return found


@functools.lru_cache(maxsize=4096)
def _observed_urls(text: MessageText) -> tuple[tuple[str, str], ...]:
    """Each URL of one message that someone observes, normalised, with its observer."""
    found: list[tuple[str, str]] = []
    for index in range(len(text.links())):
        raw = trimmed_url(text.url(index))
        url = parse_url(raw)
        observer = observer_of(url)
        if observer.reads_data:
            found.append((observer.key, normal_url(raw) or raw))
    return tuple(found)
