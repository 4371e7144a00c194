"""Sweep 2 of the Markdown pass: decide about each construct markdown-it-py read.

Every construct is visited in document order through the read-only rule tables
below, one small function per token type, and each change is a minimal edit with
the finding that explains it. A fence is code, unless the policy says the chat UI
renders its language (`rendered`). Sweep 1 (`regions`) ran before and placed the tokens.

Reference definitions are decided where they stand: a definition is removed when
its URL fails the link policy, or the image policy if an image used its label
*earlier*. A usage whose definition comes later, or was removed, is left as
written (it renders as plain text). This order rule is what lets a stream decide
each construct once, when it arrives, and still equal the one-shot result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from markdown_it.token import Token

from .. import html
from ..engine.edits import Edit, Keep
from ..engine.rendered import info_language
from ..engine.state import Pass
from ..findings import Action, Construct, Reason
from ..rendered import Fence, judge_fence
from ..rendered.fence import show_as_code
from ..urls import Role, Verdict
from .labels import label_keys
from .parser import OffsetMap, destination
from .regions import Marks, Where, definition_start

__all__ = ["BLOCK_RULES", "INLINE_RULES", "walk"]


@dataclass(frozen=True, slots=True)
class _Walk:
    """What the block rules read: the pass, sweep 1's marks, and the first offset at
    which an image used each label (-1: in an earlier unit)."""

    ps: Pass
    marks: Marks
    image_uses: Mapping[str, int]


def walk(ps: Pass, tokens: list[Token], marks: Marks, image_uses: Mapping[str, int]) -> None:
    """Sweep 2: decide about every construct, in document order."""
    state = _Walk(ps, marks, image_uses)
    for token in tokens:
        rule = BLOCK_RULES.get(token.type)
        if rule is not None:
            rule(state, token)


# -- block rules ----------------------------------------------------------------------


def _inline(w: _Walk, token: Token) -> None:
    where = w.marks.maps.get(id(token))
    if where is not None:
        _walk_inline(w.ps, token.children or [], where)


def _walk_inline(ps: Pass, children: list[Token], where: Where) -> None:
    for child in children:
        rule = INLINE_RULES.get(child.type)
        if rule is not None:
            rule(ps, child, where)


def _html_block(w: _Walk, token: Token) -> None:
    if token.map is None:
        return
    ps = w.ps
    content = token.content.rstrip("\n")
    offsets = OffsetMap(ps.source, content, token.map[0], None)
    start, end = offsets.to_source(0), offsets.to_source(len(content))
    if start is None or end is None:
        start, end = ps.source.block_span(*token.map)
        content = ps.source.text[start:end]
    html.judge_fragment(ps, content, start, end)


def _definition(w: _Walk, token: Token) -> None:
    if token.map is None:
        return
    ps = w.ps
    start = definition_start(ps.source, token.map[0])
    end = ps.source.line_end(max(token.map[1] - 1, token.map[0]))
    raw_label, url = str(token.meta["label"]), str(token.meta["url"])
    verdict = _definition_verdict(w, raw_label, url, start)
    ps.define(str(token.meta["id"]), kept=verdict.action != "drop")
    if verdict.action == "drop":
        edit = Edit(start, end, ())
        reasons = verdict.reasons
        ps.change(edit, Construct.REFERENCE_DEFINITION, Action.REMOVED, reasons, verdict=verdict)
    elif verdict.action == "proxy" and ps.policy.image_proxy is not None:
        target = ps.rules.judge.proxied(verdict.url.href or url)
        edit = Edit(start, end, (f"[{raw_label}]: {target}",))
        ps.change(edit, Construct.REFERENCE_DEFINITION, Action.PROXIED, (), verdict=verdict)


def _definition_verdict(w: _Walk, raw_label: str, url: str, start: int) -> Verdict:
    verdict = w.ps.judge_link(url)
    used = [w.image_uses[k] for k in label_keys(raw_label) if k in w.image_uses]
    overflowed = w.ps.carry.labels_overflowed
    if verdict.action == "keep" and (overflowed or (used and min(used) < start)):
        return w.ps.judge(url, Role.IMAGE)
    return verdict


def _fence(w: _Walk, token: Token) -> None:
    """A fence the chat UI renders (`Policy.rendered_fences`), judged as what it becomes."""
    ps = w.ps
    kind = ps.rules.rendered.kind(language := info_language(token.info))
    first = token.map[0] + 1 if token.map is not None else len(ps.source.lines)
    if kind is None or first >= len(ps.source.lines):
        return
    if ps.cut_at is not None and _demoted(ps, token):
        return
    start, content = ps.source.starts[first], token.content
    if ps.source.text.startswith(content, start):
        judge_fence(ps, Fence(language, kind, content, start))
        return
    # In a list or a quote: the content's lines lost their markers.
    offsets = OffsetMap(ps.source, content, first, None)
    begin = offsets.to_source(0)
    judge_fence(
        ps, Fence(language, kind, content, start if begin is None else begin, offsets.to_source)
    )


def _demoted(ps: Pass, token: Token) -> bool:
    """A rendered fence still open where a forced cut ended the unit is shown as code
    (`rendered.show_as_code`). Its opening line is in this unit: a stream holds a
    rendered fence from there."""
    top, bottom = token.map or (0, 0)
    after = ps.source.starts[bottom] if bottom < len(ps.source.lines) else len(ps.source.text)
    if ps.source.text[after:].strip() or _closed(token):
        return False  # the fence ended before the cut
    start, line = ps.source.starts[top], ps.source.lines[top]
    run = line.find(token.markup)
    if run < 0:
        return False
    return show_as_code(ps, start + run, start + run + len(token.markup), start + len(line))


def _closed(token: Token) -> bool:
    """Did markdown-it read the fence's closing line (its lines: the opening one, the
    content's, and a closing one)?"""
    top, bottom = token.map or (0, 0)
    content = token.content
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    return bottom - top > 1 + lines


