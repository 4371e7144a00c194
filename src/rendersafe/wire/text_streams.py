"""`Texts`: the texts of one response, each sanitised as a stream of its own.

A response can carry several texts at once (OpenAI's `n > 1` choices, Anthropic's
content blocks, the AI SDK's text parts): each is keyed by what the wire format
calls it. The sanitiser records each finding in its audit log, if it has one;
`report` is also told of each, as it is made. Every text is judged with the same
`conversation` (what the model saw) and `context`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping

from ..conversation import Conversation, ConversationLike
from ..errors import FormatError, InputTooLargeError
from ..findings import Construct, Finding
from ..observe import METRICS
from ..sanitizer import Sanitizer
from ..streaming import StreamSanitizer
from .error_text import safe_name

__all__ = ["ENDS", "IDLE", "Report", "Texts", "escaped_ends"]

ENDS = 2  # line ends a chunk that may end its text counts as: it may settle it whole
# An incremental UTF-8 decoder's state past a first message, holding no cut character.
IDLE = (b"", 0)

Report = Callable[[Finding], None]


class Texts:
    """Per-key `StreamSanitizer`s, and the whole sanitised text sent for each key."""

    def __init__(
        self,
        sanitizer: Sanitizer,
        report: Report | None = None,
        *,
        keep_sent: bool = False,
        conversation: ConversationLike = None,
        context: Mapping[str, str] | None = None,
    ) -> None:
        self.sanitizer = sanitizer
        self.report = report
        # Built once: every text of the response is judged with the same one.
        self.conversation = Conversation.coerce(conversation)
        self.context = dict(context or {})
        self._streams: dict[Hashable, StreamSanitizer] = {}
        self._hold_limit = sanitizer.policy.max_hold_chars
        # Only formats that repeat the whole text later need it kept (bounded by
        # the policy's max_input_chars, as a one-shot reply is).
        self.keep_sent = keep_sent
        self.sent: dict[Hashable, list[str]] = {}
        self._kept = 0
        self._ended: set[Hashable] = set()
        self._most_held = 0
        self._times = METRICS.delta_times()  # merged at `flush_metrics` and as it fills

    def feed(self, key: Hashable, text: str) -> str:
        """Sanitise the next piece of text `key`; return what is safe to send now."""
        stream = self._streams.get(key)
        if stream is None:
            if key in self._ended:
                # A client that joins the pieces would join them across the end.
                raise FormatError(f"text {safe_name(key)} continued after it ended")
            stream = self._streams[key] = self.sanitizer.stream(
                context=self.context, on_finding=self.report, conversation=self.conversation
            )
        if METRICS.enabled:
            # The wall clock (read without a system call, unlike a CPU clock, which cost
            # more than the usual token's feed): the latency the feed adds.
            began = time.perf_counter()
            out = stream.feed(text)
            self._times.add(time.perf_counter() - began)
        else:
            out = stream.feed(text)
        return self._sent(key, out) if self.keep_sent else out

    def flush_metrics(self) -> None:
        """Merge the deltas timed so far into the metrics (done as they add up, and
        when a text closes; the response's end calls it for the rest)."""
        self._times.flush()

    def most_held(self) -> int:
        """The most characters one text held back at once, so far."""
        return max([self._most_held, *(s.most_held for s in self._streams.values())])

    def settles_at_most(self, added: int, line_ends: int = 2) -> int:
        """The most characters one of these texts can settle when `added` more
        characters holding at most `line_ends` line ends arrive (see
        `StreamSanitizer.settles_at_most`)."""
        # A text that starts now completes nothing without a blank line or the limit.
        most = added if line_ends > 1 or added > self._hold_limit else 0
        for stream in self._streams.values():
            settles = stream.settles_at_most(added, line_ends)
            if settles > most:  # noqa: PLR1730  (max() costs a call, per token)
                most = settles
        return most

    def openers(self) -> tuple[int, int]:
        """How many `[` and `<` the units still arriving hold, over all texts."""
        brackets = tags = 0
        for stream in self._streams.values():
            more_brackets, more_tags = stream.openers()
            brackets, tags = brackets + more_brackets, tags + more_tags
        return brackets, tags

    def close(self, key: Hashable) -> str:
        """End text `key`; return the rest of it ("" if it never started)."""
        stream = self._streams.pop(key, None)
        self._ended.add(key)
        self._times.flush()
        if stream is None:
            return ""
        out = stream.close()
        self._most_held = max(self._most_held, stream.most_held)
        return self._sent(key, out) if self.keep_sent else out

    def keep_whole(self) -> None:
        """Keep the whole text sent for each key from now on, for `whole`."""
        self.keep_sent = True

    def replace_whole(self, key: Hashable, text: str) -> None:
        """Make `text` what was sent for `key`: a format repeats a text whole, and it is
        that copy which is kept from now on."""
        self.sent[key] = [text]

    def open_keys(self) -> list[Hashable]:
        """The texts started and not ended, in the order they started."""
        return list(self._streams)

    def whole(self, key: Hashable) -> str | None:
        """Everything sent for `key` so far, or None if nothing was fed to it."""
        parts = self.sent.get(key)
        return None if parts is None else "".join(parts)

    def one_shot(self, text: str) -> str:
        """Sanitise a complete text that arrived in one piece."""
        result = self.sanitizer.run(text, context=self.context, conversation=self.conversation)
        if self.report is not None:
            for finding in result.findings:
                self.report(finding)
        return result.text

    def judge_url(self, url: str, *, image: bool = False) -> Finding | None:
        """The finding that removes a citation or source URL (`image`: a file shown
        inline), recorded and reported; None when it may stay."""
        construct = Construct.IMAGE if image else Construct.CITATION
        finding = self.sanitizer.check_url(
            url,
            image=image,
            construct=construct,
            context=self.context,
            conversation=self.conversation,
        )
        if finding is not None:
            self.sanitizer.record(finding)  # check_url itself records nothing
            if self.report is not None:
                self.report(finding)
        return finding

    def _sent(self, key: Hashable, out: str) -> str:
        self._kept += len(out)
        limit = self.sanitizer.policy.max_input_chars
        if self._kept > limit:
            raise InputTooLargeError(self._kept, limit)
        self.sent.setdefault(key, []).append(out)
        return out


def escaped_ends(data: bytes) -> int:
    """At most how many line ends JSON strings in `data` hold: inside a JSON string a
    line end is escaped, `\\n` or `\\u000a` (each `\\u` counted twice)."""
    return data.count(b"\\n") + 2 * data.count(b"\\u") if b"\\" in data else 0
