"""Sanitise one unit of a reply, given what the units before it left behind.

One pass parses the unit once with markdown-it-py, decides about every construct
(`markdown`), reads it again leniently for other renderers (`lexical`), and splices
the edits into the original text. When anything changed, the output is checked
again until a pass finds nothing (a fixpoint). `Carry` is what crosses from one
unit to the next: reference definitions, the labels images used, the images kept,
and where the next unit starts. One-shot and streaming both go through here.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from typing import Any

from markdown_it import MarkdownIt

from .bare import URLISH
from .brackets import open_openers, scan_brackets
from .context import LenientDefinition, Markers, Note, Pass
from .edits import Edit, Keep, splice
from .errors import SanitizeError
from .findings import Action, Construct, Finding, Reason
from .lexical import backstop
from .markdown import mark_regions, parse, walk
from .policy import Policy
from .segment import Segmenter, Unit
from .spans import Source
from .urls import ParsedUrl, UrlJudge, redact, redact_host

__all__ = ["Carry", "UnitSanitizer"]

# A pass that changes text can expose a construct (a link's text that is itself a
# URL); a few passes settle every case we know. More means something is wrong.
MAX_PASSES = 4
# Labels remembered across units: bounded, so a stream's memory is too. Past it,
# every new definition is judged as an image would use it (the stricter reading).
MAX_LABELS = 4096


@dataclass
class Carry:
    """What one unit leaves to the next."""

    references: dict[str, dict[str, Any]] = field(default_factory=dict)
    definitions: dict[str, bool] = field(default_factory=dict)
    lenient: list[LenientDefinition] = field(default_factory=list)
    image_labels: set[str] = field(default_factory=set)
    labels_overflowed: bool = False
    images_kept: int = 0
    line: int = 0  # 0-based line of the next unit
    column: int = 0  # characters of its first line in earlier units (a forced cut)
    after_forced_cut: bool = False
    # The text sent so far, line by line: what it leaves open is what a renderer
    # reads the next unit inside of, whatever the text received left open. None
    # while every unit came out unchanged: then the units' own context is the same,
    # and `received` (the whole reply, one-shot) rebuilds it at the first change.
    sent: Segmenter | None = None
    received: str | None = None


@dataclass(frozen=True, slots=True)
class Settled:
    """A unit's output, its findings, and the carry for the next unit."""

    text: str
    findings: tuple[Finding, ...]
    carry: Carry


