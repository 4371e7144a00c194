"""The index of a conversation's pieces, and of the URLs they came in.

Each message's text is read once per process, whatever conversation it is sent in (a
chat's history comes again with every request): its URLs (their spans), its candidate
pieces (`pieces.find_pieces`), and where each piece a URL carries occurs (in which of its
URLs), are kept with the message (`MessageText`, `MessagePieces`). A conversation only
puts its messages' parts together, so a chat's turn costs what its new messages cost.

A piece found only inside URLs belongs to those URLs: it taints a reply URL only on
another site than theirs (one party's several names, youtube.com and youtu.be, are one
site). Each message indexes 4-byte grams of each key, at its offsets 0, 1 and 2, to the
key (at every offset for a key that can be carried in parts, `parts`), and the
conversation the union of those grams; a reading is sampled at every third byte, which
meets every key (or part) of 6 bytes or more it contains (the sampled gram that starts
in its first three bytes lies inside it), so a check costs one set intersection,
and for a reading that meets a gram one per message, and a `bytes` search per candidate,
whatever the size of the conversation. What a candidate is, and where it came from, is
worked out for the few a URL carries.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..urls.hosts import normalise_host, registrable_domain
from .memo import MessageMemo
from .messages import MEMO_CHARS, MODEL_ROLES, Message
from .parts import PARTS_FROM, PARTS_KINDS, covered, enough
from .pieces import MIN_KEY, Hit, confirm, find_pieces

__all__ = [
    "Corpus",
    "Entry",
    "MessagePieces",
    "MessageText",
    "PieceIndex",
    "host_of",
    "message_text",
    "registered",
    "sample",
]

# URLs written in text, each scan led by a literal (fast); group 1 is the authority.
_HTTP = re.compile(rb"https?://([^/?#\s<>\"'`\\]*)[^\s<>\"'`\\]*")
_WWW = re.compile(rb"(www\.[^/?#\s<>\"'`\\]*)[^\s<>\"'`\\]*")
_FTP = re.compile(rb"ftp://([^/?#\s<>\"'`\\]*)[^\s<>\"'`\\]*")
# The bytes that end a URL written in text (as in the scans above), as b" " (the
# others b"!"), and where one starts: its scheme (or `www.`, which the authority holds).
_STOP = ord(" ")
_STOPS = bytes(_STOP if chr(b) in " \t\n\r\f\v<>\"'`\\" else ord("!") for b in range(256))
_STARTS = ((b"http://", 7), (b"https://", 8), (b"www.", 0), (b"ftp://", 6))
_AUTHORITY = re.compile(rb"[^/?#]*")
_GRAM = 4
_STRIDE = 3
_MAX_OCCURRENCES = 8  # of one key: where it came from, and in which URLs


@dataclass(slots=True)
class Entry:
    """A key's piece, resolved from its occurrences when a URL first carries it: its
    kind (confirmed), the message and offset of its first occurrence outside URLs (or
    of the first of all), and, when it was seen only in URLs, their hosts (None when it
    was seen outside one)."""

    kind: str
    message: int
    start: int
    hosts: list[str] | None


class MessageText:
    """One message's text as UTF-8, and (found on first ask) its URLs: their spans,
    ends and hosts. Shared by every conversation the message is sent in."""

    __slots__ = ("_authorities", "_hosts", "_stops", "chunk", "ends", "spans")

    def __init__(self, text: str) -> None:
        self.chunk = text.encode("utf-8", "surrogatepass")
        self.spans: list[tuple[int, int]] | None = None
        self.ends: list[int] = []
        self._authorities: list[bytes] = []
        self._hosts: list[str] | None = None
        self._stops: bytes | None = None

    def links(self) -> list[tuple[int, int]]:
        """The span of every URL of the message, in order."""
        if self.spans is None:
            found = _urls(self.chunk)
            self._authorities = [authority for _, authority in found]
            self.ends = [span[1] for span, _ in found]
            self.spans = [span for span, _ in found]
        return self.spans

    def hosts(self) -> list[str]:
        """The host of each URL (as `links`)."""
        if self._hosts is None:
            self.links()
            self._hosts = [_authority_host(authority) for authority in self._authorities]
        return self._hosts

    def has_host(self, host: str) -> bool:
        """Is `host` the host of one of the message's URLs (as `hosts`)? An ASCII text
        without the name is not scanned for its URLs: their hosts are its lower-case
        substrings."""
        name = host.encode("utf-8", "surrogatepass")
        if self._hosts is None and self.chunk.isascii() and name not in self.chunk.lower():
            return False
        return host in self.hosts()

    def host_at(self, offset: int) -> str | None:
        """The host of the URL (as `links`) that holds byte `offset`, if one does: found
        from the bytes around `offset` alone, so a message is not scanned for its URLs."""
        chunk = self.chunk
        if self._stops is None:
            self._stops = chunk.translate(_STOPS)
        stops = self._stops
        if stops[offset] == _STOP:
            return None
        # A URL runs from its scheme (or `www.`) to the next stop byte: the one that
        # holds `offset` starts at the first scheme after the stop before it.
        begin = stops.rfind(b" ", 0, offset) + 1
        found = [
            (at, size)
            for start, size in _STARTS
            if (at := chunk.find(start, begin, offset + len(start))) >= 0
        ]
        if not found:
            return None
        at, size = min(found)
        end = stops.find(b" ", offset)
        match = _AUTHORITY.match(chunk, at + size, len(chunk) if end < 0 else end)
        return _authority_host(match.group() if match else b"")

    def url(self, index: int) -> str:
        """The URL at position `index` of `links`, as written."""
        a, b = self.links()[index]
        return self.chunk[a:b].decode("utf-8", "replace")


def message_text(text: str) -> MessageText:
    """The `MessageText` of `text`, once per process (kept in `_message_text`, texts of
    at most `MEMO_CHARS` characters)."""
    return _message_text(text) if len(text) <= MEMO_CHARS else MessageText(text)


_message_text: MessageMemo[str, MessageText] = MessageMemo(MessageText, len)


def _urls(text: bytes) -> list[tuple[tuple[int, int], bytes]]:
    """The URLs written in one message's text, in order, and their authorities."""
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
    return kept


