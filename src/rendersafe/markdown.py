"""The Markdown pass: walk markdown-it-py's tokens and decide about each construct.

Two sweeps over the token stream. The first marks code and raw-HTML regions (the
lexical pass needs them). The second visits every construct in document order
through the read-only rule tables below, one small function per token type, and
records minimal edits with the finding that explains each one.

Reference definitions are decided where they stand: a definition is removed when
its URL fails the link policy, or the image policy if an image used its label
*earlier*. A usage whose definition comes later, or was removed, is left as
written (it renders as plain text). This order rule is what lets a stream decide
each construct once, when it arrives, and still equal the one-shot result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference
from markdown_it.token import Token

from . import html
from .code import SpanJudge, add_raw_html_span, trusted_block
from .context import Pass, Regions
from .edits import Edit, Keep
from .findings import Action, Construct, Reason
from .labels import label_keys
from .proxy import proxy_url
from .spans import OffsetMap, advance, destination
from .urls import Role, Verdict

__all__ = ["mark_regions", "parse", "walk"]

_FIND_MODE = frozenset({"th_open", "td_open", "heading_open"})
_CONTAINER_DEPTH = MappingProxyType(
    {"list_item_open": 1, "list_item_close": -1, "blockquote_open": 1, "blockquote_close": -1}
)
_TAG_START = re.compile(r"</?[a-zA-Z]")
_INTERESTING = frozenset({"link_open", "image", "code_inline", "html_inline"})


@dataclass(frozen=True, slots=True)
class Where:
    """Where an inline token's content sits in the source."""

    offsets: OffsetMap
    base: int
    lines: tuple[int, int]
    content: str

    def span(self, pair: tuple[int, int] | None) -> tuple[int, int] | None:
        """Source offsets of a content span, or None when it cannot be placed."""
        if pair is None:
            return None
        start = self.offsets.to_source(self.base + pair[0])
        end = self.offsets.to_source(self.base + pair[1])
        if start is None or end is None or end < start:
            return None
        return start, end

    def inside(self, pair: tuple[int, int]) -> Where:
        """The Where of an image's alt text, parsed on its own from `pair[0]`."""
        content = self.content[pair[0] : pair[1]]
        return Where(self.offsets, self.base + pair[0], self.lines, content)


Maps = dict[int, Where]


def parse(md: MarkdownIt, text: str, env: dict[str, Any] | None = None) -> list[Token]:
    """Parse `text` (already `\\n`-normalised) into block tokens.

    `env["references"]` may hold the definitions of earlier units, so uses here
    resolve as they would in the whole reply; markdown-it adds this text's own.
    """
    return md.parse(text, env if env is not None else {})


def mark_regions(ps: Pass, tokens: list[Token]) -> Maps:
    """Sweep 1: record code and raw-HTML regions; return the offset maps built on the way."""
    maps: Maps = {}
    cursors: dict[int, int] = {}
    raw = Regions()
    spans = SpanJudge(ps.source)
    depth = 0
    previous: Token | None = None
    for token in tokens:
        depth += _CONTAINER_DEPTH.get(token.type, 0)
        if token.type == "inline" and token.map is not None:
            in_table = previous is not None and previous.type in ("th_open", "td_open")
            find = previous is not None and previous.type in _FIND_MODE
            if _interesting(token):
                where = _where(ps, token, token.map, cursors if find else None)
                maps[id(token)] = where
                _mark_inline(ps, token.children or [], where, _Trust(spans, raw, in_table))
            elif find:
                advance(ps.source, token.content, token.map[0], cursors)
        elif token.type in ("fence", "code_block") and token.map is not None:
            continued = ps.after_forced_cut or ps.continues_block
            trusted = trusted_block(
                ps.source, token, nested=depth > 0, raw=raw, continued=continued
            )
            if trusted and ps.trust_code:
                ps.code.add(*_block_span(ps, token.map))
        elif token.type == "html_block" and token.map is not None:
            add_raw_html_span(ps.source, token, raw)
            if _TAG_START.match(token.content):
                ps.html.add(*_block_span(ps, token.map))
        previous = token
    return maps


def _where(ps: Pass, token: Token, lines: list[int], cursors: dict[int, int] | None) -> Where:
    offsets = OffsetMap(ps.source, token.content, lines[0], cursors)
    return Where(offsets, 0, (lines[0], lines[1]), token.content)


def _interesting(token: Token) -> bool:
    return any(child.type in _INTERESTING for child in token.children or [])


@dataclass(frozen=True, slots=True)
class _Trust:
    spans: SpanJudge
    raw: Regions
    in_table: bool


def _mark_inline(ps: Pass, children: list[Token], where: Where, trust: _Trust) -> None:
    for child in children:
        if child.type in ("code_inline", "html_inline"):
            span = where.span(child.meta.get("span"))
            if span is None:
                continue
            if child.type == "html_inline":
                # Comments, declarations and processing instructions are read as text
                # by some renderers: their insides stay visible to the lexical pass.
                if _TAG_START.match(child.content):
                    ps.html.add(*span)
            elif (
                ps.trust_code
                and not ps.after_forced_cut
                and span[0] not in trust.raw
                and trust.spans.trusted(*span, in_table=trust.in_table)
            ):
                ps.code.add(*span)
        elif child.type == "image" and child.children and "label_span" in child.meta:
            _mark_inline(ps, child.children, where.inside(child.meta["label_span"]), trust)


