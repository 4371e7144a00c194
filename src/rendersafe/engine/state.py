"""`Pass`: the one object a sanitising pass threads through every rule.

It holds the compiled policy (`Compiled`), the text being read, the carry from the
units before (read only), and collects what the pass decides: edits with the notes
that explain them, the ranges they claimed, and what the text adds for later units.
What earlier steps of the pass found (code and HTML regions, the bracket index) is
handed to the later ones as arguments, never stored here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from ..findings import Action, Construct, Reason
from ..judging import Judge, ReplyJudge
from ..judging.beacons import image_shape, sent_href, within
from ..urls import Role, UrlJudge, Verdict
from .carry import NO_CHANNELS, Carry, Delta, LenientDefinition
from .edits import Edit, Keep
from .regions import Regions
from .rendered import NO_RENDERED_FENCES, RenderedFences
from .source import SourceText
from .tables import Table

if TYPE_CHECKING:
    from ..conversation import Conversation
    from ..policy import Policy

__all__ = ["Compiled", "Detector", "Markers", "Note", "Pass"]

_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")

Detector = Literal["markdown", "lexical"]


def escape_markdown(text: str) -> str:
    """Backslash-escape every ASCII punctuation character: inert in every renderer."""
    return _PUNCTUATION.sub(r"\\\1", text)


@dataclass(frozen=True, slots=True)
class Markers:
    """The replacement texts a policy asks for, escaped once."""

    image: str
    link: str
    conflict: str

    @classmethod
    def of(cls, policy: Policy) -> Markers:
        """Escape the policy's markers for use inside Markdown."""
        return cls(
            escape_markdown(policy.image_marker),
            escape_markdown(policy.link_marker),
            escape_markdown("[content removed]"),
        )


@dataclass(frozen=True, slots=True)
class Compiled:
    """A policy compiled once: its URL judge, its markers, the schemes a kept URL has,
    the fences it renders; and the judge of the reply at hand (`for_reply`)."""

    policy: Policy
    urls: UrlJudge
    markers: Markers
    link_schemes: frozenset[str]
    judge: Judge
    rendered: RenderedFences = NO_RENDERED_FENCES
    # A link over its budget shows its URL as code (False: it goes as a data link does).
    urls_in_view: bool = True
    # Verdicts on links that no reply remembers (`ReplyJudge.peek`), for every reply.
    links: dict[tuple[str, bool], Verdict | None] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def of(cls, policy: Policy) -> Compiled:
        """Compile `policy`."""
        extra = {"data"} if policy.allow_data_images else set()
        schemes = frozenset(policy.allowed_link_schemes) | extra
        urls = UrlJudge(policy)
        rendered = RenderedFences.of(policy.rendered_fences)
        return cls(policy, urls, Markers.of(policy), schemes, urls, rendered)

    def for_reply(
        self, conversation: Conversation | None, proxy_context: str | None = None
    ) -> Compiled:
        """These rules, judging one reply's URLs with what its conversation says, and
        signing its proxied images for `proxy_context`."""
        judge = ReplyJudge(self.urls, conversation, proxy_context, links=self.links)
        return replace(self, judge=judge)


@dataclass(frozen=True, slots=True)
class Note:
    """A finding before it is placed: offsets are into the pass's source text."""

    construct: Construct
    action: Action
    reasons: tuple[Reason, ...]
    start: int
    end: int
    host: str | None
    url: Verdict | None
    detail: str | None
    detector: Detector