# One occurrence of a key in a message: the hit, and the host of the URL it lies in
# (None: outside every URL).
_Occurrence = tuple[Hit, str | None]


class MessagePieces:
    """The candidate pieces of one message, by key, and their grams; what each key's
    occurrences are (in which URL, of what kind) is worked out on first ask."""

    __slots__ = (
        "_kinds",
        "_occurrences",
        "_text",
        "_where",
        "grams",
        "gramset",
        "long",
        "partset",
        "short",
    )

    def __init__(self, text: MessageText, canaries: tuple[str, ...]) -> None:
        self._text = text
        occurrences: dict[bytes, list[Hit]] = {}
        for hit in find_pieces(text.chunk, canaries):
            found = occurrences.get(hit[0])
            if found is None:
                occurrences[hit[0]] = [hit]
            elif len(found) < _MAX_OCCURRENCES:
                found.append(hit)
        self._occurrences = occurrences
        # Named secrets shorter than a gram's reach (a PIN) are looked for one by one.
        self.short = [key for key in occurrences if len(key) < MIN_KEY]
        grams: dict[bytes, list[bytes]] = {}
        for key in occurrences:  # its grams at offsets 0, 1 and 2 (_STRIDE)
            for gram in (key[:_GRAM], key[1 : _GRAM + 1], key[2 : _GRAM + 2]):
                keys = grams.get(gram)
                if keys is None:
                    grams[gram] = [key]
                elif keys[-1] != key:
                    keys.append(key)
        self.grams = grams
        # A key that can be carried in parts is met by its grams at every offset; which
        # keys have such a gram is looked up when a URL meets one (they are few).
        self.long = [
            key
            for key, hits in occurrences.items()
            if len(key) >= PARTS_FROM and hits[0][1] in _PARTS_CANDIDATES and not key.isdigit()
        ]
        self.partset = frozenset().union(*map(_windows, self.long))
        self.gramset = frozenset(grams)
        self._where: dict[bytes, list[_Occurrence]] = {}
        self._kinds: dict[Hit, str | None] = {}

    def __contains__(self, key: object) -> bool:
        return key in self._occurrences

    def where(self, key: bytes) -> list[_Occurrence]:
        """The key's occurrences in this message (the first few), with their URL's host."""
        found = self._where.get(key)
        if found is None:
            text = self._text
            found = []
            for hit in self._occurrences.get(key, ()):
                found.append((hit, text.host_at(hit[2])))
            self._where[key] = found
        return found

    def kind(self, hit: Hit) -> str | None:
        """The confirmed kind of one of its candidates (None: not a piece)."""
        if hit not in self._kinds:
            self._kinds[hit] = confirm(self._text.chunk, hit[1], hit[2], hit[3])
        return self._kinds[hit]


