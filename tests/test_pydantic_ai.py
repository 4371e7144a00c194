"""Pydantic AI, with the real package and its own model doubles (`FunctionModel`,
`TestModel`).

An agent whose model first calls a tool (its result carries the user's key), then
replies with EXFIL, streamed four characters at a time: the `RenderSafe` capability
sanitises `run()`'s output, `run_stream()`'s text and output, and the event stream;
honest replies pass byte for byte; findings are audited, named `pydantic_ai`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters import (
    CONVERSATION,
    EXFIL,
    HONEST,
    TOKEN,
    USER_SAYS,
    Audit,
    broken_sanitizer,
    check_exfil,
    expected,
    need,
    pieces,
)

need("pydantic_ai")
from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelResponse,
    PartEndEvent,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import (  # noqa: E402
    AgentInfo,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from pydantic_ai.models.test import TestModel  # noqa: E402

from rendersafe.errors import AuditError  # noqa: E402
from rendersafe.integrations.pydantic_ai import RenderSafe  # noqa: E402

QUESTION = "Chart my usage, please."
CALL_ARGS = json.dumps({"query": "key"})
TOOL_SAYS = [{"role": "tool", "content": f"API key: {TOKEN}"}]


def _called(messages: list[ModelMessage]) -> bool:
    return any(p.part_kind == "tool-return" for m in messages for p in m.parts)


def _model(reply: str) -> FunctionModel:
    """Calls `account` first, then says `reply` (streamed in pieces)."""

    def whole(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not _called(messages):
            return ModelResponse(parts=[ToolCallPart("account", {"query": "key"}, "c1")])
        return ModelResponse(parts=[TextPart(reply)])

    async def streamed(
        messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        if not _called(messages):
            yield {0: DeltaToolCall(name="account", json_args=CALL_ARGS, tool_call_id="c1")}
            return
        for piece in pieces(reply, 4):
            yield piece

    return FunctionModel(whole, stream_function=streamed)


def _agent(reply: str, capability: RenderSafe | None = None) -> Agent[None, str]:
    agent = Agent(_model(reply), capabilities=[capability or RenderSafe()])

    @agent.tool_plain  # type: ignore[untyped-decorator]  # typed as Any here
    def account(query: str) -> str:
        """The user's account details."""
        return f"plan: pro; API key: {TOKEN}"

    return agent


def test_run_output_is_sanitised_with_the_runs_messages(tmp_path: Path) -> None:
    audit = Audit(tmp_path / "audit.jsonl")
    result = asyncio.run(_agent(EXFIL, RenderSafe(sanitizer=audit.sanitizer)).run(QUESTION))
    assert result.output == expected(EXFIL, TOOL_SAYS)
    assert TOKEN not in result.output  # the tool's result was the conversation
    assert TOKEN not in str(result.all_messages()[-1])  # the history holds what was served
    assert len(audit.findings("pydantic_ai")) == 2
    assert {r["source"]["request_id"] for r in audit.findings("pydantic_ai")} == {result.run_id}


def test_run_stream_output_is_sanitised(tmp_path: Path) -> None:
    audit = Audit(tmp_path / "audit.jsonl")

    async def run() -> tuple[list[str], str]:
        capability = RenderSafe(sanitizer=audit.sanitizer)
        async with _agent(EXFIL, capability).run_stream(QUESTION) as streamed:
            outputs = [o async for o in streamed.stream_output(debounce_by=None)]
            return outputs, await streamed.get_output()

    outputs, output = asyncio.run(run())
    assert outputs[-1] == output == expected(EXFIL, TOOL_SAYS)
    assert len(outputs) > 2
    assert len(audit.findings("pydantic_ai")) == 2  # one reply, recorded once


def test_partial_outputs_never_show_what_is_held() -> None:
    async def run() -> list[str]:
        async with _agent(EXFIL).run_stream(QUESTION) as streamed:
            return [o async for o in streamed.stream_output(debounce_by=None)]

    partials = asyncio.run(run())
    assert len(partials) > 2
    assert not any("evil.example" in p or TOKEN in p for p in partials)


def test_the_event_stream_is_sanitised_and_its_end_repeats_the_whole_text() -> None:
    async def run() -> list[Any]:
        async with _agent(EXFIL).run_stream_events(QUESTION) as events:
            return [e async for e in events]

    events = asyncio.run(run())
    ends = [e for e in events if isinstance(e, PartEndEvent) and isinstance(e.part, TextPart)]
    assert ends[-1].part.content == expected(EXFIL, TOOL_SAYS)
    assert TOKEN not in "".join(repr(e) for e in events if "tool" not in type(e).__name__.lower())


def test_honest_replies_are_unchanged() -> None:
    async def run() -> tuple[str, str, list[Any]]:
        result = await _agent(HONEST).run(QUESTION)
        async with _agent(HONEST).run_stream(QUESTION) as streamed:
            outputs = [o async for o in streamed.stream_output(debounce_by=None)]
        async with _agent(HONEST).run_stream_events(QUESTION) as events:
            return result.output, outputs[-1], [e async for e in events]

    output, streamed, events = asyncio.run(run())
    assert output == streamed == HONEST
    ends = [e for e in events if isinstance(e, PartEndEvent) and isinstance(e.part, TextPart)]
    assert ends[-1].part.content == HONEST


def test_with_testmodel_the_user_prompt_is_the_conversation() -> None:
    agent = Agent(TestModel(custom_output_text=EXFIL, call_tools=[]), capabilities=[RenderSafe()])
    check_exfil(asyncio.run(agent.run(USER_SAYS)).output)


def test_message_history_is_the_conversation_too() -> None:
    agent = Agent(TestModel(custom_output_text=EXFIL, call_tools=[]), capabilities=[RenderSafe()])
    first = asyncio.run(agent.run(USER_SAYS))
    again = asyncio.run(agent.run("And again.", message_history=first.all_messages()))
    assert again.output == expected(EXFIL, CONVERSATION)


def test_a_required_audit_log_that_is_down_refuses_the_reply() -> None:
    agent = Agent(
        TestModel(custom_output_text=HONEST),
        capabilities=[RenderSafe(sanitizer=broken_sanitizer())],
    )
    with pytest.raises(AuditError):
        asyncio.run(agent.run(QUESTION))
