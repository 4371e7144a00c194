"""LangChain v1 and LangGraph, with the real packages and LangChain's fake chat model.

An agent (`create_agent`) that calls a tool whose result carries the user's key, then
replies with EXFIL (its image split across the streamed chunks): `RenderSafeMiddleware`
rewrites the reply in the agent's state, and `RenderSafeTransform` sanitises the
`stream_mode="messages"` stream and an LCEL chain's, sync and async; honest replies
pass byte for byte; findings are audited, named `langchain`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
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
)

need("langchain.agents")
from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage  # noqa: E402
from langchain_core.outputs import ChatGenerationChunk  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from rendersafe.errors import AuditError, FormatError  # noqa: E402
from rendersafe.integrations.langchain import (  # noqa: E402
    RenderSafeMiddleware,
    RenderSafeTransform,
)

INPUTS = {"messages": [{"role": "user", "content": "Chart my usage, please."}]}


@tool  # type: ignore[untyped-decorator]  # langchain is typed as Any here
def account(query: str) -> str:
    """The user's account details."""
    return f"plan: pro; API key: {TOKEN}"


class ToolCallingFake(GenericFakeChatModel):  # type: ignore[misc]
    """LangChain's fake chat model, able to stream a tool call too (its own streams
    text only, split at whitespace: EXFIL's image falls across several chunks)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:
        return self

    def _stream(
        self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        message = self._generate(messages).generations[0].message
        if isinstance(message, AIMessage) and message.tool_calls:
            calls = [
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(message.tool_calls)
            ]
            chunk = AIMessageChunk(content="", tool_call_chunks=calls, chunk_position="last")
            yield ChatGenerationChunk(message=chunk)
            return
        self.messages = iter([message])
        yield from super()._stream(messages, stop, run_manager, **kwargs)


def _model(reply: str) -> ToolCallingFake:
    call = AIMessage(
        content="", tool_calls=[{"name": "account", "args": {"query": "key"}, "id": "c1"}]
    )
    return ToolCallingFake(messages=iter([call, AIMessage(content=reply)]))


def _streamed(pairs: list[tuple[BaseMessage, Any]]) -> str:
    """The text of the model's reply as a caller of the stream sees it."""
    texts = [m.content for m, meta in pairs if isinstance(m, AIMessageChunk)]
    return "".join(t for t in texts if isinstance(t, str))


def test_the_middleware_rewrites_the_reply_in_the_state(tmp_path: Path) -> None:
    audit = Audit(tmp_path / "audit.jsonl")
    agent = create_agent(
        _model(EXFIL), tools=[account], middleware=[RenderSafeMiddleware(sanitizer=audit.sanitizer)]
    )
    state = agent.invoke(INPUTS)
    reply = state["messages"][-1]
    assert reply.content == expected(EXFIL, [{"role": "tool", "content": f"API key: {TOKEN}"}])
    assert TOKEN not in reply.content  # the tool's result was the conversation
    assert len(audit.findings("langchain")) == 2


def test_the_middleware_leaves_an_honest_reply_alone() -> None:
    agent = create_agent(_model(HONEST), tools=[account], middleware=[RenderSafeMiddleware()])
    state = agent.invoke(INPUTS)
    assert state["messages"][-1].content == HONEST


def test_the_middleware_on_an_event_loop(tmp_path: Path) -> None:
    audit = Audit(tmp_path / "audit.jsonl")
    agent = create_agent(
        _model(EXFIL), tools=[account], middleware=[RenderSafeMiddleware(sanitizer=audit.sanitizer)]
    )
    state = asyncio.run(agent.ainvoke(INPUTS))
    assert TOKEN not in state["messages"][-1].content
    assert len(audit.findings("langchain")) == 2


def test_the_middleware_refuses_while_a_required_audit_log_is_down() -> None:
    agent = create_agent(
        _model(HONEST),
        tools=[account],
        middleware=[RenderSafeMiddleware(sanitizer=broken_sanitizer())],
    )
    with pytest.raises(AuditError):
        agent.invoke(INPUTS)


