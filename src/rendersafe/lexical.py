"""The lexical backstop: what *another* renderer could read as an image or a link.

markdown-it-py is one reading of the reply. python-markdown takes `![a](x y.png)`
as an image, GFM links any `www.` host, marked leaves `&#104;ttp` for the browser
to decode, a "self-healing" streaming renderer closes `![a](https://e` for you.
This pass reads the text leniently, outside code, and judges every URL that any
of them could fetch or link: bracket constructs, reference definitions and their
uses, tag-like text with URL attributes, and bare URLs. What the Markdown pass
already removed is skipped; what it kept is judged again under these readings.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .context import Pass, Regions
from .edits import Edit, Keep
from .findings import Action, Construct, Reason
from .labels import label_keys
from .urls import INVISIBLE, Role, Verdict

__all__ = ["Bracket", "backstop", "scan_brackets"]

# Far enough for any real destination; bounds the work per candidate.
WINDOW = 4096
_BRACKET = re.compile(r"\\.|[\[\]]", re.DOTALL)
_READING_A = re.compile(r"(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*")
_REMOTE = re.compile(r"\s*(?:[a-zA-Z][\w+.-]*:|[/\\]{2})")
_PAREN = re.compile(r"\\.|[()]")
_TITLE = re.compile(r"""\s+["'(]""")
_DEFINITION = re.compile(
    r"^(?>[ \t>]*)(?:(?:[*+-]|\d{1,9}[.)])[ \t]+(?>[ \t>]*))?(?:\[\^[^\]\n]*\]:[ \t]*)?"
    r"\[((?:\\.|[^\\\[\]\n]){0,999})\]:(?>[ \t]*)(?:\n(?>[ \t>]*))?(<[^>\n]*>?|\S+)",
    re.MULTILINE,
)
_TAG_START = re.compile(r"<[a-zA-Z]")
TAG_WINDOW = 1024
_TAG = re.compile(
    r"""<[a-zA-Z][\w:-]*(?:[\s/]+[^\s=>/"']+(?:\s*=\s*(?:"[^"]*"?|'[^']*'?|[^\s>]*))?)*""",
)
_URL_ATTRIBUTE = re.compile(
    r"""(?<![\w-])(src|href|srcset|poster|background|action|formaction|data|lowsrc|dynsrc"""
    r"""|xlink:href|ping|cite|style)\s*=\s*("[^"]*"?|'[^']*'?|[^\s>]*)""",
    re.IGNORECASE,
)
_LINK_ATTRIBUTES = frozenset({"href", "action", "formaction", "ping", "cite", "xlink:href"})
_CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]*)|@import\s+["']([^"']*)""", re.IGNORECASE)
# Bare URLs as the most generous renderer reads them: marked links `https://` even
# inside a word, remark links `www.` after any punctuation, linkify-it links a bare
# `domain.tld/path`. Each pattern runs from where its anchor says the URL starts.
_URL_TAIL = r"[^\s<>]*"
_SCHEME_URL = re.compile(r"(?:https?|ftp)://" + _URL_TAIL, re.IGNORECASE)
_WWW_URL = re.compile(r"www\." + _URL_TAIL, re.IGNORECASE)
_DOMAIN_URL = re.compile(
    r"(?:[^\W_](?:[\w-]{0,61}[^\W_])?\.)+[^\W\d_][\w-]{0,61}[^\W_](?=[/?#:])" + _URL_TAIL
)
_EMAIL = re.compile(
    r"[a-z0-9._+-]+@(?:[a-z0-9-]+\.)+[a-z]{2,24}\b(?:[/?#]" + _URL_TAIL + ")?", re.IGNORECASE
)
_SCHEME_BEFORE = re.compile(r"(?:https?|ftp)\Z", re.IGNORECASE)
_BARE_ANCHOR = re.compile(r"://|www\.|@|\.[^\W\d_][\w-]{0,62}[/?#:]", re.IGNORECASE)
_LOCAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+")
_BETWEEN_LABELS = re.compile(r"[ \t]*\n?[ \t]*")
_TRAILING = ".,:;!?*_~'\""
_HARMLESS = frozenset({Reason.RELATIVE_IMAGE, Reason.UNPARSEABLE_URL})


@dataclass(frozen=True, slots=True)
class Bracket:
    """A `[...]` pair outside code; `bang` is the `!` of an image, else -1."""

    open: int
    close: int
    bang: int

    @property
    def anchor(self) -> int:
        """Where the construct starts."""
        return self.bang if self.bang >= 0 else self.open


def scan_brackets(ps: Pass) -> list[Bracket]:
    """Pair up brackets outside code, and index the first image-style use of each label."""
    text = ps.source.text
    inside_code = _cursor(ps.code)
    stack: list[int] = []
    pairs: list[Bracket] = []
    for match in _BRACKET.finditer(text):
        pos = match.start()
        if match.end() - pos == 2 or inside_code(pos):
            continue
        if text[pos] == "[":
            stack.append(pos)
        elif stack:
            start = stack.pop()
            pairs.append(Bracket(start, pos, _bang(text, start)))
    pairs.sort(key=lambda b: b.open)
    for bracket in pairs:
        if bracket.bang >= 0:
            for key in _usage(text, bracket, pairs)[0]:
                ps.image_uses.setdefault(key, bracket.bang)
    return pairs


def _cursor(regions: Regions) -> Callable[[int], bool]:
    """Membership for offsets asked in increasing order, in amortised O(1)."""
    spans = sorted(regions)
    state = [0]

    def inside(pos: int) -> bool:
        i = state[0]
        while i < len(spans) and spans[i][1] <= pos:
            i += 1
        state[0] = i
        return i < len(spans) and spans[i][0] <= pos

    return inside


def _bang(text: str, open_pos: int) -> int:
    pos = open_pos - 1
    while pos >= 0 and INVISIBLE.match(text, pos):
        pos -= 1
    if pos < 0 or text[pos] != "!":
        return -1
    slashes = 0
    while pos - slashes - 1 >= 0 and text[pos - slashes - 1] == "\\":
        slashes += 1
    return pos if slashes % 2 == 0 else -1


def _usage(text: str, bracket: Bracket, pairs: list[Bracket]) -> tuple[frozenset[str], int]:
    """The labels a reference use `[a]`, `[a][]` or `[a][b]` may resolve to, and its end.

    python-markdown allows a space or a newline between the two labels, and falls
    back to the first label when the second is undefined: both are candidates.
    """
    keys = label_keys(text[bracket.open + 1 : bracket.close])
    end = bracket.close + 1
    gap = _BETWEEN_LABELS.match(text, end)
    after = gap.end() if gap else end
    if text.startswith("[", after):
        second = _pair_at(pairs, after)
        if second is not None:
            keys |= label_keys(text[after + 1 : second.close])
            end = second.close + 1
    return keys, end


def _pair_at(pairs: list[Bracket], open_pos: int) -> Bracket | None:
    lo, hi = 0, len(pairs)
    while lo < hi:
        mid = (lo + hi) // 2
        if pairs[mid].open < open_pos:
            lo = mid + 1
        else:
            hi = mid
    return pairs[lo] if lo < len(pairs) and pairs[lo].open == open_pos else None


def backstop(ps: Pass, pairs: list[Bracket]) -> None:
    """Judge every lenient reading the Markdown pass did not already remove."""
    _references(ps, pairs, ps.ast_definitions)
    for bracket in pairs:
        if ps.source.text.startswith("(", bracket.close + 1):
            _inline_construct(ps, bracket)
    _tags(ps)
    _bare_urls(ps)


# -- bracket constructs ---------------------------------------------------------------


def _inline_construct(ps: Pass, bracket: Bracket) -> None:
    if bracket.anchor in ps.claimed:
        return
    readings, end = _destinations(ps.source.text, bracket.close + 2)
    image = bracket.bang >= 0
    verdict = _worst(ps, readings, Role.IMAGE if image else Role.LINK)
    if verdict is not None:
        _neutralise(ps, bracket, end, verdict, reference=False)


def _neutralise(ps: Pass, bracket: Bracket, end: int, verdict: Verdict, *, reference: bool) -> None:
    """Replace a bracket construct ending at `end`: an image by its alt text and the
    marker, a link by its text."""
    label = Keep(bracket.open + 1, bracket.close)
    if bracket.bang >= 0:
        edit = Edit(bracket.bang, end, ps.image_parts(label))
        construct = Construct.REFERENCE_IMAGE if reference else Construct.IMAGE
        action = Action.REMOVED
    else:
        edit = Edit(bracket.open, end, ps.link_parts(label))
        construct = Construct.REFERENCE_LINK if reference else Construct.LINK
        action = Action.UNLINKED
    ps.change(edit, construct, action, verdict.reasons, verdict=verdict, detector="lexical")


def _destinations(text: str, pos: int) -> tuple[list[str], int]:
    """Readings of the destination after `(` at `pos - 1`, and where the construct ends."""
    limit = min(len(text), pos + WINDOW)
    line_end = text.find("\n", pos, limit)
    line_end = limit if line_end < 0 else line_end
    start = pos
    while start < line_end and text[start] in " \t":
        start += 1
    if start == line_end and line_end < limit:  # destination on the next line
        start = line_end + 1
        while start < limit and text[start] in " \t>":
            start += 1
        line_end = text.find("\n", start, limit)
        line_end = limit if line_end < 0 else line_end
    if text.startswith("<", start):
        close = text.find(">", start + 1, line_end)
        paren = text.find(")", max(close, start), line_end)
        readings = [
            text[start + 1 : close if close >= 0 else line_end],
            text[start : paren if paren >= 0 else line_end],  # python-markdown keeps the <>
        ]
        return readings, paren + 1 if paren >= 0 else line_end
    match = _READING_A.match(text, start, line_end)
    first = match.group() if match else ""
    paren = _closing_paren(text, start, line_end)
    if paren < 0:  # unclosed: only a remote URL a self-healing renderer would close
        remote = _REMOTE.match(html.unescape(first))
        return [first] if remote else [], start + len(first)
    title = _TITLE.search(text, start, paren)
    second = text[start : title.start() if title else paren].strip()
    return [r for r in dict.fromkeys((first, second)) if r], paren + 1


def _closing_paren(text: str, start: int, end: int) -> int:
    """The first `)` in text[start:end] that closes the construct (parens balance)."""
    first = text.find(")", start, end)
    if first < 0 or "(" not in text[start:first]:
        return first
    depth = 0
    for match in _PAREN.finditer(text, start, end):
        if len(match.group()) == 2:
            continue
        if match.group() == "(":
            depth += 1
        elif depth == 0:
            return match.start()
        else:
            depth -= 1
    return text.find(")", start, end)


def _judge(ps: Pass, raw: str, role: Role) -> Verdict | None:
    """The verdict on a lenient reading, or None when it may stay.

    A URL no browser can parse fetches nothing, and a relative image only reaches
    the chat's own origin: in a reading markdown-it does not share, neither alone
    is a reason to change the text.
    """
    verdict = ps.judge.judge(raw, role, decode_entities=True)
    if verdict.action != "drop" or set(verdict.reasons) <= _HARMLESS:
        return None
    return verdict


def _worst(ps: Pass, readings: list[str], role: Role) -> Verdict | None:
    """The first reading that must go."""
    for reading in readings:
        verdict = _judge(ps, reading, role)
        if verdict is not None:
            return verdict
    return None


# -- reference definitions and their uses ---------------------------------------------


@dataclass(frozen=True, slots=True)
class _Definition:
    pos: int
    keys: frozenset[str]
    image_bad: Verdict | None
    link_bad: Verdict | None


def _references(ps: Pass, pairs: list[Bracket], ast_definitions: set[int]) -> None:
    definitions = list(_definitions(ps, ast_definitions))
    active: dict[str, list[_Definition]] = {}
    index = 0
    text = ps.source.text
    for bracket in pairs:
        while index < len(definitions) and definitions[index].pos < bracket.open:
            for key in definitions[index].keys:
                active.setdefault(key, []).append(definitions[index])
            index += 1
        if not active or text.startswith(":", bracket.close + 1) or bracket.anchor in ps.claimed:
            continue
        keys, end = _usage(text, bracket, pairs)
        found = [d for key in keys for d in active.get(key, ())]
        if found:
            _use(ps, bracket, end, found)


def _definitions(ps: Pass, ast_definitions: set[int]) -> Iterator[_Definition]:
    text = ps.source.text
    for match in _DEFINITION.finditer(text):
        pos = match.start(1) - 1
        url = match.group(2).strip("<>")
        keys = label_keys(match.group(1))
        image_bad = _judge(ps, url, Role.IMAGE)
        link_bad = _judge(ps, url, Role.LINK)
        if pos in ast_definitions or pos in ps.claimed:
            if pos not in ps.claimed:  # the Markdown pass kept it
                yield _Definition(pos, keys, image_bad, link_bad)
            continue
        if pos in ps.code:
            yield _Definition(pos, keys, image_bad, link_bad)  # inert here, not for every renderer
            continue
        used_before = any(ps.image_uses.get(k, pos) < pos for k in keys)
        bad = link_bad or (image_bad if used_before else None)
        if bad is None:
            yield _Definition(pos, keys, image_bad, link_bad)
            continue
        end = text.find("\n", match.end())
        edit = Edit(pos, len(text) if end < 0 else end, ())
        ps.change(edit, Construct.REFERENCE_DEFINITION, Action.REMOVED, bad.reasons,
                  verdict=bad, detector="lexical")  # fmt: skip


def _use(ps: Pass, bracket: Bracket, end: int, found: list[_Definition]) -> None:
    image = bracket.bang >= 0
    bad = next((d.image_bad if image else d.link_bad for d in found
                if (d.image_bad if image else d.link_bad)), None)  # fmt: skip
    if bad is not None:
        _neutralise(ps, bracket, end, bad, reference=True)


# -- tag-like text and bare URLs ------------------------------------------------------


def _tags(ps: Pass) -> None:
    text = ps.source.text
    for start in _TAG_START.finditer(text):
        pos = start.start()
        if pos in ps.code or pos in ps.html or pos in ps.claimed:
            continue
        match = _TAG.match(text, pos, pos + TAG_WINDOW)
        if match is None:
            continue
        verdict = _tag_verdict(ps, match.group())
        if verdict is not None:
            edit = Edit(pos, pos + 1, ("&lt;",))
            ps.change(edit, Construct.HTML, Action.NEUTRALISED, verdict.reasons,
                      verdict=verdict, detail=match.group()[1:20], detector="lexical")  # fmt: skip


def _tag_verdict(ps: Pass, tag: str) -> Verdict | None:
    for match in _URL_ATTRIBUTE.finditer(tag):
        name = match.group(1).lower()
        value = match.group(2).strip("\"'")
        role = Role.LINK if name in _LINK_ATTRIBUTES else Role.IMAGE
        for url in _attribute_urls(name, value):
            verdict = _judge(ps, url, role)
            if verdict is not None:
                return verdict
    return None


def _attribute_urls(name: str, value: str) -> list[str]:
    if name == "srcset":
        return [c.split()[0] for c in value.split(",") if c.strip()]
    if name == "style":
        return [a or b for a, b in _CSS_URL.findall(value)]
    return [value]


def _bare_urls(ps: Pass) -> None:
    text = ps.source.text
    pos = 0
    for anchor in _BARE_ANCHOR.finditer(text):
        if anchor.start() < pos:
            continue  # inside the previous URL
        match = _bare_match(text, anchor)
        if match is None:
            continue
        # We edit a bare URL up to `](` (what follows is a destination, judged on its
        # own), but judge it whole too: mistune links all of it, backticks included.
        whole = _trim(match.group())
        url = _trim(whole.split("](", 1)[0])
        pos = match.start() + max(len(url), 1)
        if url:
            _bare_url(ps, match.start(), url, whole)


def _bare_match(text: str, anchor: re.Match[str]) -> re.Match[str] | None:
    """The bare URL around `anchor`, read from where that kind of URL starts."""
    mark, at, limit = anchor.group(), anchor.start(), anchor.end() + WINDOW
    if mark == "://":
        scheme = _SCHEME_BEFORE.search(text, max(at - 5, 0), at)
        return _SCHEME_URL.match(text, scheme.start(), limit) if scheme else None
    if mark.lower() == "www.":
        return _WWW_URL.match(text, at, limit)
    start = at
    while start > 0 and _part_of_host(text[start - 1], email=mark == "@"):
        start -= 1
    while start < at and text[start] in ".-":
        start += 1
    return (_EMAIL if mark == "@" else _DOMAIN_URL).match(text, start, limit)


def _part_of_host(char: str, *, email: bool) -> bool:
    if email:
        return char in _LOCAL_CHARS  # GFM: ASCII local parts only
    return char.isalnum() or char in ".-"  # internationalised domains too


def _bare_url(ps: Pass, start: int, url: str, whole: str) -> None:
    if start in ps.code or start in ps.claimed:
        return
    verdict = _judge(ps, _absolute(url), Role.LINK)
    if verdict is None and whole != url:
        verdict = _judge(ps, _absolute(whole), Role.LINK)
    if verdict is not None:
        edit = Edit(start, start + len(url), ps.link_parts(None))
        ps.change(edit, Construct.BARE_URL, Action.REMOVED, verdict.reasons,
                  verdict=verdict, detector="lexical")  # fmt: skip


def _absolute(url: str) -> str:
    if "://" in url[:16]:
        return url
    if "@" in url and "/" not in url:
        return "mailto:" + url
    return "http://" + url


def _trim(url: str) -> str:
    """GFM's rule: trailing punctuation and unbalanced closing parens are not the URL."""
    while url:
        last = url[-1]
        unbalanced = {")": "(", "]": "["}.get(last)
        if last in _TRAILING or (unbalanced and url.count(last) > url.count(unbalanced)):
            url = url[:-1]
        else:
            break
    return url
