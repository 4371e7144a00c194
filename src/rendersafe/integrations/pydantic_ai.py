"""Pydantic AI: a capability that sanitises every reply an agent hands back.

    pip install 'rendersafe[pydantic-ai]'

    from pydantic_ai import Agent
    from rendersafe.integrations.pydantic_ai import RenderSafe

    agent = Agent("openai:gpt-5.2", capabilities=[RenderSafe()])
    result = await agent.run(question)
    result.output                                  # sanitised

    async with agent.run_stream(question) as run:
        async for text in run.stream_text(delta=True):
            print(text, end="")                    # sanitised as it streams

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

Structured (non-text) outputs are data, not rendered, and are left alone. A reply that
cannot be sanitised raises `SanitizeError` (a stream stops, nothing held is sent); while
a required audit log cannot be written, `AuditError`. Findings go to the sanitiser's
audit log, named `pydantic_ai`, with the run's id.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterable, AsyncIterator
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
        self._output: Cumulative | None = None  # a streamed run's text output, as it grows

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
            parts = [_part(exchange, part) for part in response.parts]
        finally:
            await exchange.aflush()
        if all(new is old for new, old in zip(parts, response.parts, strict=True)):
            return response
        return dataclasses.replace(response, parts=parts)

    async def wrap_run_event_stream(
        self, ctx: RunContext[Any], *, stream: AsyncIterable[AgentStreamEvent]
    ) -> AsyncIterator[AgentStreamEvent]:
        """The run's events, the text of each part sanitised as it streams."""
        relay = _Events(lambda: self._exchange(ctx, ctx.messages))
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
        ongoing = self._output
        if ongoing is None and not ctx.partial_output:
            exchange = self._exchange(ctx, ctx.messages)
            try:
                return exchange.run(output)
            finally:
                await exchange.aflush()
        if ongoing is None:
            ongoing = self._output = Cumulative(self._exchange(ctx, ctx.messages))
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


def _part(exchange: Exchange, part: Any) -> Any:
    """A response part with its text sanitised (itself when unchanged or not text)."""
    if not isinstance(part, _PARTS) or not part.content:
        return part
    content = exchange.run(part.content)
    return part if content == part.content else dataclasses.replace(part, content=content)


class _Events:
    """One node's event stream: each text or thinking part a stream of the exchange."""

    def __init__(self, opener: Any) -> None:
        self._opener = opener
        self.exchange: Exchange | None = None
        self.sent: dict[int, str] = {}  # each open part's sanitised text so far

    def take(self, event: AgentStreamEvent) -> list[AgentStreamEvent]:
        """What to send on for `event`."""
        if isinstance(event, PartStartEvent) and isinstance(event.part, _PARTS):
            text = self._feed(event.index, event.part.content)
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

    def _feed(self, index: int, text: str) -> str:
        if self.exchange is None:
            self.exchange = self._opener()
        out = self.exchange.feed(text, index) if text else ""
        self.sent[index] = self.sent.get(index, "") + out
        return out

    def _delta(self, event: PartDeltaEvent) -> list[AgentStreamEvent]:
        delta = event.delta
        if not isinstance(delta, TextPartDelta | ThinkingPartDelta) or not delta.content_delta:
            return [event]
        out = self._feed(event.index, delta.content_delta)
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
