"""The fast path: a unit no step of a pass could change, found without parsing it.

Most units of most replies need no change. `certified` shows it for a unit with a
few scans in C and one judge call per URL a reading could take from it, and the
unit pass (parse, regions, brackets, walk, backstop) is skipped. It certifies only
what it can show; anything else goes through the pass, so the output is the pass's
by construction, findings and carry included. Every condition, and why it is sound:

- not a forced cut, not after one, no prefix (the text sent leaves nothing open):
  those read the unit in a context or close what it leaves open (`settle`);
- `<` only as `angles` certifies it: inline tags without attributes but a plain
  `title`, one-line autolinks (their URLs judged), `<` before white space; no
  other raw HTML, tag-like text or interleaved span, in any reading
  (`raw_html = "sanitize"`); with `<`, a destination only as read in one match;
- a `\\` only where no reading the fast path takes changes with it (escapes change
  extents and pairings): never in a destination it reads (a one-match destination
  holds none; any other is certified only in a text without one), in a label span
  after definitions, before `<`, a backtick or `&` (a tag, a code span or an
  entity that is text to a renderer that reads the escape and not to one that
  does not: python-markdown escapes no `<` or `&`), at the end of the text (it
  would escape what follows), or under math in prose (`\\` starts TeX there).
  Elsewhere an escape only turns a delimiter into text: fewer brackets, code
  spans, blocks or links, none of which adds a reading; bare URLs are read from
  the text as written by the backstop's own scan (`bare_readings`); no `\\r` or
  NUL: the text is what markdown-it reads (`Normalised`);
- `&` only without `-->` and `]]>`: python-markdown moves entities only after raw
  HTML or those (`moved_after_raw_html`), so its view is the text; markdown-it's
  href is decoded as it decodes it (`unescapeAll`), the readings as the pass judges
  them (entities decoded);
- a `]:` only where no reading ends a definition's label there (`_defines_nothing`):
  every reading of a reference definition holds one (markdown-it's, the lenient
  pass's `references._DEFINITION`, python-markdown's `views`, marked's), and each
  needs its destination (a run without white space) followed by the line's end or
  by a title's opener (`"`, `'`, `(`; python-markdown's after no blank too). After
  each `]:` here comes a plain ASCII run without a paren, quote, bracket, `<`,
  backslash, `&` or `:`, which no reading ends early and none reads as a script
  URL (the second line's slots), then something else on its line; so this unit
  defines nothing. With a `]:`, destinations are read in one match only
  (python-markdown's view deletes lines that start like a definition), and no
  `]:` may end a label an image before it used (the second line judges a `]:` an
  image may use): each label is plain ASCII on one line and folds, case and white
  space aside, as none of theirs (`_may_label_an_image`);
- when earlier units defined references (markdown-it or lenient), every bracket
  that may use one is read (`_label_uses`): what each `[` holds up to the next
  bracket (or the end) is ASCII without `&` or `\\`, and does not span lines with a
  `>` (a blockquote strips it); read lower case without white space it names a label,
  or after a `]` starts with one (a healer closes the label of `[a][rx` wherever the
  stream stops in it), or neither. No renderer's label matching tells those apart
  (each folds case and collapses white space; none decodes an entity or, in ASCII,
  folds a letter to another; no label holds a bracket). Each label it may use must
  have been kept (a definition the pass removed defines nothing; one of another
  reading is carried only when a link may use it), and the hrefs markdown-it's
  definitions of it give join the candidates below, judged as the pass judges a
  reference's link; and no `[` is left open before the unit;
- no `!` before `[` (invisibles between, as `brackets._bang` reads): no image, so
  no image is spent, no label used, no channel counted;
- after each `](`, every destination reading the backstop judges
  (`inline.destination_readings`), markdown-it's own (`parseLinkDestination`; a
  destination on the next line is left to the pass) and the empty one, and every
  bare URL (`bare.bare_readings`), each judged as the pass judges it, and kept.
  markdown-it reads a link only after a `](`; code and pairing only take readings
  away. Two exceptions, with a backtick: a code span's end restarts the bare URL
  scan, so every anchor's URL is judged (`any_code`); and python-markdown's view
  masks code spans, so a destination is certified only when its `(` is balanced on
  its line with no quote or backtick before the `)`, where the view reads what the
  text reads (`_python_markdown_view`). A destination that ends at the first `)`
  on its line, with no paren, quote or backtick before it, is read by one match:
  there the readings above are the stripped text and its first run, no more
  (`_simple_readings` shows it reading by reading).

Judging must leave the reply's judge as the pass would. Without a conversation,
`ReplyJudge.peek` answers for a link no channel counts (its verdict changes nothing
the reply remembers); the links a channel counts (a one-character component) are
judged without counting, and then, when every candidate is kept and the channels
take them all, counted for real (`ReplyJudge.keeps_links`); a candidate with `&` is
judged decoded as a browser decodes it, as CommonMark does and not at all (`_ways`),
and one of those a channel counts sends the unit to the pass (a renderer may decode
it yet another way: a red team kept five channel links so). With a conversation,
every URL judged is remembered (its tracker joins pieces across URLs): the
candidates are judged for real, in order. Either way they are judged with the fast
path off too (`prescans`), so the state is the same either way and the pass's own
calls, a subset, are cache hits. That judges a few readings the pass alone would
not (stricter, never looser: a channel may fill a little sooner).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from markdown_it.common.utils import unescapeAll

from ..config import FAST_PATH_ENV
from ..engine.carry import Carry, Delta
from ..engine.rendered import PROSE_MATH
from ..engine.tables import Table
from ..guard.controls import CONTROLS
from ..guard.schemes import markdown_readings, script_url
from ..judging import Judge, ReplyJudge
from ..lexical.bare import bare_readings
from ..lexical.decide import WINDOW
from ..lexical.destinations import PythonMarkdown
from ..lexical.inline import closing_paren, destination_readings
from ..markdown.labels import label_keys
from ..urls import INVISIBLE, Role
from . import angles
from .definitions import certified_definitions

__all__ = ["FAST_PATH_VARIABLE", "certified", "enabled", "prescans"]

# `RENDERSAFE_FAST_PATH=0` turns the fast path off for the sanitisers built after.
FAST_PATH_VARIABLE = FAST_PATH_ENV
# `in` finds each at C speed (memchr); one regular expression over all is slower.
_PASS_ONLY = ("\r", "\x00")
# After a `]:`: the run a definition's destination would be, the blanks after it and
# the character after those (`_defines_nothing`).
_AFTER_COLON = re.compile(r"\]:(?=[ \t]*([^ \t\n]*)[ \t]*(.?))")
# Characters the run may hold: ASCII, and nothing that nests, quotes, escapes,
# refers or names a scheme (no reading of it is a script URL).
_PLAIN_RUN = re.compile(r"[A-Za-z0-9.,;!?*_~/+%#=@$^-]+")
# An escape the fast path does not read past (the conditions above).
_ESCAPE_TO_THE_PASS = re.compile(r"\\(?:[<`&]|\Z)")
# A label no renderer reads two ways: ASCII on one line, with no escape, entity or bracket.
_PLAIN_LABEL = re.compile(r"[ -%'-Z^-~]*")
# What a bracket that may be a label holds, up to the next bracket or the end (a
# healing renderer closes it anywhere there: `healers.reference_labels`).
_LABEL_SPAN = re.compile(r"\[([^\[\]]*)")
# What `parseLinkDestination` reads before it looks at parens (no `\\` here).
_DESTINATION_RUN = re.compile(r"[^\x00-\x20\x7f]+")
_PAREN = re.compile(r"[()]")
_MAX_NESTING = 32  # parens `parseLinkDestination` nests before it gives up
_OPEN = re.compile(r"\(\s*")  # as `destinations` opens one
_IMAGE = re.compile("!" + INVISIBLE.pattern + r"*\[")
# A destination up to the first `)` on its line with nothing before it that nests,
# quotes or may be masked as code (`_simple_readings`).
_SIMPLE_DESTINATION = re.compile(r"[^()\"'`\n]*\)")
# What a one-match destination must not hold when the text has escapes or `<`.
_ESCAPED_OR_ANGLED = re.compile(r"[\\<>]")
# `inline._destinations`' first reading, on a text without parens or backslashes.
_READING_A = re.compile(r"[^\s()\\]*")


def enabled() -> bool:
    """Is the fast path on (it is unless `RENDERSAFE_FAST_PATH` is `0`)?"""
    return os.environ.get(FAST_PATH_VARIABLE, "1").strip() != "0"


def prescans(judge: Judge) -> bool:
    """Must `certified` run with the fast path off too? Judging a URL may change what
    the reply remembers (with a conversation, every URL; without one, a link a link
    channel counts), so the fast path judges its candidates for real, every reading
    of them, and the same calls must be made whether the pass then runs or not."""
    return isinstance(judge, ReplyJudge)


def certified(text: str, carry: Carry, judge: Judge) -> Delta | None:
    """What the unit pass over `text` would add to `carry`, when it provably changes
    nothing and finds nothing; None when the pass must read it."""
    if not isinstance(judge, ReplyJudge):
        return None
    if "]:" in text:
        # A block of plain reference definitions: a shape of its own (`definitions`).
        defined = certified_definitions(text, carry, judge)
        if defined is not None:
            return defined
    return _certified(text, carry, judge)


def _certified(text: str, carry: Carry, judge: ReplyJudge) -> Delta | None:
    """`certified`, for any unit but a block of plain definitions."""
    if not _plain(text, carry):
        return None
    if ("\\" in text and not _escapes_read(text, judge)) or _script_slot(text):
        return None
    links = _links(text, carry, judge)
    if links is None or not _all_kept(links, judge):
        return None
    return Delta(
        references={},
        definitions={},
        lenient=(),
        image_labels=frozenset(),
        images_kept=carry.images_kept,
        image_channels=carry.image_channels,
        healer=carry.healer.after(text),
    )


def _links(text: str, carry: Carry, judge: ReplyJudge) -> dict[tuple[str, bool], None] | None:
    """Every link a pass over `text` may judge (`_candidates`), and the hrefs of the
    labels defined before that its brackets may use; None when one is not read here."""
    uses = _label_uses(text, carry)
    links = None if uses is None else _candidates(text, judge)
    if links is not None and uses:
        for href in uses:
            links.update(dict.fromkeys(_ways(href, False)))
    return links


def _all_kept(candidates: dict[tuple[str, bool], None], judge: ReplyJudge) -> bool:
    """Are all the candidate links kept? Judged for real, in order, with the pass on
    or off (`prescans`), so the state is the same either way and the pass's own calls
    are cache hits: with a conversation, each (its tracker joins the pieces of every
    URL); without one, all of them or none (`ReplyJudge.keeps_links`: every reading, so
    a link channel may count one the pass does not judge, which only makes it
    stricter)."""
    if not judge.remembers_every_url:
        # A channel's link spelt with `&` is left to the pass: a renderer may decode it
        # in yet another way, which the channel counts and no reading here gives.
        if any(_counted_with_entity(raw, d, judge) for raw, d in candidates):
            return False
        return judge.keeps_links(list(candidates))
    if not judge.caches(len(candidates)):
        return False
    verdicts = (judge.judge(raw, Role.LINK, decode_entities=d) for raw, d in candidates)
    return all(verdict.action == "keep" for verdict in verdicts)


def _counted_with_entity(raw: str, decode: bool, judge: ReplyJudge) -> bool:
    """Is `raw` spelt with `&` and counted by a link channel (`peek` has no verdict)?"""
    return "&" in raw and judge.peek(raw, Role.LINK, decode_entities=decode) is None


def _plain(text: str, carry: Carry) -> bool:
    """Does `text` hold none of what only the pass reads (the conditions above)?"""
    if any(mark in text for mark in _PASS_ONLY) or CONTROLS.search(text) is not None:
        return False
    if "]:" in text and (
        carry.labels_overflowed
        or not _defines_nothing(text)
        or (carry.image_labels and _may_label_an_image(text, carry.image_labels))
    ):
        return False
    if "![" in text or ("!" in text and not text.isascii() and _IMAGE.search(text)):
        return False  # (the invisibles are not ASCII)
    # python-markdown moves entities after `-->` or `]]>` out of the way.
    return "&" not in text or ("-->" not in text and "]]>" not in text)


def _may_label_an_image(text: str, used: Table[bool]) -> bool:
    """May a `]:` in `text` end a label an image before it used (`used`: their keys
    under every renderer's matching)? Its label runs from the `[` before it; one that
    is not plain ASCII on one line, or folds as one of them does (`_folded`: white
    space aside too, stricter than any renderer), may."""
    folded: set[str] | None = None
    for match in _AFTER_COLON.finditer(text):
        at = match.start()
        start = text.rfind("[", 0, at) + 1
        label = text[start:at]
        if not start or not _PLAIN_LABEL.fullmatch(label):
            return True
        if folded is None:
            folded = {_folded(key) for key in used}
        if _folded(label) in folded or any(key in used for key in label_keys(label)):
            return True
    return False


def _defines_nothing(text: str) -> bool:
    """Is no `]:` in `text` the end of a definition's label, in any reading? Each
    must be followed, on its line, by a plain run and then, after blanks, by a
    character that is neither a line's end nor a title's opener (`[^1]: Smith, J.`)."""
    for match in _AFTER_COLON.finditer(text):
        after = match.group(2)
        if not _PLAIN_RUN.fullmatch(match.group(1)) or not after or after in "\n\"'(":
            return False
        if after.isspace():
            return False
    return True


def _script_slot(text: str) -> bool:
    """Could a destination after a `](` be a script URL once its references are decoded
    (`javascrip&NewLine;t:`), in any reading the second line judges? Read on to the
    line's end, as the most generous renderer may (`guard.schemes`)."""
    at = text.find("](") if "&" in text else -1
    while at >= 0:
        end = text.find("\n", at)
        raw = text[at + 2 : len(text) if end < 0 else end]
        if "&" in raw and any(script_url(reading) for reading in markdown_readings(raw)):
            return True
        at = text.find("](", at + 2)
    return False


def _escapes_read(text: str, judge: ReplyJudge) -> bool:
    """Does no `\\` in `text` escape what the fast path reads (the conditions above)?
    Those in destinations are `_candidates`' to refuse."""
    return PROSE_MATH not in judge.policy.rendered_fences and not _ESCAPE_TO_THE_PASS.search(text)


def _label_uses(text: str, carry: Carry) -> list[str] | None:
    """The links the brackets of `text` may make of labels the units before it defined,
    under any renderer's label matching (the conditions above): the hrefs of
    markdown-it's definitions of each label a bracket may use, to be judged as the pass
    judges a reference's link (a definition kept so far was judged a kept link, and
    the carried definitions of other readings are kept ones: no use of them is
    neutralised); None when a use is not read here. The labels are folded once per set
    of tables (`_carried_labels`), so a reply with many definitions costs no more per
    unit than one with a few."""
    if "[" not in text or not (carry.references or carry.lenient_count):
        return []
    if carry.healer.brackets:
        return None
    labels = _carried_labels(carry)
    if not labels.plain:
        return None
    hrefs: list[str] = []
    for match in _LABEL_SPAN.finditer(text):
        used = _used(text, match, labels)
        if used is None:
            return None
        for label in used:
            found = labels.hrefs[label]
            if found is None:
                return None
            hrefs.extend(found)
    return hrefs


@dataclass(frozen=True, slots=True)
class _Labels:
    """The labels earlier units defined, folded (`_folded`), and what `_used` asks of
    them: their lengths, whether every one is plain, and the hrefs markdown-it's
    definitions of each give (None: a definition the fast path does not resolve)."""

    hrefs: dict[str, tuple[str, ...] | None]
    lengths: tuple[int, ...]
    plain: bool  # each non-empty ASCII without a bracket


# The folded labels of the carries' tables seen last, by the tables' identities (kept
# with them, so an identity is never another table's).
_LABELS: dict[tuple[int, int, int], tuple[tuple[object, ...], _Labels]] = {}
_MOST_LABEL_SETS = 256


def _carried_labels(carry: Carry) -> _Labels:
    """The labels `carry`'s tables define, folded once per set of tables: a unit that
    defines nothing leaves them as they were, so the next one finds them here."""
    tables = (carry.references, carry.definitions, carry.lenient_by_key)
    key = (id(tables[0]), id(tables[1]), id(tables[2]))
    found = _LABELS.get(key)
    if found is not None and all(a is b for a, b in zip(found[0], tables, strict=True)):
        return found[1]
    hrefs = _label_hrefs(carry)
    plain = all(k and k.isascii() and "[" not in k and "]" not in k for k in hrefs)
    labels = _Labels(hrefs, tuple(sorted({len(k) for k in hrefs})), plain)
    if len(_LABELS) >= _MOST_LABEL_SETS:
        _LABELS.clear()
    _LABELS[key] = (tables, labels)
    return labels


def _label_hrefs(carry: Carry) -> dict[str, tuple[str, ...] | None]:
    """Each folded label of the carry's tables, with the hrefs of markdown-it's
    definitions of it; None for one defined but not kept, or not as markdown-it keeps
    it, or with a definition of another reading a link may not use."""
    found: dict[str, tuple[str, ...] | None] = {}
    for label in carry.references:
        reference = carry.references.get(label)
        href = reference.get("href") if isinstance(reference, dict) else None
        folded = _folded(label)
        known = found.get(folded, ())
        found[folded] = None if known is None or not isinstance(href, str) else (*known, href)
    for label in carry.definitions:
        if not carry.definitions.get(label) or label not in carry.references:
            found[_folded(label)] = None
    for label in carry.lenient_by_key:
        lenient = carry.lenient_by_key.get(label) or ()
        folded = _folded(label)
        bad = any(d.link_bad is not None for d in lenient)
        found[folded] = None if bad else found.get(folded, ())
    return found


def _used(text: str, match: re.Match[str], labels: _Labels) -> list[str] | None:
    """The (folded) labels the bracket of `match` may use; None when it is not read
    here (not plain ASCII, an entity or escape, a quote's marker over lines)."""
    span = match.group(1)
    if not span.isascii() or "&" in span or "\\" in span or ("\n" in span and ">" in span):
        return None  # (a blockquote's `>` is not in the label markdown-it reads)
    folded = _folded(span)
    hrefs = labels.hrefs
    used = [folded] if folded in hrefs else []
    # `[a][rx`: a healer stopped after `[a][r` closes the label `r`.
    if match.start() > 0 and text[match.start() - 1] == "]":
        used += [folded[:n] for n in labels.lengths if n < len(folded) and folded[:n] in hrefs]
    return used


def _folded(label: str) -> str:
    """A label as no renderer tells it apart from another: lower case, no white space."""
    return "".join(label.split()).lower()


def _candidates(text: str, judge: ReplyJudge) -> dict[tuple[str, bool], None] | None:
    """Every URL a pass over `text` may judge as a link, with whether it decodes
    entities, each once (readings agree on most URLs); None when one of them is not
    read here."""
    found: dict[tuple[str | None, bool], None] = {}
    if "<" in text:
        autolinks = angles.autolinks(text) if judge.policy.raw_html == "sanitize" else None
        if autolinks is None:
            return None
        found.update(((url, False), None) for url in autolinks)  # markdown-it's href
    code = "`" in text
    if "](" in text and not _destinations(text, code, found):
        return None
    for url in bare_readings(text, any_code=code):
        found[url, True] = None
    if (None, False) in found or (None, True) in found:
        return None
    return {
        reading: None for url, decode in found if url is not None for reading in _ways(url, decode)
    }


def _ways(url: str, decode: bool) -> tuple[tuple[str, bool], ...]:
    """The ways a candidate is judged. With `&`, three: renderers decode its references
    as a browser does (`&#97` too), as CommonMark does (`&name;` and `&#97;` only), or
    not at all (`?c=a&lt` is `c=a`, `/c/&#97;` is `/c/&`), and a link channel may count
    one reading and not another."""
    if "&" not in url:
        return ((url, decode),)
    return ((url, True), (url, False), (unescapeAll(url), False))


def _destinations(text: str, code: bool, found: dict[tuple[str | None, bool], None]) -> bool:
    """Add the readings of the destination after each `](` to `found`; False when
    one of them is not read here."""
    found["", False] = None  # markdown-it's href when the destination does not parse
    python_markdown: list[PythonMarkdown] = []
    # The general readings below read no escape; with `<`, a one-match destination
    # without `<` or `>` is read as without it (`angles`).
    general = "\\" not in text and "<" not in text and "]:" not in text
    at = text.find("](")
    while at >= 0:
        pos = at + 2
        simple = _SIMPLE_DESTINATION.match(text, pos, pos + WINDOW)
        if simple is not None and (general or not _ESCAPED_OR_ANGLED.search(simple.group())):
            _simple_readings(simple.group()[:-1], code, found)
        elif not general:
            return False
        else:
            found[_markdown_it_destination(text, pos), False] = None
            for url, _end in destination_readings(text, pos, python_markdown):
                found[url, True] = None
            if code:  # python-markdown has a view of its own only where it reads code
                found[_python_markdown_view(text, pos)] = None
        at = text.find("](", pos)
    return True


def _simple_readings(
    destination: str, code: bool, found: dict[tuple[str | None, bool], None]
) -> None:
    """Add the readings of a destination that ends at the first `)` on its line,
    within the window, with no `(`, quote or backtick before it (`_SIMPLE_DESTINATION`;
    no `<`, `>` or `\\` either, `_destinations`), as the general readings add them.

    There every reading ends at that `)`: markdown-it's (`parseLinkDestination`
    stops at it, at level 0) is the run of non-control characters after the spaces
    and tabs; `inline._destinations` reads that run up to a space (`_READING_A`) and
    the stripped text up to the `)` (no title: no quote or paren); no reading spans
    lines (`_may_span_lines`: no paren, quote or backslash before the `)`); and
    python-markdown's view reads the stripped text too (`_python_markdown_view`:
    the `)` balances the `(`, nothing masked)."""
    lead = destination.lstrip(" \t")
    run = _DESTINATION_RUN.match(lead)
    found[unescapeAll(run.group()) if run is not None else "", False] = None
    first = _READING_A.match(lead)
    if first is not None and first.group():
        found[first.group(), True] = None
    stripped = destination.strip()
    if stripped:
        found[stripped, True] = None
    if code:
        found[stripped, True] = None


def _python_markdown_view(text: str, pos: int) -> tuple[str | None, bool]:
    """The destination python-markdown's view reads after `(` at `pos - 1`
    (`inline.python_markdown_constructs`), None when it may differ from the text's.

    The view masks its code spans (`View.masked`). A span over `pos` hides the
    `](`; one before it changes no paren or quote after it. So when the `(` is
    balanced by a `)` on its line, with no quote or backtick between, the view reads
    what the text reads, as `PythonMarkdown.span` does: to that `)`, since no quote
    and no paragraph end comes first (a `<` would be an angle destination)."""
    close = closing_paren(text, pos)
    if close < 0 or any(c in text[pos:close] for c in "`\"'"):
        return None, True
    start = _OPEN.match(text, pos - 1)
    begin = pos if start is None else start.end()
    return text[begin : max(begin, min(close, pos + WINDOW))].strip(), True


def _markdown_it_destination(text: str, pos: int) -> str | None:
    """markdown-it's href for a link whose `(` is at `pos - 1`, read on its line as
    its inline rule reads it (None: it starts on a later line)."""
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    if text.startswith("\n", pos):
        return None
    run = _DESTINATION_RUN.match(text, pos)
    if run is None:
        return ""
    destination = run.group()
    if "(" not in destination:
        # Nothing to balance: markdown-it's loop ends at the first `)`.
        href = destination.partition(")")[0]
        return unescapeAll(href) if href else ""
    # `parseLinkDestination`'s loop, by the parens alone (no `\\` here: `_plain`): it
    # ends at the first `)` at level 0, fails past 32 levels or unbalanced.
    level = 0
    for paren in _PAREN.finditer(destination):
        if paren.group() == "(":
            level += 1
            if level > _MAX_NESTING:
                return ""
        elif level == 0:
            href = destination[: paren.start()]
            return unescapeAll(href) if href else ""
        else:
            level -= 1
    return "" if level else unescapeAll(destination)
