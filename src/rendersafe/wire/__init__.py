"""Wire formats: find the reply text in a response body, sanitise it, write it back.

    codec = codec_for("sse", texts)          # or "ndjson", "json", "text", a dialect
    out = codec.feed(body_bytes)              # the rewritten bytes settled so far
    out += codec.close()                      # at the end of the body

Every codec raises `FormatError` when the body is not what it claims to be.
`sniff` reads a body of no useful content type by what its first bytes are
(`wire.sniff`); `wire.charset` turns a body of another charset into UTF-8 first.
`codec.reach(data, final=...)` bounds, cheaply and before the feed, how much text a feed
of `data` can hand its streams and how many line ends it can hold (`ENDS`: it may end a
text, which settles it whole): what the middleware reads to keep a heavy feed off the
event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Protocol

from ..errors import FormatError
from .json_body import JsonCodec
from .ndjson import NdjsonCodec
from .sniff import SniffCodec
from .sse_codec import DIALECTS, SseCodec
from .text_body import TextCodec
from .text_streams import ENDS, Report, Texts

__all__ = ["ENDS", "FORMATS", "Codec", "Report", "Texts", "codec_for", "format_of"]

# What a format can be pinned to: a family (its dialect found from the body), one SSE
# dialect, or `sniff` (whatever the first bytes say, the content type unread).
FORMATS = frozenset({"sse", "ndjson", "json", "text", "sniff", *DIALECTS})

_NDJSON_TYPES = (
    "application/x-ndjson",
    "application/ndjson",
    "application/jsonl",
    "application/x-jsonlines",
    "application/jsonlines",
)
_TEXT_TYPES = ("text/plain", "text/markdown", "text/x-markdown")
_BY_TYPE = MappingProxyType(
    {
        "text/event-stream": "sse",
        **dict.fromkeys(_NDJSON_TYPES, "ndjson"),
        "application/json": "json",
        **dict.fromkeys(_TEXT_TYPES, "text"),
    }
)
# Types that carry text but that no codec reads: covered, so refused.
_OTHER_TEXT = frozenset(
    {
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-www-form-urlencoded",
        "application/graphql",
    }
)


class Codec(Protocol):
    """Rewrites one response body."""

    buffered: bool  # True: the whole body is needed before anything is sent

    def feed(self, data: bytes) -> bytes: ...

    def close(self) -> bytes: ...

    def error_frame(self, message: str) -> bytes: ...

    def reach(self, data: bytes, *, final: bool) -> tuple[int, int]: ...

    def token(self, data: bytes) -> bytes | None: ...


def format_of(content_type: str | None) -> str | None:
    """The format of a content type: a codec's name, "unsupported" for other text,
    or None for binary content (left alone). No content type at all is read as text."""
    if not content_type:
        return "text"
    main = content_type.split(";", 1)[0].strip().lower()
    if main in _BY_TYPE:
        return _BY_TYPE[main]
    if "json" in main:
        streamed = any(word in main for word in ("stream", "seq", "lines", "ndjson", "jsonl"))
        return "ndjson" if streamed else "json"
    if main.startswith("text/") or main in _OTHER_TEXT or main.endswith("+xml"):
        return "unsupported"
    return None


def codec_for(
    fmt: str,
    texts: Texts,
    *,
    charset: str | None = None,
    json_paths: Sequence[str] = (),
    json_limit: int = 16 * 1024 * 1024,
) -> Codec:
    """The codec for format `fmt` (one of `FORMATS`)."""
    if fmt == "sse" or fmt in DIALECTS:
        return SseCodec(texts, None if fmt == "sse" else fmt)
    if fmt == "ndjson":
        return NdjsonCodec(texts)
    if fmt == "json":
        return JsonCodec(texts, paths=json_paths, limit=json_limit)
    if fmt == "text":
        return TextCodec(texts, charset or "utf-8")
    if fmt == "sniff":
        return SniffCodec(
            lambda found: codec_for(
                found, texts, charset=charset, json_paths=json_paths, json_limit=json_limit
            )
        )
    raise FormatError(f"no codec reads format {fmt!r}")
