"""The index of a conversation's pieces, and of the URLs they came in.

The messages are joined into one UTF-8 text; URLs in it are found first (their spans),
then the candidate pieces (`pieces.find_pieces`). A piece found only inside URLs
belongs to those URLs: it taints a reply URL only on another site than theirs (one
party's several names, youtube.com and youtu.be, are one site). The index maps 4-byte
grams of each key, at its offsets 0, 1 and 2, to the key; a reading is sampled at every
third byte, which meets every key of 6 bytes or more it contains (the sampled gram that
starts in the key's first three bytes lies inside it), so a check costs one set
intersection and a `bytes` search per candidate, whatever the size of the conversation.
What a candidate is, and where it came from, is worked out for the few a URL carries.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..urls.hosts import normalise_host, registrable_domain
from .messages import Message
from .pieces import MIN_KEY, Hit, confirm, find_pieces

__all__ = ["Corpus", "Entry", "PieceIndex", "host_of", "registered", "sample"]

# URLs written in text, each scan led by a literal (fast); group 1 is the authority.
_HTTP = re.compile(rb"https?://([^/?#\s<>\"'`\\]*)[^\s<>\"'`\\]*")
_WWW = re.compile(rb"(www\.[^/?#\s<>\"'`\\]*)[^\s<>\"'`\\]*")
_FTP = re.compile(rb"ftp://([^/?#\s<>\"'`\\]*)[^\s<>\"'`\\]*")
_GRAM = 4
_STRIDE = 3
_MAX_OCCURRENCES = 8  # of one key: where it came from, and in which URLs


@dataclass(slots=True)
class Entry:
    """A key's piece, resolved from its occurrences when a URL first carries it: its
    kind (confirmed), its first occurrence outside URLs (or the first of all), and,
    when it was seen only in URLs, their spans (None when it was seen outside one)."""

    kind: str
    start: int
    spans: list[tuple[int, int]] | None


class Corpus:
    """The messages' text as one UTF-8 string, where each message starts, its URLs."""

    __slots__ = ("_hosts", "_links", "_spans", "chunks", "starts", "text")

    def __init__(self, messages: Sequence[Message]) -> None:
        encoded = [m.text.encode("utf-8", "surrogatepass") for m in messages]
        self.chunks = encoded
        self.text = b"\n".join(encoded)
        self.starts: list[int] = []
        offset = 0
        for chunk in encoded:
            self.starts.append(offset)
            offset += len(chunk) + 1
        # A URL never spans two messages (none holds white space): each message's
        # URLs are found when first asked for, once per process, as its pieces are.
        self._links: list[_Links | None] = [None] * len(encoded)
        self._spans: list[tuple[int, int]] | None = None
        self._hosts: list[str] | None = None

    def pieces(self, canaries: tuple[str, ...]) -> list[Hit]:
        """Every candidate piece of the text, message by message: a chat's history is
        sent again with every request, so each message's pieces are found once."""
        hits: list[Hit] = []
        for start, chunk in zip(self.starts, self.chunks, strict=True):
            hits += [(k, kind, a + start, b + start) for k, kind, a, b in _pieces(chunk, canaries)]
        return hits

    def message_at(self, offset: int) -> int:
        """The position of the message that holds byte `offset` of the text."""
        return bisect.bisect_right(self.starts, offset) - 1

    def url_at(self, offset: int) -> tuple[int, int] | None:
        """The span of the URL that holds byte `offset`, if one does."""
        message = self.message_at(offset)
        links, start = self._links_of(message), self.starts[message]
        index = bisect.bisect_right(links.ends, offset - start)
        if index < len(links.spans) and links.spans[index][0] <= offset - start:
            a, b = links.spans[index]
            return a + start, b + start
        return None

    def url(self, span: tuple[int, int]) -> str:
        """The URL at `span`, as written."""
        return self.text[span[0] : span[1]].decode("utf-8", "replace")

    @property
    def url_spans(self) -> list[tuple[int, int]]:
        """The span of every URL of the text, in order."""
        if self._spans is None:
            self._spans = [
                (a + start, b + start)
                for message, start in enumerate(self.starts)
                for a, b in self._links_of(message).spans
            ]
        return self._spans

    def hosts(self) -> list[str]:
        """The host of each URL (as `url_spans`)."""
        if self._hosts is None:
            self._hosts = [
                host
                for message in range(len(self.starts))
                for host in self._links_of(message).hosts
            ]
        return self._hosts

    def host_at(self, span: tuple[int, int]) -> str:
        """The host of the URL at `span`."""
        message = self.message_at(span[0])
        links, start = self._links_of(message), self.starts[message]
        return links.hosts[bisect.bisect_left(links.spans, (span[0] - start, span[1] - start))]

    def _links_of(self, message: int) -> _Links:
        links = self._links[message]
        if links is None:
            links = self._links[message] = _urls(self.chunks[message])
        return links


