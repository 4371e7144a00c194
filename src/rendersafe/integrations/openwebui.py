"""Open WebUI: a Filter function that sanitises every reply before the browser renders it.

    # Admin Panel -> Functions -> import `openwebui_function.py` (its header says
    # `requirements: rendersafe`), enable it, make it global (or attach it to models)
    from rendersafe.integrations.openwebui import Filter

Open WebUI calls the filter's `stream(event)` for every event of a streamed reply
before the browser sees it, and `outlet(body)` with the finished chat. Each reply is
judged with the messages of the request (`__body__`; in `outlet`, the chat before the
reply).

    stream   a Chat Completions chunk (`choices[].delta`), or a Responses API event on a
             connection of that API type (deltas, and `response.output_text.done`,
             `response.content_part.done`, `response.output_item.done`,
             `response.completed`, which repeat the whole text and from which Open
             WebUI rebuilds the message: each carries the same sanitised text). Events
             go through the event-stream codec the middleware runs on the same streams;
             an event whose text is all held back is dropped (it goes out in a later
             one). A raw `data:` chunk (Open WebUI's fallback path) is rewritten as text.
    outlet   the chat's last model message, sanitised whole: a reply that was not
             streamed, and the copy Open WebUI saves.

Valves: `policy_file` (a TOML policy; empty: `$RENDERSAFE_POLICY_FILE`, else the
defaults) and `audit_log` (a JSONL audit log; empty: none). It fails closed: an event
that cannot be sanitised, and every later one of that reply, is dropped (recorded), and
the saved reply ends with `WITHHELD`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from pydantic import BaseModel, Field

from ..audit import AuditLog, JsonlSink
from ..config import load_policy
from ..errors import FormatError
from ..exchange import Exchange
from ..sanitizer import Sanitizer
from ..shapes import MODEL, Chat, put, read
from .common import WITHHELD, JsonEvents, open_exchange

__all__ = ["MAX_STREAMS", "Filter"]

logger = logging.getLogger("rendersafe.openwebui")

_NAME = "openwebui"
# Replies streaming at once that the filter keeps state for; past it the oldest is
# dropped (its outlet never came: an API call, a closed tab).
MAX_STREAMS = 1024


class _Reply:
    """One streamed reply: its exchange and its events."""

    def __init__(self, exchange: Exchange) -> None:
        self.exchange = exchange
        self.events: JsonEvents | None = None  # from the first event of a reply's format
        self.withheld = False


class Filter:
    """The Open WebUI Filter (see the module docstring)."""

    class Valves(BaseModel):
        """The filter's settings, shown on Open WebUI's Functions page."""

        priority: int = Field(default=0, description="Order among filters (lowest first).")
        policy_file: str = Field(
            default="",
            description="A rendersafe TOML policy. Empty: $RENDERSAFE_POLICY_FILE, else defaults.",
        )
        audit_log: str = Field(default="", description="A JSONL audit log path. Empty: none.")

    def __init__(self) -> None:
        self.valves = self.Valves()
        self._replies: OrderedDict[Hashable, _Reply] = OrderedDict()
        self._sanitizers: dict[tuple[str, str], Sanitizer] = {}
        self._lock = threading.Lock()

    async def stream(
        self,
        event: Any,
        __body__: dict[str, Any] | None = None,
        __metadata__: dict[str, Any] | None = None,
    ) -> Any:
        """The event to send in place of `event` (None: none yet)."""
        key = _key(__metadata__, __body__)
        reply = self._reply(key, __body__)
        if reply.withheld:
            return None
        try:
            out = _rewritten(reply, event)
        except Exception as exc:  # whatever broke, nothing held may reach the browser
            self._withhold(reply, exc)
            return None
        await reply.exchange.aflush()
        return out

    async def outlet(
        self, body: dict[str, Any], __metadata__: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """`body` with its last model message sanitised."""
        with self._lock:
            streamed = self._replies.pop(_key(__metadata__, body), None)
        if streamed is not None:
            streamed.exchange.finish()
            await streamed.exchange.aflush()
        chat = read(body.get("messages"))
        reply = _last_reply(chat)
        if not reply:
            return body
        before = Chat(tuple(t for t in chat.texts if t.turn != reply[0].turn), chat.shape)
        exchange = open_exchange(self._sanitizer(), _NAME, conversation=before)
        served = exchange.may_serve()
        if not served:
            exchange.refused()
        try:
            for text in reply:
                out = _sanitised_or_withheld(exchange, text.text) if served else WITHHELD
                if streamed is not None and streamed.withheld and served:
                    out = f"{out}\n\n{WITHHELD}"
                if out != text.text:
                    put(body, ("messages", *text.path), out)
        finally:
            await exchange.aflush()
        return body

    def _reply(self, key: Hashable, body: dict[str, Any] | None) -> _Reply:
        with self._lock:
            reply = self._replies.get(key)
            if reply is not None:
                self._replies.move_to_end(key)
                return reply
            messages = body.get("messages") if isinstance(body, dict) else None
            exchange = open_exchange(self._sanitizer(), _NAME, conversation=messages)
            reply = self._replies[key] = _Reply(exchange)
            if not exchange.may_serve():
                exchange.refused()
                reply.withheld = True
            while len(self._replies) > MAX_STREAMS:
                _, dropped = self._replies.popitem(last=False)
                dropped.exchange.finish()
                dropped.exchange.flush()
            return reply

    def _sanitizer(self) -> Sanitizer:
        """The sanitiser of the valves in force (built once per policy and log)."""
        valves = (self.valves.policy_file, self.valves.audit_log)
        sanitizer = self._sanitizers.get(valves)
        if sanitizer is None:
            policy = load_policy(valves[0] or None)
            audit = AuditLog([JsonlSink(valves[1])]) if valves[1] else None
            sanitizer = self._sanitizers[valves] = Sanitizer(policy, audit=audit)
        return sanitizer

    def _withhold(self, reply: _Reply, exc: Exception) -> None:
        logger.warning("rendersafe: a streamed reply was withheld: %s", type(exc).__name__)
        reply.exchange.event("error", f"withheld: {type(exc).__name__}: {exc}"[:500])
        reply.exchange.flush()
        reply.withheld = True


def _key(metadata: dict[str, Any] | None, body: dict[str, Any] | None) -> Hashable:
    """Which reply an event belongs to: Open WebUI's chat and message ids, else the
    request's own objects (one per request)."""
    meta = metadata if isinstance(metadata, dict) else {}
    message = meta.get("message_id")
    if message:
        return ("message", str(meta.get("chat_id") or ""), str(message))
    return ("request", id(metadata) if metadata is not None else id(body))


