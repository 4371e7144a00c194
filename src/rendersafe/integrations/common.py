"""What every framework adapter shares: its sanitiser, its exchanges, its refusal.

    sanitizer = sanitizer_for(policy, sanitizer)     # built once per adapter
    exchange = open_exchange(sanitizer, "langchain", conversation=messages, run_id=run)
    refuse_unaudited(exchange)                       # AuditError while a required log is down

An adapter holds one `Sanitizer` (built once: its policy compiled once) and opens one
`Exchange` per model reply, named in its audit records by the framework (`context`:
`integration`) and the framework's own id for the run, when it has one.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping

from ..audit import Source
from ..conversation import ConversationLike
from ..errors import AuditError, PolicyError
from ..exchange import Exchange
from ..policy import Policy
from ..sanitizer import Sanitizer
from ..wire import Codec
from ..wire.sse import SseReader

__all__ = [
    "WITHHELD",
    "Cumulative",
    "JsonEvents",
    "open_exchange",
    "refuse_unaudited",
    "sanitizer_for",
]

# What a stream shows in place of what it could not sanitise (no traceback, no reply).
WITHHELD = "rendersafe withheld the rest of this reply"


def sanitizer_for(policy: Policy | None, sanitizer: Sanitizer | None) -> Sanitizer:
    """`sanitizer`, or one for `policy` (shared by every adapter given that policy)."""
    if sanitizer is not None and policy is not None:
        raise PolicyError("policy", "give a policy or a sanitizer, not both")
    if sanitizer is not None:
        return sanitizer
    return _shared(policy if policy is not None else Policy())


@functools.lru_cache(maxsize=16)
def _shared(policy: Policy) -> Sanitizer:
    return Sanitizer(policy)


def open_exchange(
    sanitizer: Sanitizer,
    integration: str,
    *,
    conversation: ConversationLike = None,
    run_id: str | None = None,
    context: Mapping[str, str] | None = None,
) -> Exchange:
    """The exchange of one model reply, its audit records naming `integration`."""
    source = Source(kind="middleware", request_id=run_id or uuid.uuid4().hex)
    extra = {"integration": integration, **(context or {})}
    return Exchange(sanitizer, conversation=conversation, context=extra, source=source)


def refuse_unaudited(exchange: Exchange) -> None:
    """Raise `AuditError` (recorded) while the policy requires an audit log that cannot
    be written: no reply is served unaudited."""
    if not exchange.may_serve():
        exchange.refused()
        raise AuditError("the audit log cannot be written: the reply is withheld")


class Cumulative:
    """A text given whole so far each time (Gradio's convention, a framework's partial
    outputs), sanitised as a stream of `exchange`: `grow` gives the sanitised text so
    far, `end` all of it. A value that does not extend the last one starts it again."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.key = 0  # the exchange's text: a new one each time the value starts again
        self.received = ""
        self.sent = ""

    def grow(self, value: str) -> str:
        """The sanitised text so far, once `value` (the whole text so far) is taken."""
        if value.startswith(self.received):
            delta = value[len(self.received) :]
        else:
            self.exchange.close(self.key)
            self.key, self.sent, delta = self.key + 1, "", value
        self.received = value
        self.sent += self.exchange.feed(delta, self.key)
        return self.sent

    def end(self) -> str:
        """The whole sanitised text."""
        self.sent += self.exchange.close(self.key)
        return self.sent


class JsonEvents:
    """A stream of JSON events (chat chunks, Responses events) handed over one by one,
    sanitised by the exchange's event-stream codec as the middleware sanitises the
    same events on the wire: `feed` takes one event's JSON text and gives the JSON
    texts of the events to send in its place (none while its text is held back; the
    same text when nothing changed); `close` gives those still held at the end."""

    def __init__(self, exchange: Exchange) -> None:
        self.codec: Codec = exchange.codec("sse")
        self.reader = SseReader()

    def feed(self, data: str) -> list[str]:
        """The events to send for the event whose JSON text is `data`."""
        return self._events(self.codec.feed(f"data: {data}\n\n".encode()))

    def close(self) -> list[str]:
        """The events still held when the stream ends."""
        return self._events(self.codec.close()) + [
            event.data for event in self.reader.close() if event.data is not None
        ]

    def _events(self, out: bytes) -> list[str]:
        events = self.reader.feed(out.decode("utf-8"))
        return [event.data for event in events if event.data is not None]
