"""OpenAI Agents SDK, with the real package and a model of its own `Model` interface.

The model first calls a tool (its result carries the user's key), then replies with
EXFIL; streamed, it sends the Responses events the SDK's OpenAI models send (deltas of
five characters, then `output_text.done`, `content_part.done`, `output_item.done` and
`response.completed`, each repeating the whole text). `RenderSafeModel` sanitises the
run's final output and every event a streaming caller sees; honest replies pass byte
for byte; findings are audited, named `openai_agents`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters import EXFIL, HONEST, TOKEN, Audit, broken_sanitizer, expected, need, pieces

need("agents")
from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model, ModelProvider  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import (  # noqa: E402
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
)

from rendersafe.errors import AuditError  # noqa: E402
from rendersafe.integrations.openai_agents import (  # noqa: E402
    RenderSafeModel,
    RenderSafeModelProvider,
)

set_tracing_disabled(True)  # nothing leaves the machine
QUESTION = "Chart my usage, please."
TOOL_SAYS = [{"role": "tool", "content": f"API key: {TOKEN}"}]


@function_tool  # type: ignore[untyped-decorator]  # typed as Any here
def account(query: str) -> str:
    """The user's account details."""
    return f"plan: pro; API key: {TOKEN}"


def _message(text: str) -> ResponseOutputMessage:
    part = ResponseOutputText(type="output_text", text=text, annotations=[])
    return ResponseOutputMessage(
        id="msg_1", type="message", role="assistant", status="completed", content=[part]
    )


def _call() -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call", call_id="c1", name="account", arguments=json.dumps({"query": "key"})
    )


def _response(output: list[Any]) -> Response:
    return Response(
        id="resp_1", object="response", created_at=1, model="fake", output=output,
        parallel_tool_calls=False, tool_choice="auto", tools=[], status="completed",
    )  # fmt: skip


def _called(items: Any) -> bool:
    return isinstance(items, list) and any(
        isinstance(i, dict) and i.get("type") == "function_call_output" for i in items
    )


def _text_events(text: str) -> Iterator[Any]:
    """The events an OpenAI Responses stream of one message sends."""
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    empty = ResponseOutputText(type="output_text", text="", annotations=[])
    yield ResponseOutputItemAddedEvent(
        type="response.output_item.added", output_index=0, sequence_number=1,
        item=_message("").model_copy(update={"content": [], "status": "in_progress"}),
    )  # fmt: skip
    yield ResponseContentPartAddedEvent(
        type="response.content_part.added", sequence_number=2, part=empty, **where
    )
    for piece in pieces(text):
        yield ResponseTextDeltaEvent(
            type="response.output_text.delta", delta=piece, logprobs=[], sequence_number=3, **where
        )
    yield ResponseTextDoneEvent(
        type="response.output_text.done", text=text, logprobs=[], sequence_number=4, **where
    )
    whole = ResponseOutputText(type="output_text", text=text, annotations=[])
    yield ResponseContentPartDoneEvent(
        type="response.content_part.done", part=whole, sequence_number=5, **where
    )
    yield ResponseOutputItemDoneEvent(
        type="response.output_item.done", output_index=0, item=_message(text), sequence_number=6
    )


class Scripted(Model):  # type: ignore[misc]  # the SDK is typed as Any here
    """Calls `account` first, then says `reply`, whole or as a stream."""

    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        output = [_message(self.reply)] if _called(input) else [_call()]
        return ModelResponse(output=output, usage=Usage(), response_id="resp_1")

    async def stream_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> AsyncIterator[Any]:
        start = _response([]).model_copy(update={"status": "in_progress"})
        yield ResponseCreatedEvent(type="response.created", response=start, sequence_number=0)
        if not _called(input):
            output: list[Any] = [_call()]
            yield ResponseOutputItemDoneEvent(
                type="response.output_item.done", output_index=0, item=_call(), sequence_number=1
            )
        else:
            output = [_message(self.reply)]
            for event in _text_events(self.reply):
                yield event
        yield ResponseCompletedEvent(
            type="response.completed", response=_response(output), sequence_number=7
        )


