"""Sanitise one unit of a reply, given what the units before it left behind.

One pass reads the unit in this order, each step taking what the steps before it
returned:

    parse (markdown-it-py) -> mark_regions -> index_brackets -> walk -> backstop -> second_line
                              code, HTML,     pairs, labels     the       other       no renderer:
                              definitions     images used       Markdown  renderers'  what could
                                                                 rules     readings    fetch or run

and splices the edits into the original text (the second line reads only a text the
rules before it left unchanged, `guard`). When anything changed, the output
is checked again until a pass finds nothing (a fixpoint), then as a run over the
output would read it: cut again, and ending where the unit's text ended
(`structure`), so that sanitising the output changes nothing. A unit that does not
settle is neutralised by construction (`fallback`), never refused. A pass reads the `Carry`
of the units before and returns a `Delta`; the carry after the unit is the one
folded with the other. One-shot and streaming both go through here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from markdown_it import MarkdownIt

from ..conversation import Conversation
from ..engine.carry import Carry, Delta, parsed_references
from ..engine.edits import splice
from ..engine.source import Normalised, SourceText
from ..engine.state import BUDGET_REASONS, Compiled, Pass
from ..engine.triggers import sendable
from ..engine.trust import CodeTrust
from ..findings import Construct, Finding, Reason
from ..guard import may_change, second_line
from ..guard.controls import CONTROLS, plain_controls
from ..lexical import backstop, index_brackets
from ..markdown.parser import parse
from ..markdown.regions import mark_regions
from ..markdown.rules import walk
from ..policy import Policy
from . import fast
from .fallback import boundary_finding, neutralise_unit, unsettled_finding
from .forced_cut import close_after_cut, close_openers
from .placement import Placement
from .segment import Unit
from .sent import SentText
from .structure import restore, split

__all__ = ["MAX_PASSES", "Settled", "UnitSanitizer"]

# A pass that changes text can expose a construct (a link's text that is itself a
# URL); a few passes settle every case we know. More means something is wrong.
MAX_PASSES = 4
_BLANK_START = (" ", "\t", "\r", "\n")


@dataclass(frozen=True, slots=True)
class Settled:
    """A unit's output, its findings, and the carry for the next unit."""

    text: str
    findings: tuple[Finding, ...]
    carry: Carry


@dataclass(frozen=True, slots=True)
class _Outcome:
    """One pass's output, its findings and what it adds to the carry."""

    text: str
    findings: tuple[Finding, ...]
    delta: Delta


@dataclass(frozen=True, slots=True)
class _Reading:
    """How a pass reads its unit."""

    context: dict[str, str]
    recheck: bool = False  # re-reading an earlier pass's output
    close_cut: bool = False  # escape what a forced cut left open
    in_context: bool = True  # read inside what the text before leaves open
    continued: bool = True  # a re-read text starting blank may continue a block before it


def _keeps_what_streams_send(
    unit: Unit, carry: Carry, output: str, hold: re.Pattern[str] | None
) -> bool:
    """Does `output` start with what a stream may send of `unit` before it ends?"""
    return output.startswith(unit.text[: _stream_keeps(unit, carry, hold)])


def _stream_keeps(unit: Unit, carry: Carry, hold: re.Pattern[str] | None) -> int:
    """How much of `unit` a stream may send before it ends (`sendable`)."""
    keep, _held = sendable(
        unit.text, final=True, hold=hold, prefix=unit.prefix, in_list=carry.in_list
    )
    return keep


