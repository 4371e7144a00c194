"""Where a reply URL's host and characters came from: the user, a tool, the model.

    provenance.standing("events.brightline-catering.com")   # "tool": a tool named it first
    provenance.echoed("c?d=9xk2m", before=5)                # which characters the model
                                                            # wrote before message 5

A site (a registrable domain) is named first by one of:

    "user"   a message of a trusted role (the user, the system prompt, the developer:
             `Policy.trusted_roles`)
    "tool"   a tool's result, a retrieved document, text of no known author
    "model"  the model's own turns (its calls to a tool are the tool's: what comes back
             from a host it fetched is that host's words)
    None     nobody: the model wrote it from what it knows

A tool that echoes what the model wrote into its call (a code interpreter printing the
URL it was given, a search engine putting the query into its result URLs, another agent
handing the model's words back) returns the model's choice, not a copy: `echoed` marks
the characters of a copied URL that the model wrote first, in runs of `ECHO_CHARS` or
more, and those count as the model's choice.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Collection, Sequence

from ..shapes import Kind
from ..urls.observers import site_of
from .index import Corpus
from .messages import MODEL_ROLES, Message
from .seen import bare_of

__all__ = ["ECHO_CHARS", "Provenance", "Standing"]

ECHO_CHARS = 8
DECODED_CHARS = 6
_ENCODED = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")


def _unbase64(run: str) -> bytes:
    data = run.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        return base64.b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        return b""


def _unhex(run: str) -> bytes:
    if len(run) % 2 or not all(c in "0123456789abcdefABCDEF" for c in run):
        return b""
    return bytes.fromhex(run)


Standing = str  # "user", "tool" or "model"


class Provenance:
    """Who named each site first, and what the model wrote before each message."""

    __slots__ = (
        "_compact",
        "_corpus",
        "_echoes",
        "_first_url",
        "_messages",
        "_model_sites",
        "_sites",
        "_trusted",
        "_trusted_blob",
    )

    def __init__(
        self, messages: Sequence[Message], corpus: Corpus, trusted: Collection[str]
    ) -> None:
        self._messages = messages
        self._corpus = corpus
        self._trusted = frozenset(trusted)
        self._sites: dict[str, tuple[Standing, int]] | None = None
        self._echoes: dict[str, int] | None = None
        self._trusted_blob: str | None = None
        self._model_sites: dict[str, int] = {}
        self._compact: dict[str, int] | None = None
        self._first_url: int | None = None

    def _standing_of(self, message: Message) -> Standing:
        if message.role in self._trusted:
            return "user"
        if message.role in MODEL_ROLES and message.kind is not Kind.CALL:
            return "model"
        # A tool's result, text of no known author, and the model's calls to a tool
        # (`fetch(url)`: what comes back from there is that host's, not the model's).
        return "tool"

    def standing(self, host: str) -> Standing | None:
        """Who named `host`'s site first (in a URL or as a bare domain), if anyone."""
        found = self._named().get(site_of(host))
        return found[0] if found is not None else None

    def named_at(self, host: str) -> int | None:
        """The message that named `host`'s site first, if any."""
        found = self._named().get(site_of(host))
        return found[1] if found is not None else None

    def _named(self) -> dict[str, tuple[Standing, int]]:
        if self._sites is None:
            sites: dict[str, tuple[Standing, int]] = {}
            model: dict[str, int] = {}
            first_url = len(self._messages)
            for index, (message, text) in enumerate(
                zip(self._messages, self._corpus.texts, strict=True)
            ):
                standing = self._standing_of(message)
                written = message.role in MODEL_ROLES  # its replies and its calls alike
                if written and text.links():
                    first_url = min(first_url, index)
                for host in (*text.hosts(), *bare_of(text)):
                    if host:
                        site = site_of(host)
                        sites.setdefault(site, (standing, index))
                        if written:
                            model.setdefault(site, index)
            self._sites, self._model_sites, self._first_url = sites, model, first_url
        return self._sites

    def model_named(self, host: str, before: int) -> bool:
        """Did the model name `host`'s site (in a URL or as a bare domain) before message
        `before`? A tool's URL on it may then be what the model asked the tool for."""
        self._named()
        first = self._model_sites.get(site_of(host))
        return first is not None and first < before

    def model_wrote_url(self, before: int) -> bool:
        """Did the model write a URL before message `before` (a shortener's, a redirect's
        URL after it may wrap the model's)?"""
        self._named()
        return self._first_url is not None and self._first_url < before

    def echoed(self, text: str, before: int) -> list[bool]:
        """Which characters of `text` lie in a run of `ECHO_CHARS` or more that the model
        wrote in a message before message `before` (case aside)."""
        grams = self._model_grams()
        lower = text.lower()
        marks = [False] * len(text)
        if not grams:
            return marks
        for i in range(len(lower) - ECHO_CHARS + 1):
            first = grams.get(lower[i : i + ECHO_CHARS])
            if first is not None and first < before:
                marks[i : i + ECHO_CHARS] = [True] * ECHO_CHARS
        return marks

    def _model_grams(self) -> dict[str, int]:
        """Each run of `ECHO_CHARS` characters the model wrote, and where it first did."""
        if self._echoes is None:
            grams: dict[str, int] = {}
            for index, message in enumerate(self._messages):
                if message.role not in MODEL_ROLES:
                    continue
                lower = message.text.lower()
                for i in range(len(lower) - ECHO_CHARS + 1):
                    grams.setdefault(lower[i : i + ECHO_CHARS], index)
            self._echoes = grams
        return self._echoes

    def encoded_echo(self, text: str, before: int) -> bool:
        """Does a run of `text` in base64 or hex decode to words the model wrote before
        message `before` (letters and digits, `DECODED_CHARS` or more in a row)? Another
        agent handed the model's words back encoded."""
        grams = self._compact_grams()
        if not grams:
            return False
        for run in _ENCODED.findall(text):
            for raw in (_unbase64(run), _unhex(run)):
                plain = "".join(c for c in raw.decode("utf-8", "ignore").lower() if c.isalnum())
                for i in range(len(plain) - DECODED_CHARS + 1):
                    first = grams.get(plain[i : i + DECODED_CHARS])
                    if first is not None and first < before:
                        return True
        return False

    def _compact_grams(self) -> dict[str, int]:
        """Each run of `DECODED_CHARS` letters and digits the model wrote (the rest of
        its text taken out), and where it first did."""
        if self._compact is None:
            grams: dict[str, int] = {}
            for index, message in enumerate(self._messages):
                if message.role in MODEL_ROLES:
                    plain = "".join(c for c in message.text.lower() if c.isalnum())
                    for i in range(len(plain) - DECODED_CHARS + 1):
                        grams.setdefault(plain[i : i + DECODED_CHARS], index)
            self._compact = grams
        return self._compact

    def said_by_user(self, token: str) -> bool:
        """Is `token` in what a trusted role wrote (the user's own data)?"""
        if self._trusted_blob is None:
            self._trusted_blob = "\n".join(
                m.text.lower() for m in self._messages if m.role in self._trusted
            )
        return token.lower() in self._trusted_blob
