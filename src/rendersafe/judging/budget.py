"""`Budget`: what the model may choose to send to each observer, and what it has sent.

    budget = Budget(policy, conversation)
    budget.admit(url, Role.LINK, taint=None)      # None: it may go; else why it may not

A URL reaches an observer (`urls.observers`). The chat's own origin, the operator's
trusted hosts and sealed first-party services read what only the user and the service
already share: nothing is counted there. Anyone else's host is counted: the bits the
model chose in the URL (`bits.price` of what it did not copy), against a budget per
observer, for the reply and for the whole conversation (the model's earlier replies, as
the client sends them back, spent theirs):

    images                      `image_budget_bits` (close to none): a choice among a
                                few copied images, no composed one
    a host nobody named         `link_budget_bits` (a link written from memory: no
                                instruction pointed there)
    a host the user named       `named_host_budget_bits` (the user's own service, the
                                words the user wrote free there; or a third party in
                                what the user pasted: less than from memory)
    a search result echoing     `named_host_budget_bits` for what it echoes of the
    the model's query           model's words
    a host only a tool named    none: a tool's result (a retrieved page, an injected
                                instruction) chose where the data goes
    a host the model named      as a host nobody named: its own earlier turn, from memory
    an observable host          none (shorteners, forms, bins, redirects, pastes)
    links="strict"              none, but for copies
    a conversation not read     none, but for copies (`conversation_truncated`)
    whole

Copied verbatim from the user, the system prompt, the developer or a tool, a URL costs
only the choice among the copies on its host (log2 of their number); what a tool echoed
of the model's own words (`Provenance.echoed`) costs its bits (`laundered_copy`). Data
recognised as the chat's (`taint`) costs more than any budget on these hosts, except on
a host the user named. A conversation's replies share `conversation_budget_factor` times
a reply's budget: the URLs of the model's earlier turns, as the client sends them back,
are counted again with each reply (so a conversation spread over many requests spends
one budget, with no state kept between them). Nothing here recognises data: the bound
holds whatever the encoding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..conversation import Conversation, Taint
from ..findings import Reason
from ..policy import Policy
from ..urls import ParsedUrl, Role
from ..urls.observers import HostClass, Observer, observer_of
from ..urls.parse import parse_url
from .bits import free_text, price

__all__ = ["Budget", "Spent"]

_COUNTED = (HostClass.OBSERVABLE, HostClass.TENANT, HostClass.UNKNOWN)
_TRUNCATED = "conversation not read whole"
# What a composed link may carry to a host, by who named the host first: the policy's
# field (None: nothing), and why.
_BY_STANDING: dict[str | None, tuple[str | None, str]] = {
    None: ("link_budget_bits", "a host nobody named"),
    "user": ("named_host_budget_bits", "a host the user named"),
    "tool": (None, "a host only a tool named"),
    # The model's own earlier turns named it (from memory, as it would now): no
    # instruction is known to have pointed there.
    "model": ("link_budget_bits", "a host the model named before"),
}


@dataclass(frozen=True, slots=True)
class Spent:
    """Why a URL may not go: the reason, and what it says of the host and the bits."""

    reason: Reason
    detail: str


class Budget:
    """The budgets of one reply, what its conversation's earlier replies spent included.

    One per reply (or stream), not shared across threads."""

    __slots__ = (
        "_choices",
        "_conversation",
        "_earlier",
        "_images",
        "_links",
        "_policy",
        "_sent",
        "_truncated",
        "_trusted",
    )

    def __init__(self, policy: Policy, conversation: Conversation) -> None:
        self._policy = policy
        self._conversation = conversation
        self._trusted = frozenset(policy.trusted_roles)
        self._truncated = conversation.truncated
        self._links: dict[str, float] = {}  # bits the model chose in links, by observer
        self._choices: dict[str, float] = {}  # bits of its choices among copied links
        self._images: dict[str, float] = {}
        self._sent: set[tuple[str, Role]] = set()  # a URL sent again chooses nothing more
        self._earlier: dict[str, float] | None = None  # what earlier replies sent, by observer

    def admit(
        self, url: ParsedUrl, observer: Observer, role: Role, taint: Taint | None
    ) -> Spent | None:
        """None when `url` may go to its observer (its bits are then spent); else why not."""
        if observer.cls not in _COUNTED or (url.href or "", role) in self._sent:
            return None
        provenance = self._conversation.provenance(self._trusted)
        standing = provenance.standing(url.host) if url.host else None
        if taint is not None and standing != "user":
            named = f"from message {taint.message} ({taint.role})"
            return Spent(Reason.CONVERSATION_DATA, f"{named}, to {_where(observer, standing)}")
        bits, how = self._bits(url, observer, standing)
        limit, why = self._limit(observer, role, standing, how)
        ledger = self._ledger(role, how, standing)
        spent = ledger.get(observer.key, 0.0)
        earlier = self._spent_earlier().get(observer.key, 0.0) if how != "copy" else 0.0
        whole = limit * self._policy.conversation_budget_factor
        if spent + bits > limit + 1e-9 or earlier + spent + bits > whole + 1e-9:
            detail = (
                f"{_where(observer, standing)}: {bits:.0f} bits chosen, {spent:.0f} spent "
                f"before in this reply and {earlier:.0f} in earlier ones, {limit:.0f} allowed "
                f"a reply and {whole:.0f} a conversation ({why})"
            )
            return Spent(self._reason(role, how, why), detail)
        ledger[observer.key] = spent + bits
        self._sent.add((url.href or "", role))
        return None

    def _spent_earlier(self) -> dict[str, float]:
        """What the model's earlier replies (as the client sends them back) chose to
        send each observer: a conversation spreads one budget over its replies."""
        if self._earlier is None:
            earlier: dict[str, float] = {}
            provenance = self._conversation.provenance(self._trusted)
            for raw in self._conversation.model_urls():
                url = parse_url(raw)
                observer = observer_of(url)
                if observer.cls in _COUNTED and url.href:
                    bits, how = self._bits(url, observer, provenance.standing(url.host))
                    if how != "copy":
                        earlier[observer.key] = earlier.get(observer.key, 0.0) + bits
            self._earlier = earlier
        return self._earlier

    def _ledger(self, role: Role, how: str, standing: str | None) -> dict[str, float]:
        if role is Role.IMAGE:
            return self._images
        return self._choices if how == "copy" and standing != "user" else self._links

    def _bits(self, url: ParsedUrl, observer: Observer, standing: str | None) -> tuple[float, str]:
        """The bits the model chose in `url`, and how: "copy" (a choice among copies),
        "laundered" (a copy that echoes what the model wrote first), "derived" (a copy of
        what the model asked a tool for: as composed), "composed"."""
        conversation = self._conversation
        href = url.href or ""
        text = free_text(url, observer.key)
        copied = conversation.copied_at(href)
        if copied is not None:
            provenance = conversation.provenance(self._trusted)
            choice = math.log2(max(conversation.copies_on(url.host), 1))
            if self._derived(url, observer, copied):
                return choice + price(text), "derived"
            echoed = provenance.echoed(text, copied)
            if any(echoed):
                return choice + price(text, [not e for e in echoed]), "laundered"
            return choice, "copy"
        explained = self._explained(text, standing)
        return price(text, explained), "composed"

    def _derived(self, url: ParsedUrl, observer: Observer, copied: int) -> bool:
        """Is a URL first given in message `copied` what the model asked for: on a site
        the model named before (a code interpreter printing the URL it was handed), or,
        from a tool, on an observable host after the model wrote a URL (a shortener or a
        redirect wrapping the model's own)?"""
        provenance = self._conversation.provenance(self._trusted)
        if provenance.model_named(url.host, copied):
            return True
        if provenance.encoded_echo(free_text(url, observer.key), copied):
            return True
        source = self._conversation.messages[copied].role
        observable = observer.cls is HostClass.OBSERVABLE
        return observable and source not in self._trusted and provenance.model_wrote_url(copied)

    def _explained(self, text: str, standing: str | None) -> list[bool] | None:
        """On a host the user named, the words the user wrote cost nothing there."""
        if standing != "user":
            return None
        provenance = self._conversation.provenance(self._trusted)
        marks = [False] * len(text)
        start = None
        for index, char in enumerate([*text, " "]):
            if char.isalnum():
                start = index if start is None else start
                continue
            if (
                start is not None
                and index - start >= 4
                and provenance.said_by_user(text[start:index])
            ):
                marks[start:index] = [True] * (index - start)
            start = None
        return marks

    def _limit(
        self, observer: Observer, role: Role, standing: str | None, how: str
    ) -> tuple[float, str]:
        """What this observer may be sent, and why that much (`how` the bits were
        chosen: a copy, a copy with the model's words echoed in it, composed)."""
        policy = self._policy
        if role is Role.IMAGE:
            return policy.image_budget_bits, "images"
        if how == "copy":
            if standing == "user":
                return policy.named_host_budget_bits, "copies"
            return policy.copy_choice_bits, "a choice among copies"
        closed = self._closed(observer)
        if closed is not None:
            return 0.0, closed
        if how == "laundered":  # a search result with the model's query in it
            return policy.named_host_budget_bits, "echoed"
        budget, why = _BY_STANDING[standing]
        return (getattr(policy, budget) if budget else 0.0), why

    def _closed(self, observer: Observer) -> str | None:
        """Why nothing composed may reach this observer, if nothing may."""
        if self._truncated:
            return _TRUNCATED
        if self._policy.links == "strict":
            return "strict"
        if observer.cls is HostClass.OBSERVABLE:
            return f"{observer.cls.value} host"
        return None

    @staticmethod
    def _reason(role: Role, how: str, why: str) -> Reason:
        if how in ("laundered", "derived"):
            return Reason.LAUNDERED_COPY
        if role is Role.IMAGE:
            return Reason.IMAGE_CHOICE
        if why == _TRUNCATED:
            return Reason.CONVERSATION_TRUNCATED
        return Reason.OBSERVABLE_HOST_BUDGET


def _where(observer: Observer, standing: str | None) -> str:
    named = {"user": "the user named it", "tool": "a tool named it", "model": "the model named it"}
    return (
        f"{observer.cls.value} host {observer.key} ({named.get(standing or '', 'nobody named it')})"
    )