def test_the_transform_sanitises_an_agents_message_stream(tmp_path: Path) -> None:
    audit = Audit(tmp_path / "audit.jsonl")
    agent = create_agent(_model(EXFIL), tools=[account])
    guard = RenderSafeTransform(sanitizer=audit.sanitizer, conversation=INPUTS["messages"])
    pairs = list(guard.transform(agent.stream(INPUTS, stream_mode="messages")))
    text = _streamed(pairs)
    assert text == expected(EXFIL, [{"role": "tool", "content": f"API key: {TOKEN}"}])
    assert TOKEN not in text  # the tool's result, passing in the stream, joined the conversation
    assert all(isinstance(meta, dict) for _, meta in pairs)  # the pairs keep their metadata
    assert len(audit.findings("langchain")) == 2


def test_without_the_transform_the_stream_carries_the_key() -> None:
    agent = create_agent(_model(EXFIL), tools=[account])
    assert TOKEN in _streamed(list(agent.stream(INPUTS, stream_mode="messages")))


def test_the_transform_on_an_event_loop() -> None:
    agent = create_agent(_model(EXFIL), tools=[account])
    guard = RenderSafeTransform(conversation=INPUTS["messages"])

    async def run() -> list[Any]:
        return [p async for p in guard.atransform(agent.astream(INPUTS, stream_mode="messages"))]

    assert TOKEN not in _streamed(asyncio.run(run()))


def test_the_transform_passes_an_honest_stream_unchanged() -> None:
    agent = create_agent(_model(HONEST), tools=[account])
    raw = list(agent.stream(INPUTS, stream_mode="messages"))
    agent = create_agent(_model(HONEST), tools=[account])
    guarded = list(RenderSafeTransform().transform(agent.stream(INPUTS, stream_mode="messages")))
    assert _streamed(guarded) == HONEST
    assert len(guarded) == len(raw)  # every chunk goes on (text held back rides a later one)
    assert [type(m) for m, _ in guarded] == [type(m) for m, _ in raw]


def test_the_transform_ends_an_lcel_chain() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "{question}")])
    model = GenericFakeChatModel(messages=iter([EXFIL, EXFIL]))
    chain = prompt | model | RenderSafeTransform(conversation=CONVERSATION)
    streamed = [chunk.content for chunk in chain.stream({"question": USER_SAYS})]
    check_exfil("".join(streamed))
    assert len(streamed) > 1
    check_exfil(chain.invoke({"question": USER_SAYS}).content)


def test_the_transform_takes_strings() -> None:
    guard = RenderSafeTransform(conversation=CONVERSATION)
    check_exfil("".join(guard.transform(iter([EXFIL[:30], EXFIL[30:60], EXFIL[60:]]))))


def test_a_message_left_open_gets_its_tail_in_one_more_chunk() -> None:
    chunks = [
        AIMessageChunk(content=EXFIL[:40], id="m1"),
        AIMessageChunk(content=EXFIL[40:], id="m1"),
    ]
    out = list(RenderSafeTransform(conversation=CONVERSATION).transform(iter(chunks)))
    assert [c.id for c in out] == ["m1", "m1", "m1"]
    check_exfil("".join(c.content for c in out))


def test_content_blocks_are_sanitised_block_by_block() -> None:
    blocks = [{"type": "text", "text": EXFIL, "index": 0}, {"type": "tool_use", "id": "t"}]
    out = list(
        RenderSafeTransform(conversation=CONVERSATION).transform(iter([AIMessage(content=blocks)]))
    )
    (message,) = out
    check_exfil(message.content[0]["text"])
    assert message.content[1] == blocks[1]


def test_what_it_cannot_read_stops_the_stream() -> None:
    with pytest.raises(FormatError, match="dict"):
        list(RenderSafeTransform().transform(iter([{"messages": [EXFIL]}])))
