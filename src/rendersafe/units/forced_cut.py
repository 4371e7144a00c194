"""What a forced cut leaves open: openers no later text may complete, a split word."""

from __future__ import annotations

import re

from ..engine.attributes import FENCE_OPENING
from ..engine.edits import Edit
from ..engine.regions import Regions
from ..engine.rendered import TEX_HOLDERS
from ..engine.state import Pass
from ..engine.triggers import (
    URLISH,
    first_opener,
    line_end_after,
    listed_name,
    may_set_attribute,
)
from ..findings import Action, Construct, Reason
from ..guard.constructs import sets_attribute
from ..lexical import BracketIndex, open_openers
from ..urls import INVISIBLE

__all__ = ["close_after_cut", "close_openers"]

_CUT = (Reason.HOLD_LIMIT,)
# The last `]` or `<` before the cut, past white space; a `]` before a destination the
# cut leaves open (`](javas` ... `cript:x)`, `](\rhttps:/`, `](<u`, `](u "a title`), or
# a definition's `]:` whose destination is still to come.
_TAIL = re.compile(
    r"""(?:(\])(?:\s*\(\s*(?:<[^<>\n]*|[^\s()]*)(?:\s+(?:"[^"]*|'[^']*|\([^)]*))?|:)"""
    r"|([\]<]))(\s*)\Z"
)
# The start of a URL a split word ends in, the rest to come after the cut (`https:/`,
# `www`, a host `evil.co`): the URL it completes is read whole by renderers.
_URL_HEAD = re.compile(
    r"(?:[a-z][a-z0-9+.-]*:/{0,2}|(?<![\w.])w{1,3}|\.[^\W\d_][\w-]{0,62})\Z", re.IGNORECASE
)
_LEADING_BRACKET = re.compile(INVISIBLE.pattern + r"*\[")
_CLOSE_BRACE = re.compile(r"\}")
_BLANK_LINE = re.compile(r"(?:\r\n?|\n)[ \t]*(?:\r\n?|\n)")
_MOST_TAIL = 4096  # a destination run longer than this is a word the cut split
_FENCE_RUN = re.compile(r"`{3,}|~{3,}")  # may open a rendered fence, language to come
# A TeX macro that fetches, its arguments not all there at the end of the text: white
# space, optional `[...]`, a `{` group begun and not closed (one level of groups inside);
# or any control word at the very end, which may be one cut short.
_OPEN_MACRO = re.compile(
    rf"\\(?:{'|'.join(TEX_HOLDERS)})(?![A-Za-z])\s*(?:\[[^\]]*\]?\s*)*"
    r"(?:\{(?:[^{}]|\{[^{}]*\})*(?:\{[^{}]*)?)?\Z"
    r"|\\[A-Za-z]+\Z"  # a control word the cut splits (`\includegraph` | `ics{...}`)
)
# A fence's opening run at the end of the text with only white space and a word begun
# after it: backticks anywhere (a pattern-reading UI pairs them), tildes at a line's
# start.
_OPEN_INFO = re.compile(r"(?:(?:(?<=[\n\r])|\A)[ \t>]*(~{3,})|(?<!`)(`{3,}))[ \t]*[^\s`~]*\Z")


def close_openers(ps: Pass, code: Regions, index: BracketIndex, prefix: int) -> None:
    """A forced cut leaves constructs open: escape their openers, so that no text
    after the cut can complete them. A URL the cut splits (no space in the last half
    of the unit) is removed whole: neither half can be judged alone."""
    text = ps.source.text
    word = max(*map(text.rfind, " \t\n\r"), prefix - 1) + 1
    # A stream sends a word up to an opener in it (`xx[a]@b`, `xx```@`: a rendered
    # fence's opening run holds even before its language is known): that stays.
    stop = _first_stop(text, word, ps.rules.rendered.hold)
    if stop >= 0 and URLISH.search(text, word, stop) is None:
        word = stop
    if word == len(text) or not (URLISH.search(text, word) or _URL_HEAD.search(text, word)):
        word = len(text)  # the cut fell between words, or inside something not a URL
    else:
        edit = Edit(word, len(text), (ps.markers.link,))
        detail = "word split by a forced cut"
        ps.change(edit, Construct.BARE_URL, Action.REMOVED, _CUT, detail=detail, detector="lexical")
    _close_info(ps, prefix)
    _close_macro(ps, prefix)
    escapes: dict[tuple[str, bool], list[Edit]] = {}
    for pos, kind in [*open_openers(text, code, index), *_at_the_cut(text, code, word)]:
        if pos in ps.claimed or pos >= word:
            continue
        replacement = "&lt;" if kind == "<" else "\\" + kind
        escapes.setdefault((kind, pos >= prefix), []).append(Edit(pos, pos + 1, (replacement,)))
    # One finding per kind of opener (and per side of the prefix, which the unit
    # before judged): a flood of `[` is one line in the audit log.
    for (kind, _after_prefix), edits in escapes.items():
        construct = Construct.HTML if kind == "<" else Construct.LINK
        count = f"{len(edits)} " if len(edits) > 1 else ""
        detail = f"{count}open {kind!r} at a forced cut"
        ps.change_all(edits, construct, Action.NEUTRALISED, _CUT, detail=detail, detector="lexical")