class UnitSanitizer:
    """Sanitises units in order under one policy."""

    def __init__(self, policy: Policy, judge: UrlJudge, markers: Markers, md: MarkdownIt) -> None:
        self.policy = policy
        self.judge = judge
        self.markers = markers
        self.md = md

    def settle(self, unit: Unit, carry: Carry, context: dict[str, str]) -> Settled:
        """Sanitise `unit` to a fixpoint, read inside what the text sent left open."""
        sent = carry.sent
        if sent is not None:
            unit = replace(unit, prefix=sent.context)
        first = self._pass(unit, carry, context, recheck=False)
        findings = list(first.findings)
        current = first
        for _ in range(MAX_PASSES - 1):
            if not current.findings:
                break
            again = Unit(unit.start, current.text, unit.forced, unit.prefix)
            current = self._pass(again, carry, context, recheck=True, forced_done=True)
            findings.extend(current.findings)
        else:
            if current.findings:
                raise SanitizeError(
                    f"output still changing after {MAX_PASSES} passes; refusing to emit it"
                )
        if sent is None and current.text != unit.text:
            sent = self._sent_before(unit, carry)
        if sent is not None:
            sent.push(current.text)
        after = replace(_carry(first, current), sent=sent, received=carry.received)
        return Settled(current.text, tuple(findings), after)

    def _sent_before(self, unit: Unit, carry: Carry) -> Segmenter:
        """The text sent before `unit`, the same as received: read it once."""
        if carry.received is None:
            raise SanitizeError("no record of the text sent before a changed unit")
        sent = Segmenter(self.policy.max_hold_chars)
        sent.push(carry.received[: unit.start])
        return sent

    def _pass(
        self,
        unit: Unit,
        carry: Carry,
        context: dict[str, str],
        *,
        recheck: bool,
        forced_done: bool = False,
        trust_code: bool = True,
    ) -> Settled:
        normal = _Normalised(unit.prefix + unit.text)
        ps = _new_pass(self, normal.text, carry)
        ps.trust_code = trust_code
        # A unit starts a block at column 0. When an edit leaves it starting blank or
        # indented (`</div>    <img>` cleaned), it may continue a list item before it.
        ps.continues_block = recheck and unit.text[:1] in (" ", "\t", "\r", "\n")
        env: dict[str, Any] = {"references": dict(carry.references)} if carry.references else {}
        tokens = parse(self.md, normal.text, env)
        maps = mark_regions(ps, tokens)
        pairs = scan_brackets(ps)
        walk(ps, tokens, maps)
        backstop(ps, pairs)
        if unit.forced and not forced_done:
            _close_openers(ps, len(unit.prefix))
        # The prefix is one line ending in "\n" (no "\r" to normalise), judged in the
        # unit it came from: what this pass finds there was decided already.
        skip = len(unit.prefix)
        notes = [n for n in ps.notes if n.start >= skip]
        edits = [e for e in ps.edits if e.start >= skip]
        if any(e.start < skip < e.end for e in ps.edits):
            # A raw block cleaned from its first tag: judge the unit on its own, all
            # of it as prose (inside the raw block, code may not be code).
            alone = replace(unit, prefix="")
            return self._pass(
                alone, carry, context, recheck=recheck, forced_done=forced_done, trust_code=False
            )
        output = unit.prefix + unit.text
        if edits:
            output = splice(output, [normal.edit(e) for e in edits], self.markers.conflict)
        findings: tuple[Finding, ...] = ()
        if notes:
            placed = _Placement(ps.source, normal, unit, carry)
            findings = tuple(placed.finding(note, context, recheck) for note in notes)
        return Settled(output[len(unit.prefix) :], findings, _next_carry(ps, env, unit, carry))


def _carry(first: Settled, last: Settled) -> Carry:
    """What the next unit needs: the definitions of the text sent (the last pass;
    cleaning can expose one), positions in the text received (the first pass), and
    every label an image used in either."""
    if last is first:
        return first.carry
    return replace(
        last.carry,
        line=first.carry.line,
        column=first.carry.column,
        image_labels=first.carry.image_labels | last.carry.image_labels,
        labels_overflowed=first.carry.labels_overflowed or last.carry.labels_overflowed,
    )


def _new_pass(owner: UnitSanitizer, text: str, carry: Carry) -> Pass:
    ps = Pass(owner.policy, owner.judge, owner.markers, Source.of(text))
    if carry.definitions:
        ps.definitions = dict(carry.definitions)
    ps.image_uses = dict.fromkeys(carry.image_labels, -1) if carry.image_labels else {}
    ps.labels_overflowed = carry.labels_overflowed
    if carry.lenient:
        ps.lenient = list(carry.lenient)
    ps.images_kept = carry.images_kept
    # After a forced cut, a backtick before the cut may pair with one here.
    ps.after_forced_cut = carry.after_forced_cut
    return ps


def _next_carry(ps: Pass, env: dict[str, Any], unit: Unit, carry: Carry) -> Carry:
    text = unit.text
    last_break = max(text.rfind("\n"), text.rfind("\r"))
    line = carry.line + text.count("\n") + text.count("\r") - text.count("\r\n")
    column = carry.column + len(text) if last_break < 0 else len(text) - last_break - 1
    new_labels = ps.image_uses.keys() - carry.image_labels
    new_lenient = ps.lenient[len(carry.lenient) :]
    references: dict[str, dict[str, Any]] = env.get("references", {})
    if not new_labels and not new_lenient and len(references) == len(carry.references):
        # Nothing new about references (the usual unit): share the carried state.
        return Carry(
            carry.references, carry.definitions, carry.lenient, carry.image_labels,
            carry.labels_overflowed, ps.images_kept, line, column, unit.forced,
        )  # fmt: skip
    labels = carry.image_labels | new_labels
    overflowed = carry.labels_overflowed or len(labels) > MAX_LABELS
    return replace(
        carry,
        references=dict(list(references.items())[:MAX_LABELS]),
        definitions=dict(list(ps.definitions.items())[:MAX_LABELS]),
        lenient=[*carry.lenient, *(replace(d, pos=-1) for d in new_lenient)][:MAX_LABELS],
        image_labels=set() if overflowed else labels,
        labels_overflowed=overflowed,
        images_kept=ps.images_kept,
        line=line,
        column=column,
        after_forced_cut=unit.forced,
    )