class UnitSanitizer:
    """Sanitises units in order under one compiled policy."""

    def __init__(self, rules: Compiled, md: MarkdownIt, *, fast_path: bool | None = None) -> None:
        self.rules = rules
        self.md = md
        # Units provably left unchanged skip the pass (`fast`); None: as the
        # environment says (`RENDERSAFE_FAST_PATH=0` turns it off).
        self.fast_path = fast.enabled() if fast_path is None else fast_path

    def for_reply(
        self, conversation: Conversation | None, proxy_context: str | None = None
    ) -> UnitSanitizer:
        """A sanitiser for one reply (a run or a stream), judging its URLs with what
        `conversation` says and with the URLs of the reply before them, and signing its
        proxied images for `proxy_context`."""
        rules = self.rules.for_reply(conversation, proxy_context)
        return UnitSanitizer(rules, self.md, fast_path=self.fast_path)

    @property
    def policy(self) -> Policy:
        """The policy being applied."""
        return self.rules.policy

    def settle(self, unit: Unit, carry: Carry, sent: SentText, context: dict[str, str]) -> Settled:
        """Sanitise `unit` to a fixpoint, read inside what the text sent left open."""
        prefix = sent.context(unit)
        if prefix != unit.prefix:
            unit = replace(unit, prefix=prefix)
        eligible = not (unit.forced or unit.prefix or carry.after_forced_cut)
        hold = self.rules.rendered.hold
        if eligible and hold is not None and hold.search(unit.text) is not None:
            eligible = False  # a rendered fence: only the pass judges what it holds
        if eligible and (self.fast_path or fast.prescans(self.rules.judge)):
            delta = fast.certified(unit.text, carry, self.rules.judge)
            # A certified unit holds no tag with attributes, image, destination or
            # definition; the second line could still take an attribute list's brace.
            if delta is not None and self.fast_path and not may_change(unit.text):
                sent.record(unit, unit.text)
                return Settled(unit.text, (), carry.after(delta, unit.text, False))
        first, current, findings = self._settled(unit, carry, context)
        if _unsettled(findings) and self.rules.urls_in_view and _over_budget(first):
            # A URL shown as code where code is not code to every renderer (a table's
            # cell) is read again as a URL: before the whole unit is neutralised, the
            # links over budget go as links carrying data go, their text kept.
            plain = UnitSanitizer(replace(self.rules, urls_in_view=False), self.md, fast_path=False)
            first, current, findings = plain._settled(unit, carry, context)
        sent.record(unit, current.text)
        # The definitions are those of the text sent (the last pass: cleaning can
        # expose one), the labels every label an image used in any pass.
        delta = current.delta.with_labels(first.delta.image_labels)
        after = carry.after(delta, unit.text, unit.forced, current.text)
        return Settled(current.text, tuple(findings), after)

    def _settled(
        self, unit: Unit, carry: Carry, context: dict[str, str]
    ) -> tuple[_Outcome, _Outcome, list[Finding]]:
        """The first pass over `unit`, the last, and every finding on the way."""
        hold = self.rules.rendered.hold
        first = self._pass(unit, carry, _Reading(context, close_cut=unit.forced))
        current, findings = self._to_fixpoint(unit, carry, first, context)
        if current.text != unit.text and not unit.forced and not unit.prefix:
            again = self._as_read_again(unit, carry, first, current, findings, context=context)
            current, findings = again
        changed = current.text != unit.text
        if changed and not _keeps_what_streams_send(unit, carry, current.text, hold):
            # An edit reached text a stream sends before the unit ends (a block replaced
            # whole when a construct cannot be placed): that text stays, the rest is
            # neutralised, so a stream never has to take back what it sent.
            current, findings = self._neutralised(unit, carry, first, context)
        return first, current, findings

    def _to_fixpoint(
        self, unit: Unit, carry: Carry, first: _Outcome, context: dict[str, str]
    ) -> tuple[_Outcome, list[Finding]]:
        """Re-check the output until a pass changes nothing; a unit that does not
        settle is neutralised (never refused: a refusal is a denial of service)."""
        findings, current = list(first.findings), first
        for _ in range(MAX_PASSES - 1):
            if not current.findings:
                return current, findings
            read = current.text
            # A forced unit's output still ends at its cut: each reading closes it.
            again = _Reading(context, recheck=True, close_cut=unit.forced)
            current = self._pass(replace(unit, text=read), carry, again)
            findings.extend(_placed_in(unit, read, f) for f in current.findings)
        if not current.findings:
            return current, findings
        return self._neutralised(unit, carry, first, context)

    def _as_read_again(
        self,
        unit: Unit,
        carry: Carry,
        first: _Outcome,
        current: _Outcome,
        findings: list[Finding],
        *,
        context: dict[str, str],
    ) -> tuple[_Outcome, list[Finding]]:
        """The output as a run over it reads it: cut where that run cuts, each piece
        settled, and ending where `unit` ended (`structure`); neutralised when that
        does not settle either. `current` was read whole and nothing was found."""
        hold = self.rules.rendered.hold
        keep = _stream_keeps(unit, carry, hold)
        in_pieces = False
        for attempt in range(MAX_PASSES + 1):
            restored = restore(unit.text, current.text, keep)
            if restored is None:
                break
            pieces = split(restored, self.policy.max_hold_chars, self.rules.rendered)
            if pieces is None:
                return current, findings  # past the hold limit
            settled = restored == current.text and not current.findings
            if settled and (len(pieces) == 1 or in_pieces):
                return current, findings
            if attempt == MAX_PASSES:
                break
            if restored != current.text:
                findings.append(boundary_finding(unit, carry.line + 1, carry.column + 1, context))
            current = self._read_pieces(unit, carry, pieces, context)
            findings.extend(current.findings)
            in_pieces = True
        return self._neutralised(unit, carry, first, context)

    def _read_pieces(
        self, unit: Unit, carry: Carry, pieces: list[str], context: dict[str, str]
    ) -> _Outcome:
        """One pass over each piece of a unit's output, in order, as units of their own."""
        texts, findings, deltas = [], list[Finding](), list[Delta]()
        at, after = unit.start, carry
        for piece in pieces:
            outcome = self._pass(Unit(at, piece), after, _Reading(context, recheck=True))
            texts.append(outcome.text)
            findings.extend(outcome.findings)
            deltas.append(outcome.delta)
            after = after.after(outcome.delta, piece, False)
            at += len(piece)
        return _Outcome("".join(texts), tuple(findings), _joined(deltas))

    def _neutralised(
        self, unit: Unit, carry: Carry, first: _Outcome, context: dict[str, str]
    ) -> tuple[_Outcome, list[Finding]]:
        hold = self.rules.rendered.hold
        text = neutralise_unit(unit, self.rules.markers.link, hold, in_list=carry.in_list)
        # One more pass reads what the neutralised text leaves for the next unit; where
        # it would still change what a stream sent, its edits are not taken.
        again = _Reading(context, recheck=True, close_cut=unit.forced)
        outcome = self._pass(replace(unit, text=text), carry, again)
        if not _keeps_what_streams_send(unit, carry, outcome.text, hold):
            outcome = replace(outcome, text=text)
        construct = first.findings[0].kind if first.findings else Construct.HTML
        note = unsettled_finding(unit, carry.line + 1, carry.column + 1, construct, context)
        return replace(outcome, findings=()), [*first.findings, note]

    def _pass(self, unit: Unit, carry: Carry, reading: _Reading) -> _Outcome:
        outcome = self._read(unit, carry, reading)
        if CONTROLS.search(unit.text) is not None:
            # That reading only made control characters plain (`guard.controls`): the
            # same pass reads the text every renderer now reads alike.
            return _then(outcome, self._pass(replace(unit, text=outcome.text), carry, reading))
        if reading.recheck and reading.continued and unit.text.startswith(_BLANK_START):
            # Read as continuing a block before it, an indented block is prose, and a
            # code span in it can hide what follows; a run over the output reads the
            # text on its own, the block as code and what follows live. Both judge it.
            alone = replace(reading, continued=False)
            outcome = _then(outcome, self._read(replace(unit, text=outcome.text), carry, alone))
        if not unit.prefix.startswith("<") or not reading.in_context:
            return outcome
        # python-markdown reads the unit inside the raw block the text sent leaves open;
        # CommonMark renderers ended that block at the blank line before the unit, and
        # read it as Markdown. Both readings judge it (the second as prose, no code
        # trusted, with the first's edits in place).
        recheck = reading.recheck or bool(outcome.findings)
        prose = _Reading(reading.context, recheck=recheck, in_context=False)
        return _then(outcome, self._read(replace(unit, text=outcome.text, prefix=""), carry, prose))

    def _read(self, unit: Unit, carry: Carry, reading: _Reading) -> _Outcome:
        """One reading of `unit`: its edits applied, its findings placed."""
        normal = Normalised(unit.prefix + unit.text)
        source = SourceText.of(normal.text)
        broken = carry.fences.disagreement(normal.text[len(unit.prefix) :])
        # A unit starts a block at column 0. When an edit leaves it starting blank or
        # indented (`</div>    <img>` cleaned), it may continue a list item before it.
        trust = CodeTrust.of(
            after_forced_cut=carry.after_forced_cut,
            continues_block=reading.recheck
            and reading.continued
            and unit.text.startswith(_BLANK_START),
            in_context=reading.in_context,
            healer=carry.healer,
            untrusted_from=None if broken is None else len(unit.prefix) + broken,
        )
        skip = len(unit.prefix)
        close_at = skip if reading.close_cut else None
        ps, delta = self._decide(source, carry, trust, close_at, skip)
        # What a healing renderer holds open after the text read (the last pass reads
        # the text sent).
        delta = replace(delta, healer=carry.healer.after(normal.text[len(unit.prefix) :]))
        # The prefix is one line ending in "\n" (no "\r" to normalise), judged in the
        # unit it came from: what this pass finds there was decided already.
        if any(e.start < skip < e.end for e in ps.edits):
            # A raw block cleaned from its first tag: judge the unit on its own, all
            # of it as prose (inside the raw block, code may not be code).
            alone = replace(reading, in_context=False)
            return self._read(replace(unit, prefix=""), carry, alone)
        output = unit.prefix + unit.text
        edits = [normal.edit(e) for e in ps.edits if e.start >= skip]
        if edits:
            output = splice(output, edits, self.rules.markers.conflict)
        # In the order of the text, not of the steps that found them: a stream cuts the
        # text into other units, and its findings must come in the one-shot order.
        notes = sorted((n for n in ps.notes if n.start >= skip), key=lambda n: n.start)
        findings: tuple[Finding, ...] = ()
        if notes:
            placed = Placement(source, normal, unit, carry)
            findings = tuple(placed.finding(n, reading.context, reading.recheck) for n in notes)
        return _Outcome(output[skip:], findings, delta)

    def _decide(
        self, source: SourceText, carry: Carry, trust: CodeTrust, close_at: int | None, start: int
    ) -> tuple[Pass, Delta]:
        """Run the steps of one pass over `source`, the unit's text from `start` (a
        prefix before it); `close_at`: `start`, when a forced cut left constructs open
        in the text."""
        ps = Pass.over(self.rules, source, carry)
        ps.cut_at = close_at
        if plain_controls(ps):  # then `_pass` reads what every renderer reads alike
            return ps, ps.delta({}, ())
        env = carry.env()
        tokens = parse(self.md, source.text, env)
        marks = mark_regions(source, tokens, trust)
        index = index_brackets(source, marks.code, carry.image_labels)
        walk(ps, tokens, marks, index.image_uses)
        backstop(ps, marks, index)
        if close_at is not None:
            close_openers(ps, marks.code, index, close_at)
        if carry.cut_tail or carry.cut_fence:
            close_after_cut(ps, marks.code, start)
        second_line(ps, marks, index, env.get("references") or {})
        return ps, ps.delta(parsed_references(env), index.image_uses.here)


