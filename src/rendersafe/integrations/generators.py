"""`wrap_stream`: sanitise a generator of reply text before a chat UI renders it.

    # Gradio: a ChatInterface function yields the whole text so far (cumulative)
    def respond(message, history):
        conversation = [*history, {"role": "user", "content": message}]
        yield from wrap_stream(reply_so_far(message), conversation=conversation,
                               cumulative=True)

    # Streamlit: st.write_stream renders deltas
    st.write_stream(wrap_stream(model_deltas(prompt), conversation=st.session_state.messages))

    # Chainlit: stream each safe delta into the message
    msg = cl.Message(content="")
    async for token in wrap_stream(model_deltas(message.content), conversation=history):
        await msg.stream_token(token)
    await msg.send()

A sync generator gives a sync generator, an async one an async one. Deltas in, deltas
out (`cumulative=False`: empty ones are not yielded); the whole text so far in, the
whole sanitised text so far out (`cumulative=True`; a value that does not extend the
last one starts the text again). The reply is judged with `conversation` (any shape
`rendersafe.shapes` reads); its findings go to the sanitiser's audit log as they are
made. Text held back (a construct still arriving) is yielded when it is settled, the
rest when the generator ends.

It fails closed without a traceback: when the reply cannot be sanitised (or the policy
requires an audit log that cannot be written), what is held is dropped and the stream
ends with `WITHHELD`, recorded. An error of the wrapped generator itself is raised as
it was, after nothing held is sent.
"""

from __future__ import annotations

import logging
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    Callable,
    Generator,
    Iterable,
    Mapping,
)
from typing import overload

from ..conversation import ConversationLike
from ..exchange import Exchange
from ..policy import Policy
from ..sanitizer import Sanitizer
from .common import WITHHELD, Cumulative, open_exchange, sanitizer_for

__all__ = ["wrap_stream"]

logger = logging.getLogger("rendersafe")


@overload
def wrap_stream(
    gen: AsyncIterable[str],
    *,
    policy: Policy | None = None,
    conversation: ConversationLike = None,
    cumulative: bool = False,
    sanitizer: Sanitizer | None = None,
    context: Mapping[str, str] | None = None,
) -> AsyncGenerator[str, None]: ...


@overload
def wrap_stream(
    gen: Iterable[str],
    *,
    policy: Policy | None = None,
    conversation: ConversationLike = None,
    cumulative: bool = False,
    sanitizer: Sanitizer | None = None,
    context: Mapping[str, str] | None = None,
) -> Generator[str, None, None]: ...


def wrap_stream(
    gen: Iterable[str] | AsyncIterable[str],
    *,
    policy: Policy | None = None,
    conversation: ConversationLike = None,
    cumulative: bool = False,
    sanitizer: Sanitizer | None = None,
    context: Mapping[str, str] | None = None,
) -> Generator[str, None, None] | AsyncGenerator[str, None]:
    """`gen`'s reply text, sanitised as it streams (see the module docstring).

    `policy` (or a `sanitizer` built once, with its audit log) decides what is kept;
    `context` goes into every audit record of the reply.
    """
    exchange = open_exchange(
        sanitizer_for(policy, sanitizer),
        "wrap_stream",
        conversation=conversation,
        context=context,
    )
    relay = _Relay(exchange, cumulative=cumulative)
    if isinstance(gen, AsyncIterable):
        return _async(gen, relay)
    return _sync(gen, relay)


class _Relay:
    """One reply's text in, the sanitised text out, as deltas or as the whole so far."""

    def __init__(self, exchange: Exchange, *, cumulative: bool) -> None:
        self.exchange = exchange
        self.whole = Cumulative(exchange) if cumulative else None
        self.withheld = False

    def take(self, value: str) -> str:
        """What to yield for `value` ("": nothing yet)."""
        if not isinstance(value, str):
            raise TypeError(f"wrap_stream sanitises str, not {type(value).__name__}")
        if self.whole is None:
            return self.exchange.feed(value)
        return self._grown(self.whole.grow, value)

    def end(self) -> str:
        """What is left to yield when the generator ends."""
        if self.whole is None:
            return self.exchange.close()
        return self._grown(lambda _: self.whole.end() if self.whole else "", "")

    def failed(self, exc: Exception) -> str:
        """Record why the reply is withheld; the notice that ends the stream."""
        logger.warning("rendersafe: a streamed reply was withheld: %s", type(exc).__name__)
        self.exchange.event("error", f"withheld: {type(exc).__name__}: {exc}"[:500])
        self.withheld = True
        notice = f"\n\n{WITHHELD}"
        return self.whole.sent + notice if self.whole is not None else notice

    def refused(self) -> str | None:
        """The notice that replaces the reply while a required audit log is down."""
        if self.exchange.may_serve():
            return None
        self.exchange.refused()
        self.withheld = True
        return WITHHELD

    def _grown(self, step: Callable[[str], str], value: str) -> str:
        """The whole text so far when `step` added to it, else ""."""
        before = self.whole.sent if self.whole is not None else ""
        after = step(value)
        return after if after != before else ""


def _sync(gen: Iterable[str], relay: _Relay) -> Generator[str, None, None]:
    exchange = relay.exchange
    source = iter(gen)
    try:
        refusal = relay.refused()
        if refusal is not None:
            yield refusal
            return
        for value in source:
            out = _step(relay, relay.take, value)
            if out:
                yield out
            exchange.flush()
            if relay.withheld:
                return
        out = _step(relay, lambda _: relay.end(), "")
        if out:
            yield out
    except GeneratorExit:
        exchange.event("disconnect", "the client went away mid-response")
        raise
    finally:
        close = getattr(source, "close", None)
        if callable(close):
            close()
        exchange.finish()
        exchange.flush()


async def _async(gen: AsyncIterable[str], relay: _Relay) -> AsyncGenerator[str, None]:
    exchange = relay.exchange
    source = aiter(gen)
    try:
        refusal = relay.refused()
        if refusal is not None:
            yield refusal
            return
        async for value in source:
            out = _step(relay, relay.take, value)
            if out:
                yield out
            await exchange.aflush()
            if relay.withheld:
                return
        out = _step(relay, lambda _: relay.end(), "")
        if out:
            yield out
    except GeneratorExit:
        exchange.event("disconnect", "the client went away mid-response")
        raise
    finally:
        close = getattr(source, "aclose", None)
        if callable(close):
            await close()
        exchange.finish()
        await exchange.aflush()


def _step(relay: _Relay, step: Callable[[str], str], value: str) -> str:
    """`step(value)`, or the withheld notice (recorded) when sanitising fails."""
    try:
        return step(value)
    except Exception as exc:  # any failure of ours: the reply stops, nothing held is sent
        return relay.failed(exc)