def _at_the_cut(text: str, code: Regions, word: int) -> list[tuple[int, str]]:
    """What the text after the cut may complete with what ends the text before it: a
    `]` (a link's or a reference's end, with `(`, `[` or `:` after; python-markdown
    allows white space between), also when a destination has opened after it, and a
    `<` (a tag's or an autolink's start). A stream holds this text from its `[` or `<`
    on; an `!` at the end it sent, and the next unit closes it (`close_after_cut`).
    Inside a fence too: python-markdown reads a fence not closed yet (all a stream has
    sent) as a paragraph. The segmenter cuts where no such tail is (`_clean_cut`)
    when it can, so code rarely shows the escape."""
    found = _TAIL.search(text, max(0, word - _MOST_TAIL))
    if found is None or found.start() in code or _blank_line_in(found.group(3)):
        return []
    if _escaped(text, found.start()):
        return []  # an escaped `]` (a marker's `\]`) ends nothing
    return [(found.start(), found.group(1) or found.group(2))]


def _close_info(ps: Pass, prefix: int) -> None:
    """A fence's opening line the cut splits, its language still to come (a run, white
    space, maybe a word begun): with fences the policy renders, it is shown as code,
    `text` its first word whatever follows after the cut. A stream holds such a run."""
    text = ps.source.text
    if not ps.rules.rendered.kinds or ("```" not in text and "~~~" not in text):
        return
    line = max(text.rfind("\n"), text.rfind("\r")) + 1
    found = _OPEN_INFO.search(text, max(line, prefix))
    at = -1 if found is None else found.end(1) if found.group(1) else found.end(2)
    if at < 0 or at in ps.claimed:
        return
    detail = "a fence's opening line split by a forced cut, shown as code"
    edit = Edit(at, at, ("text",))
    ps.change(
        edit, Construct.RENDERED_FENCE, Action.NEUTRALISED, _CUT, detail=detail, detector="lexical"
    )


def _close_macro(ps: Pass, prefix: int) -> None:
    """A TeX macro that fetches or names one (`TEX_HOLDERS`) whose argument the cut
    leaves to come (`\\href` | `{javascript:...}`, `\\url{https://e` | `vil...}`): with
    math in prose rendered, it goes to the cut. Neither piece holds the macro and its
    argument, so neither is judged as the renderer reads them; a stream holds the text
    from such a macro on (`RenderedFences.hold`)."""
    text = ps.source.text
    if not ps.rules.rendered.prose_math or "\\" not in text:
        return
    found = _OPEN_MACRO.search(text, prefix)
    if found is None or any(at in ps.claimed for at in range(found.start(), len(text))):
        return
    detail = "a TeX macro whose argument a forced cut split"
    edit = Edit(found.start(), len(text), ())
    ps.change(
        edit, Construct.RENDERED_FENCE, Action.REMOVED, _CUT, detail=detail, detector="lexical"
    )


def _blank_line_in(space: str) -> bool:
    """Does this white space after a `]` or `<` hold a blank line, which ends every
    construct before it (a paragraph's end), whatever text follows?"""
    return _BLANK_LINE.search(space) is not None


def _first_stop(text: str, start: int, hold: re.Pattern[str] | None) -> int:
    """Where a stream first stops sending in text[start:] (-1: nowhere): an opener, or
    with rendered fences a run that may open one (its language still to come)."""
    found = [first_opener(text, start)]
    if hold is not None:
        run = _FENCE_RUN.search(text, start)
        held = hold.search(text, start)
        found += [m.start() for m in (run, held) if m is not None]
    return min((at for at in found if at >= 0), default=-1)


