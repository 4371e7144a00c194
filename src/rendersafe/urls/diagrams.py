"""The links inside a diagram link's payload (Mermaid, Kroki, PlantUML).

A diagram service's URL carries the whole diagram, deflated and base64-encoded, and
only that service reads it, so the payload is kept (`classes`). But a diagram can hold
links and images of its own, which the page showing it may follow: those are yielded
as nested URLs and judged like any other link. Inflating is bounded (`_MAX_TEXT`).
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import unquote

from .decode import unbase64, unhex

if TYPE_CHECKING:
    from .parse import UrlParts

__all__ = ["diagram_urls"]

_MAX_TEXT = 1 << 16
_MAX_URLS = 32
_URL = re.compile(r"https?://[^\s\"'<>()\[\]{}|\\^`]+|//[a-z0-9.-]+\.[a-z]{2,}/[^\s\"'<>\\]*", re.I)
# PlantUML's own base64 alphabet, in the standard alphabet's order.
_PLANTUML = bytes.maketrans(
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_",
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
)
_MERMAID_HOSTS = frozenset({"mermaid.live", "mermaid.ink"})
_KROKI_HOSTS = frozenset({"kroki.io"})
_PLANTUML_HOSTS = frozenset({"www.plantuml.com", "plantuml.com", "www.planttext.com"})


def diagram_urls(parts: UrlParts) -> Iterator[str]:
    """URLs written in the diagram a diagram service's URL carries (none elsewhere)."""
    if parts.host not in _MERMAID_HOSTS | _KROKI_HOSTS | _PLANTUML_HOSTS:
        return
    for payload in _payloads(parts):
        text = _diagram_text(parts.host, payload)
        if text:
            for match in list(_URL.finditer(text))[:_MAX_URLS]:
                yield match.group()


def _payloads(parts: UrlParts) -> Iterator[str]:
    """The path's last segment, the fragment and the query values: where payloads go."""
    segments = [s for s in parts.path.split("/") if s]
    if segments:
        yield unquote(segments[-1])
    if parts.fragment:
        yield unquote(parts.fragment.removeprefix("#"))
    for item in parts.query.lstrip("?").split("&"):
        yield unquote(item.partition("=")[2])


def _diagram_text(host: str, payload: str) -> str:
    if host in _MERMAID_HOSTS:
        if payload.startswith("pako:"):
            return _inflate(unbase64(payload[5:]))
        return unbase64(payload.removeprefix("base64:")).decode("utf-8", errors="replace")
    if host in _KROKI_HOSTS:
        return _inflate(unbase64(payload))
    if payload.startswith("~h"):
        return unhex(payload[2:]).decode("utf-8", errors="replace")
    encoded = payload.removeprefix("~1").encode("ascii", errors="ignore")
    return _inflate(_unbase64_padded(encoded.translate(_PLANTUML))) or _inflate(unbase64(payload))


def _unbase64_padded(data: bytes) -> bytes:
    try:
        return base64.b64decode(data + b"=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        return b""


def _inflate(data: bytes) -> str:
    """Inflate zlib or raw deflate data, at most `_MAX_TEXT` bytes of it ("" if neither)."""
    for wbits in (zlib.MAX_WBITS, -zlib.MAX_WBITS):
        try:
            text = zlib.decompressobj(wbits).decompress(data, _MAX_TEXT)
        except zlib.error:
            continue
        return text.decode("utf-8", errors="replace")
    return ""