# The candidates that can be confirmed as one of `parts.PARTS_KINDS`: not "email", "number".
_PARTS_CANDIDATES = ("segment", "token", "named", "canary")
_WINDOWS = tuple(slice(i, i + _GRAM) for i in range(1024))


def _windows(key: bytes) -> Iterable[bytes]:
    """Every gram of `key` (sliced in C for keys of ordinary length)."""
    count = len(key) - _GRAM + 1
    if count <= len(_WINDOWS):
        return map(key.__getitem__, _WINDOWS[:count])
    return (key[i : i + _GRAM] for i in range(count))


def message_pieces(text: str, canaries: tuple[str, ...]) -> MessagePieces:
    """The `MessagePieces` of `text`, once per process (kept in `_message_pieces`,
    texts of at most `MEMO_CHARS` characters)."""
    if len(text) > MEMO_CHARS:
        return MessagePieces(message_text(text), canaries)
    return _message_pieces((text, canaries))


def _read_pieces(key: tuple[str, tuple[str, ...]]) -> MessagePieces:
    return MessagePieces(message_text(key[0]), key[1])


def _text_size(key: tuple[str, tuple[str, ...]]) -> int:
    return len(key[0])


# A message's pieces, by its text (and the caller's canaries): a resent history's
# messages are read once per process, whatever Sanitizer or request sends them.
_message_pieces: MessageMemo[tuple[str, tuple[str, ...]], MessagePieces] = MessageMemo(
    _read_pieces, _text_size
)


class Corpus:
    """The messages of one conversation, each as its shared `MessageText`."""

    __slots__ = ("texts",)

    def __init__(self, messages: Sequence[Message]) -> None:
        self.texts = [message_text(m.text) for m in messages]


