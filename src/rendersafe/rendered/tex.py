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

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..engine.edits import Edit, Keep
from ..engine.regions import Regions
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
# A URL in a group is a few tokens (`//`, `%` and white space split none of it).
_URL_TOKENS = 8
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
    """The tokens of a TeX text, read once: each `{`'s matching `}`, the next `{`
    after each token, and how many control words (and of them, names a definition
    may not hold) come before each, so that no question below reads a span twice."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = [_Token(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
        self.closing: dict[int, int] = {}  # token index of `{` -> of its `}`
        self.words = [0]  # control words before each token
        self.aliased = [0]  # of them, in `_ALIASED`
        self.ends: list[int] = []  # the indexes of `\endcsname`
        stack: list[int] = []
        for index, token in enumerate(self.tokens):
            if token.text == "{":
                stack.append(index)
            elif token.text == "}" and stack:
                self.closing[stack.pop()] = index
            word = token.word
            self.words.append(self.words[-1] + bool(word))
            self.aliased.append(self.aliased[-1] + (word in _ALIASED))
            if word == "endcsname":
                self.ends.append(index)
        self.next_open = [len(self.tokens)] * (len(self.tokens) + 1)
        for index in range(len(self.tokens) - 1, -1, -1):
            is_open = self.tokens[index].text == "{"
            self.next_open[index] = index if is_open else self.next_open[index + 1]
        self._options: dict[int, int] = {}

    def holds_word(self, first: int, end: int, *, aliased: bool = False) -> bool:
        """Does a control word (one a definition may not name) lie in tokens first..end-1?"""
        counts = self.aliased if aliased else self.words
        return counts[end] > counts[first]

    def index_at(self, offset: int) -> int:
        """The first token that starts at or after `offset`."""
        return bisect.bisect_left(self.tokens, offset, key=lambda t: t.start)

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
        if "]" in self.tokens[index].text[1:]:
            return index + 1
        # Groups are jumped over; what a scan passed is remembered, so options left
        # open many times over are not read again.
        passed, at = [], index + 1
        while at < len(self.tokens) and at not in self._options:
            passed.append(at)
            token = self.tokens[at]
            if token.text == "{" and at in self.closing:
                at = self.closing[at] + 1
            elif "]" in token.text and not token.text.startswith("\\"):
                at = -(at + 1)  # found: the option ends after this token
                break
            else:
                at += 1
        end = self._options.get(at, -at if at < 0 else len(self.tokens))
        for visited in passed:
            self._options[visited] = end
        return end


def tex_cuts(ps: Pass, text: str) -> list[Cut]:
    """What TeX `text` must lose (in time linear in its length)."""
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
    end = _definition_end(reader, index)  # the index after its last token
    if not reader.holds_word(index + 1, end, aliased=True):
        return None
    what = "\\" + reader.tokens[index].word
    stop = reader.tokens[end - 1].end if end > index + 1 else reader.tokens[index].end
    return Cut.remove(reader.tokens[index].start, stop, what, (Reason.RENDERER_DIRECTIVE,))


def _definition_end(reader: _Reader, index: int) -> int:
    """The index after a definition's last token: after its body group, or after the
    tokens a `\\let` reads."""
    word = reader.tokens[index].word
    if word in ("let", "futurelet"):
        return _let_end(reader, index + 1, targets=1 if word == "let" else 2)
    at = reader.next_open[index + 1]  # the name, the parameters, `[n]`: up to the body
    if word not in ("def", "gdef", "edef", "xdef") and at < len(reader.tokens):
        # `\\newcommand{\\name}`: the name is a group; the body is the next one after it.
        close = reader.closing.get(at)
        if close is not None and close - at <= 2:
            at = reader.next_open[close + 1]
    close = reader.closing.get(at)
    return close + 1 if close is not None else len(reader.tokens)


def _let_end(reader: _Reader, at: int, targets: int) -> int:
    """After `\\let`'s name, its optional `=` and its target (or `\\futurelet`'s two)."""
    at = reader.skip(at) + 1  # the name
    at = reader.skip(at)
    if at < len(reader.tokens) and reader.tokens[at].text == "=":
        at = reader.skip(at + 1)
    for _ in range(targets):
        at = reader.skip(at) + 1
    return min(at, len(reader.tokens))


def _csname_cut(reader: _Reader, index: int) -> Cut | None:
    """`\\csname ... \\endcsname` that spells a fetcher, or builds its name from macros."""
    at = bisect.bisect_right(reader.ends, index)
    close = reader.ends[at] if at < len(reader.ends) else len(reader.tokens)
    end = reader.tokens[close].end if close < len(reader.tokens) else len(reader.text)
    if not reader.holds_word(index + 1, close):
        inside = reader.text[reader.tokens[index].end : reader.tokens[close - 1].end]
        if re.sub(r"[^A-Za-z]", "", inside) not in _ALIASED:
            return None
    return Cut.remove(reader.tokens[index].start, end, "\\csname", (Reason.RENDERER_DIRECTIVE,))


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
    inner = reader.index_at(first.inner[0]), reader.index_at(first.inner[1])
    if reader.holds_word(*inner):
        what = f"\\{word} (a macro in its URL)"
        return Cut((Edit(start, end, kept),), what, (Reason.RENDERER_DIRECTIVE,))
    if not first.group:
        return None  # one character: a relative URL of one character
    written = reader.text[first.inner[0] : first.inner[1]]  # no macro: no other fetcher
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
    """Any other group that holds a URL (a few tokens, no macro), judged as a link."""
    taken = Regions()
    for cut in cuts:
        taken.add(cut.start, cut.end)
    for open_index, close_index in reader.closing.items():
        if close_index - open_index > _URL_TOKENS or reader.holds_word(open_index, close_index):
            continue
        start, end = reader.tokens[open_index].end, reader.tokens[close_index].start
        content = reader.text[start:end]
        if not _ONE_URL.fullmatch(content) or (start in taken and taken.end_of(start) >= end):
            continue
        verdict = ps.judge_link(_URL_ESCAPE.sub(r"\1", content).strip())
        if verdict.action == "drop":
            yield Cut.remove(start, end, "URL in a group", verdict.reasons, verdict)
