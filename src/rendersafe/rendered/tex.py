"""TeX a math renderer shows (KaTeX, MathJax): the macros that fetch or link.

`\\href{url}{text}` and `\\url{url}` link (KaTeX with `trust`, MathJax by default),
`\\includegraphics[...]{url}` fetches an image, `\\htmlStyle{css}{...}` and MathJax's
`\\style{css}{...}` apply CSS that can fetch, and MathJax's `\\require{...}` loads
code. Each URL is judged as a link or an image; a refused `\\href` keeps its text,
`\\htmlStyle` and `\\style` their content, the others become `{}`. A URL written with a macro
(`\\href{\\u}`, `\\href\\u`) cannot be judged as written: the macro goes. So does any
definition that names one of these (`\\def\\h{\\href}`, `\\let\\h\\href`,
`\\newcommand{\\img}[1]{\\includegraphics{#1}}`) or `\\csname` builds, which would
make another name for it. Any other group that holds a URL is judged as a link.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..engine.edits import Edit, Keep
from ..engine.state import Pass
from ..findings import Reason
from ..urls import Verdict
from .css import css_problem
from .fence import Cut

__all__ = ["tex_cuts"]

_TOKEN = re.compile(r"\\(?:[A-Za-z]+|.)|%[^\n]*|[{}]|\s+|[^\\%{}\s]+", re.DOTALL)
_LINKS = frozenset({"href", "url"})
_IMAGES = frozenset({"includegraphics"})
_STYLES = frozenset({"htmlStyle", "style"})
_LOADERS = frozenset({"require"})
_FETCHERS = _LINKS | _IMAGES | _STYLES | _LOADERS
_DEFINERS = frozenset(
    [
        "def",
        "gdef",
        "edef",
        "xdef",
        "let",
        "futurelet",
        "newcommand",
        "renewcommand",
        "providecommand",
        "DeclareRobustCommand",
    ]
)
# Control words a definition may not name: it would be another name for a fetcher.
_ALIASED = _FETCHERS | _DEFINERS | frozenset({"csname", "expandafter"})
_TAKES_TWO = frozenset({"href", "htmlStyle", "style"})
# TeX's escapes in a URL argument (`\\#` is `#`, `\\%` is `%`).
_URL_ESCAPE = re.compile(r"\\([#$%&_{}~^\\])")
_CONTROL_WORD = re.compile(r"\\[A-Za-z]")
_URLISH = re.compile(r"\s*(?:[A-Za-z][A-Za-z0-9+.\-]*:|[/\\]{2})")
# A group that is one URL and nothing else (white space around it).
_ONE_URL = re.compile(r"\s*(?:[A-Za-z][A-Za-z0-9+.\-]*:|[/\\]{2})\S*\s*")


@dataclass(frozen=True, slots=True)
class _Token:
    start: int
    end: int
    text: str

    @property
    def word(self) -> str:
        """The control word's name ("" for any other token)."""
        return self.text[1:] if self.text[:1] == "\\" and self.text[1:2].isalpha() else ""


@dataclass(frozen=True, slots=True)
class _Arg:
    """An argument: a `{...}` group (`inner` its content) or a single token."""

    start: int
    end: int
    inner: tuple[int, int]
    group: bool


