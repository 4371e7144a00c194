"""Markup a rendered fence holds (an SVG image, the HTML in a Mermaid diagram's
labels), judged tag by tag: what fetches with no click is judged as an image, what
a click follows as a link, and what runs or loads code goes.

Per tag, through the tables below: a tag that runs, embeds or redirects (`script`,
`iframe`, `object`, `meta`, `base`, `link`, ...) goes; of any other tag, every `on*`
handler goes, every URL attribute (`href` in any namespace, `src`, `srcset`,
`poster`, `action`, ...) is judged unless it points into the same document (`#id`),
every style (`style`, a presentation attribute with `url()`, a `<style>` element)
has its URLs judged (`css`), and an animation (`<set>`, `<animate>`) that writes a
URL or a style has the values it writes judged. A comment or bogus comment holding
markup, an `xml-stylesheet` instruction and a DOCTYPE declaring entities (an XML
parser reads all three) go. What a refused attribute was goes alone; the rest of
the tag and of the fence stays as written.

The tags are read twice: with offsets (`tags.read`) and by html5lib. What either
reading finds is cut; where html5lib finds something the offsets do not agree on,
every `<` of the fence is shown as text instead.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ..engine.edits import Edit
from ..engine.state import Pass
from ..findings import Action, Reason
from ..urls import Role, Verdict
from .css import css_problem
from .fence import Cut, escaped_openers
from .tags import Attribute, Comment, Tag, agrees, html5lib_reading, read

__all__ = ["markup_cuts"]

# Tags that run code, embed a document or plug-in, redirect, or restyle the page from
# elsewhere: they go whatever their attributes say.
REMOVED_TAGS = frozenset(
    [
        "script",
        "iframe",
        "frame",
        "frameset",
        "object",
        "embed",
        "applet",
        "portal",
        "base",
        "meta",
        "link",
        "param",
        "noembed",
        "noframes",
        "xmp",
        "plaintext",
    ]
)
# Removed with what they hold, up to their end tag.
_WITH_CONTENT = frozenset({"script", "style"})
# Attributes holding a URL the browser requests (`href` in any namespace too).
URL_ATTRIBUTES = frozenset(
    {"src", "action", "formaction", "poster", "background", "lowsrc", "dynsrc", "ping"}
)
# Attributes that are a document or move every relative URL: always removed.
REMOVED_ATTRIBUTES = frozenset({"srcdoc", "xml:base"})
# Where an attribute's URL is followed only on a click: (tag, attribute).
_LINKS = frozenset(
    tuple(pair.split(":"))
    for pair in [
        "a:href",
        "a:ping",
        "area:href",
        "area:ping",
        "form:action",
        "button:formaction",
        "input:formaction",
    ]
)
_SRCSET = frozenset({"srcset", "imagesrcset"})
# SVG animations: the attributes whose values they write, and those they write into.
_ANIMATIONS = frozenset({"set", "animate", "animatemotion", "animatetransform", "animatecolor"})
_WRITTEN = ("to", "from", "by", "values")
_MARKUP = re.compile(r"<[A-Za-z!?/]")
_CSS_HINT = re.compile(r"url|image-set|@import|\\", re.IGNORECASE)
_SPACE = " \t\n\f\r"


@dataclass(frozen=True, slots=True)
class _Judging:
    """How a reading judges URLs: spending images (the reading that cuts), or only
    looking (the reading that checks)."""

    image: Callable[[str], Verdict]
    link: Callable[[str], Verdict]
    proxied: Callable[[Verdict], str] | None


def markup_cuts(ps: Pass, text: str) -> list[Cut]:
    """What `text`, markup a renderer shows, must lose."""
    if "<" not in text:
        return []
    ours = list(read(text))
    cuts = _cuts(_spending(ps), text, ours)
    theirs = html5lib_reading(text)
    if _finds_any(_looking(ps), theirs) and not agrees(ours, theirs):
        return [escaped_openers(text, "unreadable markup")]
    return cuts


def _spending(ps: Pass) -> _Judging:
    def proxied(verdict: Verdict) -> str:
        return ps.rules.judge.proxied(verdict.url.href or "")

    return _Judging(ps.spend_image, ps.judge_link, proxied if ps.policy.image_proxy else None)


def _looking(ps: Pass) -> _Judging:
    return _Judging(lambda url: ps.judge(url, Role.IMAGE), ps.judge_link, None)


def _finds_any(judging: _Judging, tokens: list[Tag | Comment]) -> bool:
    for token in tokens:
        if isinstance(token, Comment):
            if _MARKUP.search(token.body) or "entity" in token.body.lower():
                return True
        elif not token.closing and _tag_cuts(judging, "", token):
            return True
    return False


def _cuts(judging: _Judging, text: str, tokens: list[Tag | Comment]) -> list[Cut]:
    cuts: list[Cut] = []
    skip = 0
    ends = _EndTags(tokens, len(text))
    for index, token in enumerate(tokens):
        if token.start < skip:
            continue
        if isinstance(token, Comment):
            cuts.extend(_comment_cuts(text, token))
        elif not token.complete:
            cuts.append(_unterminated(token))
        elif not token.closing:
            found, skip = _element_cuts(judging, text, ends, index, token)
            cuts.extend(found)
    return cuts


class _EndTags:
    """Where each element ends: its content's end and its end tag's, found by name
    (the end tags of each name in order, so no element's search reads the rest)."""

    def __init__(self, tokens: list[Tag | Comment], length: int) -> None:
        self._by_name: dict[str, list[tuple[int, Tag]]] = {}
        for index, token in enumerate(tokens):
            if isinstance(token, Tag) and token.closing:
                self._by_name.setdefault(token.name, []).append((index, token))
        self._length = length
        # Style sheets judged, by where they end: the earliest start. One within another
        # that passed (`<style>` written many times with no end tag) passes too.
        self._judged: dict[int, int] = {}

    def judged(self, start: int, end: int) -> bool:
        """Was text[start:end] judged already, inside a style sheet that passed? (Note
        that it is being judged now, when not.)"""
        if self._judged.get(end, end + 1) <= start:
            return True
        self._judged[end] = start
        return False

    def after(self, index: int, name: str) -> tuple[int, int]:
        ends = self._by_name.get(name, [])
        at = bisect.bisect_right(ends, index, key=lambda pair: pair[0])
        if at == len(ends):
            return self._length, self._length
        return ends[at][1].start, ends[at][1].end


def _unterminated(tag: Tag) -> Cut:
    return Cut.remove(tag.start, tag.end, "unterminated tag", (Reason.MALFORMED_HTML,))


def _comment_cuts(text: str, comment: Comment) -> list[Cut]:
    body = comment.body.lower()
    if text.startswith("<?", comment.start) and "xml-stylesheet" in body:
        return [_remove(comment, "xml-stylesheet", Reason.HTML_TAG_NOT_ALLOWED)]
    if text.startswith("<!", comment.start) and "entity" in body:
        return [_remove(comment, "entity declaration", Reason.MALFORMED_HTML)]
    if _MARKUP.search(comment.body):
        return [_remove(comment, "comment holding markup", Reason.MALFORMED_HTML)]
    return []


def _remove(token: Tag | Comment, what: str, reason: Reason) -> Cut:
    return Cut.remove(token.start, token.end, what, (reason,))


def _element_cuts(
    judging: _Judging, text: str, ends: _EndTags, index: int, tag: Tag
) -> tuple[list[Cut], int]:
    """The cuts of the element `tag` (tokens[index]) starts, and where they end."""
    local = _local(tag.name)
    if local == "style":
        content_end, end = ends.after(index, tag.name)
        verdict = None
        if not ends.judged(tag.end, content_end):
            verdict = _style_problem(judging, text[tag.end : content_end])
        if verdict is not None:
            reasons = verdict.reasons or (Reason.IMAGE_HOST_NOT_ALLOWED,)
            return [Cut.remove(tag.start, end, "style", reasons, verdict)], end
    if local in REMOVED_TAGS and local in _WITH_CONTENT:
        _content_end, end = ends.after(index, tag.name)
        return [Cut.remove(tag.start, end, local, (Reason.HTML_TAG_NOT_ALLOWED,))], end
    return _tag_cuts(judging, text, tag), tag.end


def _style_problem(judging: _Judging, css: str) -> Verdict | None:
    """A `<style>` element's first refused URL, as written or with its entities read
    (inside an SVG, a style element's text is read as any text is)."""
    verdict = css_problem(css, judging.image)
    if verdict is None and "&" in css:
        verdict = css_problem(html.unescape(css), judging.image)
    return verdict


def _tag_cuts(judging: _Judging, text: str, tag: Tag) -> list[Cut]:
    """A start tag's cuts: the whole tag, or the attributes that must go."""
    local = _local(tag.name)
    if local in REMOVED_TAGS:
        return [_remove(tag, local, Reason.HTML_TAG_NOT_ALLOWED)]
    if local in _ANIMATIONS and (verdict := _animation_problem(judging, tag)) is not None:
        reasons = verdict.reasons or (Reason.IMAGE_HOST_NOT_ALLOWED,)
        return [Cut.remove(tag.start, tag.end, local, reasons, verdict)]
    cuts = []
    for attribute in tag.attributes:
        cut = _attribute_cut(judging, text, tag, attribute)
        if cut is not None:
            cuts.append(cut)
    return cuts


def _attribute_cut(judging: _Judging, text: str, tag: Tag, attribute: Attribute) -> Cut | None:
    name = attribute.name
    rule = _ATTRIBUTE_RULES.get(name) or _ATTRIBUTE_RULES.get(_kind_of(name))
    return None if rule is None else rule(judging, text, tag, attribute)


def _kind_of(name: str) -> str:
    """The rule an attribute without its own entry follows (`_ATTRIBUTE_RULES`)."""
    if name.startswith("on"):
        return "on*"
    if _local(name) == "href" or name in URL_ATTRIBUTES:
        return "url"
    return "css"


def _handler(judging: _Judging, text: str, tag: Tag, attribute: Attribute) -> Cut:
    return _without(text, tag, attribute, (Reason.HTML_ATTRIBUTE_NOT_ALLOWED,))


def _url(judging: _Judging, text: str, tag: Tag, attribute: Attribute) -> Cut | None:
    value = attribute.value.strip(_SPACE + "\0")
    if value.startswith("#"):
        return None  # a reference into the same document fetches nothing
    if (_local(tag.name), _local(attribute.name)) in _LINKS:
        verdict = judging.link(value)
    else:
        verdict = judging.image(value)
        if verdict.action == "proxy" and judging.proxied is not None:
            return _proxied(text, tag, attribute, judging.proxied(verdict), verdict)
    if verdict.action == "keep":
        return None
    reasons = verdict.reasons or (Reason.IMAGE_HOST_NOT_ALLOWED,)
    return _without(text, tag, attribute, reasons, verdict)


def _srcset(judging: _Judging, text: str, tag: Tag, attribute: Attribute) -> Cut | None:
    for candidate in attribute.value.split(","):
        url = candidate.strip(_SPACE).split()[0] if candidate.strip(_SPACE) else ""
        verdict = judging.image(url)
        if verdict.action != "keep":
            reasons = verdict.reasons or (Reason.IMAGE_HOST_NOT_ALLOWED,)
            return _without(text, tag, attribute, reasons, verdict)
    return None


def _css(judging: _Judging, text: str, tag: Tag, attribute: Attribute) -> Cut | None:
    if _CSS_HINT.search(attribute.value) is None:
        return None
    verdict = css_problem(attribute.value, judging.image)
    if verdict is None:
        return None
    reasons = verdict.reasons or (Reason.IMAGE_HOST_NOT_ALLOWED,)
    return _without(text, tag, attribute, reasons, verdict)


def _removed(judging: _Judging, text: str, tag: Tag, attribute: Attribute) -> Cut:
    return _without(text, tag, attribute, (Reason.HTML_ATTRIBUTE_NOT_ALLOWED,))


AttributeRule = Callable[[_Judging, str, Tag, Attribute], Cut | None]
_ATTRIBUTE_RULES: Mapping[str, AttributeRule] = MappingProxyType(
    {
        "on*": _handler,
        "url": _url,
        "css": _css,
        "srcset": _srcset,
        "imagesrcset": _srcset,
        "srcdoc": _removed,
        "xml:base": _removed,
    }
)


def _animation_problem(judging: _Judging, tag: Tag) -> Verdict | None:
    """The refusal of a URL or style an animation writes (None: it writes none)."""
    target = tag.first("attributename")
    if target is None:
        return None
    written = _local(target.value.strip().lower())
    for name in _WRITTEN:
        values = tag.first(name)
        for value in values.value.split(";") if values is not None else ():
            verdict = _written_problem(judging, written, value.strip(_SPACE))
            if verdict is not None:
                return verdict
    return None


def _written_problem(judging: _Judging, written: str, value: str) -> Verdict | None:
    if written in ("href", "src") and value and not value.startswith("#"):
        verdict = judging.image(value)
        return verdict if verdict.action != "keep" else None
    return css_problem(value, judging.image) if _CSS_HINT.search(value) else None


def _without(
    text: str,
    tag: Tag,
    attribute: Attribute,
    reasons: tuple[Reason, ...],
    verdict: Verdict | None = None,
) -> Cut:
    """The attribute taken out of its tag, with the white space before it."""
    start = attribute.start
    while start > tag.start and text[start - 1] in _SPACE:
        start -= 1
    what = f"{tag.name}[{attribute.name}]"
    return Cut.remove(start, attribute.end, what, reasons, verdict)


def _proxied(text: str, tag: Tag, attribute: Attribute, target: str, verdict: Verdict) -> Cut:
    written = text[attribute.start : attribute.start + len(attribute.name)]
    value = html.escape(target, quote=True)
    edit = Edit(attribute.start, attribute.end, (f'{written}="{value}"',))
    return Cut((edit,), f"{tag.name}[{attribute.name}]", (), verdict, Action.PROXIED)


def _local(name: str) -> str:
    """A name without its namespace prefix (`xlink:href` is an `href`)."""
    return name.rpartition(":")[2]
