"""`Sanitizer` and `sanitize()`: the two front doors.

    clean = sanitize(reply)                         # default policy
    s = Sanitizer(Policy(allowed_image_hosts=["cdn.example.com"]))
    result = s.run(reply, context={"conversation_id": "c1"})
    result.text, result.findings

One pass parses the reply once with markdown-it-py, decides about every construct
(`markdown`), reads it again leniently for other renderers (`lexical`), and splices
the edits into the original text. When anything changed, the output is checked
again, until a pass finds nothing: the result is a fixpoint, so sanitising it once
more changes nothing.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Mapping

from .brackets import scan_brackets
from .context import Markers, Note, Pass
from .edits import Edit, Keep, splice
from .errors import InputTooLargeError, RenderSafeError, SanitizeError
from .findings import Finding, Result
from .hosts import warm_up
from .lexical import backstop
from .markdown import mark_regions, parse, walk
from .policy import Policy
from .spans import Source, build_parser
from .urls import UrlJudge, redact

__all__ = ["Sanitizer", "sanitize"]

# A pass that changes text can expose a construct (a link's text that is itself a
# URL); a few passes settle every case we know. More means something is wrong.
MAX_PASSES = 4


class Sanitizer:
    """Sanitises replies under one policy. Build once and reuse; it is thread-safe.

    `sanitize(text, policy)` is the one-line form of `Sanitizer(policy).run(text).text`.
    """

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy if policy is not None else Policy()
        self._judge = UrlJudge(self.policy)
        self._markers = Markers.of(self.policy)
        self._md = build_parser()
        warm_up()

    def run(self, text: str, *, context: Mapping[str, str] | None = None) -> Result:
        """Sanitise `text`; return the safe text and a finding for every change.

        Raises `TypeError` for non-`str` input, `InputTooLargeError` above
        `policy.max_input_chars`, and `SanitizeError` for any internal failure.
        No path returns unsanitised text.
        """
        if not isinstance(text, str):
            raise TypeError(
                f"rendersafe sanitises str, not {type(text).__name__}; decode bytes first "
                "(e.g. reply.decode('utf-8'))"
            )
        if len(text) > self.policy.max_input_chars:
            raise InputTooLargeError(len(text), self.policy.max_input_chars)
        extra = _context(context)
        try:
            return self._settle(text, extra)
        except RenderSafeError:
            raise
        except Exception as exc:
            raise SanitizeError(f"internal error while sanitising: {exc!r}") from exc

    def _settle(self, text: str, context: dict[str, str]) -> Result:
        findings: list[Finding] = []
        current = text
        for number in range(MAX_PASSES):
            output, found = self._pass(current, context, recheck=number > 0)
            if not found:
                return Result(text=current, findings=tuple(findings))
            findings.extend(found)
            current = output
        raise SanitizeError(f"output still changing after {MAX_PASSES} passes; refusing to emit it")

    def _pass(
        self, text: str, context: dict[str, str], *, recheck: bool = False
    ) -> tuple[str, list[Finding]]:
        normal = _Normalised(text)
        ps = Pass(self.policy, self._judge, self._markers, Source.of(normal.text))
        tokens = parse(self._md, normal.text)
        maps = mark_regions(ps, tokens)
        pairs = scan_brackets(ps)
        walk(ps, tokens, maps)
        backstop(ps, pairs)
        if not ps.edits:
            return text, []
        edits = [normal.edit(e) for e in ps.edits]
        output = splice(text, edits, self._markers.conflict)
        return output, [_finding(ps, normal, note, context, recheck) for note in ps.notes]


def _context(context: Mapping[str, str] | None) -> dict[str, str]:
    extra = dict(context or {})
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in extra.items()):
        raise TypeError("context must map str to str, e.g. {'conversation_id': 'c1'}")
    return extra


class _Normalised:
    """The text markdown-it sees (`\\r\\n` and `\\r` as `\\n`, NUL as U+FFFD), and the
    way back to offsets in the original."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\0", "\ufffd")
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


def _finding(
    ps: Pass, normal: _Normalised, note: Note, context: dict[str, str], recheck: bool
) -> Finding:
    line = ps.source.line_of(note.start)
    return Finding(
        construct=note.construct,
        action=note.action,
        reasons=note.reasons,
        line=line + 1,
        column=note.start - ps.source.starts[line] + 1,
        start=normal.offset(note.start),
        end=normal.offset(note.end),
        host=note.host,
        url=redact(note.url.url) if note.url is not None else None,
        detail=note.detail,
        detector=note.detector,
        recheck=recheck,
        context=context,
    )


@functools.lru_cache(maxsize=16)
def _cached(policy: Policy) -> Sanitizer:
    return Sanitizer(policy)


def sanitize(text: str, policy: Policy | None = None) -> str:
    """Return `text` with every unsafe image and data-carrying link neutralised.

    A reply with nothing unsafe comes back unchanged, byte for byte. For the
    findings, or to reuse one policy efficiently, use `Sanitizer(policy).run(text)`.
    """
    return _cached(policy if policy is not None else Policy()).run(text).text
