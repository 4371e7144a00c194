"""`Rewriter`: one response's rewriting, message by message; it sends nothing itself.

A response is `new` until its start message, then `passthrough` (not ours to sanitise)
or `held` (its start kept back until the first body message settles its headers),
`streaming` once the start is sent, and `done` or `failed` at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import Message

from ..errors import FormatError
from ..exchange import Exchange
from ..wire import Codec
from ..wire.charset import HEAD_BYTES, Transcoder, check_utf8_head, relabelled, transcoder_for
from ..wire.encoding import Inflater, inflater_for
from ..wire.error_text import safe_name
from ..wire.text_streams import escaped_ends
from .offload import MEASURED, Cost, Offload
from .replies import charset_of, format_for

__all__ = ["Rewriter", "State"]

State: TypeAlias = Literal["new", "held", "passthrough", "streaming", "done", "failed"]
# The body may change length: these describe the upstream body, not ours.
_STALE_HEADERS = ("content-length", "content-md5", "etag")
_NO_BODY_STATUS = frozenset({204, 304})
# Messages that carry no body text; any other (a file by path) is refused.
_FORWARDED = frozenset({"http.response.trailers"})


class Rewriter:
    """Turns the app's messages into the ones to send, for one response.

    `exchange` is made when the response starts (`open_exchange`: the app has read the
    request body by then, or as much as it will). With `sniff`, a body whose content type
    no codec reads is read by its first bytes (`wire.sniff`) instead of passed."""

    def __init__(
        self,
        method: str | None,
        pinned: str | None,
        open_exchange: Callable[[], Exchange],
        json_paths: tuple[str, ...] = (),
        *,
        sniff: bool = False,
    ) -> None:
        self.method = method
        self.pinned = pinned
        self.open_exchange = open_exchange
        self.json_paths = json_paths
        self.sniff = sniff
        self.state: State = "new"
        self.start: Message | None = None  # held until the first body message
        self.exchange: Exchange | None = None
        self.codec: Codec | None = None
        self.inflater: Inflater | None = None
        self.transcoder: Transcoder | None = None  # a charset other than UTF-8
        self.unchecked = HEAD_BYTES  # of a UTF-8 body's start, not yet checked
        self.cost = Cost()

    def handle(self, message: Message) -> list[Message]:
        """What to send on for `message` (worked out before anything is sent)."""
        kind = message["type"]
        if kind == "http.response.start":
            return self._start(message)
        if self.state == "passthrough" or kind in _FORWARDED:
            return [message]
        if kind == "http.response.body":
            return self._body(message.get("body", b""), more=message.get("more_body", False))
        # pathsend, zerocopysend: a file the server would send unread
        raise FormatError(f"{kind} cannot be sanitised; send the body itself")

    async def outgoing(self, message: Message, offload: Offload) -> list[Message]:
        """What to send for `message`: a token's in the fewest steps, else `handle`'s,
        worked out on the event loop or, for a feed expected to hold it too long, in a
        worker (the app waits on its `send`, so the order of its messages holds)."""
        found = self.token(message)
        if found is not None:
            return found
        settles = self.settles(message)
        if not self.heavy(settles, message):
            return self.cost.timed(settles, lambda: self.handle(message))
        return await offload.run(lambda: self.cost.timed(settles, lambda: self.handle(message)))

    def token(self, message: Message) -> list[Message] | None:
        """What to send for the usual token of a stream, in the fewest steps: a body
        message, more to come, that the codec takes whole (`Codec.token`) and that may
        settle fewer than `MEASURED` characters; None, having read nothing, for any
        other message (`handle`'s)."""
        if (
            self.state != "streaming"
            or message["type"] != "http.response.body"
            or not message.get("more_body", False)
            or self.inflater is not None
            or self.transcoder is not None
            or self.unchecked
        ):
            return None
        codec, exchange = self.codec, self.exchange
        if codec is None or exchange is None or codec.buffered:
            return None
        body = message.get("body", b"")
        # What `reach` bounds it by, for an event that cannot end a text (the only
        # kind `token` takes): its length, and its escaped line ends.
        if exchange.texts.settles_at_most(len(body), escaped_ends(body)) >= MEASURED:
            return None
        out = codec.token(body)
        if out is None:
            return None
        return [{"type": "http.response.body", "body": out, "more_body": True}] if out else []

    def settles(self, message: Message) -> int:
        """At most how many characters handling `message` settles (what it costs),
        judged before, cheaply: 0 for a token that only extends its line."""
        codec, exchange = self.codec, self.exchange
        if codec is None or exchange is None or message["type"] != "http.response.body":
            return 0
        body = message.get("body", b"")
        if self.inflater is not None or self.transcoder is not None:
            return 1 << 20 if body else 0  # what text it decodes to is not known before
        final = not message.get("more_body", False)
        added, line_ends = codec.reach(body, final=final)
        return added if codec.buffered else exchange.texts.settles_at_most(added, line_ends)

    def heavy(self, settles: int, message: Message) -> bool:
        """Would settling `settles` characters (for `message`) hold the loop too long?"""
        if self.exchange is None:
            return False
        body: bytes = message.get("body", b"")
        brackets, tags = self.exchange.texts.openers()
        return self.cost.heavy(settles, brackets + body.count(b"["), tags + body.count(b"<"))

    def error_frame(self, reason: str) -> bytes:
        """The format's way of ending a stream with an error."""
        return self.codec.error_frame(reason) if self.codec else b""

    def drop(self) -> None:
        """Forget what is held: the response is over."""
        self.state, self.codec = "failed", None

    def _start(self, message: Message) -> list[Message]:
        # ASGI asks for lower-case names, servers accept any: read them as clients do.
        message["headers"] = [(name.lower(), value) for name, value in message["headers"]]
        headers = Headers(raw=message["headers"])
        fmt = self.pinned or format_for(headers.getlist("content-type"))
        bodiless = message["status"] in _NO_BODY_STATUS or self.method == "HEAD"
        if fmt is None and self.sniff:
            fmt = "sniff"
        if fmt is None or bodiless:
            self.state = "passthrough"
            return [message]
        self.start, self.state = message, "held"
        if fmt == "unsupported":
            raise FormatError(
                f"cannot sanitise content type {safe_name(headers.get('content-type'))}; "
                "narrow `paths` or pin a format for this path"
            )
        self.inflater = inflater_for(headers.getlist("content-encoding"))
        content_type = headers.get("content-type")
        charset = charset_of(content_type)
        if len({charset_of(value) for value in headers.getlist("content-type")}) > 1:
            raise FormatError("two content types with different charsets")
        self.transcoder = transcoder_for(charset)
        if self.transcoder is not None and content_type is not None:
            # Sent on as UTF-8: every client reads the text that was judged.
            MutableHeaders(scope=message)["content-type"] = relabelled(content_type)
            charset = "utf-8"
        exchange = self.exchange = self.open_exchange()
        self.codec = exchange.codec(fmt, charset=charset, json_paths=self.json_paths)
        return []

    def _body(self, body: bytes, *, more: bool) -> list[Message]:
        codec = self.codec  # once: a disconnect (on the loop) may drop it meanwhile
        if codec is None:
            raise FormatError("a body message before the start message")
        out = codec.feed(self._decoded(body, more=more))
        if not more:
            out += codec.close()
        outgoing = []
        if self.state == "held":
            if more and codec.buffered:
                return []
            outgoing.append(self._settled_start(None if more else len(out)))
        if out or not more:
            outgoing.append({"type": "http.response.body", "body": out, "more_body": more})
        if not more:
            self.state = "done"
        return outgoing

    def _decoded(self, body: bytes, *, more: bool) -> bytes:
        """`body` inflated and in UTF-8, as the codec reads it."""
        data = self.inflater.feed(body) if self.inflater else body
        if not more and self.inflater:
            data += self.inflater.close()
        if self.transcoder is not None:
            data = self.transcoder.feed(data)
            if not more:
                data += self.transcoder.close()
        elif self.unchecked and data:
            check_utf8_head(data[: self.unchecked], first=self.unchecked == HEAD_BYTES)
            self.unchecked = max(0, self.unchecked - len(data))
        return data

    def _settled_start(self, length: int | None) -> Message:
        """The start message, its headers made true of the body that follows."""
        if self.start is None:
            raise FormatError("no start message to send")
        headers = MutableHeaders(scope=self.start)
        for name in _STALE_HEADERS:
            del headers[name]
        if self.inflater is not None:
            del headers["content-encoding"]
        if length is not None:
            headers["content-length"] = str(length)
        self.state = "streaming"
        return self.start