class PieceIndex:
    """The pieces of one conversation, by key: its messages' `MessagePieces` and the
    union of their grams. What a key is, and whether it was seen outside URLs, is
    resolved for the few keys a URL carries."""

    __slots__ = (
        "_keys",
        "_long",
        "_made",
        "_messages",
        "_resolved",
        "_short",
        "_universe",
    )

    def __init__(self, messages: Sequence[Message], canaries: Sequence[str]) -> None:
        key = tuple(canaries)
        self._messages = [message_pieces(m.text, key) for m in messages]
        self._made = frozenset(i for i, m in enumerate(messages) if m.role in MODEL_ROLES)
        self._universe = frozenset().union(
            *(p.gramset for p in self._messages), *(p.partset for p in self._messages)
        )
        self._short = list(dict.fromkeys(k for p in self._messages for k in p.short))
        self._long = list(dict.fromkeys(k for p in self._messages for k in p.long))
        self._resolved: dict[bytes, Entry | None] = {}
        self._keys: dict[bytes, dict[bytes, None]] = {}  # by gram, as URLs meet them

    def carried(
        self,
        blob: bytes,
        grams: frozenset[bytes],
        host: str,
        partial: list[tuple[bytes, Entry, int]] | None = None,
    ) -> list[tuple[bytes, Entry]]:
        """The pieces `blob` contains (`grams`: its `sample`), earliest first, leaving
        out those seen only in URLs on `host`'s site. With `partial`, also add to it the
        keys `blob` holds counted parts of, too few to be carried (`parts.covered`).
        Parts inside a key `blob` holds whole are that key's (`_without`)."""
        met = grams & self._universe
        if not met and not self._short:
            return []
        candidates: dict[bytes, None] = {}
        for gram in met:
            keys = self._keys.get(gram)
            if keys is None:
                keys = self._keys[gram] = self._keys_of(gram)
            candidates.update(keys)
        candidates.update(dict.fromkeys(self._short))
        whole = {key: self._entry(key) for key in candidates if key in blob}
        hits = [(key, entry) for key, entry in whole.items() if entry is not None]
        parted = [key for key in candidates if key not in whole]
        if parted:
            hits += self._in_parts(parted, self._without(blob, hits), partial)
        hits = [(key, entry) for key, entry in hits if not _seen_on_site(entry, host)]
        return sorted(hits, key=lambda hit: (hit[1].message, hit[1].start))

    def _without(self, blob: bytes, held: list[tuple[bytes, Entry]]) -> bytes:
        """`blob` with the long keys it holds whole blanked out, where the chat had them
        before the model wrote them: their characters are that key's, not parts of
        another. IDs made together share most of their characters (UUIDv1s'
        `...-9414-11ec-b3c8-9f6bdeced846`, ObjectIds, ULIDs of one millisecond): a link
        to the one a tool gave is not parts of the one the user wrote. A key the model
        wrote first could be a secret's near copy, planted to explain its parts."""
        for key, entry in held:
            if len(key) >= PARTS_FROM and entry.message not in self._made:
                blob = blob.replace(key, b"\0")
        return blob

    def _in_parts(
        self, keys: list[bytes], blob: bytes, partial: list[tuple[bytes, Entry, int]] | None
    ) -> list[tuple[bytes, Entry]]:
        """The `keys` whose parts in `blob` make three quarters of them (`parts.covered`);
        with `partial`, also add to it those with fewer, and which characters they hold."""
        hits: list[tuple[bytes, Entry]] = []
        for key in keys:
            mask = covered(key, blob)
            if not mask:
                continue
            entry = self._entry(key)
            if entry is None or not _found_in_parts(entry):
                continue
            if enough(key, mask):
                hits.append((key, entry))
            elif partial is not None:
                partial.append((key, entry, mask))
        return hits

    def _keys_of(self, gram: bytes) -> dict[bytes, None]:
        """The keys of the conversation that have `gram` (at their offsets 0, 1 and 2, in
        the order of their messages), then the long keys that hold it anywhere."""
        keys: dict[bytes, None] = {}
        for pieces in self._messages:
            if gram in pieces.gramset:
                keys.update(dict.fromkeys(pieces.grams[gram]))
        keys.update(dict.fromkeys(key for key in self._long if gram in key))
        return keys

    def _entry(self, key: bytes) -> Entry | None:
        if key in self._resolved:
            return self._resolved[key]
        hosts: list[str] | None = []
        first: tuple[int, MessagePieces, Hit] | None = None
        seen: list[tuple[int, MessagePieces, Hit]] = []
        left = _MAX_OCCURRENCES
        for position, pieces in enumerate(self._messages):
            if left <= 0:
                break
            if key not in pieces:
                continue
            for hit, host in pieces.where(key)[:left]:
                left -= 1
                seen.append((position, pieces, hit))
                if host is None and hosts is not None:
                    hosts, first = None, (position, pieces, hit)  # its source
                elif host is not None and hosts is not None:
                    hosts.append(host)
        entry = None
        if seen:
            position, _, hit = first or seen[0]
            kind = _kind(first or seen[0], seen)
            entry = None if kind is None else Entry(kind, position, hit[2], hosts)
        self._resolved[key] = entry
        return entry


def _kind(
    source: tuple[int, MessagePieces, Hit], seen: list[tuple[int, MessagePieces, Hit]]
) -> str | None:
    """What a key is: a canary wherever one is; else what its source confirms, or
    failing that another occurrence (a value named as a secret, "password is
    Summ3r24", is one whatever its shape says where it also stands alone)."""
    if any(hit[1] == "canary" for _, _, hit in seen):
        return "canary"
    for _, pieces, hit in (source, *seen):
        kind = pieces.kind(hit)
        if kind is not None:
            return kind
    return None


def _found_in_parts(entry: Entry) -> bool:
    """Is a piece found in parts (`parts.covered`), not only whole? A canary is; a key
    only when the chat held it outside a URL: one seen only in links is that link's ID
    (a document, a track), and IDs elsewhere share long runs with it (placeholders,
    `1a2b3c4d5e6f...`, on two sites) where a secret's parts appear nowhere else."""
    return entry.kind == "canary" or (entry.kind in PARTS_KINDS and entry.hosts is None)


def _seen_on_site(entry: Entry, host: str) -> bool:
    """Was a piece seen only in URLs, one of them on `host`'s site (which had it)?"""
    if not entry.hosts or not host:
        return False
    return any(_same_site(seen, host) for seen in entry.hosts)


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
