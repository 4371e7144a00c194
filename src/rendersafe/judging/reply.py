"""`ReplyJudge`: the policy's `UrlJudge`, with what one reply's conversation says.

    judge = ReplyJudge(url_judge, Conversation.from_messages(messages))
    judge.judge("https://evil.example/?k=sk-live-9f8e7d6c5b4a", Role.LINK)
    # drop, (conversation_data,): the key is in message 2 (user)

One is made per reply (a run or a stream): it remembers the URLs it judged, for the
pieces of a secret split across them and for beacons. Per URL, in order:

1. a canary of the policy, in any encoding: removed, whatever the host;
2. copied verbatim from the conversation: the reply-only data heuristics are not
   held against it (`UrlJudge.judge(copied=True)`), nor is the conversation's data;
3. else a piece of the conversation in any part, in any encoding, split or not:
   removed (an image on an allowed host too; a trusted link host aside); the finding
   names the message, never the piece;
4. with `link_hosts="conversation"`, a link to a host neither trusted, allowed nor
   seen in the conversation becomes text;
5. the links of one shape on one host past the policy's few: one channel (`beacon`;
   images are counted where they are spent, `Pass.spend_image`);
6. what the model chose, past the budget of who reads it (`judging.budget`).

A link 5 or 6 takes out spends nothing and counts in no channel.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from ..conversation import Conversation, ReplyTaint, Taint, find_canary
from ..findings import Reason
from ..policy import Policy
from ..urls import ParsedUrl, Role, UrlJudge, Verdict
from ..urls.hosts import sealed_service
from ..urls.interstitial import interstitial_url
from ..urls.nested import nested_urls
from ..urls.observers import HostClass, Observer, observer_of, private_name
from ..urls.parse import parse_url
from .beacons import LinkBeacons, link_shapes, sent_href
from .budget import RUN_ON, TRAILING, Budget, Spent

__all__ = ["Judge", "ReplyJudge"]


# Reasons a URL copied from the conversation is dropped for all the same.
_NOT_FROM_DATA = frozenset(
    {
        Reason.IMAGE_HOST_NOT_ALLOWED,
        Reason.IMAGE_PORT_NOT_ALLOWED,
        Reason.AMBIGUOUS_HOST,
        Reason.RELATIVE_IMAGE,
        Reason.DATA_IMAGE,
        Reason.SCHEME_NOT_ALLOWED,
        Reason.UNPARSEABLE_URL,
        Reason.BLOCKED_HOST,
        Reason.INVISIBLE_CHARACTERS,
    }
)


_CACHED = 4096  # verdicts cached per reply


class Judge(Protocol):
    """What a pass asks of a URL judge."""

    @property
    def policy(self) -> Policy: ...

    def judge(self, raw: str, role: Role, *, decode_entities: bool = False) -> Verdict:
        """Judge `raw` used as `role`."""
        ...

    def proxied(self, href: str) -> str:
        """`href` rewritten through the policy's image proxy, signed for this reply."""
        ...

    def interstitial(self, href: str, host_class: str | None) -> str:
        """The policy's click-through link to `href`, signed for this reply."""
        ...


