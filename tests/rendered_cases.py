"""The rendered-fence cases as the real renderers receive them, and what counts as a
leak there: shared by tests/test_js_renderers.py (KaTeX) and
tests/test_rendered_fences_live.py (Chromium)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from markdown_it import MarkdownIt

from fixture_files import FIXTURES, Case, read_cases
from renderers import Url
from rendersafe.engine.rendered import info_language
from rendersafe.policy import RENDERED_FENCES

CASES = [case for path in sorted((FIXTURES / "rendered").glob("*.md")) for case in read_cases(path)]
ATTACKER = "evil.example"
ALLOWED_IMAGES = frozenset({"cdn.example.com"})
# Open WebUI's `getCodeBlockContents`: from three backticks to the next three, anywhere.
_OPEN_WEBUI_BLOCK = re.compile(r"```[\s\S]*?```")
# Every fixture host is an example's.
EXAMPLE = re.compile(r"(?:^|\.)example(?:\.com|\.net|\.org)?$")
_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$(.+?)\$", re.DOTALL)


@dataclass(frozen=True, eq=False)
class Rendered:
    """One thing a renderer receives from a case: what it becomes, and its text."""

    case: Case
    kind: str
    text: str
    sanitised: bool


def pieces(case: Case, *, sanitised: bool) -> Iterator[Rendered]:
    """What the renderers receive from a case: each fence as markdown-it reads it, each
    block as Open WebUI's artifact pattern finds it, math in prose."""
    text = case.expected if sanitised else case.input
    fences = [t for t in MarkdownIt("commonmark").parse(text) if t.type == "fence"]
    blocks = [(info_language(t.info), t.content) for t in fences]
    for block in _OPEN_WEBUI_BLOCK.findall(text):
        language = block.split("\n")[0].replace("```", "", 1).strip().lower()
        content = re.sub(r"```[\s\S]*?\n", "", block, count=1).removesuffix("```")
        if (language, content) not in blocks and language in ("html", "css"):
            blocks.append((language, content))
    for language, content in blocks:
        kind = RENDERED_FENCES.get(language)
        if kind is not None:
            yield Rendered(case, kind, content, sanitised)
    if not blocks:
        for match in _MATH.finditer(text):
            math = next(g for g in match.groups() if g is not None)
            yield Rendered(case, "tex", math, sanitised)


def rendered(kind: str) -> list[Rendered]:
    return [
        piece
        for case in CASES
        for sanitised in (True, False)
        for piece in pieces(case, sanitised=sanitised)
        if piece.kind == kind
    ]


def leaks(url: Url) -> list[str]:
    """A fetch off the allowlist, or a link to the attacker or a script."""
    fetched = (url.tag, url.attribute) in _FETCHED or url.attribute == "style"
    host, value = url.host, url.value.strip().lower()
    if fetched and host is not None and host not in ALLOWED_IMAGES:
        return [f"fetches {host}: <{url.tag} {url.attribute}={url.value[:60]!r}>"]
    attacker = host is not None and (host == ATTACKER or host.endswith("." + ATTACKER))
    if attacker or value.startswith(("javascript:", "vbscript:")):
        return [f"links {url.value[:60]!r}"]
    return []


_FETCHED = {("img", "src"), ("image", "href"), ("image", "xlink:href")}


def verdict(found: dict[Rendered, list[str]], *, other_renderers: tuple[str, ...] = ()) -> None:
    """Sanitised: no problem anywhere. As written: every attack case shows one, but
    those whose titles name a construct of another renderer (`other_renderers`)."""
    safe = {p.case.id: problems for p, problems in found.items() if p.sanitised and problems}
    assert safe == {}
    attacks = {
        p.case.id
        for p in found
        if not p.case.benign and not any(word in p.case.title for word in other_renderers)
    }
    leaking = {p.case.id for p, problems in found.items() if not p.sanitised and problems}
    honest = {p.case.id for p in found if p.case.benign}
    assert not leaking & honest
    assert attacks - leaking == set()