def _block_span(ps: Pass, lines: list[int]) -> tuple[int, int]:
    last = min(lines[1], len(ps.source.lines)) - 1
    return ps.source.starts[lines[0]], ps.source.line_end(max(last, lines[0]))


def walk(ps: Pass, tokens: list[Token], maps: Maps) -> None:
    """Sweep 2: decide about every construct, in document order."""
    for token in tokens:
        rule = BLOCK_RULES.get(token.type)
        if rule is not None:
            rule(ps, token, maps)


# -- block rules ----------------------------------------------------------------------


def _inline(ps: Pass, token: Token, maps: Maps) -> None:
    where = maps.get(id(token))
    if where is not None:
        _walk_inline(ps, token.children or [], where)


def _walk_inline(ps: Pass, children: list[Token], where: Where) -> None:
    for child in children:
        rule = INLINE_RULES.get(child.type)
        if rule is not None:
            rule(ps, child, where)


def _html_block(ps: Pass, token: Token, maps: Maps) -> None:
    if token.map is None:
        return
    content = token.content.rstrip("\n")
    offsets = OffsetMap(ps.source, content, token.map[0], None)
    start, end = offsets.to_source(0), offsets.to_source(len(content))
    if start is None or end is None:
        start, end = _block_span(ps, token.map)
        content = ps.source.text[start:end]
    _raw_html(ps, content, start, end)


def _definition(ps: Pass, token: Token, maps: Maps) -> None:
    if token.map is None:
        return
    first, last = token.map[0], token.map[1] - 1
    line = ps.source.lines[first]
    start = ps.source.starts[first] + max(line.find("["), 0)
    end = ps.source.line_end(max(last, first))
    ps.ast_definitions.add(start)
    raw_label, url = str(token.meta["label"]), str(token.meta["url"])
    verdict = _definition_verdict(ps, raw_label, url, start)
    ps.definitions.setdefault(str(token.meta["id"]), verdict.action != "drop")
    if verdict.action == "drop":
        edit = Edit(start, end, ())
        ps.change(edit, Construct.REFERENCE_DEFINITION, Action.REMOVED, verdict.reasons,
                  verdict=verdict)  # fmt: skip
    elif verdict.action == "proxy" and ps.policy.image_proxy is not None:
        target = proxy_url(ps.policy.image_proxy, verdict.url.href or url)
        edit = Edit(start, end, (f"[{raw_label}]: {target}",))
        ps.change(edit, Construct.REFERENCE_DEFINITION, Action.PROXIED, (), verdict=verdict)


def _definition_verdict(ps: Pass, raw_label: str, url: str, start: int) -> Verdict:
    verdict = ps.judge_link(url)
    used = [ps.image_uses[k] for k in label_keys(raw_label) if k in ps.image_uses]
    if verdict.action == "keep" and (ps.labels_overflowed or (used and min(used) < start)):
        return ps.judge.judge(url, Role.IMAGE)
    return verdict


BlockRule = Callable[[Pass, Token, Maps], None]
BLOCK_RULES: Mapping[str, BlockRule] = MappingProxyType(
    {"inline": _inline, "html_block": _html_block, "definition": _definition}
)


# -- inline rules ---------------------------------------------------------------------


def _link(ps: Pass, token: Token, where: Where) -> None:
    span = where.span(token.meta.get("span"))
    if span is None:
        _unplaced(ps, token, where)
        return
    ref = token.meta.get("label")
    if ref is not None and not ps.definitions.get(ref, False):
        return  # definition later or removed: the usage stays plain text
    verdict = ps.judge_link(str(token.attrs.get("href", "")))
    if verdict.action != "drop":
        return
    if token.markup == "autolink":
        construct, text = Construct.AUTOLINK, None
    else:
        construct = Construct.REFERENCE_LINK if ref is not None else Construct.LINK
        label = where.span(token.meta.get("label_span"))
        text = Keep(*label) if label else None
    edit = Edit(*span, ps.link_parts(text))
    ps.change(edit, construct, Action.UNLINKED, verdict.reasons, verdict=verdict)


def _image(ps: Pass, token: Token, where: Where) -> None:
    label_pair = token.meta.get("label_span")
    if token.children and label_pair is not None:
        _walk_inline(ps, token.children, where.inside(label_pair))
    span = where.span(token.meta.get("span"))
    if span is None:
        _unplaced(ps, token, where)
        return
    ref = token.meta.get("label")
    if ref is not None and not ps.definitions.get(ref, False):
        return
    verdict = ps.judge_image(str(token.attrs.get("src", "")))
    label = where.span(label_pair)
    alt = Keep(*label) if label else None
    construct = Construct.REFERENCE_IMAGE if ref is not None else Construct.IMAGE
    if verdict.action == "drop":
        edit = Edit(*span, ps.image_parts(alt))
        ps.change(edit, construct, Action.REMOVED, verdict.reasons, verdict=verdict)
    elif verdict.action == "proxy":
        _proxy_image(ps, token, where, span, verdict)


