"""LangChain v1 and LangGraph: an agent middleware, and a transform for streams.

    pip install 'rendersafe[langchain]'

    from langchain.agents import create_agent
    from rendersafe.integrations.langchain import RenderSafeMiddleware, RenderSafeTransform

    agent = create_agent(model, tools=tools, middleware=[RenderSafeMiddleware()])
    state = agent.invoke({"messages": [{"role": "user", "content": question}]})
    state["messages"][-1].content                     # sanitised, in the agent's state

    # tokens as they stream (stream_mode="messages"): sanitised before you see them
    guard = RenderSafeTransform(conversation=inputs["messages"])
    for token, metadata in guard.transform(agent.stream(inputs, stream_mode="messages")):
        print(token.content, end="")

    # an LCEL chain: the transform is its last step
    chain = prompt | model | RenderSafeTransform(conversation=history)
    for chunk in chain.stream({"question": question}): ...

`RenderSafeMiddleware.after_model` rewrites the model's message in the agent's state,
judged with the state's messages before it (the conversation the model saw, tool
results included). `RenderSafeTransform` is a `RunnableGenerator`: it takes strings,
messages, message chunks and `(message, metadata)` pairs (`stream_mode="messages"`),
and gives the same with each AI message's text sanitised as it streams; the messages
that pass (tool results, the model's earlier replies) join the conversation of the
replies after them. A message's held-back tail goes out in its last chunk
(`chunk_position="last"`), or in one more chunk with its id when the stream ends.

Both fail closed: a reply that cannot be sanitised raises `SanitizeError` (a stream
stops there, nothing held is sent), and while a required audit log cannot be written
`AuditError`. Findings go to the sanitiser's audit log, named `langchain`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable, Iterator
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.runnables import RunnableGenerator
from langgraph.runtime import Runtime

from ..conversation import ConversationLike
from ..errors import FormatError
from ..exchange import Exchange
from ..policy import Policy
from ..sanitizer import Sanitizer
from .common import open_exchange, refuse_unaudited, sanitizer_for

__all__ = ["RenderSafeMiddleware", "RenderSafeTransform"]

_NAME = "langchain"


class RenderSafeMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):  # type: ignore[misc]
    """Sanitises each model reply in the agent's state (`after_model`).

    `policy` (or a `sanitizer` built once, with its audit log) decides what is kept.
    """

    def __init__(self, policy: Policy | None = None, *, sanitizer: Sanitizer | None = None):
        super().__init__()
        self.sanitizer = sanitizer_for(policy, sanitizer)

    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """The model's message, sanitised, to replace it in the state (None: unchanged)."""
        exchange, message = self._reply(state)
        if exchange is None or message is None:
            return None
        try:
            return _rewritten(exchange, message)
        finally:
            exchange.flush()

    async def aafter_model(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """`after_model` on an event loop (the audit records handed over without blocking)."""
        exchange, message = self._reply(state)
        if exchange is None or message is None:
            return None
        try:
            return _rewritten(exchange, message)
        finally:
            await exchange.aflush()

    def _reply(self, state: AgentState[Any]) -> tuple[Exchange | None, AIMessage | None]:
        messages = state["messages"]
        if not messages or not isinstance(messages[-1], AIMessage):
            return None, None
        message = messages[-1]
        exchange = open_exchange(
            self.sanitizer, _NAME, conversation=list(messages[:-1]), run_id=message.id
        )
        return exchange, message


def _rewritten(exchange: Exchange, message: AIMessage) -> dict[str, Any] | None:
    refuse_unaudited(exchange)
    content = _sanitised(exchange, message.content)
    if content is message.content:
        return None
    return {"messages": [message.model_copy(update={"content": content})]}


def _sanitised(exchange: Exchange, content: str | list[Any]) -> str | list[Any]:
    """`content` with each text in it sanitised whole (itself when none changed)."""
    texts = {key: text for key, text in _texts(content) if text}
    out = {key: exchange.run(text) for key, text in texts.items()}
    changed = {key: text for key, text in out.items() if text != texts[key]}
    return _with_texts(content, changed) if changed else content


def _texts(content: object) -> list[tuple[Hashable, str]]:
    """The texts a message's content holds: a string, or a list's strings and text
    blocks, each keyed by its block's index."""
    if isinstance(content, str):
        return [(None, content)]
    found: list[tuple[Hashable, str]] = []
    for position, block in enumerate(content if isinstance(content, list) else ()):
        if isinstance(block, str):
            found.append((position, block))
        elif isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                found.append((block.get("index", position), text))
    return found


def _with_texts(content: str | list[Any], texts: dict[Hashable, str]) -> str | list[Any]:
    """A copy of `content` with the texts `texts` names replaced (or added)."""
    if isinstance(content, str) or (not content and list(texts) == [None]):
        return texts.get(None, content)
    out: list[Any] = []
    for position, block in enumerate(content):
        if isinstance(block, str):
            out.append(texts.get(position, block))
        elif isinstance(block, dict) and block.get("type") == "text":
            key = block.get("index", position)
            out.append({**block, "text": texts[key]} if key in texts else block)
        else:
            out.append(block)
    placed = {k for k, _ in _texts(content)}
    out.extend({"type": "text", "text": t, "index": k} for k, t in texts.items() if k not in placed)
    return out


class RenderSafeTransform(RunnableGenerator):  # type: ignore[misc]  # typed as Any here
    """A `RunnableGenerator` that sanitises the reply text streaming through it.

    `conversation` is what the model saw before the stream (any shape
    `rendersafe.shapes` reads: the agent's input messages, a chat history); `policy`
    (or a `sanitizer`) decides what is kept.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        sanitizer: Sanitizer | None = None,
        conversation: ConversationLike = None,
    ) -> None:
        self.sanitizer = sanitizer_for(policy, sanitizer)
        self.conversation = conversation
        super().__init__(self._stream, self._astream, name="RenderSafeTransform")

    def _stream(self, items: Iterator[Any]) -> Iterator[Any]:
        relay = _Relay(self.sanitizer, self.conversation)
        try:
            for item in items:
                yield from relay.take(item)
                relay.flush()
            yield from relay.end()
        finally:
            relay.flush()

    async def _astream(self, items: AsyncIterator[Any]) -> AsyncIterator[Any]:
        relay = _Relay(self.sanitizer, self.conversation)
        try:
            async for item in items:
                for out in relay.take(item):
                    yield out
                await relay.aflush()
            for out in relay.end():
                yield out
        finally:
            await relay.aflush()


class _Open:
    """One AI message streaming: its exchange, its chunks so far, its last metadata."""

    def __init__(self, exchange: Exchange, chunk: AIMessageChunk, meta: Any) -> None:
        self.exchange = exchange
        self.merged = chunk
        self.meta = meta


Sent = tuple[BaseMessage, Any]  # a message and the metadata it came with (or None)


class _Relay:
    """One stream through the transform: its messages, the conversation they add to."""

    def __init__(self, sanitizer: Sanitizer, conversation: ConversationLike) -> None:
        self.sanitizer = sanitizer
        given = conversation if conversation is not None else ()
        self.seen: list[Any] = list(given) if isinstance(given, list | tuple) else [given]
        self.open: dict[str | None, _Open] = {}
        self.text: Exchange | None = None  # a stream of strings: one reply
        self.exchanges: list[Exchange] = []  # those with records to hand to the log

    def take(self, item: Any) -> Iterator[Any]:
        """What to send on for `item`, its reply text sanitised."""
        if isinstance(item, str):
            out = self._str(item)
            if out:
                yield out
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], BaseMessage):
            yield from self._message(item[0], item[1])
        elif isinstance(item, BaseMessage):
            yield from (message for message, _ in self._message(item, None))
        else:
            raise FormatError(
                f"RenderSafeTransform sanitises text and messages, not {type(item).__name__}"
            )

    def end(self) -> Iterator[Any]:
        """The tails of the texts still open when the stream ends."""
        if self.text is not None and (rest := self.text.close()):
            yield rest
        for key in list(self.open):
            for message, meta in self._finish(key):
                yield (message, meta) if meta is not None else message

    def flush(self) -> None:
        """Hand the audit records made so far to the log."""
        for exchange in self._pending():
            exchange.flush()

    async def aflush(self) -> None:
        """`flush` for an event loop."""
        for exchange in self._pending():
            await exchange.aflush()

    def _pending(self) -> list[Exchange]:
        pending = self.exchanges
        self.exchanges = [e for e in pending if e.texts.open_keys()]
        return pending

    def _exchange(self, run_id: str | None) -> Exchange:
        conversation = list(self.seen)
        exchange = open_exchange(self.sanitizer, _NAME, conversation=conversation, run_id=run_id)
        refuse_unaudited(exchange)
        self.exchanges.append(exchange)
        return exchange

    def _str(self, text: str) -> str:
        if self.text is None:
            self.text = self._exchange(None)
        return self.text.feed(text)

    def _message(self, message: BaseMessage, meta: Any) -> list[Sent]:
        if isinstance(message, AIMessageChunk):
            ended = [
                sent for key in list(self.open) if key != message.id for sent in self._finish(key)
            ]
            return [*ended, (self._chunk(message, meta), meta)]
        if not isinstance(message, AIMessage):
            self.seen.append(message)  # a tool's result, the user's words: what follows saw
            return [(message, meta)]
        exchange = self._exchange(message.id)
        content = _sanitised(exchange, message.content)
        exchange.finish()
        self.seen.append(message)  # judged without itself; the replies after it saw it
        if content is message.content:
            return [(message, meta)]
        return [(message.model_copy(update={"content": content}), meta)]

    def _chunk(self, chunk: AIMessageChunk, meta: Any) -> AIMessageChunk:
        state = self.open.get(chunk.id)
        if state is None:
            state = self.open[chunk.id] = _Open(self._exchange(chunk.id), chunk, meta)
        else:
            state.merged, state.meta = state.merged + chunk, meta
        texts = {key: state.exchange.feed(text, key) for key, text in _texts(chunk.content)}
        if chunk.chunk_position == "last":
            del self.open[chunk.id]
            for key, rest in self._closed(state).items():
                texts[key] = texts.get(key, "") + rest
        return _replaced(chunk, texts)

    def _finish(self, key: str | None) -> list[Sent]:
        """End the message `key`: one more chunk with its id carrying its tails, if any."""
        state = self.open.pop(key)
        tails = {k: rest for k, rest in self._closed(state).items() if rest}
        if not tails:
            return []
        return [(_replaced(AIMessageChunk(content="", id=key), tails), state.meta)]

    def _closed(self, state: _Open) -> dict[Hashable, str]:
        """Close a message's texts; their tails. It joins the conversation."""
        exchange = state.exchange
        tails = {key: exchange.close(key) for key in exchange.texts.open_keys()}
        exchange.finish()
        self.seen.append(state.merged)
        return tails


def _replaced(chunk: AIMessageChunk, texts: dict[Hashable, str]) -> AIMessageChunk:
    """`chunk` with its texts as sanitised (itself when they are as they came)."""
    given = dict(_texts(chunk.content))
    changed = {key: text for key, text in texts.items() if given.get(key) != text}
    if not changed:
        return chunk
    return chunk.model_copy(update={"content": _with_texts(chunk.content, changed)})
