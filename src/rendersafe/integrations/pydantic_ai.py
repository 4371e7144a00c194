"""Pydantic AI: a capability that sanitises every reply an agent hands back.

    pip install 'rendersafe[pydantic-ai]'

    from pydantic_ai import Agent
    from rendersafe.integrations.pydantic_ai import RenderSafe

    agent = Agent("openai:gpt-5.2", capabilities=[RenderSafe()])
    result = await agent.run(question)
    result.output                                  # sanitised

    async with agent.run_stream(question) as run:
        async for text in run.stream_output():
            print(text)                            # the sanitised text so far

Pydantic AI's own hooks (`AbstractCapability`) do the work, each judging the reply with
the run's messages (what the model was sent, tool results included):

    after_model_request    the model's response, before the run reads it: its text and
                           thinking parts (the run's output and history, `agent.run()`)
    wrap_run_event_stream  the run's event stream (`run_stream_events()`, `stream_text()`,
                           an `event_stream_handler`): text and thinking parts as they
                           stream; a part's held-back tail goes out as one more delta
                           before its `PartEndEvent`, which carries the whole sanitised text
    after_output_process   a text output (`get_output()`, `stream_output()` of a streamed
                           run, whose output comes from the raw model stream): partial
                           outputs as a stream, the final one whole

One reply reaches all three; it is sanitised, and its findings recorded, once per run.
Structured (non-text) outputs are data, not rendered, and are left alone.

Not covered: `run_stream()`'s `stream_text()`. It reads the text that arrived before
the run handed the stream over (the model's first chunk, or more) from the raw model
response, not from the event stream (pydantic-ai `result.py`, `_stream_response_text`),
so that text is shown as the model sent it, and what rendersafe held of it comes again
in the events after. Use `stream_output()` (or the events) to stream text. Covering it
needs a wrapper model (`get_wrapper_model`) whose streamed response is sanitised where
the raw response is built. A reply that
cannot be sanitised raises `SanitizeError` (a stream stops, nothing held is sent); while
a required audit log cannot be written, `AuditError`. Findings go to the sanitiser's
audit log, named `pydantic_ai`, with the run's id.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterable, AsyncIterator, Callable
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    AgentStreamEvent,
    ModelResponse,
    PartDeltaEvent,
    PartEndEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
)
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.output import OutputContext
from pydantic_ai.tools import RunContext

from ..conversation import ConversationLike
from ..exchange import Exchange
from ..policy import Policy
from ..sanitizer import Sanitizer
from .common import Cumulative, open_exchange, refuse_unaudited, sanitizer_for

__all__ = ["RenderSafe"]

_NAME = "pydantic_ai"
_PARTS = (TextPart, ThinkingPart)


class RenderSafe(AbstractCapability[Any]):  # type: ignore[misc]  # typed as Any here
    """The capability (see the module docstring). `policy` (or a `sanitizer` built once,
    with its audit log) decides what is kept."""

    def __init__(self, policy: Policy | None = None, *, sanitizer: Sanitizer | None = None):
        self.sanitizer = sanitizer_for(policy, sanitizer)
        # What this run sanitised: each whole text, raw to sanitised (one reply reaches
        # the response, the events and the output: sanitised and recorded once), the
        # event stream, and a streamed output the events did not show.
        self._done: dict[str, str] = {}
        self._events: _Events | None = None
        self._output: Cumulative | None = None

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        """A fresh instance per run: a streamed output's state is the run's own."""
        return RenderSafe(sanitizer=self.sanitizer)

    async def after_model_request(
        self,
        ctx: RunContext[Any],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        """The response with its text and thinking parts sanitised."""
        exchange = self._exchange(ctx, request_context.messages)
        try:
            parts = [_part(exchange, part, self._done) for part in response.parts]
        finally:
            await exchange.aflush()
        if all(new is old for new, old in zip(parts, response.parts, strict=True)):
            return response
        return dataclasses.replace(response, parts=parts)

    async def wrap_run_event_stream(
        self, ctx: RunContext[Any], *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterator[AgentStreamEvent]:
        """The run's events, the text of each part sanitised as it streams."""
        relay = self._events = _Events(lambda: self._exchange(ctx, ctx.messages), self._done)
        try:
            async for event in stream:
                for out in relay.take(event):
                    yield out
                await relay.aflush()
            for out in relay.end():
                yield out
        finally:
            await relay.aflush()

    async def after_output_process(
        self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any
    ) -> Any:
        """A text output sanitised: partial ones as a stream, the final one whole."""
        if not isinstance(output, str):
            return output
        if output in self._done:
            return self._done[output]
        shown = self._events.shown(output) if self._events is not None else None
        if shown is not None:
            return shown
        ongoing = self._output
        before = _before_reply(ctx.messages)
        if ongoing is None and not ctx.partial_output:
            exchange = self._exchange(ctx, before)
            try:
                return _once(exchange, output, self._done)
            finally:
                await exchange.aflush()
        if ongoing is None:
            ongoing = self._output = Cumulative(self._exchange(ctx, before))
        try:
            text = ongoing.grow(output)
            if ctx.partial_output:
                return text
            self._output = None
            return ongoing.end()
        finally:
            await ongoing.exchange.aflush()

    def _exchange(self, ctx: RunContext[Any], messages: ConversationLike) -> Exchange:
        exchange = open_exchange(self.sanitizer, _NAME, conversation=messages, run_id=ctx.run_id)
        refuse_unaudited(exchange)
        return exchange