class _Links:
    """The URLs of one message: spans (in the message), their ends, hosts."""

    __slots__ = ("_authorities", "_hosts", "ends", "spans")

    def __init__(self, found: list[tuple[tuple[int, int], bytes]]) -> None:
        self.spans = [span for span, _ in found]
        self.ends = [end for _, end in self.spans]
        self._authorities = [authority for _, authority in found]
        self._hosts: list[str] | None = None

    @property
    def hosts(self) -> list[str]:
        if self._hosts is None:
            self._hosts = [_authority_host(authority) for authority in self._authorities]
        return self._hosts


@functools.lru_cache(maxsize=4096)
def _urls(text: bytes) -> _Links:
    """The URLs written in one message's text, in order."""
    found = [(m.span(), m.group(1)) for m in _HTTP.finditer(text)]
    # `www.` and `ftp://` URLs of their own: only when the text has more of them than
    # the http(s) URLs account for (a count is cheap, a scan is not).
    inside = sum(1 for _, authority in found if authority.startswith(b"www."))
    if text.count(b"www.") > inside or b"ftp://" in text:
        for pattern in (_WWW, _FTP):
            found += [(m.span(), m.group(1)) for m in pattern.finditer(text)]
        found.sort()
    kept: list[tuple[tuple[int, int], bytes]] = []
    for span, authority in found:
        if not kept or span[0] >= kept[-1][0][1]:  # www. inside https://
            kept.append((span, authority))
    return _Links(kept)


@functools.lru_cache(maxsize=4096)
def _pieces(chunk: bytes, canaries: tuple[str, ...]) -> tuple[Hit, ...]:
    """The candidate pieces of one message's text (offsets in it)."""
    return tuple(find_pieces(chunk, canaries))


class PieceIndex:
    """The pieces of one conversation, by key. Building only records where each key
    occurs; what it is, and whether it was seen outside URLs, is resolved for the few
    keys a URL carries."""

    __slots__ = ("_corpus", "_grams", "_hosts", "_occurrences", "_resolved", "_short")

    def __init__(self, corpus: Corpus, canaries: Sequence[str]) -> None:
        self._corpus = corpus
        occurrences: dict[bytes, list[Hit]] = {}
        for hit in corpus.pieces(tuple(canaries)):
            found = occurrences.get(hit[0])
            if found is None:
                occurrences[hit[0]] = [hit]
            elif len(found) < _MAX_OCCURRENCES:
                found.append(hit)
        self._occurrences = occurrences
        # Named secrets shorter than a gram's reach (a PIN) are looked for one by one.
        self._short = [key for key in occurrences if len(key) < MIN_KEY]
        grams: dict[bytes, list[bytes]] = {}
        for key in occurrences:  # its grams at offsets 0, 1 and 2 (_STRIDE)
            for gram in (key[:_GRAM], key[1 : _GRAM + 1], key[2 : _GRAM + 2]):
                keys = grams.get(gram)
                if keys is None:
                    grams[gram] = [key]
                elif keys[-1] != key:
                    keys.append(key)
        self._grams = grams
        self._resolved: dict[bytes, Entry | None] = {}
        self._hosts: dict[tuple[int, int], str] = {}

    def __len__(self) -> int:
        return len(self._occurrences)

    def carried(self, blob: bytes, grams: frozenset[bytes], host: str) -> list[tuple[bytes, Entry]]:
        """The pieces `blob` contains (`grams`: its `sample`), earliest first, leaving
        out those seen only in URLs on `host`'s site."""
        if not self._occurrences:
            return []
        hits: list[tuple[bytes, Entry]] = []
        candidates = [key for gram in grams & self._grams.keys() for key in self._grams[gram]]
        for key in candidates + self._short:
            if key in blob and all(key != found for found, _ in hits):
                entry = self._entry(key)
                if entry is not None and not self._same_site(entry, host):
                    hits.append((key, entry))
        return sorted(hits, key=lambda hit: hit[1].start)

    def _entry(self, key: bytes) -> Entry | None:
        if key in self._resolved:
            return self._resolved[key]
        corpus = self._corpus
        spans: list[tuple[int, int]] | None = []
        first: Hit | None = None
        canary = False
        for hit in self._occurrences[key]:
            canary = canary or hit[1] == "canary"
            span = corpus.url_at(hit[2])
            if span is None and spans is not None:
                spans, first = None, hit  # the first time outside a URL: that is its source
            elif span is not None and spans is not None:
                spans.append(span)
        source = first or self._occurrences[key][0]
        kind = "canary" if canary else confirm(corpus.text, source[1], source[2], source[3])
        entry = None if kind is None else Entry(kind, source[2], spans)
        self._resolved[key] = entry
        return entry

    def _same_site(self, entry: Entry, host: str) -> bool:
        """Was a piece seen only in URLs, one of them on `host`'s site (which had it)?"""
        if entry.spans is None or not entry.spans or not host:
            return False
        return any(_same_site(self._host(span), host) for span in entry.spans)

    def _host(self, span: tuple[int, int]) -> str:
        host = self._hosts.get(span)
        if host is None:
            host = self._hosts[span] = self._corpus.host_at(span)
        return host