class Provider(ModelProvider):  # type: ignore[misc]
    def get_model(self, model_name: str | None) -> Model:
        return Scripted(EXFIL)


def _agent(model: Any) -> Agent[Any]:
    return Agent(name="helper", instructions="Answer briefly.", model=model, tools=[account])


def test_a_runs_output_is_sanitised_with_its_input_items(tmp_path: Path) -> None:
    audit = Audit(tmp_path / "audit.jsonl")
    model = RenderSafeModel(Scripted(EXFIL), sanitizer=audit.sanitizer)
    result = asyncio.run(Runner.run(_agent(model), QUESTION))
    assert result.final_output == expected(EXFIL, TOOL_SAYS)
    assert (
        TOKEN not in result.final_output
    )  # the tool's output, an input item, was the conversation
    found = audit.findings("openai_agents")
    assert len(found) == 2
    assert {r["source"]["request_id"] for r in found} == {"resp_1"}


def test_without_the_wrapper_the_key_goes_out() -> None:
    result = asyncio.run(Runner.run(_agent(Scripted(EXFIL)), QUESTION))
    assert TOKEN in result.final_output


def test_a_streamed_run_shows_only_sanitised_text() -> None:
    async def run() -> tuple[list[Any], str]:
        streamed = Runner.run_streamed(_agent(RenderSafeModel(Scripted(EXFIL))), QUESTION)
        events = [e.data async for e in streamed.stream_events() if e.type == "raw_response_event"]
        return events, streamed.final_output

    events, final = asyncio.run(run())
    want = expected(EXFIL, TOOL_SAYS)
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert "".join(deltas) == want
    (done,) = [e.text for e in events if e.type == "response.output_text.done"]
    (part,) = [e.part.text for e in events if e.type == "response.content_part.done"]
    (item,) = [
        e.item.content[0].text
        for e in events
        if e.type == "response.output_item.done" and e.item.type == "message"
    ]
    completed = [e.response.output for e in events if e.type == "response.completed"][-1]
    assert done == part == item == completed[0].content[0].text == final == want
    assert TOKEN not in json.dumps(
        [e.model_dump(mode="json") for e in events if "function" not in str(e.type)]
    )


def test_a_provider_wraps_every_model_it_gives() -> None:
    config = RunConfig(model_provider=RenderSafeModelProvider(Provider()))
    result = asyncio.run(Runner.run(_agent("any-model"), QUESTION, run_config=config))
    assert result.final_output == expected(EXFIL, TOOL_SAYS)


def test_honest_replies_are_unchanged() -> None:
    async def run() -> tuple[str, str, str]:
        whole = await Runner.run(_agent(RenderSafeModel(Scripted(HONEST))), QUESTION)
        streamed = Runner.run_streamed(_agent(RenderSafeModel(Scripted(HONEST))), QUESTION)
        deltas = [
            e.data.delta
            async for e in streamed.stream_events()
            if e.type == "raw_response_event" and e.data.type == "response.output_text.delta"
        ]
        return whole.final_output, "".join(deltas), streamed.final_output

    assert asyncio.run(run()) == (HONEST, HONEST, HONEST)


def test_an_honest_response_keeps_its_items() -> None:
    inner = Scripted(HONEST)
    items = [{"type": "function_call_output", "call_id": "c1", "output": "ok"}]
    response = asyncio.run(
        RenderSafeModel(inner).get_response("be brief", items, None, [], None, [], None)
    )
    assert response.output[0].content[0].text == HONEST


def test_a_required_audit_log_that_is_down_refuses_the_reply() -> None:
    model = RenderSafeModel(Scripted(HONEST), sanitizer=broken_sanitizer())
    with pytest.raises(AuditError):
        asyncio.run(Runner.run(_agent(model), QUESTION))
