"""Which headers cross the proxy: all but the hop-by-hop ones (RFC 9110, section 7.6.1)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["HOP_BY_HOP", "end_to_end"]

RawHeaders = Iterable[tuple[bytes, bytes]]

# They describe one connection, not the message: never forwarded. `host` is not one,
# but the upstream's own is written by the client library.
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)


def end_to_end(headers: RawHeaders, *, drop: Iterable[bytes] = ()) -> list[tuple[bytes, bytes]]:
    """`headers` (lower-cased names) without the hop-by-hop ones, those `Connection`
    names, and `drop`."""
    pairs = [(name.lower(), value) for name, value in headers]
    named = {
        token.strip().lower().encode("latin-1")
        for name, value in pairs
        if name == b"connection"
        for token in value.decode("latin-1").split(",")
    }
    gone = HOP_BY_HOP | named | frozenset(drop)
    return [(name, value) for name, value in pairs if name not in gone]