def _close_openers(ps: Pass, prefix: int) -> None:
    """A forced cut leaves constructs open: escape their openers, so that no text
    after the cut can complete them. A URL the cut splits (no space in the last half
    of the unit) is removed whole: neither half can be judged alone."""
    text = ps.source.text
    word = max(text.rfind(" "), text.rfind("\t"), text.rfind("\n"), prefix - 1) + 1
    if word == len(text) or not URLISH.search(text, word):
        word = len(text)  # the cut fell between words, or inside something not a URL
    else:
        edit = Edit(word, len(text), (ps.markers.link,))
        ps.change(edit, Construct.BARE_URL, Action.REMOVED, (Reason.HOLD_LIMIT,),
                  detail="word split by a forced cut", detector="lexical")  # fmt: skip
    for pos, kind in open_openers(ps):
        if pos in ps.claimed or pos >= word:
            continue
        replacement = "&lt;" if kind == "<" else "\\" + kind
        construct = Construct.HTML if kind == "<" else Construct.LINK
        ps.change(Edit(pos, pos + 1, (replacement,)), construct, Action.NEUTRALISED,
                  (Reason.HOLD_LIMIT,), detail=f"open {kind!r} at a forced cut",
                  detector="lexical")  # fmt: skip


class _Placement:
    """Turns a pass's notes into findings placed in the whole reply."""

    def __init__(self, source: Source, normal: _Normalised, unit: Unit, carry: Carry) -> None:
        self.source = source
        self.normal = normal
        self.unit = unit
        self.carry = carry
        self.prefix_lines = unit.prefix.count("\n")
        self.prefix_length = len(unit.prefix)

    def finding(self, note: Note, context: dict[str, str], recheck: bool) -> Finding:
        line = self.source.line_of(note.start)
        column = note.start - self.source.starts[line] + 1
        unit_line = line - self.prefix_lines
        if unit_line == 0:
            column += self.carry.column
        start = self.normal.offset(note.start) - self.prefix_length + self.unit.start
        end = self.normal.offset(note.end) - self.prefix_length + self.unit.start
        return Finding(
            construct=note.construct,
            action=note.action,
            reasons=note.reasons,
            line=self.carry.line + unit_line + 1,
            column=column,
            start=start,
            end=end,
            host=redact_host(note.host) if note.host else note.host,
            url=redact(note.url.url) if note.url is not None else None,
            full_url=_full(note.url.url) if note.url is not None else None,
            detail=note.detail,
            detector=note.detector,
            recheck=recheck,
            context=context,
        )


class _Normalised:
    """The text markdown-it sees (`\\r\\n` and `\\r` as `\\n`, NUL as U+FFFD), and the
    way back to offsets in the original."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\0", "\ufffd") if "\0" in text else text
        self._removed: list[int] = []
        if "\r" in text:
            self._removed = _crlf_positions(self.text)
            self.text = self.text.replace("\r\n", "\n").replace("\r", "\n")

    def offset(self, pos: int) -> int:
        """The original offset of normalised offset `pos`."""
        return pos + bisect.bisect_left(self._removed, pos) if self._removed else pos

    def edit(self, edit: Edit) -> Edit:
        """`edit` with its offsets moved into the original text."""
        if not self._removed:
            return edit
        parts = tuple(
            Keep(self.offset(p.start), self.offset(p.end)) if isinstance(p, Keep) else p
            for p in edit.parts
        )
        return Edit(self.offset(edit.start), self.offset(edit.end), parts)


def _crlf_positions(text: str) -> list[int]:
    """Normalised offsets of the `\\n` of each `\\r\\n` (where a `\\r` was dropped)."""
    positions, removed, start = [], 0, 0
    while (i := text.find("\r\n", start)) >= 0:
        positions.append(i - removed)
        removed += 1
        start = i + 2
    return positions


def _full(url: ParsedUrl) -> str:
    return url.href if url.href is not None else url.raw
