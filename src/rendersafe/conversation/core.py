"""`Conversation`: what the model saw, and what a reply URL carries of it.

    conversation = Conversation.from_messages(request_body["messages"])
    conversation.taint(parse_url(href))       # Taint(message=3, role="tool", kind="key") or None
    conversation.has_url(href)                # copied verbatim from the conversation?
    tracker = conversation.tracker()          # one per reply: pieces split across its URLs
    tracker.check(parse_url(href))

Building is linear and bounded (the newest `max_chars` characters); the indexes are
built on the first question that needs them and kept, so one conversation serves
every reply and stream that follows it.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import unquote

from ..shapes import TRUSTED_ROLES, Chat
from ..urls.parse import ParsedUrl, parse_url
from .index import Corpus, Entry, PieceIndex
from .messages import MODEL_ROLES, UNPROVEN_ROLES, USER_ROLES, Message, read_messages
from .naming import Naming
from .parts import covered
from .prose import ProseIndex
from .provenance import Provenance
from .readings import Readings, readings_of, url_readings
from .seen import SeenHosts, SeenUrls, given_by_observer
from .sent import model_urls, shown_urls
from .tracker import ReplyTaint

__all__ = ["Conversation", "ConversationLike", "Taint"]

# The conversations built last, by their messages: a bot that passes the same
# history for every reply, or a stream and its citations, build its indexes once.
# A Conversation never changes once built (its indexes are built once, on demand),
# so one may serve several replies and threads.
_MAX_RECENT = 16
_RECENT: OrderedDict[tuple[object, ...], Conversation] = OrderedDict()
_RECENT_LOCK = threading.Lock()

TRUSTED: frozenset[str] = frozenset(TRUSTED_ROLES)
_ADDRESS = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


@dataclass(frozen=True, slots=True)
class Taint:
    """A URL carries a piece of the conversation: from which message, of what kind.

    Never the piece itself: the audit log must not become the leak. `kind` is one of
    "email", "phone", "card", "account", "key", "prose", "canary"."""

    message: int
    role: str
    kind: str


class Conversation:
    """What the model saw. Build once (linear, bounded), reuse for many replies and streams.

    `from_messages` reads strings and chat messages in the OpenAI (chat and Responses),
    Anthropic and Ollama shapes, request bodies and SDK objects (see `messages`).
    """

    DEFAULT_MAX_CHARS: ClassVar[int] = 262_144

    __slots__ = (
        "_canaries",
        "_corpus",
        "_given_on",
        "_hosts",
        "_naming",
        "_own",
        "_owned",
        "_pieces",
        "_prose",
        "_provenance",
        "_sent",
        "_urls",
        "messages",
        "notes",
    )

    def __init__(
        self,
        messages: Iterable[Message] = (),
        *,
        notes: Iterable[str] = (),
        canaries: Iterable[str] = (),
    ) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        # What of it could not be read (cut to the window, or unreadable), and why.
        self.notes: tuple[str, ...] = tuple(notes)
        self._canaries = tuple(canaries)
        self._own: tuple[str, ...] = tuple(
            m.text if m.role in USER_ROLES else "" for m in self.messages
        )
        self._corpus: Corpus | None = None
        self._pieces: PieceIndex | None = None
        self._prose: ProseIndex | None = None
        self._urls: SeenUrls | None = None
        self._hosts: SeenHosts | None = None
        self._owned: frozenset[str] | None = None
        self._sent: tuple[dict[bytes, int], bytes] | None = None
        self._provenance: dict[tuple[frozenset[str], bool], Provenance] = {}
        self._naming: dict[frozenset[str], Naming] = {}
        self._given_on: dict[str, dict[str, int]] | None = None

    @classmethod
    def from_messages(
        cls,
        messages: object,
        *,
        max_chars: int = DEFAULT_MAX_CHARS,
        canaries: Iterable[str] = (),
    ) -> Conversation:
        """Read a conversation in any shape (`rendersafe.shapes`); keep `max_chars`
        characters of its text, the user's, system's and developer's words last to go.

        Never raises for the shape of a message (unknown shapes give all their
        strings); raises TypeError only when `messages` is a number or None.
        `canaries` found in the text are reported as kind "canary"."""
        read = read_messages(messages, max_chars)
        key = (read.messages, read.own, read.notes, tuple(canaries))
        with _RECENT_LOCK:
            conversation = _RECENT.get(key)
            if conversation is not None:
                _RECENT.move_to_end(key)
                return conversation
        conversation = cls(read.messages, notes=read.notes, canaries=key[3])
        conversation._own = read.own
        with _RECENT_LOCK:
            _RECENT[key] = conversation
            if len(_RECENT) > _MAX_RECENT:
                _RECENT.popitem(last=False)
        return conversation

    @classmethod
    def coerce(cls, value: object) -> Conversation | None:
        """`value` as a Conversation (None stays None; a Conversation is returned as is)."""
        if value is None or isinstance(value, Conversation):
            return value
        return cls.from_messages(value)

    def __repr__(self) -> str:
        chars = sum(len(m.text) for m in self.messages)
        size = f"{len(self.messages)} messages, {chars} chars"
        return f"Conversation({size}, truncated={self.truncated})"

    @property
    def truncated(self) -> bool:
        """Was any of it not read (`notes` say why)? The judge is stricter then."""
        return bool(self.notes)

    def taint(self, url: ParsedUrl) -> Taint | None:
        """The first sensitive piece of the conversation `url` carries, if any."""
        readings = self.readings(url)
        hits = self.pieces_in(readings, url.host)
        return hits[0][1] if hits else self.prose_in(readings, url.host)

    def tracker(self) -> ReplyTaint:
        """A fresh per-reply state, for pieces split across the reply's URLs."""
        return ReplyTaint(self)

    def has_url(self, href: str) -> bool:
        """Is `href` verbatim in the conversation (normalised as in `seen`), first in a
        message the model did not write?"""
        if self._urls is None:
            self._urls = SeenUrls(self._text(), self._given())
        return href in self._urls

    def copied_at(self, href: str) -> int | None:
        """The message `href` was first seen in verbatim, if the model did not write that
        message (None: not copied)."""
        if self._urls is None:
            self._urls = SeenUrls(self._text(), self._given())
        return self._urls.first(href)

    def copies_on(self, host: str) -> int:
        """How many distinct URLs on `host` the conversation gave (a copy is a choice
        among them)."""
        if self._urls is None:
            self._urls = SeenUrls(self._text(), self._given())
        return self._urls.on_host(host)

    def provenance(self, trusted: frozenset[str] = TRUSTED, *, strict: bool = False) -> Provenance:
        """Which copied URLs are what the model asked a tool to write (`provenance`),
        with `trusted` the roles whose words are the user's or the operator's; `strict`
        counts every name a message gave as data."""
        found = self._provenance.get((trusted, strict))
        if found is None:
            found = Provenance(
                self.messages, self._text(), self._carries, trusted, self.has_url, strict=strict
            )
            self._provenance[(trusted, strict)] = found
        return found

    def naming(self, trusted: frozenset[str] = TRUSTED) -> Naming:
        """Which texts name which observer, however written (`naming`), with `trusted`
        the roles whose words are the user's or the operator's."""
        found = self._naming.get(trusted)
        if found is None:
            found = self._naming[trusted] = Naming(self.messages, trusted)
        return found

    def given_on(self) -> dict[str, dict[str, int]]:
        """The distinct URLs messages the model did not write gave, by observer
        (`urls.observers`), each with the message that gave it first: a copy is a
        choice among them, and what they say their observer knows."""
        if self._given_on is None:
            self._given_on = given_by_observer(self._text(), self._given())
        return self._given_on

    def _carries(self, text: str, position: int) -> list[str]:
        """The pieces of the conversation `text` carries that a message before message
        `position`, not the model's, gave (letters and digits, lower case)."""
        readings = readings_of(text)
        return [
            key.decode("utf-8", "replace")
            for key, entry in self._index().carried(readings.blob, readings.grams, "")
            if entry.message < position and self.messages[entry.message].role not in MODEL_ROLES
        ]

    def has_host(self, host: str) -> bool:
        """Was `host` seen in a URL or as a bare domain of the conversation?"""
        return host in self._seen_hosts()

    def owns_address(self, address: str) -> bool:
        """Is `address` an e-mail address the user wrote (a `mailto:` to it is no leak)?"""
        if self._owned is None:
            self._owned = frozenset(
                match.group().lower().rstrip(".")
                for text in self._own
                if "@" in text
                for match in _ADDRESS.finditer(text)
            )
        return _address(address) in self._owned

    def readings(self, url: ParsedUrl) -> Readings:
        """The readings of `url` to look for pieces in (a `mailto:` to the user's own
        address is read without its recipients)."""
        own = url.scheme == "mailto" and self._owns_recipients(url)
        return url_readings(url, skip_path=own)

    def pieces_in(
        self, readings: Readings, host: str, partial: list[tuple[bytes, Taint, int]] | None = None
    ) -> list[tuple[bytes, Taint]]:
        """The keys a URL's readings carry to `host`, earliest first. With `partial`, also
        add to it each long key the readings hold parts of, too few to carry it, and
        which of its characters they hold (`parts.covered`)."""
        parts: list[tuple[bytes, Entry, int]] | None = None if partial is None else []
        hits = self._index().carried(readings.blob, readings.grams, host, parts)
        if partial is not None and parts:
            partial.extend((key, self._at(e.message, e.kind), mask) for key, e, mask in parts)
        return [(key, self._at(entry.message, entry.kind)) for key, entry in hits]

    def model_urls(self) -> list[str]:
        """The URLs of the model's earlier replies, newest first (`sent.model_urls`)."""
        return model_urls(self.messages)

    def shown_urls(self) -> list[tuple[str, bool]]:
        """The URLs the model's earlier replies showed, newest first, and whether each
        was an image (`sent.shown_urls`)."""
        return shown_urls(self.messages)

    def sent(self, key: bytes) -> int:
        """Which characters of the long `key` the model's earlier replies sent in their
        URLs' parts (`parts.covered`, as bits; `sent.model_urls`): a key spread over
        turns adds up as one spread over a reply's URLs does. The URLs are read on the
        first ask, each key's characters once."""
        if self._sent is None:
            urls = model_urls(self.messages)
            self._sent = ({}, b"\0".join(self.readings(parse_url(u)).blob for u in urls))
        masks, blob = self._sent
        mask = masks.get(key)
        if mask is None:
            mask = masks[key] = covered(key, blob)
        return mask

    def prose_in(self, readings: Readings, host: str) -> Taint | None:
        """A run of the conversation's prose in a URL's words (`Readings.prose`, and
        `joined_prose` held to the long run), to a host it did not see."""
        message = self._prose_run(readings, host)
        return None if message is None else self._at(message, "prose")

    def _prose_run(self, readings: Readings, host: str) -> int | None:
        if not (readings.prose or readings.joined_prose) or self._seen_hosts().covers(host):
            return None
        if self._prose is None:
            self._prose = ProseIndex(self.messages)
        candidates = [(words, False) for words in readings.prose]
        candidates += [(words, True) for words in readings.joined_prose]
        for words, long_only in candidates:
            found = self._prose.find(words, long_only=long_only)
            if found is not None:
                return found
        return None

    def _at(self, position: int, kind: str) -> Taint:
        message = self.messages[position]
        return Taint(message.index, message.role, kind)

    def _owns_recipients(self, url: ParsedUrl) -> bool:
        path = url.parts.path if url.parts is not None else ""
        recipients = [r for r in unquote(path).split(",") if r.strip()]
        return bool(recipients) and all(self.owns_address(r) for r in recipients)

    def _text(self) -> Corpus:
        if self._corpus is None:
            self._corpus = Corpus(self.messages)
        return self._corpus

    def _given(self) -> list[bool]:
        """Which messages the model did not write. A URL or host the model's own earlier
        turn holds proves nothing: it may have planted it there (in a code block, never
        rendered) to have it taken for copied, or its host for seen, the turn after. Nor
        does a message whose author is not said (`UNKNOWN_ROLE`), nor a tool's echo of
        what the model wrote first (`seen`)."""
        return [m.role not in UNPROVEN_ROLES for m in self.messages]

    def _index(self) -> PieceIndex:
        if self._pieces is None:
            self._pieces = PieceIndex(self.messages, self._canaries)
        return self._pieces

    def _seen_hosts(self) -> SeenHosts:
        if self._hosts is None:
            self._hosts = SeenHosts(self._text(), self._given())
        return self._hosts


def _address(address: str) -> str:
    address = unquote(address).strip().lower()
    return address.removeprefix("mailto:").partition("?")[0].rstrip(".")


# What the front doors accept as `conversation=`.
ConversationLike = Conversation | Chat | str | Iterable[object] | Mapping[str, object] | None