class ReplyJudge:
    """Judges the URLs of one reply, in the order the passes read them."""

    def __init__(
        self,
        urls: UrlJudge,
        conversation: Conversation | None = None,
        proxy_context: str | None = None,
        *,
        links: dict[tuple[str, bool], Verdict | None] | None = None,
    ) -> None:
        self.urls = urls
        self.conversation = conversation
        self.proxy_context = proxy_context
        self._now = time.time()  # when this reply's click-through links are signed
        self._tracker: ReplyTaint | None = conversation.tracker() if conversation else None
        # What the model may send each observer, with a conversation to tell copies by.
        self._budget = (
            Budget(urls.policy, conversation, self._observer) if conversation is not None else None
        )
        self._links = LinkBeacons(urls.policy.max_beacon_images)
        self._cache: dict[tuple[str, Role, bool], Verdict] = {}
        # With a conversation, the verdicts on links that neither it nor the reply so far
        # can change (`_conversation_free`), shared by the replies of one policy.
        self._free = _free_verdicts(urls) if conversation is not None else None
        # `peek`'s verdicts on links, shared by the replies of one policy: without a
        # conversation, a link no channel counts is judged the same in every reply.
        self._links_peeked = {} if links is None else links

    @property
    def policy(self) -> Policy:
        """The policy being applied."""
        return self.urls.policy

    def judge(self, raw: str, role: Role, *, decode_entities: bool = False) -> Verdict:
        """Judge `raw` used as `role`, in this reply. Never fetches anything."""
        key = (raw, role, decode_entities and "&" in raw)
        verdict = self._cache.get(key)
        if verdict is None:
            verdict = self._judge(raw, role, decode_entities)
            if len(self._cache) < _CACHED:  # past it, a URL seen again is judged again
                self._cache[key] = verdict
        return verdict

    @property
    def remembers_every_url(self) -> bool:
        """Does judging any URL change what this reply remembers? With a conversation
        it does: its tracker joins the pieces of every URL judged."""
        return self._tracker is not None

    def caches(self, count: int) -> bool:
        """Will the verdicts on `count` more URLs all be cached (so judging one of them
        again changes nothing)?"""
        return len(self._cache) + count < _CACHED

    def peek(self, raw: str, role: Role, *, decode_entities: bool = False) -> Verdict | None:
        """The verdict `judge` gives `raw` when giving it changes nothing this reply
        remembers: it was judged before, or (no conversation) it is a link that no
        link channel counts. Else None, and nothing was judged."""
        key = (raw, role, decode_entities and "&" in raw)
        verdict = self._cache.get(key)
        if verdict is not None or self._tracker is not None or role is not Role.LINK:
            return verdict  # a conversation's tracker counts every URL judged
        shared = (raw, key[2])
        try:
            return self._links_peeked[shared]
        except KeyError:  # not judged yet (or cleared by another thread just now)
            pass
        url = self.urls.judge(raw, role, decode_entities=decode_entities).url
        verdict = None if _counted(url) else self._judge(raw, role, decode_entities)
        if len(self._links_peeked) >= 4096:
            self._links_peeked.clear()
        self._links_peeked[shared] = verdict
        return verdict

    def keeps_links(self, links: Sequence[tuple[str, bool]]) -> bool:
        """Are the links, judged in this order, all kept (each a raw URL and whether its
        entities are decoded)? Then each is judged, as a pass judges
        them (its link channels count it); else none is, and the reply remembers
        nothing new. Only without a conversation (with one, every URL judged is
        remembered: `remembers_every_url`). Whether a channel takes them all does not
        depend on their order (`LinkBeacons.admits_all`)."""
        if self._tracker is not None:
            return False
        counted: list[tuple[str, bool]] = []
        urls: list[ParsedUrl] = []
        for raw, decode in links:
            verdict = self.peek(raw, Role.LINK, decode_entities=decode)
            if verdict is None:  # a link channel counts it: judged without counting
                verdict = self._judged(raw, Role.LINK, decode, count=False)
                counted.append((raw, decode))
                urls.append(verdict.url)
            if verdict.action != "keep":
                return False
        if urls and not self._links.admits_all(urls):
            return False
        # (judging the others changes nothing this reply remembers: `peek`)
        for raw, decode in counted:
            self.judge(raw, Role.LINK, decode_entities=decode)
        return True

    def _judge(self, raw: str, role: Role, decode_entities: bool) -> Verdict:
        shared = self._free
        if shared is None or role is not Role.LINK:
            return self._judged(raw, role, decode_entities)
        key = (raw, decode_entities and "&" in raw)
        verdict = shared.get(key)
        if verdict is not None:
            return verdict
        verdict = self._judged(raw, role, decode_entities)
        if key not in shared:
            if len(shared) >= _CACHED:
                shared.clear()
            shared[key] = verdict if self._conversation_free(raw, decode_entities) else None
        return verdict

    def _conversation_free(self, raw: str, decode_entities: bool) -> bool:
        """Is the verdict on the link `raw` the same whatever the conversation and the
        reply's URLs before it, and does judging it change nothing this reply remembers?
        So when the policy drops it for what no copy excuses, or for a canary; and when
        it goes where nothing is counted and no taint is looked for (a sealed service, a
        trusted host), with no URL inside it that goes elsewhere, no link channel
        counting it, and its host not held to the conversation's (`link_hosts`)."""
        verdict = self.urls.judge(raw, Role.LINK, decode_entities=decode_entities)
        url = verdict.url
        canaries = self.policy.canaries
        if canaries and find_canary(url, canaries):
            return True
        if verdict.action == "drop":
            return not set(verdict.reasons) - _NOT_FROM_DATA
        trusted = self.urls.trusts(url)
        if not trusted and self._observer(url).cls is not HostClass.SEALED:
            return False  # its taint is looked for, or its observer counts what it sends
        if _counted(url) or (self.policy.link_hosts == "conversation" and not trusted):
            return False
        return not any(self._observer(nested).reads_data for nested in nested_urls(url))

    def _judged(
        self, raw: str, role: Role, decode_entities: bool, *, count: bool = True
    ) -> Verdict:
        # The policy's verdict is cached across replies; this reply's part is not.
        verdict = self.urls.judge(raw, role, decode_entities=decode_entities)
        url = verdict.url
        if self._signed_here(verdict, role):
            verdict = Verdict("keep", (), url)
        canaries = self.policy.canaries
        if canaries and find_canary(url, canaries):
            return _dropped(verdict, Reason.CANARY)
        # Whether the URL was copied is asked only where the answer changes the
        # verdict: a drop for the data it seems to carry, or a piece of the chat in it.
        if verdict.action != "drop":
            return self._in_reply(verdict, role, count=count)
        if not set(verdict.reasons) - _NOT_FROM_DATA:
            return verdict
        if not self._copied(url) and not self._vouched(url):
            return verdict  # the conversation is not asked: it costs ~20 µs a URL
        verdict = self.urls.judge(raw, role, decode_entities=decode_entities, copied=True)
        if verdict.action == "drop":
            return verdict
        return self._in_reply(verdict, role, copied=True, count=count)

    def proxied(self, href: str) -> str:
        """`href` rewritten through the policy's image proxy, signed for this reply."""
        return self.urls.proxied(href, self.proxy_context)

    def interstitial(self, href: str, host_class: str | None) -> str:
        """The policy's click-through link to `href`, signed once for this reply (so
        every pass, streamed or not, writes the same link)."""
        page = self.policy.link_interstitial
        if page is None:
            return href
        return interstitial_url(page, href, host_class or "unknown", now=self._now)

    def _signed_here(self, verdict: Verdict, role: Role) -> bool:
        """An image rendersafe proxied for this reply's context, not yet expired (the
        policy's judge keeps those without expiry or context itself)."""
        return (
            role is Role.IMAGE
            and verdict.action != "keep"
            and self.urls.signs_per_reply
            and self.urls.signed_by_proxy(verdict.url, self.proxy_context)
        )

    def _in_reply(
        self, verdict: Verdict, role: Role, *, copied: bool = False, count: bool = True
    ) -> Verdict:
        """A URL the policy keeps, judged with the conversation and the reply so far
        (`count`: its link channels count it, else it is judged as if they took it)."""
        url = verdict.url
        if role is Role.IMAGE and self.urls.signed_by_proxy(url, self.proxy_context):
            return verdict  # its target was judged when it was proxied, here or before
        observer = self._observer(url) if self._budget is not None else None
        # The user's own data, to the one service that reads it, is no leak: a sealed
        # service's URL is not looked into (the URLs inside it are, below).
        sealed = observer is not None and observer.cls is HostClass.SEALED
        taint = None if copied or sealed else self._taint(url)
        if taint is not None and self._copied(url):
            taint = None
        # A relative link goes to the chat's own origin, which may forward it, and a
        # client may resolve it against another base: the chat's data in it is taken
        # out. A name of the user's own network (`kibana.acme.internal`) is no one else's.
        own_host = observer is not None and observer.cls is HostClass.OWN and private_name(url.host)
        if taint is not None and not own_host and (observer is None or not observer.reads_data):
            dropped = _dropped(verdict, Reason.CONVERSATION_DATA)
            return replace(dropped, source=f"from message {taint.message} ({taint.role})")
        if role is Role.LINK and self._unseen_host(url):
            return _dropped(verdict, Reason.HOST_NOT_IN_CONVERSATION)
        channel = role is Role.LINK and count and _counted(url)
        # Asked before the budget, counted after it: a link either rule takes out
        # spends nothing on the other, so the reply's output, sanitised again (that
        # link gone), spends and counts what this run did.
        if channel and not self._links.admits_all((url,)):
            return _dropped(verdict, Reason.BEACON)
        if observer is not None:
            spent = self._spend(url, observer, role, taint)
            if spent is not None:
                dropped = _dropped(verdict, spent[0].reason)
                return replace(dropped, source=spent[0].detail, host_class=spent[1].cls.value)
        if channel:
            self._links.admits(url)
        return verdict

    def _spend(
        self, url: ParsedUrl, observer: Observer, role: Role, taint: Taint | None
    ) -> tuple[Spent, Observer] | None:
        """Why the budget takes `url` out, and the observer it would reach, if it does.
        The URLs inside it (a service fetches them, or sends the user on, with what
        follows them: a sign-in's `state`) are judged as their own requests."""
        assert self._budget is not None
        if observer.reads_data:
            spent = self._budget.admit(url, observer, role, taint)
            if spent is not None:
                return spent, observer
        for nested in nested_urls(url):
            inner = self._observer(nested)
            if not inner.reads_data:
                continue
            inner_taint = None if self._copied(nested) else self._taint(nested)
            spent = self._budget.admit(nested, inner, role, inner_taint)
            if spent is not None:
                return Spent(spent.reason, f"a URL inside it, to {spent.detail}"), inner
        return None

    def _observer(self, url: ParsedUrl) -> Observer:
        """Who reads a request to `url`. The policy's trusted hosts are trusted; so is an
        image host the policy allows, unless anyone can publish or fetch through it (a
        tenant's or an observable host: the allowlist names a service, not its users),
        and a tenant the allowlist names itself (`acme.imgix.net`: the operator's own
        account, whose logs only the operator reads)."""
        if self.urls.trusts(url):
            return Observer(HostClass.TRUSTED, url.host)
        found = observer_of(url)
        allowed = found.cls is HostClass.UNKNOWN and self.urls.allows_image_host(url)
        if allowed or (
            found.cls is HostClass.TENANT and self.urls.names_image_host(url, found.key)
        ):
            return Observer(HostClass.TRUSTED, found.key)
        return found

    def _vouched(self, url: ParsedUrl) -> bool:
        """Is `url` for a service the user or the operator names, and only they (its
        budget judges what it carries, not the look of the data)? A URL holding
        another URL is not: where it sends the user is no one's to vouch for."""
        if self._budget is None or url.parts is None:
            return False
        if nested_urls(url):
            return False
        observer = self._observer(url)
        if observer.cls is HostClass.SEALED:
            return True
        return observer.reads_data and self._budget.standing(observer, url) == "trusted"

    def _copied(self, url: ParsedUrl) -> bool:
        conversation = self.conversation
        if conversation is None or url.href is None:
            return False
        if conversation.has_url(url.href):
            return True
        # python-markdown keeps a destination's `<>` (`[a](<https://...>)`): the URL
        # inside is what was copied.
        raw = url.raw.strip()
        if raw[:1] == "<" and raw[-1:] == ">" and conversation.has_url(raw[1:-1].strip()):
            return True
        # A copy read on into the punctuation after it (`u).`, a link's end), and a
        # link whose text is its own URL read on into its destination, a copy too
        # (`u](u)`): nothing but copies and punctuation.
        head, glue, tail = raw.partition("](")
        if glue:
            return self._copied_text(head) and self._copied_text(tail.lstrip("<"))
        return head != head.rstrip(TRAILING) and self._copied_text(head)

    def _copied_text(self, text: str) -> bool:
        """Is `text`, but up to `RUN_ON` characters of punctuation after it, a URL the
        conversation gave?"""
        assert self.conversation is not None
        trimmed = text.rstrip(TRAILING)
        if len(text) - len(trimmed) > RUN_ON:
            return False
        copied = parse_url(trimmed)
        return copied.href is not None and self.conversation.has_url(copied.href)

    def _taint(self, url: ParsedUrl) -> Taint | None:
        """The piece of the conversation `url` carries, if it counts here."""
        if self._tracker is None or self.urls.trusts(url):
            return None
        # A `mailto:` to the user's own address is read without it (`Conversation.readings`).
        taint = self._tracker.check(url)
        if taint is None or (taint.kind == "prose" and self._prose_expected(url)):
            return None
        return taint

    def _prose_expected(self, url: ParsedUrl) -> bool:
        """The user's words are what a search page or a page already in the
        conversation is expected to carry."""
        assert self.conversation is not None
        return sealed_service(url) or self.conversation.has_host(url.host)

    def _unseen_host(self, url: ParsedUrl) -> bool:
        if self.policy.link_hosts != "conversation" or url.relative or not url.host:
            return False
        if self.urls.trusts(url) or self.urls.allows_image_host(url):
            return False
        return self.conversation is None or not self.conversation.has_host(url.host)