def _escaped(text: str, at: int) -> bool:
    """Is the character at `at` backslash-escaped (an odd run of backslashes before)?"""
    run = at
    while run > 0 and text[run - 1] == "\\":
        run -= 1
    return (at - run) % 2 == 1


def close_after_cut(ps: Pass, code: Regions, start: int) -> None:
    """The unit before ended, at a forced cut, in an image's `!` a stream sent already
    (`Carry.cut_tail`): a `[` starting this text (after invisibles) is escaped, so
    that the two do not make an image's opener; or inside an attribute list's `{`:
    each `}` on this text's first line is written `&#125;`, so that none closes it
    (python-markdown's fenced_code reads a fence's before any escape). The text starts
    at `start` of the pass's (a prefix before it)."""
    if ps.carry.in_list:
        _close_brace_after_cut(ps, code, start)
    if ps.carry.cut_fence:
        _close_fence_list_after_cut(ps, start)
    found = _LEADING_BRACKET.match(ps.source.text, start) if "!" in ps.carry.cut_tail else None
    if found is None or found.end() - 1 in code or found.end() - 1 in ps.claimed:
        return
    detail = "'[' after an '!' before a forced cut"
    edit = Edit(found.end() - 1, found.end(), ("\\[",))
    ps.change(edit, Construct.IMAGE, Action.NEUTRALISED, _CUT, detail=detail, detector="lexical")


def _close_brace_after_cut(ps: Pass, code: Regions, start: int) -> None:
    text = ps.source.text
    end = line_end_after(text, start, len(text))
    if not _list_reads_handler(ps, text, start, end):
        return
    # A fence's list is read before any escape (a `\}` is a `}`); any other list's,
    # after them: a `\}` is no `}` to it, and stays as written.
    fence = "`" in ps.carry.cut_tail
    edits = [
        Edit(pos, pos + 1, ("&#125;",))
        for pos in (m.start() for m in _CLOSE_BRACE.finditer(text, start, end))
        if pos not in code and pos not in ps.claimed and (fence or not _escaped(text, pos))
    ]
    if edits:
        detail = "'}' after an attribute list's '{' before a forced cut"
        ps.change_all(
            edits, Construct.HTML, Action.NEUTRALISED, _CUT, detail=detail, detector="lexical"
        )


def _close_fence_list_after_cut(ps: Pass, start: int) -> None:
    """The unit before ended inside a fence's opening line, its run and blanks alone
    (`Carry.cut_fence`): a `{` this text's first line starts with opens the fence's
    attribute list, which fenced_code reads before any escape, to a `}` that ends the
    line. When it may set a handler or a URL, that `}` is written `&#125;` (escaped or
    not): a stream holds before it, at the list's `{` or at such a name (an opener)."""
    text = ps.source.text
    end = line_end_after(text, start, len(text))
    run = ps.carry.cut_fence
    opened = FENCE_OPENING.match(run + text[start:end])
    brace = start + opened.end() - len(run) if opened is not None else end
    if brace >= end or text[brace] != "{":
        return
    last = text.rfind("}", brace, end)
    if last < 0 or last in ps.claimed:
        return  # (a list this line does not close: the unit after reads it, `cut_tail`)
    listed = text[brace:last]
    if listed_name(listed, 0, len(listed)) or sets_attribute(listed):
        detail = "'}' of a fence's attribute list whose run a forced cut left before"
        edit = Edit(last, last + 1, ("&#125;",))
        ps.change(edit, Construct.HTML, Action.NEUTRALISED, _CUT, detail=detail, detector="lexical")


def _list_reads_handler(ps: Pass, text: str, start: int, end: int) -> bool:
    """May the list the unit before left open read a handler's name, or a `name=` that
    sets a handler or a URL, up to a `}` of this text's first line, text[start:end]
    (read over the line's text before the cut and this)? Yes when that text is not
    known. Each `}` after such a name is then written out of reach, in this unit or
    the one that holds it, so the list's last `}` follows none. A stream sends none of
    them: it held the line from its `{` unless it saw it whole (two units, one cut),
    and it holds at such a name (an opener) and after a cut at the first `}`."""
    cut = ps.carry.cut_list
    if cut is None or not (cut.text or cut.long):
        return True
    last = text.rfind("}", start, end)
    if last < 0:
        return False
    line = cut.text + text[start:last]
    if cut.long:
        return cut.risky or may_set_attribute(line)
    return listed_name(line, 0, len(line)) or sets_attribute(line)