class _Reader:
    """The tokens of a TeX text, with each `{`'s matching `}`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = [_Token(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
        self.closing: dict[int, int] = {}  # token index of `{` -> of its `}`
        stack: list[int] = []
        for index, token in enumerate(self.tokens):
            if token.text == "{":
                stack.append(index)
            elif token.text == "}" and stack:
                self.closing[stack.pop()] = index

    def skip(self, index: int) -> int:
        """The first token from `index` that is not white space or a comment."""
        while index < len(self.tokens) and (
            self.tokens[index].text[:1] == "%" or not self.tokens[index].text.strip()
        ):
            index += 1
        return index

    def argument(self, index: int) -> tuple[_Arg | None, int]:
        """The argument from token `index` on, and the token after it."""
        index = self.skip(index)
        if index >= len(self.tokens) or self.tokens[index].text == "}":
            return None, index
        token = self.tokens[index]
        if token.text == "{":
            close = self.closing.get(index)
            end = self.tokens[close].end if close is not None else len(self.text)
            inner_end = self.tokens[close].start if close is not None else len(self.text)
            after = close + 1 if close is not None else len(self.tokens)
            return _Arg(token.start, end, (token.end, inner_end), group=True), after
        if token.word or len(token.text) <= 2:
            return _Arg(token.start, token.end, (token.start, token.end), group=False), index + 1
        # A run of letters: TeX takes its first character.
        first = token.start + 1
        return _Arg(token.start, first, (token.start, first), group=False), index + 1

    def option(self, index: int) -> int:
        """Past an optional `[...]` argument (brackets in groups do not end it)."""
        index = self.skip(index)
        if index >= len(self.tokens) or not self.tokens[index].text.startswith("["):
            return index
        depth = 0
        for at in range(index, len(self.tokens)):
            text = self.tokens[at].text
            depth += (text == "{") - (text == "}")
            if depth == 0 and "]" in text and not text.startswith("\\"):
                return at + 1
        return len(self.tokens)


def tex_cuts(ps: Pass, text: str) -> list[Cut]:
    """What TeX `text` must lose."""
    if "\\" not in text and "{" not in text:
        return []
    reader = _Reader(text)
    cuts = list(_macro_cuts(ps, reader))
    cuts.extend(_group_cuts(ps, reader, cuts))
    return cuts


def _macro_cuts(ps: Pass, reader: _Reader) -> Iterator[Cut]:
    removed_to = 0
    for index, token in enumerate(reader.tokens):
        if token.start < removed_to:
            continue
        word = token.word
        cut = None
        if word in _DEFINERS:
            cut = _definition_cut(reader, index)
        elif word == "csname":
            cut = _csname_cut(reader, index)
        elif word in _FETCHERS:
            cut = _fetcher_cut(ps, reader, index)
        if cut is not None:
            if not any(isinstance(p, Keep) for e in cut.edits for p in e.parts):
                removed_to = cut.end
            yield cut


def _definition_cut(reader: _Reader, index: int) -> Cut | None:
    """A definition that names a fetcher (or builds a name) goes whole."""
    end = _definition_end(reader, index)
    body = reader.text[reader.tokens[index].end : end]
    named = {m.group()[1:] for m in re.finditer(r"\\[A-Za-z]+", body)}
    if not named & _ALIASED:
        return None
    what = "\\" + reader.tokens[index].word
    return Cut.remove(reader.tokens[index].start, end, what, (Reason.RENDERER_DIRECTIVE,))


def _definition_end(reader: _Reader, index: int) -> int:
    """Where a definition from token `index` ends: after its body group, or after
    the tokens a `\\let` reads."""
    word = reader.tokens[index].word
    if word in ("let", "futurelet"):
        return _let_end(reader, index + 1, targets=1 if word == "let" else 2)
    at = index + 1
    while at < len(reader.tokens) and reader.tokens[at].text != "{":
        at += 1  # the name, the parameters, `[n]`: up to the body
    if word not in ("def", "gdef", "edef", "xdef") and at < len(reader.tokens):
        # `\\newcommand{\\name}`: the name is a group; the body is the next one after it.
        close = reader.closing.get(at)
        if close is not None and close - at <= 2:
            at = close + 1
            while at < len(reader.tokens) and reader.tokens[at].text != "{":
                at += 1
    close = reader.closing.get(at)
    return reader.tokens[close].end if close is not None else len(reader.text)


def _let_end(reader: _Reader, at: int, targets: int) -> int:
    """After `\\let`'s name, its optional `=` and its target (or `\\futurelet`'s two)."""
    at = reader.skip(at) + 1  # the name
    at = reader.skip(at)
    if at < len(reader.tokens) and reader.tokens[at].text == "=":
        at = reader.skip(at + 1)
    for _ in range(targets):
        at = reader.skip(at) + 1
    last = min(at, len(reader.tokens)) - 1
    return reader.tokens[last].end if last >= 0 else len(reader.text)


def _csname_cut(reader: _Reader, index: int) -> Cut | None:
    start = reader.tokens[index].start
    end = len(reader.text)
    for token in reader.tokens[index + 1 :]:
        if token.word == "endcsname":
            end = token.end
            break
    inside = reader.text[reader.tokens[index].end : end].removesuffix("\\endcsname")
    letters = re.sub(r"[^A-Za-z]", "", inside)
    if letters not in _ALIASED and not _CONTROL_WORD.search(inside):
        return None
    return Cut.remove(start, end, "\\csname", (Reason.RENDERER_DIRECTIVE,))


def _fetcher_cut(ps: Pass, reader: _Reader, index: int) -> Cut | None:
    word = reader.tokens[index].word
    at = reader.option(index + 1) if word in _IMAGES else index + 1
    first, at = reader.argument(at)
    if first is None:
        return None
    second = reader.argument(at)[0] if word in _TAKES_TWO else None
    start, end = reader.tokens[index].start, (second or first).end
    # A refused link keeps its text; what goes is left as an empty group, so that the
    # TeX around it (`$...$`, a `\\frac` argument) reads as before.
    kept = (Keep(second.start, second.end),) if second is not None else ("{}",)
    written = reader.text[first.inner[0] : first.inner[1]]
    if not first.group and not _CONTROL_WORD.match(written):
        return None  # one character: a relative URL of one character
    if _CONTROL_WORD.search(written):
        what = f"\\{word} (a macro in its URL)"
        return Cut((Edit(start, end, kept),), what, (Reason.RENDERER_DIRECTIVE,))
    return _judged(ps, word, _URL_ESCAPE.sub(r"\1", written), Edit(start, end, kept))


def _judged(ps: Pass, word: str, url: str, edit: Edit) -> Cut | None:
    """The cut `edit` makes when the URL a fetcher's argument holds is refused."""
    if word in _LOADERS:
        if not _URLISH.match(url):
            return None  # `\\require{mhchem}`: an extension by name
        return Cut(
            (Edit(edit.start, edit.end, ("{}",)),), f"\\{word}", (Reason.RENDERER_DIRECTIVE,)
        )
    verdict = _verdict(ps, word, url)
    if verdict is None or verdict.action == "keep":
        return None
    reasons = verdict.reasons or (Reason.IMAGE_HOST_NOT_ALLOWED,)
    return Cut((edit,), f"\\{word}", reasons, verdict)


def _verdict(ps: Pass, word: str, url: str) -> Verdict | None:
    if word in _LINKS:
        return ps.judge_link(url)
    if word in _IMAGES:
        return ps.spend_image(url)
    return css_problem(url, ps.spend_image)  # `\\htmlStyle`, `\\style`


def _group_cuts(ps: Pass, reader: _Reader, cuts: list[Cut]) -> Iterator[Cut]:
    """Any other group that holds a URL, judged as a link."""
    taken = [(cut.start, cut.end) for cut in cuts]
    for open_index, close_index in reader.closing.items():
        start, end = reader.tokens[open_index].end, reader.tokens[close_index].start
        content = reader.text[start:end]
        if not _ONE_URL.fullmatch(content) or _CONTROL_WORD.search(content):
            continue
        if any(a <= start and end <= b for a, b in taken):
            continue
        verdict = ps.judge_link(_URL_ESCAPE.sub(r"\1", content).strip())
        if verdict.action == "drop":
            yield Cut.remove(start, end, "URL in a group", verdict.reasons, verdict)