@dataclass(slots=True)
class Pass:
    """State for one sanitising pass over one text."""

    rules: Compiled
    source: SourceText
    carry: Carry
    claimed: Regions = field(default_factory=Regions)
    edits: list[Edit] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    images_kept: int = 0
    # The distinct images kept per channel (host and shape), this text's included.
    image_channels: Table[tuple[str, ...]] = field(default_factory=lambda: NO_CHANNELS)
    # Labels of reference definitions markdown-it read here, in order, and whether
    # each was kept (labels the carry has already are not redefined).
    definitions: dict[str, bool] = field(default_factory=dict)
    # Definitions the lenient pass keeps in this text.
    lenient: list[LenientDefinition] = field(default_factory=list)
    # The spans of rendered fences judged already (one reading per span).
    judged_fences: set[tuple[int, int, str]] = field(default_factory=set)
    # Where the images markdown-it read and the pass kept are, as they stand.
    kept_images: list[tuple[int, int]] = field(default_factory=list)
    # Where the text after the prefix starts, when the pass reads a unit a forced cut
    # ended (what it leaves open, nothing after it completes); None otherwise.
    cut_at: int | None = None
    # Where the opening runs of the rendered fences shown as code start (`_demoted`).
    demoted: set[int] = field(default_factory=set)

    @classmethod
    def over(cls, rules: Compiled, source: SourceText, carry: Carry) -> Pass:
        """A pass over `source`, after the units that left `carry`."""
        return cls(
            rules,
            source,
            carry,
            images_kept=carry.images_kept,
            image_channels=carry.image_channels,
        )

    @property
    def policy(self) -> Policy:
        """The policy being applied."""
        return self.rules.policy

    @property
    def markers(self) -> Markers:
        """The policy's replacement texts."""
        return self.rules.markers

    def change(
        self,
        edit: Edit,
        construct: Construct,
        action: Action,
        reasons: Iterable[Reason],
        *,
        verdict: Verdict | None = None,
        detail: str | None = None,
        detector: Detector = "markdown",
        first: int | None = None,
    ) -> None:
        """Record an edit and the finding that explains it (placed at `first`, where the
        construct starts, when the edit is not there: a label's `]` escaped)."""
        self.change_all(
            [edit],
            construct,
            action,
            reasons,
            verdict=verdict,
            detail=detail,
            detector=detector,
            first=first,
        )

    def change_all(
        self,
        edits: list[Edit],
        construct: Construct,
        action: Action,
        reasons: Iterable[Reason],
        *,
        verdict: Verdict | None = None,
        detail: str | None = None,
        detector: Detector = "markdown",
        first: int | None = None,
    ) -> None:
        """Record edits (in order) and the one finding that explains them all: a
        flood of one construct is one line in the audit log, not one per character."""
        if not edits:
            return
        for edit in edits:
            self.edits.append(edit)
            for start, end in _removed_ranges(edit):
                self.claimed.add(start, end)
        host = verdict.host if verdict is not None else None
        reasons = tuple(sorted(set(reasons)))
        note = Note(
            construct=construct,
            action=action,
            reasons=reasons,
            start=edits[0].start if first is None else first,
            end=edits[-1].end,
            host=host,
            url=verdict,
            detail=detail,
            detector=detector,
        )
        self.notes.append(note)

    def define(self, label: str, *, kept: bool) -> None:
        """Record a reference definition markdown-it read (the first one of a label wins)."""
        if label not in self.carry.definitions:
            self.definitions.setdefault(label, kept)

    def is_defined(self, label: str) -> bool:
        """Is a definition of `label` before this point still in the text?"""
        if label in self.carry.definitions:
            return self.carry.is_defined(label)
        return self.definitions.get(label, False)

    def keep_lenient(self, definitions: Iterable[LenientDefinition]) -> None:
        """Record the definitions the lenient pass keeps in this text."""
        self.lenient.extend(definitions)

    def judge_link(self, raw: str, *, decode_entities: bool = False) -> Verdict:
        """Judge a link URL."""
        return self.rules.judge.judge(raw, Role.LINK, decode_entities=decode_entities)

    def judge(self, raw: str, role: Role, *, decode_entities: bool = False) -> Verdict:
        """Judge a URL in `role`, spending nothing (a reading, not a rendered image)."""
        return self.rules.judge.judge(raw, role, decode_entities=decode_entities)

    def peek_image(self, raw: str) -> Verdict:
        """The verdict on `raw` as an image, changing nothing the reply remembers: the
        reply's own where it judged `raw` before, else the policy's alone."""
        judge = self.rules.judge
        if isinstance(judge, ReplyJudge):
            verdict = judge.peek(raw, Role.IMAGE)
            if verdict is not None:
                return verdict
        return self.rules.urls.judge(raw, Role.IMAGE)

    def spend_image(self, raw: str) -> Verdict:
        """Judge an image URL a renderer shows, and spend one of the per-reply image
        cap's images when it is kept (past the cap it is dropped), and one of its
        channel's (past a few, it is a beacon)."""
        verdict = self.rules.judge.judge(raw, Role.IMAGE)
        if verdict.action == "drop":
            return verdict
        cap = self.policy.max_images
        if cap is not None and self.images_kept >= cap:
            return Verdict("drop", (Reason.IMAGE_CAP_EXCEEDED,), verdict.url)
        if not self._spend_channel(verdict):
            return Verdict("drop", (Reason.BEACON,), verdict.url)
        self.images_kept += 1
        return verdict

    def _spend_channel(self, verdict: Verdict) -> bool:
        href = sent_href(verdict.url)
        if href is None or verdict.url.parts is None:
            return True
        shape = image_shape(verdict.url.parts)
        kept = self.image_channels.get(shape) or ()
        if not within(kept, href, self.policy.max_beacon_images):
            return False
        if href not in kept:
            self.image_channels = self.image_channels.grown({shape: (href,)})
        return True

    def image_parts(self, alt: Keep | None) -> tuple[str | Keep, ...]:
        """What replaces a removed image whose alt text is `alt`."""
        mode = self.policy.removed_image
        has_alt = alt is not None and alt.end > alt.start
        if mode == "nothing" or (mode == "alt" and not has_alt):
            return ()
        if alt is None or not has_alt or mode == "marker":
            return (self.markers.image,)
        return (alt,) if mode == "alt" else (alt, " " + self.markers.image)

    def link_parts(
        self, text: Keep | None, verdict: Verdict | None = None
    ) -> tuple[str | Keep, ...]:
        """What replaces a link that carries data; `text` None when the text is the URL.

        A link taken out only for what the model chose to send a host someone else
        reads (its budget, `judging.budget`) keeps its URL in view: inert, as code after
        its text, or behind the policy's click-through page."""
        over = verdict is not None and verdict.reasons and set(verdict.reasons) <= BUDGET_REASONS
        if over and verdict is not None and self.rules.urls_in_view:
            return self._over_budget(text, verdict)
        mode = self.policy.data_link
        if mode == "nothing":
            return ()
        if text is None or text.end <= text.start:
            return (self.markers.link,)
        return (text,) if mode == "text" else (text, " " + self.markers.link)

    def _over_budget(self, text: Keep | None, verdict: Verdict) -> tuple[str | Keep, ...]:
        """A link over its budget: its text and its URL as code (no renderer links code),
        or its text linked to the click-through page."""
        shown = inert(verdict.url.raw.strip())
        if self.policy.link_interstitial is not None and verdict.url.href is not None:
            target = self.rules.judge.interstitial(verdict.url.href, verdict.host_class)
            # A URL that was its own text stays out of the new link's text: the page shows it.
            return ("[", text if text is not None else "link", f"]({target})")
        if text is None or text.end <= text.start:
            return (shown,)
        return (text, f" ({shown})")

    def delta(self, references: dict[str, dict[str, Any]], image_labels: Iterable[str]) -> Delta:
        """What this pass adds to the carry, given markdown-it's reference table after
        the parse and the labels images used."""
        return Delta(
            references=references,
            definitions=self.definitions,
            lenient=tuple(self.lenient),
            image_labels=frozenset(image_labels),
            images_kept=self.images_kept,
            image_channels=self.image_channels,
        )


def _removed_ranges(edit: Edit) -> Iterable[tuple[int, int]]:
    pos = edit.start
    for part in edit.parts:
        if isinstance(part, Keep):
            yield pos, part.start
            pos = part.end
    yield pos, edit.end


# Reasons that say only that the model chose too much for a host someone else reads:
# the URL carries nothing recognised, so the user may see it and follow it deliberately.
BUDGET_REASONS = frozenset(
    {Reason.OBSERVABLE_HOST_BUDGET, Reason.LAUNDERED_COPY, Reason.CONVERSATION_TRUNCATED}
)


def inert(url: str) -> str:
    """`url` as a code span: shown as it is, linked by no renderer."""
    run = max((len(r) for r in re.findall("`+", url)), default=0)
    fence = "`" * (run + 1)
    pad = " " if url.startswith("`") or url.endswith("`") else ""
    return f"{fence}{pad}{url}{pad}{fence}"
