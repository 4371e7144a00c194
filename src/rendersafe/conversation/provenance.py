"""Is a URL the conversation gave a copy, or what the model asked a tool to write?

    provenance.derived(href_text, host, copied=5)
    # "an answer to a call that carries the chat's data", or None: a copy

A URL copied verbatim from a tool's result, another agent's message or a retrieved
document is the model's own choice when that text is a function of what the model
wrote first. Four ways are told apart, each a bound, none a list of encodings:

    a loaded call      the message answers tool calls of the model that carry the chat's
                       data: a piece of it another message gave (`carries`), or a token
                       the model made up (letters and digits mixed, `MADE_UP_CHARS` or
                       more, that no other message holds: a key the model reversed or
                       shifted before handing it over). Whatever the tool returns may
                       be computed from it (a code interpreter printing a URL).
    an echo            a run of `ECHO_CHARS` characters the model wrote before, other
                       than words (a search engine putting the query in its URLs)
    an encoded echo    a base64 or hex run that decodes to `DECODED_CHARS` letters and
                       digits the model wrote before (another agent handing them back)
    the model's site   a URL on a site the model named before any other message did (it
                       sent the tool there), or on an observable host after the model
                       wrote a URL (a shortener or redirect wrapping the model's own)
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ..shapes import Kind
from ..urls.datafiles import words
from ..urls.observers import site_of
from .fold import decoded
from .index import Corpus
from .messages import MEMO_CHARS, MODEL_ROLES, Message
from .seen import bare_of

__all__ = ["DECODED_CHARS", "ECHO_CHARS", "MADE_UP_CHARS", "Derived", "Provenance"]

ECHO_CHARS = 8
DECODED_CHARS = 6
MADE_UP_CHARS = 8
GIVEN_CHARS = 3
_TOKEN = re.compile(r"[A-Za-z0-9]+")
# A capital after a small letter past a word's first (not camelCase: `getElementById`
# is code's), or two capitals before small letters (`BCmbs`): no word is cased so.
_SCRAMBLED = re.compile(r"[A-Z]{2}[a-z]|[a-z][A-Z][A-Z]|[a-z][A-Z][a-z]*[A-Z][a-z]*[A-Z]")
# The parts of a call's record that no one chose: its id and type.
_CALL_WORDS = frozenset({"function", "tool_use", "call"})
_ANSWERS = (Kind.RESULT, Kind.OTHER)
_URL = re.compile(r"https?://[^\s\"'<>\\]+")


@dataclass(frozen=True, slots=True)
class Derived:
    """Why a copied URL is the model's choice, and what bounds what it carries: the
    data of the calls it answers, or the runs of the model's words a decoding of it
    holds (`data`: what a tool could have computed it from), or
    the characters it echoes (`echoed`); neither: all of it. `echoes_given`: it echoes
    only what a message the model did not write said: a copy, but for the chat's data
    recognised in it."""

    why: str
    data: tuple[str, ...] = ()
    echoed: tuple[bool, ...] = ()
    echoes_given: bool = False


class Provenance:
    """What the model wrote, and when, of one conversation (built on first ask)."""

    __slots__ = (
        "_carries",
        "_copied",
        "_corpus",
        "_given",
        "_given_before",
        "_loaded",
        "_messages",
        "_model",
        "_model_sites",
        "_sites",
        "_strict",
        "_trusted",
        "_url_at",
    )

    def __init__(
        self,
        messages: Sequence[Message],
        corpus: Corpus,
        carries: Callable[[str, int], list[str]],
        trusted: Collection[str],
        copied: Callable[[str], bool],
        *,
        strict: bool = False,
    ) -> None:
        self._messages = messages
        self._corpus = corpus
        self._carries = carries  # does a text carry a piece another message gave first?
        self._copied = copied  # is a URL copied from a message the model did not write?
        self._model: _Written | None = None
        self._loaded: dict[int, tuple[str, ...]] = {}
        self._given: str | None = None
        self._given_before: dict[int, str] = {}
        self._sites: dict[str, int] | None = None
        self._model_sites: dict[str, int] = {}
        self._url_at: int | None = None
        self._trusted = frozenset(trusted)
        self._strict = strict  # any word a message gave, not a dictionary's, is data

    def derived(self, text: str, host: str, copied: int, observable: bool) -> Derived | None:
        """Why a URL first given in message `copied` (its free part `text`, on `host`)
        is the model's choice rather than a copy, if it is."""
        if self._model_first(host, copied):
            return Derived("on a site the model named first")
        if observable and self._url_before(copied):
            return Derived("an observable host, after the model wrote a URL")
        echoed = self._encoded_echo(text, copied)
        if echoed:
            return Derived(
                "it echoes, encoded, what the model wrote", data=self._own(text, copied, echoed)
            )
        if self._strict and self._calls_before(copied) and self._names_given(text):
            # A tool computes what the model asks: a name the user gave, in a URL a tool
            # wrote, may be one the model sent it in any spelling.
            return Derived("it carries a name or a number a message gave")
        data = self.call_data(copied)
        if data:
            return Derived("it answers a call that carries the chat's data", data=data)
        return self._echo(text, copied)

    def _own(self, text: str, copied: int, echoed: tuple[str, ...]) -> tuple[str, ...]:
        """What a URL echoing the model's words encoded can carry, when that is only
        those words: the runs of the model's writing it holds, encoded or not (a signed
        token naming the file the call asked for). Nothing (all of the URL) when a run
        is one a message gave before (the chat's data, relayed) or when the calls it
        answers carry the chat's data (a tool may have put that beside the echo in any
        form)."""
        if self.call_data(copied) or any(run in self._given_until(copied) for run in echoed):
            return ()
        return tuple(dict.fromkeys([*echoed, *self._written_runs([text], copied)]))

    def _echo(self, text: str, copied: int) -> Derived | None:
        """A URL echoing what the model wrote, if `text` does: what the model wrote as
        the user had written it (a search engine echoing the user's question) is no
        choice of the model's, but the chat's data recognised in it is still the
        chat's (`Derived.echoes_given`)."""
        echoed = self._echoed(text, copied)
        if not any(echoed):
            return None
        runs = "".join(c if e else " " for c, e in zip(text.lower(), echoed, strict=True))
        given = _compact_given(self._given_text())
        if not self._strict and all(_compact(run) in given for run in runs.split()):
            return Derived("it echoes what the user wrote", echoed=tuple(echoed), echoes_given=True)
        return Derived("it echoes what the model wrote", echoed=tuple(echoed))

    def loaded(self, position: int) -> bool:
        """Does message `position` answer tool calls that carry the chat's data?"""
        return bool(self.call_data(position))

    def call_data(self, position: int) -> tuple[str, ...]:
        """The chat's data that the tool calls message `position` answers carry: the
        pieces of it they hold and the tokens the model made up in them."""
        found = self._loaded.get(position)
        if found is None:
            data: list[str] = []
            for call in self._calls_before(position):
                data += self._carry(call, position)
            found = self._loaded[position] = tuple(dict.fromkeys(data))
        return found

    def _names_given(self, text: str) -> bool:
        """Does `text` hold a name or a number (3 digits or more) a message gave?"""
        given = self._given_text()
        compact = _compact_given(given)
        return any(
            _names_data(t, given) if t.isalpha() else (t.isdigit() and len(t) >= 3 and t in compact)
            for t in _TOKEN.findall(text)
        )

    def calls_answered(self, position: int) -> list[str]:
        """The texts of the model's calls (or, for another agent, its words) that message
        `position` answers."""
        return self._calls_before(position)

    def _calls_before(self, position: int) -> list[str]:
        """The texts of the model's that message `position` answers: its calls to tools
        since the last message neither a call nor a tool's, and for a message of no
        trusted role (another agent handing back), the model's text before it too."""
        answer = self._messages[position]
        if answer.role in MODEL_ROLES:
            return []
        agent = answer.role not in self._trusted
        calls: list[str] = []
        for message in reversed(self._messages[:position]):
            if message.role in MODEL_ROLES:
                if message.kind is Kind.CALL or agent:
                    calls.append(message.text)
                    continue
                break
            if message.kind not in _ANSWERS:
                break
        return calls

    def _carry(self, call: str, position: int) -> list[str]:
        """The chat's data in one text of the model's: the pieces of it another message
        gave, and the tokens of letters and digits the model made up or copied (an ID,
        a code: anything a tool could turn into a URL that is not a word)."""
        text = self._without_given_urls(call)
        data = self._carries(text, position)
        given = self._given_text()
        for token in _TOKEN.findall(text):
            lower = token.lower()
            if lower in _CALL_WORDS:
                continue
            if lower.isalpha():
                # Letters in no word's case pattern (`BCmbsditusffu`): a code made up.
                if len(lower) >= MADE_UP_CHARS and lower not in given and _SCRAMBLED.search(token):
                    data.append(token)
                continue
            if lower not in given and (len(lower) >= MADE_UP_CHARS or lower.isdigit()):
                data.append(token)  # made up: a key the model reversed or shifted
            elif lower in given and len(lower) >= GIVEN_CHARS:
                data.append(token)
        if self._strict:  # a name or a codename a code interpreter could transform
            data += [t for t in _TOKEN.findall(text) if t.isalpha() and _names_data(t, given)]
        return list(dict.fromkeys(data))

    def _without_given_urls(self, call: str) -> str:
        """`call` without the URLs it copies from a message the model did not write
        (fetching the page the user gave computes nothing from the chat)."""
        return _URL.sub(lambda m: " " if self._copied(m.group()) else m.group(), call)

    def _given_text(self) -> str:
        """Every message the model did not write, lower case, as one text."""
        if self._given is None:
            self._given = "\n".join(
                m.text.lower() for m in self._messages if m.role not in MODEL_ROLES
            )
        return self._given

    def _given_until(self, position: int) -> str:
        """The letters and digits of the messages before `position` the model did not
        write (the message a URL was copied from is where it came from, not before it)."""
        found = self._given_before.get(position)
        if found is None:
            found = self._given_before[position] = _compact(
                "\n".join(
                    m.text.lower() for m in self._messages[:position] if m.role not in MODEL_ROLES
                )
            )
        return found

    def _model_first(self, host: str, before: int) -> bool:
        self._named()
        assert self._sites is not None
        site = site_of(host)
        first = self._model_sites.get(site)
        return first is not None and first < before and first <= self._sites.get(site, first)

    def _url_before(self, before: int) -> bool:
        self._named()
        return self._url_at is not None and self._url_at < before

    def _named(self) -> None:
        """Where each site is first named by anyone but the model, and by the model."""
        if self._sites is not None:
            return
        sites: dict[str, int] = {}
        model: dict[str, int] = {}
        url_at = len(self._messages)
        for position, (message, text) in enumerate(
            zip(self._messages, self._corpus.texts, strict=True)
        ):
            written = message.role in MODEL_ROLES
            if written and text.links():
                url_at = min(url_at, position)
            for host in (*text.hosts(), *bare_of(text)):
                if host:
                    (model if written else sites).setdefault(site_of(host), position)
        self._sites, self._model_sites, self._url_at = sites, model, url_at

    def _echoed(self, text: str, before: int) -> list[bool]:
        """Which characters of `text` lie in a run of `ECHO_CHARS` letters and digits or
        more (the rest left out: `type+2+diabetes` echoes `type 2 diabetes`) that the
        model wrote in a message before message `before`, case aside: the runs that hold
        a digit (an ID, a number, a code); a run of letters alone is the words of a
        topic, as any page about it has them."""
        written = self._written()
        marks = [False] * len(text)
        if not written.text:
            return marks
        at = [i for i, c in enumerate(text) if c.isalnum()]
        compact = "".join(text[i] for i in at).lower()
        echoed = [False] * len(compact)
        for i in range(len(compact) - ECHO_CHARS + 1):
            if written.before(compact[i : i + ECHO_CHARS], before):
                echoed[i : i + ECHO_CHARS] = [True] * ECHO_CHARS
        for start, end in _runs(echoed):
            if any(c.isdigit() for c in compact[start:end]):
                for j in at[start:end]:
                    marks[j] = True
        return marks

    def _written(self) -> _Written:
        """The model's messages, their letters and digits only, searchable."""
        if self._model is None:
            self._model = _Written(
                [(p, m.text) for p, m in enumerate(self._messages) if m.role in MODEL_ROLES]
            )
        return self._model

    def _encoded_echo(self, text: str, before: int) -> tuple[str, ...]:
        """The runs of what the model wrote before message `before` that a decoding of
        `text` holds (each at least `DECODED_CHARS` long), if any."""
        return self._written_runs(decoded(text), before)

    def _written_runs(self, texts: Sequence[str], before: int) -> tuple[str, ...]:
        """The runs of letters and digits of `texts` (each at least `DECODED_CHARS`
        long) that the model wrote in a message before message `before`."""
        written = self._written()
        if not written.text:
            return ()
        runs: list[str] = []
        for plain in texts:
            compact = "".join(c for c in plain.lower() if c.isalnum())
            covered = [False] * len(compact)
            for i in range(len(compact) - DECODED_CHARS + 1):
                if written.before(compact[i : i + DECODED_CHARS], before):
                    covered[i : i + DECODED_CHARS] = [True] * DECODED_CHARS
            marked = "".join(c if on else " " for c, on in zip(compact, covered, strict=True))
            runs += marked.split()
        return tuple(dict.fromkeys(runs))


