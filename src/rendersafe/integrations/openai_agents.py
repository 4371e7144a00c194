"""OpenAI Agents SDK: a model wrapper that sanitises every response and stream.

    pip install 'rendersafe[openai-agents]'

    from agents import Agent, RunConfig, Runner
    from agents.models.openai_provider import OpenAIProvider
    from rendersafe.integrations.openai_agents import RenderSafeModel, RenderSafeModelProvider

    # every agent of a run, whatever model it names
    config = RunConfig(model_provider=RenderSafeModelProvider(OpenAIProvider()))
    result = await Runner.run(agent, question, run_config=config)
    result.final_output                                   # sanitised

    # or one agent's model
    agent = Agent(name="helper", model=RenderSafeModel(OpenAIResponsesModel(...)))

An output guardrail can only trip (block the run); the SDK's way to change what a model
said is its `Model` interface, so `RenderSafeModel` wraps one. `get_response`'s output
items have each text a chat UI renders sanitised (message text and refusals, reasoning
summaries); `stream_response`'s events go through the same event-stream codec the
middleware runs on a Responses stream: deltas sanitised as they come, and every event
that repeats the whole text (`response.output_text.done`, `response.content_part.done`,
`response.output_item.done`, `response.completed`: the SDK builds the run's items and
final output from the last) carries the same sanitised text. Each response is judged
with the call's input items and system instructions.

A response that cannot be sanitised raises `SanitizeError` (a stream stops there,
nothing held is sent); while a required audit log cannot be written, `AuditError`.
Findings go to the sanitiser's audit log, named `openai_agents`, with the response id.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator
from typing import Any

from agents.items import ModelResponse, TResponseOutputItem, TResponseStreamEvent
from agents.models.interface import Model, ModelProvider
from pydantic import TypeAdapter

from ..exchange import Exchange
from ..policy import Policy
from ..sanitizer import Sanitizer
from ..wire.json_body import RESPONSE_TEXT_PATHS
from .common import JsonEvents, open_exchange, refuse_unaudited, sanitizer_for

__all__ = ["RenderSafeModel", "RenderSafeModelProvider"]

_NAME = "openai_agents"
_CALL = inspect.signature(Model.get_response)
_ITEMS: TypeAdapter[list[TResponseOutputItem]] = TypeAdapter(list[TResponseOutputItem])
_EVENT: TypeAdapter[TResponseStreamEvent] = TypeAdapter(TResponseStreamEvent)


class RenderSafeModel(Model):  # type: ignore[misc]  # the SDK is typed as Any here
    """`model`, its responses and streams sanitised. `policy` (or a `sanitizer` built
    once, with its audit log) decides what is kept."""

    def __init__(
        self, model: Model, policy: Policy | None = None, *, sanitizer: Sanitizer | None = None
    ) -> None:
        self.model = model
        self.sanitizer = sanitizer_for(policy, sanitizer)

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """The wrapped model's response, its output items' texts sanitised."""
        response = await self.model.get_response(*args, **kwargs)
        exchange = self._exchange(args, kwargs, response.response_id)
        try:
            output = _sanitised_items(exchange, response.output)
        finally:
            await exchange.aflush()
        if output is not response.output:
            response.output = output
        return response

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """The wrapped model's events, their texts sanitised as they stream."""
        exchange = self._exchange(args, kwargs, None)
        events = JsonEvents(exchange)
        try:
            async for event in self.model.stream_response(*args, **kwargs):
                for out in _events(events.feed(_json(event)), event):
                    yield out
                await exchange.aflush()
            for out in _events(events.close(), None):
                yield out
        except GeneratorExit:
            exchange.event("disconnect", "the run stopped reading mid-response")
            raise
        finally:
            exchange.finish()
            await exchange.aflush()

    async def close(self) -> None:
        """Close the wrapped model."""
        await self.model.close()

    def get_retry_advice(self, request: Any) -> Any:
        """The wrapped model's advice."""
        return self.model.get_retry_advice(request)

    async def _cleanup_on_run_end(self, owner: object) -> None:
        # The SDK's run-end hook: the wrapped model's run-scoped resources are its own.
        await self.model._cleanup_on_run_end(owner)

    def _exchange(self, args: tuple[Any, ...], kwargs: dict[str, Any], run: str | None) -> Exchange:
        call = _CALL.bind_partial(self, *args, **kwargs).arguments
        request = {"instructions": call.get("system_instructions"), "input": call.get("input")}
        exchange = open_exchange(self.sanitizer, _NAME, conversation=request, run_id=run)
        refuse_unaudited(exchange)
        return exchange


class RenderSafeModelProvider(ModelProvider):  # type: ignore[misc]
    """A provider whose every model is a `RenderSafeModel` of `provider`'s."""

    def __init__(
        self,
        provider: ModelProvider,
        policy: Policy | None = None,
        *,
        sanitizer: Sanitizer | None = None,
    ) -> None:
        self.provider = provider
        self.sanitizer = sanitizer_for(policy, sanitizer)

    def get_model(self, model_name: str | None) -> Model:
        """`provider`'s model, wrapped."""
        return RenderSafeModel(self.provider.get_model(model_name), sanitizer=self.sanitizer)

    async def aclose(self) -> None:
        """Close the wrapped provider."""
        await self.provider.aclose()


def _sanitised_items(
    exchange: Exchange, items: list[TResponseOutputItem]
) -> list[TResponseOutputItem]:
    """`items` with their rendered texts sanitised (`items` itself when none changed),
    read as the middleware reads a Responses object."""
    dumped = [item.model_dump(mode="json", exclude_unset=True) for item in items]
    body = json.dumps({"output": dumped}, ensure_ascii=False).encode()
    codec = exchange.codec("json", json_paths=RESPONSE_TEXT_PATHS)
    out = codec.feed(body) + codec.close()
    if out == body:
        return items
    return _ITEMS.validate_python(json.loads(out)["output"])


def _json(event: Any) -> str:
    return str(event.model_dump_json(exclude_unset=True))


def _events(texts: list[str], given: Any) -> list[Any]:
    """The events to send: `given` itself where its text came back unchanged."""
    same = given is not None and len(texts) == 1 and texts[0] == _json(given)
    return [given] if same else [_EVENT.validate_json(text) for text in texts]