def _rewritten(reply: _Reply, event: Any) -> Any:
    """`event` with its text sanitised: a dict (a parsed event), or raw event text."""
    if isinstance(event, bytes | str):
        raw = event.encode() if isinstance(event, str) else event
        out = _first(reply, lambda events: [events.codec.feed(raw).decode()], event)
        return out[0].encode() if isinstance(event, bytes) and out else (out or [""])[0]
    if not isinstance(event, dict):
        return event
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    texts = _first(reply, lambda events: events.feed(data), [data])
    if not texts:
        return None
    # Several events for one: a held tail, then the event that repeats the whole text
    # (from which Open WebUI rebuilds the message): that last one is sent.
    return event if texts == [data] else json.loads(texts[-1])


def _first(reply: _Reply, feed: Callable[[JsonEvents], list[str]], unread: Any) -> Any:
    """`feed` the reply's events; before a reply's format is known, an event of none
    (Open WebUI's own: `selected_model_id`, `sources`) passes as it is (`unread`)."""
    if reply.events is not None:
        return feed(reply.events)
    events = JsonEvents(reply.exchange)
    try:
        out = feed(events)
    except FormatError:
        return unread
    reply.events = events
    return out


def _last_reply(chat: Chat) -> list[Any]:
    """The rendered texts of the chat's last model message."""
    turns = [t.turn for t in chat.texts if t.role == MODEL and t.rendered]
    if not turns:
        return []
    last = max(turns)
    return [
        t for t in chat.texts if t.turn == last and t.role == MODEL and t.rendered and t.editable
    ]


def _sanitised_or_withheld(exchange: Exchange, text: str) -> str:
    try:
        return exchange.run(text)
    except Exception as exc:  # the saved reply fails closed too
        exchange.event("error", f"withheld: {type(exc).__name__}"[:500])
        return WITHHELD
