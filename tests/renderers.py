"""Render Markdown with other people's renderers and list what a browser would fetch.

This is the independent check behind "safe under any renderer": it does not use
rendersafe's URL judge. It renders with markdown-it-py (html + linkify), mistune,
python-markdown (plain and with `extra`), commonmark.py and marko (GFM), tokenises the
HTML as a browser does (html5lib), and reports every URL that would be fetched without
a click (attributes, CSS in `style` attributes and `<style>` elements, a `<meta>`
refresh), and every link.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from html import unescape
from typing import Any
from urllib.parse import unquote

import ada_url
import commonmark
import markdown as pymd
import mistune
from bleach.html5lib_shim import HTMLTokenizer, constants
from markdown_it import MarkdownIt
from marko.ext.gfm import gfm as _marko

CHAT_ORIGIN = "https://chat.example/"
# Attribute values a browser fetches when the page renders (no click needed).
FETCHED = {
    ("img", "src"), ("img", "srcset"), ("img", "lowsrc"), ("source", "src"), ("source", "srcset"),
    ("video", "src"), ("video", "poster"), ("audio", "src"), ("track", "src"),
    ("iframe", "src"), ("frame", "src"), ("embed", "src"), ("object", "data"),
    ("link", "href"), ("script", "src"), ("input", "src"), ("image", "href"),
    ("image", "xlink:href"), ("use", "href"), ("body", "background"), ("table", "background"),
    ("td", "background"), ("th", "background"), ("use", "xlink:href"), ("feimage", "href"),
    ("feimage", "xlink:href"), ("script", "xlink:href"), ("base", "href"), ("meta", "refresh"),
}  # fmt: skip
# Attributes that fetch on any element that has them.
FETCHED_ANYWHERE = frozenset({"src", "srcset", "lowsrc", "dynsrc", "poster", "background"})
LINKS = {("a", "href"), ("area", "href"), ("form", "action"), ("button", "formaction")}
_CSS_URL = re.compile(
    r"url\(\s*['\"]?([^'\")\s]+)|@import\s*['\"]([^'\"]+)|image-set\(\s*['\"]([^'\"]+)",
    re.IGNORECASE,
)
_REFRESH = re.compile(r"^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?['\"]?([^'\"]*)", re.IGNORECASE)
_TYPES = {value: name for name, value in constants.tokenTypes.items()}

_mdit = MarkdownIt("commonmark", {"linkify": True, "html": True}).enable(
    ["linkify", "table", "strikethrough"]
)
_mistune = mistune.create_markdown(
    escape=False, plugins=["url", "table", "strikethrough", "footnotes"]
)


def _python_markdown(text: str) -> str:
    """python-markdown as shipped, except that fenced code needs its extension.

    Without `fenced_code`, python-markdown renders the inside of a ``` fence as
    Markdown. Every chat renderer knows fences, and rendersafe leaves code alone
    (docs/limits.md), so fenced replies are rendered with the extension on.
    """
    fenced = any(t.type == "fence" for t in _mdit.parse(text))
    return str(pymd.markdown(text, extensions=["fenced_code"] if fenced else []))


RENDERERS: dict[str, Callable[[str], str]] = {
    "markdown-it-py": _mdit.render,
    "mistune": lambda text: str(_mistune(text)),
    "python-markdown": _python_markdown,
    "python-markdown+extra": lambda text: pymd.markdown(text, extensions=["extra"]),
    "commonmark.py": commonmark.commonmark,
    "marko": lambda text: str(_marko.convert(text)),
}


@dataclass(frozen=True)
class Url:
    """One URL in rendered HTML."""

    renderer: str
    tag: str
    attribute: str
    value: str

    @property
    def host(self) -> str | None:
        """The host a browser would contact, or None when it would not (or stays on-site)."""
        try:
            url = ada_url.URL(self.value.strip(), base=CHAT_ORIGIN)
        except ValueError:
            return None
        host = str(url.hostname).rstrip(".")
        return None if host == "chat.example" or not host else host

    @property
    def port(self) -> str:
        """The port a browser would contact, "" for the scheme's default."""
        try:
            return str(ada_url.URL(self.value.strip(), base=CHAT_ORIGIN).port)
        except ValueError:
            return ""

    @property
    def decoded(self) -> str:
        """The value with entities and percent-escapes decoded (twice), for data checks."""
        return unquote(unquote(unescape(self.value)))


def urls(html: str, renderer: str) -> Iterator[Url]:
    """Every fetched URL and every link in `html`."""
    return urls_in_tokens(HTMLTokenizer(html), renderer)


def urls_in_tokens(tokens: Iterable[dict[str, Any]], renderer: str) -> Iterator[Url]:
    """Every fetched URL and every link in a page's tokens (html5lib's `HTMLTokenizer`)."""
    style = False
    for token in tokens:
        kind = _TYPES.get(token["type"])
        if kind == "Characters" and style:
            yield from _css_urls(renderer, "style", str(token["data"]))
        if kind == "EndTag" and str(token["name"]).lower() == "style":
            style = False
        if kind not in ("StartTag", "EmptyTag"):
            continue
        tag = str(token["name"]).lower()
        style = style or tag == "style"
        data = token.get("data") or {}
        pairs = [
            (str(n).lower(), str(v)) for n, v in (data.items() if isinstance(data, dict) else data)
        ]
        if tag == "meta" and any(
            n == "http-equiv" and v.strip().lower() == "refresh" for n, v in pairs
        ):
            pairs = [("refresh", v) for n, v in pairs if n == "content"]
        for name, value in pairs:
            yield from _attribute_urls(renderer, tag, name, value)
        yield from _animated_links(renderer, tag, pairs)


# SVG animations that set a link's target (`<animate attributeName=href values=...>`):
# what they animate to is a link the user may click.
_ANIMATIONS = frozenset({"animate", "set"})
_ANIMATED_VALUES = ("values", "to", "from", "by")


def _animated_links(renderer: str, tag: str, pairs: list[tuple[str, str]]) -> Iterator[Url]:
    if tag not in _ANIMATIONS:
        return
    named = dict(pairs)
    if named.get("attributename", "").strip().lower() not in ("href", "xlink:href"):
        return
    for name in _ANIMATED_VALUES:
        for value in named.get(name, "").split(";"):
            if value.strip():
                yield Url(renderer, "a", "href", value.strip())


def _css_urls(renderer: str, tag: str, css: str) -> Iterator[Url]:
    for found in _CSS_URL.findall(css):
        yield Url(renderer, tag, "style", next(f for f in found if f))


def _attribute_urls(renderer: str, tag: str, name: str, value: str) -> Iterator[Url]:
    if name == "style":
        yield from _css_urls(renderer, tag, value)
    elif name == "srcdoc":  # a document of its own, loaded as the frame is
        yield from urls_in_tokens(HTMLTokenizer(value), renderer)
    elif name == "refresh":
        target = _REFRESH.match(value)
        if target is not None and target.group(1).strip():
            yield Url(renderer, tag, name, target.group(1))
    elif (tag, name) in FETCHED or (tag, name) in LINKS or name in FETCHED_ANYWHERE:
        values = (
            [c.split()[0] for c in value.split(",") if c.strip()] if "srcset" in name else [value]
        )
        for item in values:
            yield Url(renderer, tag, name, item)
    elif name in ("href", "xlink:href", "action", "formaction"):
        yield Url(renderer, tag, name, value)


def render_all(text: str) -> Iterator[Url]:
    """Render `text` with every renderer and yield the URLs each one produced."""
    for name, render in RENDERERS.items():
        yield from urls(render(text), name)


def is_fetched(url: Url) -> bool:
    """True when the browser fetches `url` while rendering (as opposed to a link)."""
    return (
        (url.tag, url.attribute) in FETCHED
        or url.attribute in FETCHED_ANYWHERE
        or url.attribute == "style"
    )
