"""`Budget`: what the model may choose to send to anyone who can read a request.

    budget = Budget(policy, conversation)
    budget.admit(url, observer, Role.LINK, taint=None)   # None: it may go; else why not

Who reads a request decides (`urls.observers`): the chat's own origin, the operator's
trusted hosts and sealed first-party services read only what the user and the service
already share, and nothing is counted there. Anyone else (an observable host, a tenant,
an unknown host) is sent what the model chose, in bits (`bits.price`: words, not
patterns, so the bound holds whatever the encoding):

    a copy          a URL given verbatim by a message the model did not write costs the
                    choice among the copies (`choice.Selection`): which of the URLs the
                    chat gave each observer, and which observers
    derived         a copy that a text the model wrote produced (`provenance`: a call
                    that carries the chat's data, an echo): as composed
    composed        its free part (`bits.free_text`); a word of the paragraphs that name
                    the observer in a message of a trusted role (`Policy.trusted_roles`:
                    the user's, the operator's) costs a choice among those words: the
                    service the user named already has what the user wrote beside it

and may be sent, per reply and per conversation (the model's earlier turns, as the
client sends them back, spent theirs: a conversation spread over many requests spends
one budget, with no state kept between them):

    composed, to observers the chat names   `named_host_budget_bits` for all of them
    (however written: `naming`)             together a reply; `conversation_budget_factor`
                                            times that a conversation
    composed, to an observer no message     `unnamed_host_budget_bits`, with those the
    visibly names, beside text anyone       chat names (an instruction there may have
    could write (not a well-known site)     spelt it in a way no reader reads)
    composed, to an observer nobody names   `link_budget_bits` each, a reply (a link
                                            written from memory: nothing pointed there)
    composed, to an observable host, in     nothing
    links="strict", or with a conversation
    not read whole
    composed, in an image                   nothing
    copies, in links                        `copy_choice_bits` a reply, times the factor
                                            a conversation
    copies, in images                       `image_budget_bits` a conversation

Data recognised as the chat's (`taint`) costs more than any budget, unless the user's
paragraphs that name the observer hold every word of the URL's free part.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import parse_qsl, unquote

from ..conversation import Conversation, Taint
from ..conversation.messages import MODEL_ROLES, UNPROVEN_ROLES
from ..conversation.naming import WORD, Named
from ..conversation.provenance import Derived
from ..conversation.seen import normal_url
from ..findings import Reason
from ..policy import Policy
from ..shapes import Kind
from ..urls import ParsedUrl, Role
from ..urls.classes import SEALED_EXCEPTIONS
from ..urls.known import BRAND_PAGES, BRANDS, known_site
from ..urls.nested import credited_on_site, credits_another, redirects_elsewhere, sends_on
from ..urls.observers import CODE_HOSTS, HostClass, Observer, observer_of
from ..urls.parse import parse_url
from .bits import free_text, is_word, price
from .choice import Selection
from .prefixes import Prefixes

__all__ = ["Budget", "Spent"]

_ALNUM = re.compile(r"[A-Za-z0-9]+")
_DIGITS = re.compile(r"[0-9]+")
# A git object id, whole or abbreviated.
_OBJECT_ID = re.compile(r"\b[0-9a-f]{7,40}\b")
_FULL_OBJECT_ID = 40
_MADE_UP_DIGITS = 3
_SHORT_NUMBER = 4  # digits of a page number, a year, a count: no one's ID
_COUNTED = (HostClass.OBSERVABLE, HostClass.TENANT, HostClass.UNKNOWN)
# The operator's own words: a host they name is theirs. What the user pastes (an e-mail,
# a table) names its own hosts, whose owners may only have what stands beside them.
_OPERATOR_ROLES = frozenset({"system", "developer"})
_TRUNCATED = "the conversation was not read whole"
_UNREAD = "a host no message visibly names, in a conversation with text anyone could write"

_CALL_URL = re.compile(r"https?://[^\s\"'<>\\]+", re.IGNORECASE)
_EMBEDDED = re.compile(r"https?://\S*", re.IGNORECASE)
# The punctuation a copy may run on into and still be read as that copy (`](/`, `](</`).
RUN_ON = 4
# What a link whose text is its own URL leaves between the two, the one after it taken
# out as a URL of its own (`[u](u)`, `[u](<u>)` read as one URL).
# (or where a reading stops short of it: `u](`, `u](<`); and a link's own end after its
# destination, maybe a sentence's after it (`u).`). Which of these a reading holds says a
# bit or two a link, and each counts as a pick among the copies.
_LINK_GLUE = frozenset(
    {"]", "](", "](<", "](/", "](</"}
    | {end + stop for end in (")", ">", ">)") for stop in ("", *".,;:!?")}
)
# What may follow a URL inside another that is not part of it (`[u](u).`).
TRAILING = ").,;:!?'\"]>*_~"
# Anything else a copy runs on into: a character of printable ASCII punctuation each.
_PUNCTUATION_BITS = math.log2(32)
_GLUE_BITS = math.log2(len(_LINK_GLUE) + 1)


@dataclass(frozen=True, slots=True)
class Spent:
    """Why a URL may not go: the reason, and what it says of the host and the bits."""

    reason: Reason
    detail: str


@dataclass(frozen=True, slots=True)
class Cost:
    """What one URL sends its observer: `bits` the model chose, `how` ("copy",
    "derived", "composed"), who names the observer, why a copy is derived, and
    whether what the observer already has holds every word of it that is data."""

    bits: float
    how: str
    standing: str | None  # "trusted", "named", "unread", or None: nobody names the observer
    why: str = ""
    known: frozenset[str] = frozenset()  # what the observer already has
    data: str = ""  # why it carries the chat's data, if it does
    source: int | None = None  # the message a derived copy came from
    cap: float | None = None  # what all the copies derived from it can carry together
    run_on: str | None = None  # the copy a URL runs on from (a pick among the copies)
    glue: str = ""  # the link's syntax it runs on into (which one is a choice)
    operator: bool = False  # an operator's message names the observer (their own host)
    free: str = ""  # a composed URL's free part


class Budget:
    """The budgets of one reply, what its conversation's earlier replies spent included.

    One per reply (or stream), not shared across threads."""

    __slots__ = (
        "_answers",
        "_conversation",
        "_copies",
        "_earlier",
        "_fetched",
        "_glue",
        "_memory",
        "_named",
        "_objects",
        "_observe",
        "_policy",
        "_prefixes",
        "_sent",
        "_strict",
        "_text_of_anyone",
        "_trusted",
        "_used",
        "_words",
    )

    def __init__(
        self,
        policy: Policy,
        conversation: Conversation,
        observe: Callable[[ParsedUrl], Observer] = observer_of,
    ) -> None:
        self._policy = policy
        self._observe = observe  # who reads a URL, the policy's trusted hosts told apart
        self._conversation = conversation
        self._trusted = frozenset(policy.trusted_roles)
        self._strict = policy.links == "strict"
        self._named = 0.0  # bits composed for observers the chat names, this reply
        self._memory: dict[str, float] = {}  # ... for each observer nobody names
        self._answers: dict[int, float] = {}  # ... derived from each tool's answer
        given = conversation.given_on()
        self._copies = {Role.LINK: Selection(given), Role.IMAGE: Selection(given)}
        self._glue: dict[str, set[str]] = {}  # each observer's run-on syntaxes so far
        self._sent: set[tuple[str, Role]] = set()  # a URL sent again chooses nothing more
        # The words this reply's composed links already sent each observer: a word sent
        # again is a choice among those (`/browse/SUP-3310`, then `/browse/SUP-3327`).
        self._used: dict[str, set[str]] = {}
        self._prefixes: dict[str, Prefixes] = {}  # what this reply sent each observer
        self._objects: dict[str, frozenset[str]] = {}
        self._earlier: _Earlier | None = None
        self._fetched: frozenset[str] | None = None
        self._text_of_anyone: bool | None = None
        self._words: dict[bool, frozenset[str]] = {}

    def admit(
        self, url: ParsedUrl, observer: Observer, role: Role, taint: Taint | None
    ) -> Spent | None:
        """None when `url` may go to its observer (its bits are then spent); else why not."""
        href = url.href or ""
        # `e.example/c/q` read inside `https://e.example/c/q` (a linkifier's `http:`)
        # is that URL again: the same text, read twice, chose nothing twice.
        sent = ("https" + href[4:] if href[:7].lower() == "http://" else href), role
        if observer.cls not in _COUNTED or sent in self._sent:
            return None
        cost = self.cost(url, observer, role, self._prefixes_of(observer.key))
        operators = cost.operator and taint is not None and taint.role not in self._trusted
        if taint is not None and not operators and not self._has(url, cost.known):
            where = _where(observer, cost)
            return Spent(
                Reason.CONVERSATION_DATA, f"from message {taint.message} ({taint.role}), to {where}"
            )
        if cost.data:
            return Spent(Reason.CONVERSATION_DATA, f"{cost.data}, to {_where(observer, cost)}")
        # A copy, derived or not, is a pick among the copies; a derived one also carries
        # what the tool may have computed from the model's call.
        spent = self._copy(url, observer, role, cost) if cost.how != "composed" else None
        # A draft to the user's own correspondents: the user reads what it says, and
        # sends it or not (the chat's data in it is still the chat's, above).
        draft = url.scheme == "mailto" and cost.standing == "trusted" and not self._strict
        if cost.glue and cost.glue not in self._glue.get(observer.key, ()):
            # Which of a link's syntaxes a copy runs on into says a few bits, once each.
            cost = replace(cost, bits=cost.bits + _GLUE_BITS)
        if spent is None and cost.how != "copy" and not draft:
            spent = self._composed(observer, role, cost)
        if spent is None and cost.glue:
            self._glue.setdefault(observer.key, set()).add(cost.glue)
        if spent is None:
            self._sent.add(sent)
            if cost.how == "composed":
                # Only what was paid for is a start a later link may point back to: a
                # copy paid only its pick (a template copied, then run on), and a URL
                # that was paid, if a later check takes it out, bounds the one after it
                # still (its start costs no more than the whole did).
                self._prefixes_of(observer.key).add(cost.free)
                self._used.setdefault(observer.key, set()).update(
                    run.lower() for run in _ALNUM.findall(free_text(url, observer.key))
                )
        return spent

    def _prefixes_of(self, key: str) -> Prefixes:
        """What this reply sent `key` so far. (Not what the conversation gave it: a
        template a page hands the model, `/topics?about=DATA`, would cost only its
        filling, and a word fits any budget an answer needs.)"""
        return self._prefixes.setdefault(key, Prefixes())

    def standing(self, observer: Observer, url: ParsedUrl | None = None) -> str | None:
        """Who names `observer` (for `url`, when given): "trusted" (only the user's or
        the operator's messages), "named" (also, or only, a tool or a document),
        "unread" (no message visibly, beside text anyone could write), or None (nobody:
        written from memory)."""
        return self._named_by(observer, url)[1]

    def _named_by(
        self, observer: Observer, url: ParsedUrl | None = None
    ) -> tuple[Named, str | None, set[int]]:
        """Where `observer` is named (for `url`, when given: a brand names its site only
        for a URL that stays the site's), who names it, and the places that prove it
        (for a draft to several recipients: where the last of them is, each must be)."""
        if observer.key.startswith("mailto:"):
            return self._recipients_named(observer)
        conversation = self._conversation
        provenance = conversation.provenance(self._trusted, strict=self._strict)
        named = conversation.naming(self._trusted).of(observer.key)
        # A tool's answer to a call that carries the chat's data proves nothing: the
        # model may have had the tool name the host, and write the words beside it.
        places = {p for p, _ in named.places if not provenance.loaded(p)}
        messages = conversation.messages
        # The user's or the operator's own service: named by them, and by no text an
        # instruction could hide in (a page the user named may hold one).
        by_trusted = bool(places) and all(
            messages[p].role in self._trusted and not provenance.loaded(p) for p, _ in named.places
        )
        # ... or the operator's: a host the system or developer message names is theirs,
        # whatever tool's answer names it too (their tools answer with their own hosts).
        by_trusted = by_trusted or self._by_operator(places)
        # A page the user named, fetched: its text is the host's own, and may instruct.
        if by_trusted and observer.key in self._fetched_observers():
            by_trusted = False
        standing = _standing(named, by_trusted)
        if standing is None and self._unread(observer):
            standing = "unread"
        # A brand's own site, for a URL only the brand reads (`my eBay order ...`), is
        # judged as a well-known one: its company reads it, whoever spelt its name.
        brand = url is not None and self._brand_page(observer, url)
        if self._well_known(observer) or brand:  # (never "unread": see `_unread`)
            return self._as_from_memory(observer, named, places)
        return named, standing, places

    def _brand_page(self, observer: Observer, url: ParsedUrl) -> bool:
        """Is `url` a page where a company shows the user their own orders or tickets
        (data/brand_sites.txt), in a form only that company reads: nothing that sends the
        user on or credits a partner, no escaped path, and a query of words, short
        numbers and what the user or the operator wrote (no affiliate's or room's id)?"""
        parts = url.parts
        if observer.cls is not HostClass.UNKNOWN or parts is None or "%" in parts.path:
            return False
        if not BRAND_PAGES.covers(parts.host, (parts.path or "/").lower()):
            return False
        if _passes_on(url) or credited_on_site(url):
            return False
        if SEALED_EXCEPTIONS.covers(parts.host, (parts.path or "/").lower()):
            return False
        values = [v for _, v in parse_qsl(parts.query.lstrip("?"), keep_blank_values=True)]
        return all(self._plain(value) for value in (*values, unquote(parts.fragment[1:])))

    def _plain(self, value: str) -> bool:
        """Is a query value made of words, numbers of a few digits, and runs a message
        of a trusted role gave? Not one starting with `/` (a sign-in's `return_to`)."""
        if value.startswith(("/", "\\")):
            return False
        naming = self._conversation.naming(self._trusted)
        messages = self._conversation.messages
        for run in _ALNUM.findall(value):
            lower = run.lower()
            if (lower.isdigit() and len(lower) <= _SHORT_NUMBER) or is_word(lower):
                continue
            given = naming.given(lower)
            if given is None or messages[given].role not in self._trusted:
                return False
        return True

    def _by_operator(self, places: set[int]) -> bool:
        """Does a message of the operator's (system, developer; trusted) name it?"""
        messages = self._conversation.messages
        return any(
            messages[p].role in _OPERATOR_ROLES and messages[p].role in self._trusted
            for p in places
        )

    def _well_known(self, observer: Observer) -> bool:
        return observer.cls is HostClass.UNKNOWN and known_site(observer.key)

    def _as_from_memory(
        self, observer: Observer, named: Named, places: set[int]
    ) -> tuple[Named, str | None, set[int]]:
        """A well-known site (only its organisation reads it; its readable parts are
        other observers, `urls.observers`) is judged as a link from memory whoever names
        it: naming it takes none of that budget, and an injection could as well have
        described it in words. What the paragraphs that name it, or its brand (`my IKEA
        order 1298765432`), say beside it may go there."""
        brand = Named(None)
        if observer.key in BRANDS:
            brand = self._conversation.naming(self._trusted).branded(observer.key)
        loaded = self._conversation.provenance(self._trusted, strict=self._strict).loaded
        found = tuple(p for p in (*named.places, *brand.places) if not loaded(p[0]))
        if not found:
            return Named(None), None, set()
        return Named(found[0][0], found), None, {p for p, _ in found}

    def _unread(self, observer: Observer) -> bool:
        """Might a message name `observer` in a spelling `naming` does not read? An
        instruction hides in text anyone could write (a tool's answer, a retrieved page,
        another agent), and spells its host as it likes. A well-known site is still one
        the model writes from memory; so is a code host, whose repositories' owners are
        shown only which of their own pages were opened (`urls.observers`)."""
        if observer.cls is HostClass.UNKNOWN and known_site(observer.key):
            return False
        if observer.key.partition("/")[0] in CODE_HOSTS:
            return False
        return self._instructable()

    def _instructable(self) -> bool:
        """Does the conversation hold text anyone could write (a tool's answer, a
        retrieved page, another agent), where an instruction may hide?"""
        if self._text_of_anyone is None:
            trusted = self._trusted
            # A request's own fields (its model's name, a user id) are strings of no
            # known author too, but not a message: the model reads no instruction there.
            self._text_of_anyone = any(
                m.role not in trusted and m.role not in MODEL_ROLES and m.kind is not Kind.OTHER
                for m in self._conversation.messages
            )
        return self._text_of_anyone

    def _fetched_observers(self) -> frozenset[str]:
        """The observers of the URLs the model's calls asked a tool to fetch, where the
        tool answered (what it answered is that observer's text)."""
        if self._fetched is None:
            conversation = self._conversation
            provenance = conversation.provenance(self._trusted, strict=self._strict)
            found: set[str] = set()
            for position, message in enumerate(conversation.messages):
                if message.role in self._trusted or message.role in MODEL_ROLES:
                    continue
                for call in provenance.calls_answered(position):
                    found.update(observer_of(parse_url(u)).key for u in _CALL_URL.findall(call))
            self._fetched = frozenset(found)
        return self._fetched

    def cost(
        self,
        url: ParsedUrl,
        observer: Observer,
        role: Role = Role.LINK,
        before: Prefixes | None = None,
    ) -> Cost:
        """What `url`, used as `role`, sends `observer`, and how it came to be (given
        what it was sent and given `before`, if that is known)."""
        conversation = self._conversation
        naming = conversation.naming(self._trusted)
        provenance = conversation.provenance(self._trusted, strict=self._strict)
        named, standing, places = self._named_by(observer, url)
        if standing is None and self._instructable() and _passes_on(url):
            # A site read as written from memory is only its organisation's, unless the
            # URL sends the user on (an exit page's `?url=evil.example/c/...`) or credits
            # the visit to someone (`?ref=`, `utm_source=`): then they read it too, and
            # nobody visibly named them.
            standing = "unread"
        given = standing is not None and url.host != observer.key
        host_given = given and naming.of(url.host).first is not None
        text = free_text(url, observer.key, host_given=host_given)
        # A URL inside it is a request of its own, judged as one (`ReplyJudge._spend`),
        # with what follows it in this URL: a redirect passes that on. This observer
        # reads it too: it is sent what the model chose there (`_inside`).
        inside = self._inside(text, observer.key)
        text = _EMBEDDED.sub("/", text)
        copied = conversation.copied_at(url.href or "")
        if copied is None:
            extended = self._extended_copy(url, observer.key, (text, host_given))
            if extended is not None:
                copy, rest = extended
                return _run_on(self.cost(copy, observer, role), rest, inside, copy.href)
        if copied is not None:
            observable = observer.cls is HostClass.OBSERVABLE
            derived = provenance.derived(text, url.host, copied, observable)
            if derived is None:
                return Cost(0.0, "copy", standing)
            # A link echoing the user's words back is a copy (a search result's slug); an
            # image loads unasked, so what it echoes is counted all the same.
            if derived.echoes_given and role is Role.LINK:
                taint = conversation.taint(url)
                data = (
                    "" if taint is None else f"it echoes the chat's data (message {taint.message})"
                )
                return Cost(0.0, "copy", standing, derived.why, data=data)
            bits, cap = _derived_bits(text, derived)
            return Cost(bits, "derived", standing, derived.why, source=copied, cap=cap)
        known = self._known(observer.key, named, places) if places else frozenset()
        known |= self._repository_objects(observer.key)
        # The user's own words, to a service the user or the operator names: a choice
        # among the words of the trusted messages (which they already say costs bits).
        operator = standing == "trusted" and self._by_operator(places)
        words = known | self._trusted_words(answers=operator) if standing == "trusted" else known
        used = self._used.get(observer.key)
        if used:
            words = words | used
        data = self._data(text, known, "operator" if operator else standing)
        bits = price(text, words)
        shared = before.shared(text) if before is not None else 0
        if shared:
            assert before is not None
            bits = min(bits, before.pointer_bits(text) + price(text[shared:], words))
        return Cost(
            bits + inside, "composed", standing, "", known, data, operator=operator, free=text
        )

    def _inside(self, text: str, key: str) -> float:
        """The bits the model chose in the URLs inside the free part `text` (each with
        what follows it) that go to observers other than `key`: a URL the conversation
        gave is a pick among those, anything else is priced as written. The observer of
        the URL around them reads them all: a sealed service's search, wrapped in a
        tenant's or a stranger's URL, is sent to that stranger. One to `key` itself is
        judged as its own request to `key`, on `key`'s budget."""
        conversation = self._conversation
        bits = 0.0
        for match in _EMBEDDED.finditer(text):
            inner = match.group()
            trimmed = inner.rstrip(TRAILING)
            if observer_of(parse_url(trimmed)).key == key:
                continue
            if conversation.has_url(inner) or conversation.has_url(trimmed):
                copies = sum(len(urls) for urls in conversation.given_on().values())
                bits += math.log2(copies + 1) + price(inner[len(trimmed) :])
            else:
                bits += price(inner.split("://", 1)[-1])
        return bits

    def _extended_copy(
        self, url: ParsedUrl, key: str, free: tuple[str, bool]
    ) -> tuple[ParsedUrl, str] | None:
        """A URL the conversation gave `key` that `url` is, verbatim, run on into a few
        characters of punctuation, and those characters (None: there is none). A link
        whose text is its own URL reads, to a renderer that does not take the link, as
        one URL running on into its destination (`[u](u)` read as `u](u)`, the inner URL
        judged as its own request): the copy, and two separators. `free`: the free part
        of `url` and whether the conversation gave its host whole."""
        text, host_given = free
        href = url.href or ""
        for raw in self._conversation.given_on().get(key, {}):
            copy = parse_url(raw)
            if not copy.href or not href.startswith(copy.href):
                continue  # verbatim only: how a copy is spelt (its escapes) is a choice
            copied = _EMBEDDED.sub("/", free_text(copy, key, host_given=host_given))
            rest = text[len(copied) :]
            if text.startswith(copied) and 0 < len(rest) <= RUN_ON and not _ALNUM.search(rest):
                return copy, self._spelt(copy, href, rest)
        return None

    @staticmethod
    def _spelt(copy: ParsedUrl, href: str, rest: str) -> str:
        """What a copy run on into `rest` (decoded) sends after it, as spelt: a
        character written `%2E` where `.` is its usual form is a choice too (the
        percent-escapes a URL parser itself writes, `>` as `%3E`, are not)."""
        assert copy.href is not None
        spelt = _EMBEDDED.split(href[len(copy.href) :], maxsplit=1)[0]
        if "%" not in spelt:
            return rest
        usual = parse_url(copy.href + unquote(spelt)).href or ""
        return rest if usual[len(copy.href) :] == spelt else spelt

    def _has(self, url: ParsedUrl, known: frozenset[str]) -> bool:
        """Does the observer already have every piece of the chat `url` carries (the
        user wrote the trace id beside the log viewer's name)?"""
        if not known or url.parts is None:
            return False
        if sends_on(url):
            return False  # it may send the user on (`?returnurl=//elsewhere/...`)
        conversation = self._conversation
        keys = conversation.pieces_in(conversation.readings(url), url.host)
        stripped = {word.lstrip("0") for word in known}  # an ID is also found without them
        # A run read inside a repository's commit id (`0651876` in `682f053d92dc0651876b...`)
        # is that id's, which its owner has.
        objects = [o for o in known if _OBJECT_ID.fullmatch(o) and len(o) == _FULL_OBJECT_ID]
        return bool(keys) and all(
            _had(key.decode("utf-8", "replace").lstrip("0"), stripped, objects) for key, _ in keys
        )

    def _trusted_words(self, *, answers: bool = False) -> frozenset[str]:
        """The words of the messages of trusted roles (not answers to loaded calls);
        with `answers`, of every message the model did not write, loaded or not (to the
        operator's own host, a tool's IDs are the chat's own, which the operator has)."""
        found = self._words.get(answers)
        if found is None:
            conversation = self._conversation
            loaded = conversation.provenance(self._trusted, strict=self._strict).loaded
            words: set[str] = set()
            for position, message in enumerate(conversation.messages):
                if answers:
                    mine = message.role not in UNPROVEN_ROLES
                else:
                    mine = message.role in self._trusted and not loaded(position)
                if mine:
                    words.update(w.lower() for w in WORD.findall(message.text))
                    words.update(run.lower() for run in _ALNUM.findall(message.text))
            found = self._words[answers] = frozenset(words)
        return found

    def _data(self, text: str, known: frozenset[str], standing: str | None) -> str:
        """Why the composed `text` carries the chat's data, if it does: a run of letters
        and digits (an ID, a number, a code) that a message gave and the observer does
        not have (unless a trusted role gave it to a host only the operator names:
        `standing` "operator"; the user's paragraphs naming a host hold what it has); to
        a host the chat names, a number the chat never gave (what else could the model
        know of it but the chat's data, re-encoded: a code reversed)."""
        conversation = self._conversation
        naming = conversation.naming(self._trusted)
        if standing is None or standing == "unread":
            return ""  # a host from memory (maybe): what the model knows of it is no one's
        for run in _ALNUM.findall(text):
            lower = run.lower()
            if len(lower) < 3 or lower.isalpha() or lower in known:
                continue
            if not lower.isdigit() and all(d in known for d in _DIGITS.findall(lower)):
                continue  # `L121`: a line number the observer's own text gave, marked
            position = naming.given(lower)
            if position is None:
                if sum(c.isdigit() for c in lower) >= _MADE_UP_DIGITS:
                    return "a number the conversation never gave"
                continue
            role = conversation.messages[position].role
            if standing == "operator":
                continue  # the chat's own, to a service of the operator's, who has it
            return f"an ID or number from message {conversation.messages[position].index} ({role})"
        return ""

    def _recipients_named(self, observer: Observer) -> tuple[Named, str | None, set[int]]:
        addresses = [a for a in observer.key.removeprefix("mailto:").split(",") if a]
        found = [self._named_by(Observer(observer.cls, a)) for a in addresses]
        if not found or any(named.first is None for named, _, _ in found):
            return Named(None), None, set()
        standing = "trusted" if all(s == "trusted" for _, s, _ in found) else "named"
        places = set().union(*(p for _, _, p in found))
        first = max(n.first for n, _, _ in found if n.first is not None)
        return (
            Named(first, tuple(sorted(pl for n, _, _ in found for pl in n.places))),
            standing,
            places,
        )

    def _known(self, key: str, named: Named, places: set[int]) -> frozenset[str]:
        """What an observer already has: the words of the blocks that name it and of
        the URLs to it that the conversation gave (not in a tool's answer to a call
        that carries the chat's data)."""
        conversation = self._conversation
        # A text of no known author may be the model's own: it proves nothing known.
        proven = {p for p in places if conversation.messages[p].role not in UNPROVEN_ROLES}
        words = set(conversation.naming(self._trusted).words(named, proven))
        owner = key.partition("/")[2]
        if owner:  # an account has its own name (a bucket's, a directory tenant's ID)
            words.update((owner, "".join(_ALNUM.findall(owner))))
        loaded = conversation.provenance(self._trusted, strict=self._strict).loaded
        for url, position in conversation.given_on().get(key, {}).items():
            if not loaded(position):
                text = unquote(url)
                words.update(w.lower() for w in WORD.findall(text))
                words.update(run.lower() for run in _ALNUM.findall(text))
        return frozenset(words)

    def _repository_objects(self, key: str) -> frozenset[str]:
        """The git object ids (`a4c91f2...`) and numbers (a pull request's `#412`) a
        tool's answer gave to a call that names a repository of the code-host account
        `key` (`git_log(repo="acme/web")`): that repository's own, which its owner has.
        Not one the call or a trusted message wrote (the chat's data handed to the tool
        and back)."""
        site, _, owner = key.partition("/")
        if site not in CODE_HOSTS or not owner:
            return frozenset()
        found = self._objects.get(key)
        if found is None:
            found = self._objects[key] = frozenset(self._objects_of(f"{owner}/"))
        return found

    def _objects_of(self, slug: str) -> set[str]:
        conversation = self._conversation
        provenance = conversation.provenance(self._trusted, strict=self._strict)
        messages = conversation.messages
        written = " ".join(
            m.text.lower() for m in messages if m.role in self._trusted or m.role in MODEL_ROLES
        )
        found: set[str] = set()
        for position, message in enumerate(messages):
            if message.role in self._trusted or message.role in MODEL_ROLES:
                continue
            calls = provenance.calls_answered(position)
            if any(slug in call.lower() for call in calls):
                text = message.text.lower()
                runs = (*_OBJECT_ID.findall(text), *_DIGITS.findall(text))
                found.update(run for run in runs if run not in written)
        return found

    def _copy(self, url: ParsedUrl, observer: Observer, role: Role, cost: Cost) -> Spent | None:
        selection = self._copies[role]
        href = cost.run_on or normal_url(url.href or "") or url.href or ""
        bits = selection.bits_with(observer.key, href)
        earlier = self._earlier_spent().copies[role]
        policy = self._policy
        tight = policy.links == "strict" or observer.cls is HostClass.OBSERVABLE
        if role is Role.IMAGE or tight:
            # A few choices a conversation: an image loads unasked; a shortener's or a
            # form's links, and any in strict mode, are nothing an answer needs many of.
            limit, whole = policy.image_budget_bits, policy.image_budget_bits
        else:
            limit = policy.copy_choice_bits
            whole = limit * policy.conversation_budget_factor
        if bits > limit + 1e-9 or earlier + bits > whole + 1e-9:
            detail = (
                f"{_where(observer, cost)}: picking this copy with the reply's others says "
                f"{bits:.0f} bits, earlier replies' {earlier:.0f}; {limit:.0f} allowed a reply "
                f"and {whole:.0f} a conversation"
            )
            reason = Reason.IMAGE_CHOICE if role is Role.IMAGE else Reason.OBSERVABLE_HOST_BUDGET
            return Spent(reason, detail)
        selection.add(observer.key, href)
        return None

    def _composed(self, observer: Observer, role: Role, cost: Cost) -> Spent | None:
        if cost.source is not None and cost.cap is not None:
            left = max(0.0, cost.cap - self._answers.get(cost.source, 0.0))
            cost = replace(cost, bits=min(cost.bits, left))
        limit, whole, spent, why = self._limits(observer, role, cost)
        earlier = self._earlier_spent().named if cost.standing and whole is not None else 0.0
        if spent + cost.bits > limit + 1e-9 or (
            whole is not None and earlier + spent + cost.bits > whole + 1e-9
        ):
            detail = (
                f"{_where(observer, cost)}: {cost.bits:.0f} bits chosen, {spent:.0f} spent before "
                f"in this reply and {earlier:.0f} in earlier ones; {limit:.0f} allowed ({why})"
            )
            return Spent(self._reason(role, cost, why), detail)
        if cost.standing:
            self._named += cost.bits
        else:
            self._memory[observer.key] = spent + cost.bits
        if cost.source is not None:
            self._answers[cost.source] = self._answers.get(cost.source, 0.0) + cost.bits
        return None

    def _limits(
        self, observer: Observer, role: Role, cost: Cost
    ) -> tuple[float, float | None, float, str]:
        """A reply's limit, the conversation's (None: none), what this reply spent, why."""
        policy = self._policy
        spent = self._named if cost.standing else self._memory.get(observer.key, 0.0)
        if role is Role.IMAGE:
            return 0.0, None, spent, "an image: nothing composed"
        closed = self._closed(observer)
        if closed is not None:
            return 0.0, None, spent, closed
        if cost.standing is not None:
            limit = policy.named_host_budget_bits
            why = "hosts the user or the operator names"
            if cost.standing == "named":
                limit, why = policy.tool_host_budget_bits, "hosts only a tool or a document names"
            elif cost.standing == "unread":
                limit, why = policy.unnamed_host_budget_bits, _UNREAD
            return limit, limit * policy.conversation_budget_factor, spent, why
        return policy.link_budget_bits, None, spent, "a host nobody named"

    def _closed(self, observer: Observer) -> str | None:
        """Why nothing composed may reach this observer, if nothing may."""
        if self._conversation.truncated:
            return _TRUNCATED
        if self._policy.links == "strict":
            return "strict"
        if observer.cls is HostClass.OBSERVABLE:
            return "an observable host"
        return None

    @staticmethod
    def _reason(role: Role, cost: Cost, why: str) -> Reason:
        if cost.how == "derived" and cost.source is not None:
            return Reason.LAUNDERED_COPY  # (a copy run on into a link's end is no tool's)
        if role is Role.IMAGE:
            return Reason.IMAGE_CHOICE
        if why == _TRUNCATED:
            return Reason.CONVERSATION_TRUNCATED
        return Reason.OBSERVABLE_HOST_BUDGET

    def _earlier_spent(self) -> _Earlier:
        """What the model's earlier replies (as the client sends them back) spent."""
        if self._earlier is None:
            self._earlier = _Earlier.of(self._conversation, self.cost, self._policy, self._observe)
        return self._earlier


@dataclass(slots=True)
class _Earlier:
    """What the model's earlier replies sent: composed bits to observers the chat
    names, and the bits of their choices among copies, by role."""

    named: float
    copies: dict[Role, float]

    @classmethod
    def of(
        cls,
        conversation: Conversation,
        cost_of: Callable[[ParsedUrl, Observer, Role], Cost],
        policy: Policy,
        observe: Callable[[ParsedUrl], Observer] = observer_of,
    ) -> _Earlier:
        """What `conversation`'s earlier replies spent, each URL costed by `cost_of`."""
        given = conversation.given_on()
        selections = {Role.LINK: Selection(given), Role.IMAGE: Selection(given)}
        named = 0.0
        glue: set[tuple[str, str]] = set()
        for shown, image in conversation.shown_urls():
            raw = _unproxied(shown, policy)
            role = Role.IMAGE if image or raw != shown else Role.LINK
            url = parse_url(raw)
            observer = observe(url)
            if observer.cls not in _COUNTED or not url.href:
                continue
            cost = cost_of(url, observer, role)
            if cost.how != "composed":  # a copy, derived or run on: a pick among them
                selections[role].add(observer.key, cost.run_on or url.href)
            if cost.how != "copy" and cost.standing:
                named += cost.bits
                if cost.glue and (observer.key, cost.glue) not in glue:
                    glue.add((observer.key, cost.glue))
                    named += _GLUE_BITS
        return cls(named, {role: s.bits() for role, s in selections.items()})


def _unproxied(raw: str, policy: Policy) -> str:
    """The image a URL of the policy's image proxy asks for (else `raw`): an earlier
    reply's proxied image spent its choice on what it wraps."""
    proxy = policy.image_proxy
    if proxy is None or not raw.startswith(proxy.url + "?"):
        return raw
    for name, value in parse_qsl(raw.partition("?")[2]):
        if name == proxy.url_param:
            return value
    return raw


def _had(piece: str, known: set[str], objects: list[str]) -> bool:
    """Is `piece` one of the `known` words, or inside one of the commit ids `objects`?"""
    return piece in known or any(piece in word for word in objects)


def _run_on(copy: Cost, rest: str, inside: float, href: str | None) -> Cost:
    """What the copy `href` run on into the punctuation `rest` (and the URLs inside it,
    costing `inside`) sends: the copy's own, and what was chosen after it, counted as
    composed; a pick of `href` among the copies, and of a link's syntax around it."""
    glue = rest if rest in _LINK_GLUE else ""
    chosen = 0.0 if glue else len(rest) * _PUNCTUATION_BITS
    bits = copy.bits + chosen + inside
    if copy.how == "composed":
        return replace(copy, bits=bits, glue=glue)
    why = copy.why or "a copy run on"
    return replace(copy, bits=bits, how="derived", why=why, run_on=href, glue=glue)


def _derived_bits(text: str, derived: Derived) -> tuple[float, float | None]:
    """What a derived copy carries (all its free part, or what it echoes), and what
    all the copies from the same answer can carry together (None: no bound): no more
    than the data of the calls they answer, however the tool computed them."""
    whole = price(text)
    if derived.data:
        return whole, sum(price(datum) for datum in derived.data)
    if derived.echoed:
        runs = "".join(c if echoed else " " for c, echoed in zip(text, derived.echoed, strict=True))
        return min(whole, sum(price(run) for run in runs.split())), None
    return whole, None


def _passes_on(url: ParsedUrl) -> bool:
    return redirects_elsewhere(url) or credits_another(url)


def _standing(named: Named, by_trusted: bool) -> str | None:
    if named.first is None:
        return None
    return "trusted" if by_trusted else "named"


def _where(observer: Observer, cost: Cost) -> str:
    named = {
        "trusted": "the user or operator names it",
        "named": "only a tool names it",
        "unread": "no message visibly names it",
    }.get(cost.standing or "", "nobody named it")
    how = f"; {cost.why}" if cost.why else ""
    return f"{observer.cls.value} host {observer.key} ({named}{how})"