def _unsettled(findings: list[Finding]) -> bool:
    return bool(findings) and findings[-1].reasons == (Reason.UNSETTLED,)


def _over_budget(outcome: _Outcome) -> bool:
    """Did `outcome` take a link out only for its budget (its URL shown as code)?"""
    return any(set(f.reasons) <= BUDGET_REASONS for f in outcome.findings)


def _then(outcome: _Outcome, again: _Outcome) -> _Outcome:
    """Two readings in turn: `again` read `outcome`'s text."""
    delta = again.delta.with_labels(outcome.delta.image_labels)
    return _Outcome(again.text, outcome.findings + again.findings, delta)


def _placed_in(unit: Unit, read: str, finding: Finding) -> Finding:
    """`finding`, made by a pass over `read` (an earlier pass's output of `unit`),
    placed in `unit`'s own text, where a stream that cuts the text into other units
    places it too. The two texts share their ends; between them is what the earlier
    pass changed, and a place there is the start of that change."""
    text = unit.text
    if read == text:
        return finding
    prefix = _shared_start(text, read)
    most = min(len(text), len(read)) - prefix
    suffix = _shared_start(text[::-1][:most], read[::-1][:most])

    def placed(at: int) -> int:
        offset = at - unit.start
        if offset < prefix:
            return at
        if offset >= len(read) - suffix:
            return at + len(text) - len(read)
        return unit.start + prefix

    start = placed(finding.start)
    end = max(start, placed(finding.end))
    return finding.model_copy(update={"start": start, "end": end})


def _shared_start(a: str, b: str) -> int:
    """How many characters `a` and `b` share from their start."""
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def _joined(deltas: list[Delta]) -> Delta:
    """What consecutive pieces of one unit add to the carry, as one delta."""
    if len(deltas) == 1:
        return deltas[0]
    definitions: dict[str, bool] = {}
    references: dict[str, dict[str, Any]] = {}
    for delta in deltas:
        for label, kept in delta.definitions.items():
            definitions.setdefault(label, kept)
        for label, reference in delta.references.items():
            references.setdefault(label, reference)
    return Delta(
        references=references,
        definitions=definitions,
        lenient=tuple(d for delta in deltas for d in delta.lenient),
        image_labels=frozenset().union(*(delta.image_labels for delta in deltas)),
        images_kept=deltas[-1].images_kept,
        image_channels=deltas[-1].image_channels,
        healer=deltas[-1].healer,  # each piece's carries the ones before it
    )