def _before_reply(messages: list[Any]) -> list[Any]:
    """The run's messages without the response the output is read from."""
    return messages[:-1] if messages and isinstance(messages[-1], ModelResponse) else messages


def _part(exchange: Exchange, part: Any, done: dict[str, str]) -> Any:
    """A response part with its text sanitised (itself when unchanged or not text)."""
    if not isinstance(part, _PARTS) or not part.content:
        return part
    content = _once(exchange, part.content, done)
    return part if content == part.content else dataclasses.replace(part, content=content)


def _once(exchange: Exchange, text: str, done: dict[str, str]) -> str:
    """`text` sanitised, or as it was sanitised before in this run."""
    if text not in done:
        done[text] = exchange.run(text)
    return done[text]


class _Events:
    """One node's event stream: each text or thinking part a stream of the exchange."""

    def __init__(self, opener: Callable[[], Exchange], done: dict[str, str]) -> None:
        self._opener = opener
        self._done = done
        self.exchange: Exchange | None = None
        self.sent: dict[int, str] = {}  # each open part's sanitised text so far
        self.raw: dict[int, str] = {}  # and as it came
        self.texts: dict[int, tuple[str, str]] = {}  # each text part: raw, sanitised so far

    def shown(self, output: str) -> str | None:
        """The sanitised text the events showed of a text output (None: not this one)."""
        ordered = [self.texts[index] for index in sorted(self.texts)]
        if not ordered or "".join(raw for raw, _ in ordered) != output:
            return None
        return "".join(sent for _, sent in ordered)

    def take(self, event: AgentStreamEvent) -> list[AgentStreamEvent]:
        """What to send on for `event`."""
        if isinstance(event, PartStartEvent) and isinstance(event.part, _PARTS):
            text = self._feed(event.index, event.part.content, isinstance(event.part, TextPart))
            if text == event.part.content:
                return [event]
            return [dataclasses.replace(event, part=dataclasses.replace(event.part, content=text))]
        if isinstance(event, PartDeltaEvent):
            return self._delta(event)
        if isinstance(event, PartEndEvent) and event.index in self.sent:
            return self._end(event)
        return [event]

    def end(self) -> list[AgentStreamEvent]:
        """Tails of parts the stream left open."""
        return [event for index in list(self.sent) for event in self._tail(index, None)]

    async def aflush(self) -> None:
        if self.exchange is not None:
            await self.exchange.aflush()

    def _feed(self, index: int, text: str, shown: bool) -> str:
        if self.exchange is None:
            self.exchange = self._opener()
        out = self.exchange.feed(text, index) if text else ""
        self.sent[index] = self.sent.get(index, "") + out
        self.raw[index] = self.raw.get(index, "") + text
        if shown:
            self.texts[index] = (self.raw[index], self.sent[index])
        return out

    def _delta(self, event: PartDeltaEvent) -> list[AgentStreamEvent]:
        delta = event.delta
        if not isinstance(delta, TextPartDelta | ThinkingPartDelta) or not delta.content_delta:
            return [event]
        out = self._feed(event.index, delta.content_delta, isinstance(delta, TextPartDelta))
        if out == delta.content_delta:
            return [event]
        if not out and isinstance(delta, TextPartDelta):
            return []  # all of it held back: it goes out when it is settled
        return [dataclasses.replace(event, delta=dataclasses.replace(delta, content_delta=out))]

    def _end(self, event: PartEndEvent) -> list[AgentStreamEvent]:
        return self._tail(event.index, event)

    def _tail(self, index: int, end: PartEndEvent | None) -> list[AgentStreamEvent]:
        """A part's held-back tail as one more delta, then its end with the whole text."""
        rest = self.exchange.close(index) if self.exchange is not None else ""
        whole = self.sent.pop(index) + rest
        raw = self.raw.pop(index)
        self._done[raw] = whole
        if index in self.texts:
            self.texts[index] = (raw, whole)
        out: list[AgentStreamEvent] = []
        if rest:
            kind = end.part if end is not None else None
            delta: Any = ThinkingPartDelta(rest) if isinstance(kind, ThinkingPart) else None
            out.append(PartDeltaEvent(index=index, delta=delta or TextPartDelta(rest)))
        if end is not None:
            part = end.part
            same = getattr(part, "content", None) == whole
            out.append(
                end
                if same
                else dataclasses.replace(end, part=dataclasses.replace(part, content=whole))
            )
        return out
