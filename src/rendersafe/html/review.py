"""Read a raw-HTML fragment as a browser tokenises it, and find what must change.

A fragment must change when it has a dangerous tag (DANGEROUS_TAGS), an attribute
that fetches, scripts, restyles or clobbers (DANGEROUS_ATTRIBUTES, `on*`), or a URL
rendersafe's judge refuses. Otherwise it passes byte for byte (`<kbd>`, `<br>`,
`<p align=center>`, `<Ctrl>`). When it must change, bleach rewrites it with the
tight allowlist below, which drops every other tag and attribute too.

Every URL in a fragment is judged by rendersafe's own classifier (the `check`
callback), never by bleach: bleach lets `//evil.example/x.png` through. Only this
module and `clean` know bleach (end-of-life June 2026): to move to nh3, reimplement
`elements()` here and `clean()` there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from bleach.html5lib_shim import HTMLTokenizer, constants

from ..findings import Reason

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_TAGS",
    "NO_ATTRIBUTES",
    "URL_ATTRIBUTES",
    "Element",
    "Problem",
    "UrlCheck",
    "decoded_attribute",
    "elements",
    "review",
    "static_reasons",
]

# Formatting only: nothing here loads a resource except <img src>, which is judged.
ALLOWED_TAGS = frozenset(
    {
        "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl",
        "dt", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd",
        "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span", "strong", "sub",
        "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
    }
)  # fmt: skip
# No style, srcset, event handlers or any other attribute that can name a URL.
ALLOWED_ATTRIBUTES: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "a": frozenset({"href", "title"}),
        "abbr": frozenset({"title"}),
        "img": frozenset({"src", "alt", "title", "width", "height"}),
        "td": frozenset({"align", "colspan", "rowspan"}),
        "th": frozenset({"align", "colspan", "rowspan"}),
        "ol": frozenset({"start", "type"}),
        "details": frozenset({"open"}),
    }
)
# Tags that load, run or restyle something even without a URL we can judge. Any
# other tag outside ALLOWED_TAGS is harmless while it has no attributes (`<Ctrl>`).
DANGEROUS_TAGS = frozenset(
    {
        "applet", "audio", "base", "body", "button", "canvas", "embed", "form", "frame",
        "frameset", "head", "html", "iframe", "image", "img", "input", "link", "math",
        "meta", "noembed", "noframes", "noscript", "object", "param", "picture", "plaintext",
        "portal", "script", "select", "source", "style", "svg", "template", "textarea",
        "title", "track", "video", "xmp",
    }
) - ALLOWED_TAGS  # fmt: skip
URL_ATTRIBUTES = frozenset({"href", "src"})
# Attributes that fetch, run script, restyle or clobber the page's DOM. Any other
# attribute is inert: it triggers no cleaning, though cleaning drops it.
DANGEROUS_ATTRIBUTES = frozenset(
    {
        "action", "archive", "background", "cite", "codebase", "data", "dynsrc", "form",
        "formaction", "href", "icon", "id", "longdesc", "lowsrc", "manifest", "name", "ping",
        "poster", "src", "srcdoc", "srcset", "style", "usemap", "xlink:href", "xmlns",
    }
)  # fmt: skip
# How deep tags inside comments and attribute values are read; deeper is malformed.
NESTED_DEPTH = 8
_STARTS_WITH_TAG = re.compile(r"\s*</?[a-zA-Z]")
_PLAIN_TAG = re.compile(r"</?([a-zA-Z][a-zA-Z0-9-]*)\s*/?>")
NO_ATTRIBUTES: frozenset[str] = frozenset()
_TOKEN_TYPES = {value: name for name, value in constants.tokenTypes.items()}


@dataclass(frozen=True, slots=True)
class Element:
    """A start tag as a browser tokenises it: lowercase name, decoded attribute values."""

    tag: str
    attributes: Mapping[str, str]
    end: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """Something in a fragment that must go: a tag, an attribute, or a URL."""

    tag: str
    attribute: str | None
    value: str | None
    reasons: tuple[Reason, ...]


UrlCheck = Callable[[str, str, str], tuple[Reason, ...] | str]
"""(tag, attribute, value) -> reasons to drop, or a replacement URL (proxy)."""


def elements(fragment: str, *, nested: int = 0) -> Iterator[Element | Reason]:
    """Yield the tags of `fragment`, and MALFORMED_HTML for a tag cut off by the end.

    End tags come as elements with `end=True` and no attributes. With `nested`, the
    tags inside comments and attribute values are yielded too, so many levels deep
    (deeper ones are MALFORMED_HTML): python-markdown shows `<!<img src=u>` after a
    tag as text `<!` and a live `<img>`, and ends `<b title="<img src=u>">` at the
    first `>`, where a browser reads one comment or one attribute.
    """
    for token in HTMLTokenizer(fragment):
        kind = _TOKEN_TYPES.get(token["type"])
        if kind in ("StartTag", "EmptyTag", "EndTag"):
            data = token.get("data") or {}
            attributes = dict(data) if isinstance(data, dict) else {k: v for k, v in data}
            yield Element(str(token["name"]).lower(), attributes, end=kind == "EndTag")
            for value in attributes.values() if nested else ():
                if _literal_lt(str(value), fragment):
                    yield from _inside(str(value), nested)
        elif kind == "ParseError" and "eof" in str(token.get("data", "")).lower():
            yield Reason.MALFORMED_HTML
        elif kind == "Comment" and nested:
            yield from _inside(str(token.get("data", "")), nested)


def _literal_lt(value: str, fragment: str) -> bool:
    """Does a `<` in the decoded attribute `value` stand in the source as written? An
    escaped one (`&lt;`) is text to every renderer; python-markdown ends a tag only at
    a literal `>` after a literal `<`."""
    pos = value.find("<")
    while pos >= 0:
        if fragment.find(value[pos : pos + 2], 1) > 0:
            return True
        pos = value.find("<", pos + 1)
    return False


def decoded_attribute(raw: str) -> str:
    """An attribute value as written (entities and all) as the browser decodes it:
    what `elements()` yields for it."""
    # A literal `"` (an unquoted value may hold one) decodes as `&quot;` does.
    for token in HTMLTokenizer(f'<x a="{raw.replace(chr(34), "&quot;")}">'):
        data = token.get("data")
        if isinstance(data, dict) and "a" in data:
            return str(data["a"])
    return raw


def _inside(text: str, nested: int) -> Iterator[Element | Reason]:
    if "<" not in text:
        return
    if nested == 1:
        yield Reason.MALFORMED_HTML
    else:
        yield from elements(text, nested=nested - 1)


def review(fragment: str, check: UrlCheck) -> tuple[list[Problem], dict[tuple[str, str], str]]:
    """Find what must change in `fragment`.

    Returns the problems and the URL rewrites (proxy) keyed by (tag, original URL).
    An empty problem list and no rewrites means the fragment may pass unchanged.
    """
    problems: list[Problem] = []
    rewrites: dict[tuple[str, str], str] = {}
    plain = _PLAIN_TAG.fullmatch(fragment)
    if plain and plain.group(1).lower() not in DANGEROUS_TAGS:
        return problems, rewrites  # `<kbd>`, `</b>`, `<br/>`: nothing to judge
    # A fragment that starts as a comment is read inside by the lexical pass.
    depth = NESTED_DEPTH if _STARTS_WITH_TAG.match(fragment) else 0
    for item in elements(fragment, nested=depth):
        if isinstance(item, Reason):
            problems.append(Problem("", None, None, (item,)))
        elif item.tag in DANGEROUS_TAGS or (
            item.tag not in ALLOWED_TAGS and any(map(_dangerous, item.attributes))
        ):
            problems.append(Problem(item.tag, None, None, (Reason.HTML_TAG_NOT_ALLOWED,)))
        elif item.tag in ALLOWED_TAGS and not item.end:
            problems.extend(_attribute_problems(item, check, rewrites))
    return problems, rewrites


def _attribute_problems(
    element: Element, check: UrlCheck, rewrites: dict[tuple[str, str], str]
) -> Iterator[Problem]:
    allowed = ALLOWED_ATTRIBUTES.get(element.tag, NO_ATTRIBUTES)
    for name, value in element.attributes.items():
        if name not in allowed:
            if _dangerous(name):
                yield Problem(element.tag, name, None, (Reason.HTML_ATTRIBUTE_NOT_ALLOWED,))
        elif name in URL_ATTRIBUTES:
            outcome = check(element.tag, name, value)
            if isinstance(outcome, str):
                rewrites[(element.tag, value)] = outcome
            elif outcome:
                yield Problem(element.tag, name, value, outcome)


def _dangerous(attribute: str) -> bool:
    name = attribute.lower()
    return name in DANGEROUS_ATTRIBUTES or name.startswith("on") or ":" in name


def static_reasons(fragment: str) -> tuple[Reason, ...]:
    """Why `fragment` must change whatever its URLs are (its tags and attributes)."""
    problems, _rewrites = review(fragment, lambda *_: ())
    return tuple({r for p in problems for r in p.reasons})