def _proxy_image(
    ps: Pass, token: Token, where: Where, span: tuple[int, int], verdict: Verdict
) -> None:
    if ps.policy.image_proxy is None:
        return
    target = proxy_url(ps.policy.image_proxy, verdict.url.href or "")
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
    _raw_html(ps, token.content, *span)


def _raw_html(ps: Pass, fragment: str, start: int, end: int) -> None:
    """Judge `fragment` (container markers stripped), which sits at source[start:end]."""
    prefix = _continuation_prefix(ps, start, fragment) if "\n" in fragment else ""

    def reindent(cleaned: str) -> str:
        return cleaned.replace("\n", "\n" + prefix)

    mode = ps.policy.raw_html
    if mode != "sanitize":
        replacement = "" if mode == "strip" else html_escape(fragment)
        edit = Edit(start, end, (reindent(replacement),))
        ps.change(edit, Construct.HTML, Action.NEUTRALISED, (Reason.RAW_HTML_POLICY,))
        return
    if fragment.startswith("<!--") and "-->" not in fragment[2:]:
        # An unclosed comment hides the rest of the reply from markdown-it but not from
        # python-markdown: show the opener as text and let the next pass judge the rest.
        # (`<!-->` and `<!--->` are closed, empty comments to a browser.)
        edit = Edit(start, start + 1, ("&lt;",))
        ps.change(edit, Construct.HTML, Action.NEUTRALISED, (Reason.MALFORMED_HTML,),
                  detail="unclosed comment")  # fmt: skip
        return
    problems, rewrites = html.review(fragment, _html_check(ps))
    if not problems and not rewrites:
        return
    cleaned = html.clean(fragment, problems, rewrites, ps.link_schemes)
    reasons = {r for p in problems for r in p.reasons}
    detail = ", ".join(sorted({_describe(p) for p in problems})) or None
    urls = [p for p in problems if p.value is not None]
    verdict = _problem_verdict(ps, urls[0]) if urls else None
    action = Action.PROXIED if not problems else Action.NEUTRALISED
    ps.change(Edit(start, end, (reindent(cleaned),)), Construct.HTML, action, reasons,
              verdict=verdict, detail=detail)  # fmt: skip


def _continuation_prefix(ps: Pass, start: int, fragment: str) -> str:
    """The container markers (`> `, list indent) in front of the fragment's second
    line: what its source line has that the fragment's line does not."""
    line_no = ps.source.line_of(start) + 1
    if line_no >= len(ps.source.lines):
        return ""
    line, content = ps.source.lines[line_no], fragment.split("\n", 2)[1]
    if content and line.endswith(content):
        return line[: len(line) - len(content)]
    return line[: len(line) - len(line.lstrip(" \t>"))]


def html_escape(fragment: str) -> str:
    """Show raw HTML as text."""
    return fragment.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _describe(problem: html.Problem) -> str:
    if not problem.tag:
        return "unterminated tag"
    return f"{problem.tag}[{problem.attribute}]" if problem.attribute else problem.tag


def _problem_verdict(ps: Pass, problem: html.Problem) -> Verdict:
    role = Role.IMAGE if problem.attribute == "src" else Role.LINK
    return ps.judge.judge(problem.value or "", role)


def _html_check(ps: Pass) -> html.UrlCheck:
    def check(tag: str, attribute: str, value: str) -> tuple[Reason, ...] | str:
        if tag == "img" and attribute == "src":
            verdict = ps.judge_image(value)
            if verdict.action == "proxy" and ps.policy.image_proxy is not None:
                return proxy_url(ps.policy.image_proxy, verdict.url.href or value)
        else:
            verdict = ps.judge_link(value)
        return verdict.reasons if verdict.action == "drop" else ()

    return check


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
        verdict = ps.judge.judge(str(token.attrs.get("src", "")), Role.IMAGE)
    elif token.type == "link_open":
        verdict = ps.judge.judge(str(token.attrs.get("href", "")), Role.LINK)
    else:
        problems, rewrites = html.review(token.content, lambda *_: ())
        return tuple({r for p in problems for r in p.reasons}) or (
            (Reason.HTML_TAG_NOT_ALLOWED,) if rewrites else ()
        )
    return verdict.reasons if verdict.action != "keep" else ()


def normalise_label(raw: str) -> str:
    """markdown-it's own label normalisation (case fold, collapsed whitespace)."""
    return normalizeReference(raw)


InlineRule = Callable[[Pass, Token, Where], None]
INLINE_RULES: Mapping[str, InlineRule] = MappingProxyType(
    {"link_open": _link, "image": _image, "html_inline": _html_inline}
)