# The verdicts on links no conversation changes, by policy (`ReplyJudge._judge`; None:
# the conversation may change it). With a conversation every link of every reply is
# judged, most of them links like these (a video, a service's own page).
_FREE: weakref.WeakKeyDictionary[UrlJudge, dict[tuple[str, bool], Verdict | None]] = (
    weakref.WeakKeyDictionary()
)
_FREE_LOCK = threading.Lock()


def _free_verdicts(urls: UrlJudge) -> dict[tuple[str, bool], Verdict | None]:
    """The shared verdicts on `urls`' links that no conversation changes."""
    with _FREE_LOCK:
        found = _FREE.get(urls)
        if found is None:
            found = _FREE[urls] = {}
        return found


# Whether a link channel counts a URL, by href: it depends on the URL alone, and with
# a conversation every link of every reply is judged (no `peek`), so it is asked often.
_COUNTED: dict[str, bool] = {}


def _counted(url: ParsedUrl) -> bool:
    """Does a link channel count `url` (`LinkBeacons.admits` does nothing otherwise)?"""
    key = url.href
    if key is None:
        return False
    found = _COUNTED.get(key)
    if found is None:
        if len(_COUNTED) >= _CACHED:
            _COUNTED.clear()
        parts = url.parts
        found = _COUNTED[key] = (
            sent_href(url) is not None and parts is not None and bool(link_shapes(parts))
        )
    return found


def _dropped(verdict: Verdict, reason: Reason) -> Verdict:
    """`verdict`, now a drop, with `reason` added to its reasons."""
    return replace(verdict, action="drop", reasons=tuple(sorted({*verdict.reasons, reason})))
