"""Which texts of the conversation name an observer, however they write its name.

    naming = Naming(messages)
    named = naming.of("cobaltframe.dev")
    named.first          # 3: a tool's result names it first (`cobaltframe[.]dev`)
    naming.words(named, allowed)   # the words of the paragraphs that name it

A reply URL's host was either named by the conversation (an instruction may have
pointed there) or by nobody (the model wrote it from what it knows). Naming is read
from what a text shows, not from its syntax, since an instruction writes a host any
way the model will read back: a text names an observer when its skeleton
(`fold.skeleton`: accents and look-alike letters read as Latin, everything but letters
and digits gone) holds the observer's folded name (`cobaltframe[.]dev`,
`cobaltframe (dot) dev`, `c-o-b-a-l-t-f-r-a-m-e.dev`), that name reversed, a Caesar
shift of it (`fold.shifts`, for names of `SHIFTED_FROM` letters or more), or holds it
in a base64 or hex run (`fold.decoded`). In a text of no trusted role (a tool's result,
a retrieved page: where an instruction hides), a distinctive name (`DISTINCT_CHARS`
folded characters or more, not a word) names its site without the suffix (`the company
in the signature: Brightpath Events`); the user naming a project (`pytest-asyncio`) does
not name its documentation's host. An account on a shared host (a repository owner, a
bucket, a directory tenant) is named by its distinctive name in any text: the user's
bucket `acme-static-site` names `s3.amazonaws.com/acme-static-site`.

The model's own messages name nothing here (what it names unprompted is what it
knows). Each message is read once per process, in paragraphs of at most
`BLOCK_CHARS` characters: what an observer's owner may have written, and so knows, is
the paragraph that names it, not the whole message (a pasted e-mail, one search result).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..urls.datafiles import words as listed_words
from ..urls.hosts import is_ip_literal
from .fold import decoded, shifts, skeleton
from .messages import MEMO_CHARS, MODEL_ROLES, Message

__all__ = ["BLOCK_CHARS", "DISTINCT_CHARS", "SHIFTED_FROM", "WORD", "Named", "Naming"]

BLOCK_CHARS = 1500
DISTINCT_CHARS = 8
SHIFTED_FROM = 8
MIN_NAME = 5  # a folded name shorter than this is found everywhere
MIN_BRAND = 3  # a brand is a whole word, so a short one is not found everywhere
# The words of a text, as URLs are priced (`judging.bits`): a run of letters (a capital
# starting a camelCase word with it), of capitals, or of digits.
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_ALNUM = re.compile(r"[A-Za-z0-9]+")
_DIGIT_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]*[0-9][A-Za-z0-9]*")  # a run with a digit
_DIGITS = re.compile(r"[0-9]+")
_DIGIT_GROUPS = re.compile(r"[0-9]+(?:[ .\-/][0-9]+)+")
_ALNUM_ONLY = re.compile(r"[^a-z0-9]+")
_RUN_TOGETHER = 3  # words a brand may be written as (`Best Buy`: bestbuy)
_TABLE_ROWS = 2  # lines of a pasted table, its header among them
_TABLE_FIELDS = 2  # separators on a line that make it a row, whatever its neighbours
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_FENCED_JSON = re.compile(
    r"^[ \t]*```[ \t]*(?:json\w*)?[ \t]*\n(.*?)\n[ \t]*```[ \t]*$", re.M | re.S
)
_MAX_PLACES = 16  # paragraphs of one message that name one observer, kept
_CACHED = 4096
_MAX_FOUND = 256  # names whose paragraphs one message keeps


@dataclass(frozen=True, slots=True)
class Named:
    """Where the conversation names an observer: the first message that does (None:
    none does), and each (message position, paragraph) that does."""

    first: int | None
    places: tuple[tuple[int, int], ...] = ()


class MessageNames:
    """One message's blocks, folded every way names are looked for in: its paragraphs,
    or for a JSON text its objects (an e-mail of an inbox, a result of a search), each
    found by its own fields and read with the objects inside it."""

    __slots__ = (
        "_brands",
        "_found",
        "blocks",
        "data",
        "folded",
        "shifted",
        "shifted_starts",
        "starts",
    )

    def __init__(self, text: str) -> None:
        # What `find` found, by name: the message is shared by every conversation that
        # sends it, and each asks for the same few observers again.
        self._found: dict[str, list[int]] = {}
        self._brands: list[tuple[frozenset[str], frozenset[str]]] | None = None
        self.data = frozenset(
            run.lower() for run in _DIGIT_RUN.findall(text) if len(run) >= 3
        ) | frozenset(_joined_numbers(text))
        found = _json_blocks(text) or _mixed_blocks(text)
        own = [block for block, _ in found]
        self.blocks = [whole for _, whole in found]
        forms = [_forms(block) for block in own]
        self.folded, self.starts = _joined([plain for plain, _ in forms])
        self.shifted, self.shifted_starts = _joined([shifted for _, shifted in forms])

    def find(self, name: str) -> list[int]:
        """The paragraphs that hold `name` (folded), reversed or shifted."""
        blocks = self._found.get(name)
        if blocks is None:
            if len(self._found) >= _MAX_FOUND:
                self._found.clear()
            blocks = self._found[name] = self._find(name)
        return blocks

    def _find(self, name: str) -> list[int]:
        found: set[int] = set()
        for needle in {name, name[::-1]}:
            _find_all(self.folded, needle, self.starts, found)
        if sum(c.isalpha() for c in name) >= SHIFTED_FROM:
            _find_all(self.shifted, shifts(name), self.shifted_starts, found)
        return sorted(found)[:_MAX_PLACES]

    def branded(self, brand: str, *, capitalised: bool = False) -> list[int]:
        """The paragraphs that say `brand` (lower case, letters and digits) as a word,
        or as two or three words run together (`Best Buy`, `testing-library`); with
        `capitalised`, only words that start with a capital."""
        if self._brands is None:
            self._brands = [_word_runs(block) for block in self.blocks]
        side = 1 if capitalised else 0
        return [block for block, runs in enumerate(self._brands) if brand in runs[side]][
            :_MAX_PLACES
        ]

    def words(self, block: int) -> frozenset[str]:
        """The words of block `block` (with the objects inside it), lower case: its runs
        of letters and digits, whole and word by word (`WORD`)."""
        text = self.blocks[block]
        found = (*WORD.findall(text), *_ALNUM.findall(text), *_joined_numbers(text))
        return frozenset(w.lower() for w in found)


def message_names(text: str) -> MessageNames:
    """The `MessageNames` of `text`, once per process for a text of ordinary size."""
    return _message_names(text) if len(text) <= MEMO_CHARS else MessageNames(text)


@functools.lru_cache(maxsize=_CACHED)
def _message_names(text: str) -> MessageNames:
    return MessageNames(text)


class Naming:
    """Who in a conversation names which observer (one per conversation, memoised)."""

    __slots__ = ("_found", "_given", "_messages", "_names", "_trusted")

    def __init__(self, messages: Sequence[Message], trusted: Collection[str]) -> None:
        self._messages = messages
        self._trusted = frozenset(trusted)
        self._names: list[MessageNames | None] = [None] * len(messages)
        self._found: dict[str, Named] = {}
        self._given: dict[str, int] | None = None

    def of(self, key: str) -> Named:
        """Where the observer `key` (a site, a tenant's host, `github.com/<owner>`, an
        IP address) is named."""
        found = self._found.get(key)
        if found is None:
            # An account on a shared host (`github.com/<owner>`, a bucket, a directory
            # tenant) is named by its own name, by anyone: the user's bucket is theirs.
            found = self._found[key] = self._look(*names_of(key), anyone="/" in key)
        return found

    def words(self, named: Named, positions: Collection[int] | None = None) -> frozenset[str]:
        """The words of the paragraphs that name it (of the messages at `positions`
        only, if given)."""
        found: set[str] = set()
        for position, block in named.places:
            if positions is None or position in positions:
                found |= self._names_at(position).words(block)
        return frozenset(found)

    def given(self, run: str) -> int | None:
        """The first message, not the model's, that holds `run` (letters and digits,
        lower case, a digit among them) as a whole run: an ID, a number, a code."""
        if self._given is None:
            given: dict[str, int] = {}
            for position, message in enumerate(self._messages):
                if message.role not in MODEL_ROLES:
                    for datum in self._names_at(position).data:
                        given.setdefault(datum, position)
            self._given = given
        return self._given.get(run)

    def branded(self, site: str) -> Named:
        """Where a message of a trusted role names `site` (a registrable domain) by its
        brand: its first label as a word (`my IKEA order`, `Booking.com`)."""
        label = site.partition(".")[0].lower()
        brand = _ALNUM_ONLY.sub("", label)
        if len(brand) < MIN_BRAND or label == "www":
            return Named(None)
        # A word of the language names its brand only capitalised (`Delta`, not a delta).
        word = _is_word(brand)
        places: list[tuple[int, int]] = []
        for position, message in enumerate(self._messages):
            if message.role in self._trusted:
                found = self._names_at(position).branded(brand, capitalised=word)
                places += [(position, b) for b in found]
        return Named(places[0][0] if places else None, tuple(places))

    def _look(self, whole: str, label: str, *, anyone: bool = False) -> Named:
        if not whole and not label:
            return Named(None)
        places: list[tuple[int, int]] = []
        first: int | None = None
        for position, message in enumerate(self._messages):
            if message.role in MODEL_ROLES:
                continue
            names_at = self._names_at(position)
            blocks = set(names_at.find(whole)) if whole else set()
            if label and (anyone or message.role not in self._trusted):
                blocks.update(names_at.find(label))
            if blocks:
                first = position if first is None else first
                places += [(position, block) for block in sorted(blocks)]
        return Named(first, tuple(places))

    def _names_at(self, position: int) -> MessageNames:
        found = self._names[position]
        if found is None:
            found = self._names[position] = message_names(self._messages[position].text)
        return found


@functools.lru_cache(maxsize=_CACHED)
def names_of(key: str) -> tuple[str, str]:
    """The folded names an observer is named by ("" for none): its whole name, and a
    distinctive label alone (a site's name without its suffix, a tenant's, a
    repository owner's)."""
    host, _, owner = key.partition("/")
    if "xn--" in host:
        host = ".".join(_unpunycode(label) for label in host.split("."))
    whole = skeleton(host + owner)
    whole = whole if len(whole) >= MIN_NAME else ""
    if is_ip_literal(host):
        return whole, ""
    label = skeleton(owner or host.split(".")[0])
    distinct = len(label) >= DISTINCT_CHARS and not _is_word(label)
    return whole, label if distinct else ""


def _word_runs(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words of `text` (runs of letters and digits) run together one, two or three
    in a row, lower case: all of them, and those that start with a capital."""
    words = _ALNUM.findall(text)
    runs = {
        "".join(words[i : i + n]) for n in range(1, _RUN_TOGETHER + 1) for i in range(len(words))
    }
    return frozenset(r.lower() for r in runs), frozenset(r.lower() for r in runs if r[0].isupper())


def _joined_numbers(text: str) -> list[str]:
    """The numbers `text` writes in groups (`order 12-10893-47261`, `555 123 4567`),
    their digits joined: a reader of the chat's data joins them."""
    return ["".join(_DIGITS.findall(group)) for group in _DIGIT_GROUPS.findall(text)]


def _unpunycode(label: str) -> str:
    """A label as its IDN shows it (`xn--brghtpath-...` as `brìghtpath`)."""
    if not label.startswith("xn--"):
        return label
    try:
        return label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        return label


@functools.cache
def _known_words() -> frozenset[str]:
    return listed_words("english_words.txt") | listed_words("url_words.txt")


def _is_word(label: str) -> bool:
    return label in _known_words()


def _blocks(text: str) -> list[str]:
    """`text` in paragraphs of at most about `BLOCK_CHARS` characters (a longer one
    cut at its lines, a longer line at its spaces)."""
    blocks: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        rows = _table_rows(paragraph)
        if rows:
            blocks += [row[:BLOCK_CHARS] for row in rows]
        elif len(paragraph) <= BLOCK_CHARS:
            blocks.append(paragraph)
        else:
            blocks += _cut(paragraph)
    return blocks


def _table_rows(paragraph: str) -> list[str]:
    """The lines of a paragraph holding a pasted table, each its own block; else nothing.
    A table is two or more lines in a row holding `|` or a tab (Markdown, TSV), or two
    or more commas or semicolons each (CSV, JSON Lines), or three or more the same number
    of them; its caption and the prose after it are lines of their own too. Whoever wrote
    a row wrote only that row: an attacker's row names its own host, and what the other
    rows say is not its to have."""
    lines = paragraph.split("\n")
    if len(lines) < _TABLE_ROWS or len(paragraph) > BLOCK_CHARS * 16:
        return []
    run = 1
    for before, shape in itertools.pairwise(_row_shape(line) for line in lines):
        if before is None or shape is None:
            run = 1
            continue
        wide = max(before[1], shape[1]) >= _TABLE_FIELDS
        if not wide and before != shape:
            run = 1
            continue
        run += 1
        if run >= (_TABLE_ROWS if wide else _TABLE_ROWS + 1):
            return [line for line in lines if line.strip()]
    return []


def _row_shape(line: str) -> tuple[str, int] | None:
    """A line's delimiter and how many separators it holds (a `|`, a tab or a JSON
    object counts as many as a table's row needs), or None for a line of prose."""
    stripped = line.strip()
    if "|" in line or "\t" in line or (stripped[:1], stripped[-1:]) == ("{", "}"):
        return "|", _TABLE_FIELDS  # a table's row, a JSON Lines record
    commas, semicolons = line.count(","), line.count(";")
    if not (commas or semicolons):
        return None
    return (",", commas) if commas >= semicolons else (";", semicolons)


def _mixed_blocks(text: str) -> list[tuple[str, str]]:
    """A text's paragraphs (`_blocks`), each JSON text in a fence read as JSON is
    (`_json_blocks`); each block as its own text and its whole."""
    found: list[tuple[str, str]] = []
    at = 0
    for fence in _FENCED_JSON.finditer(text) if "```" in text else ():
        inside = _json_blocks(fence.group(1))
        if inside:
            found += [(b, b) for b in _blocks(text[at : fence.start()])] + inside
            at = fence.end()
    return found + [(b, b) for b in _blocks(text[at:])]


def _json_blocks(text: str) -> list[tuple[str, str]]:
    """For a JSON text (or JSON Lines), each object's own fields (and the scalars of
    its lists; a list of lists' each list) as text, and that with every object inside
    it; each field of prose apart; else nothing."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{" or stripped[-1] not in "]}":
        return []
    try:
        values = [json.loads(stripped)]
    except ValueError:
        values = _json_lines(stripped)
        if not values:
            return []
    found: list[tuple[str, str]] = []
    for value in values:
        _json_value_blocks(value, found)
    return [(own[: BLOCK_CHARS * 4], whole[: BLOCK_CHARS * 4]) for own, whole in found]


def _json_lines(text: str) -> list[object]:
    """Each line of a JSON Lines text, read; else nothing."""
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError:
        return []


def _json_value_blocks(value: object, found: list[tuple[str, str]]) -> None:
    top: list[str] = []
    _object_texts(value, found, top)
    if top:  # scalars outside every object
        found.append((" ".join(top), " ".join(top)))


def _object_texts(value: object, found: list[tuple[str, str]], own: list[str]) -> str:
    """Add each object under `value` to `found`; put `value`'s scalars (not those of
    the objects in it) in `own`; return all its text."""
    if isinstance(value, dict):
        mine: list[str] = []
        inner: list[str] = []
        for key, item in value.items():
            mine.append(str(key))
            if _prose(item):
                # A field of prose (a ticket's comment, a message's body) may be anyone's:
                # a host it names is named by it alone, with none of the record's IDs.
                found.append((item, item))
                inner.append(item)
                continue
            inner.append(_object_texts(item, found, mine))
        whole = " ".join([*mine, *inner])
        found.append((" ".join(mine), whole))
        return whole
    if isinstance(value, list):
        return " ".join(_list_item_text(item, found, own) for item in value)
    own.append(str(value))
    return ""


def _prose(value: object) -> bool:
    """Is `value` a string of words (three or more), not a name, a number or a URL?"""
    return isinstance(value, str) and len(value.split(None, 2)) > 2


def _list_item_text(item: object, found: list[tuple[str, str]], own: list[str]) -> str:
    """A list's item: a list in a list is a record of its own (a sheet's row)."""
    if not isinstance(item, list):
        return _object_texts(item, found, own)
    row: list[str] = []
    inner = _object_texts(item, found, row)
    if row:
        found.append((" ".join(row), " ".join([*row, inner])))
    return inner


def _cut(paragraph: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    while start < len(paragraph):
        end = min(len(paragraph), start + BLOCK_CHARS)
        if end < len(paragraph):
            at = max(paragraph.rfind("\n", start, end), paragraph.rfind(" ", start, end))
            end = at + 1 if at > start + BLOCK_CHARS // 2 else end
        pieces.append(paragraph[start:end])
        start = end
    return pieces


def _forms(block: str) -> tuple[str, str]:
    """A paragraph folded (with what its encoded runs decode to), and its shifts."""
    plain = skeleton(block)
    extra = [skeleton(text) for text in decoded(block)] if len(plain) >= 12 else []
    return "#".join([plain, *extra]), "#".join(shifts(p) for p in [plain, *extra])


def _joined(forms: list[str]) -> tuple[str, list[int]]:
    starts: list[int] = []
    at = 0
    for form in forms:
        starts.append(at)
        at += len(form) + 1
    return "|".join(forms), starts


def _find_all(haystack: str, needle: str, starts: list[int], found: set[int]) -> None:
    at = haystack.find(needle)
    while at >= 0 and len(found) < _MAX_PLACES:
        found.add(bisect.bisect_right(starts, at) - 1)
        at = haystack.find(needle, at + 1)