class _Written:
    """The model's messages as one text of their letters and digits (lower case), each
    message's start kept: a run is found where the model first wrote it by searching
    the text (a URL's few dozen runs against a conversation, not every run of the
    conversation into a table)."""

    __slots__ = ("positions", "starts", "text")

    def __init__(self, messages: list[tuple[int, str]]) -> None:
        parts: list[str] = []
        self.starts: list[int] = []
        self.positions: list[int] = []
        size = 0
        for position, text in messages:
            plain = _plain(text)
            self.starts.append(size)
            self.positions.append(position)
            parts.append(plain)
            size += len(plain) + 1
        self.text = "\0".join(parts)

    def before(self, run: str, position: int) -> bool:
        """Did the model write `run` whole in a message before message `position`?"""
        found = self.text.find(run)
        if found < 0:
            return False
        index = bisect.bisect_right(self.starts, found) - 1
        return self.positions[index] < position


def _plain(text: str) -> str:
    """`text`'s letters and digits, lower case (once per process for a message of
    ordinary size)."""
    return _memo_plain(text) if len(text) <= MEMO_CHARS else _alnum(text)


@functools.lru_cache(maxsize=4096)
def _memo_plain(text: str) -> str:
    return _alnum(text)


def _alnum(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _names_data(token: str, given: str) -> bool:
    """Is `token` (letters) a name a message gave (not a word of the language)?"""
    lower = token.lower()
    return len(lower) >= GIVEN_CHARS + 1 and lower in given and lower not in _words()


@functools.cache
def _words() -> frozenset[str]:
    return words("english_words.txt") | words("url_words.txt")


def _compact(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


@functools.lru_cache(maxsize=64)
def _compact_given(given: str) -> str:
    return _compact(given)


def _runs(marks: list[bool]) -> list[tuple[int, int]]:
    """The spans of the runs of True in `marks`."""
    runs: list[tuple[int, int]] = []
    start = None
    for index, mark in enumerate([*marks, False]):
        if mark and start is None:
            start = index
        elif not mark and start is not None:
            runs.append((start, index))
            start = None
    return runs