BlockRule = Callable[[_Walk, Token], None]
BLOCK_RULES: Mapping[str, BlockRule] = MappingProxyType(
    {"inline": _inline, "html_block": _html_block, "definition": _definition, "fence": _fence}
)


# -- inline rules ---------------------------------------------------------------------


def _rendered(ps: Pass, token: Token, where: Where) -> tuple[tuple[int, int], str | None] | None:
    """Where a link or image sits and the reference it uses, or None when it is not
    rendered (its definition comes later or was removed: the usage stays plain text)
    or cannot be placed (then its whole block is judged, failing closed)."""
    span = where.span(token.meta.get("span"))
    if span is None:
        _unplaced(ps, token, where)
        return None
    ref = token.meta.get("label")
    if ref is not None and not ps.is_defined(ref):
        return None
    return span, ref


def _link(ps: Pass, token: Token, where: Where) -> None:
    if (rendered := _rendered(ps, token, where)) is None:
        return
    span, ref = rendered
    verdict = ps.judge_link(str(token.attrs.get("href", "")))
    if verdict.action != "drop":
        return
    if token.markup == "autolink":
        construct, text = Construct.AUTOLINK, None
    else:
        construct = Construct.REFERENCE_LINK if ref is not None else Construct.LINK
        label = where.span(token.meta.get("label_span"))
        text = Keep(*label) if label else None
    edit = Edit(*span, ps.link_parts(text, verdict))
    ps.change(edit, construct, Action.UNLINKED, verdict.reasons, verdict=verdict)


def _image(ps: Pass, token: Token, where: Where) -> None:
    label_pair = token.meta.get("label_span")
    if token.children and label_pair is not None:
        _walk_inline(ps, token.children, where.inside(label_pair))
    if (rendered := _rendered(ps, token, where)) is None:
        return
    span, ref = rendered
    verdict = ps.spend_image(str(token.attrs.get("src", "")))
    label = where.span(label_pair)
    alt = Keep(*label) if label else None
    construct = Construct.REFERENCE_IMAGE if ref is not None else Construct.IMAGE
    if verdict.action == "drop":
        edit = Edit(*span, ps.image_parts(alt))
        ps.change(edit, construct, Action.REMOVED, verdict.reasons, verdict=verdict)
    elif verdict.action == "proxy":
        _proxy_image(ps, token, where, span, verdict)
    else:
        ps.kept_images.append(span)


def _proxy_image(
    ps: Pass, token: Token, where: Where, span: tuple[int, int], verdict: Verdict
) -> None:
    if ps.policy.image_proxy is None:
        return
    target = ps.rules.judge.proxied(verdict.url.href or "")
    label = where.span(token.meta.get("label_span"))
    alt = Keep(*label) if label else None
    pair = token.meta.get("label_span")
    dest = where.span(destination(where.content, pair[1])) if pair else None
    if dest is not None:
        edit = Edit(*dest, (target,))
    else:
        edit = Edit(*span, ("![", *([alt] if alt else []), "](", target, ")"))
    construct = Construct.REFERENCE_IMAGE if token.meta.get("label") else Construct.IMAGE
    ps.change(edit, construct, Action.PROXIED, (), verdict=verdict)


def _html_inline(ps: Pass, token: Token, where: Where) -> None:
    span = where.span(token.meta.get("span"))
    if span is None:
        _unplaced(ps, token, where)
        return
    html.judge_fragment(ps, token.content, *span)


def _unplaced(ps: Pass, token: Token, where: Where) -> None:
    """Fail closed when a construct's source span is unknown: replace its whole block."""
    needs_change = _would_change(ps, token)
    if not needs_change:
        return
    start = ps.source.starts[where.lines[0]]
    end = ps.source.line_end(min(where.lines[1], len(ps.source.lines)) - 1)
    edit = Edit(start, end, (ps.markers.conflict,))
    construct = Construct.IMAGE if token.type == "image" else Construct.LINK
    ps.change(edit, construct, Action.REMOVED, needs_change, detail="unplaced")


def _would_change(ps: Pass, token: Token) -> tuple[Reason, ...]:
    if token.type == "image":
        verdict = ps.judge(str(token.attrs.get("src", "")), Role.IMAGE)
    elif token.type == "link_open":
        verdict = ps.judge(str(token.attrs.get("href", "")), Role.LINK)
    else:
        return html.static_reasons(token.content)
    return verdict.reasons if verdict.action != "keep" else ()


InlineRule = Callable[[Pass, Token, Where], None]
INLINE_RULES: Mapping[str, InlineRule] = MappingProxyType(
    {"link_open": _link, "image": _image, "html_inline": _html_inline}
)