_SLICES = tuple(slice(i, i + _GRAM) for i in range(0, 8192, _STRIDE))


def sample(blob: bytes) -> frozenset[bytes]:
    """The grams of `blob` the index looks up: every third one."""
    count = max(0, (len(blob) - _GRAM) // _STRIDE + 1)
    if count <= len(_SLICES):
        return frozenset(map(blob.__getitem__, _SLICES[:count]))
    return frozenset(blob[i : i + _GRAM] for i in range(0, len(blob) - _GRAM + 1, _STRIDE))


def host_of(url: str) -> str:
    """The host of a URL or authority written in text (lower case, no userinfo, port
    or trailing dot)."""
    rest = url.partition("://")[2] if "://" in url[:12] else url
    authority = re.split(r"[/?#\\]", rest, maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    if not host.startswith("["):
        host = host.partition(":")[0]
    host = host.rstrip(".").lower()
    return host if host.isascii() else (normalise_host(host) or host)


def _authority_host(authority: bytes) -> str:
    if authority.isascii() and authority.islower() and b"@" not in authority:
        return authority.partition(b":")[0].rstrip(b".").decode("ascii")  # the common case
    return host_of(authority.decode("utf-8", "replace"))


def registered(name: str) -> bool:
    """Is `name` under a known public suffix (a host that could exist)?"""
    return bool(_domain(name))


# Sites one first party runs under several names: an ID seen on one (a video's, on
# youtube.com) goes to the same party on the other (youtu.be).
_ONE_PARTY = (
    frozenset({"youtube.com", "youtu.be", "youtube-nocookie.com"}),
    frozenset({"twitter.com", "x.com", "t.co"}),
    frozenset({"reddit.com", "redd.it"}),
    frozenset({"amazon.com", "amzn.to", "a.co"}),
    frozenset({"google.com", "goo.gl", "g.co"}),
    frozenset({"facebook.com", "fb.com", "fb.me"}),
    frozenset({"linkedin.com", "lnkd.in"}),
    frozenset({"microsoft.com", "aka.ms"}),
)
_PARTY = {domain: party for party in _ONE_PARTY for domain in party}


def _same_site(seen: str, host: str) -> bool:
    if seen == host:
        return True
    domain, other = _domain(host), _domain(seen)
    return bool(domain) and (domain == other or _PARTY.get(domain, ()) is _PARTY.get(other))


@functools.lru_cache(maxsize=4096)
def _domain(host: str) -> str:
    return registrable_domain(host)
