"""`HostGuard`: the demo answers only requests addressed to it by a local name.

A page on any site can point its own host name at 127.0.0.1 (DNS rebinding) and
then read the demo as same-origin, `/demo/audit` included. The browser still sends
that site's name in `Host`, so a request whose `Host` is not one of the demo's
own names (and port, when it is known) gets a 400 and nothing else.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["LOCAL_HOSTS", "HostGuard", "host_names", "split_host_header"]

# The names a browser on this machine uses for a server bound to the loopback address.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


# Bound to these, the demo is reached by any of the machine's addresses: which name a
# client uses is not known, so only the machine's own name is added.
_ANY_ADDRESS = frozenset({"0.0.0.0", "::", ""})


def host_names(bind: str) -> tuple[str, ...]:
    """The `Host` names a server bound to `bind` answers to, besides `LOCAL_HOSTS`: the
    address itself (an IPv6 one in brackets), or the machine's name for a wildcard."""
    if bind in _ANY_ADDRESS:
        return (socket.gethostname().lower(),)
    try:
        address = ipaddress.ip_address(bind.strip("[]"))
    except ValueError:
        return (bind.lower(),)  # a name: the one its clients use
    return (f"[{address}]",) if address.version == 6 else (str(address),)


class HostGuard:
    """Pass on HTTP and WebSocket requests whose `Host` is one of `hosts` (names,
    compared without case) with `port` (any port when None); answer 400 to others."""

    def __init__(self, app: ASGIApp, *, hosts: Iterable[str], port: int | None = None) -> None:
        self.app = app
        self.hosts = frozenset(host.lower() for host in hosts)
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        names = ", ".join(sorted(self.hosts))
        response = PlainTextResponse(
            f"Host not allowed: the demo answers only to {names} "
            "(rendersafe demo --allow-host NAME adds one)\n",
            status_code=400,
        )
        await response(scope, receive, send)

    def _allowed(self, scope: Scope) -> bool:
        values = [v for k, v in scope.get("headers", ()) if k == b"host"]
        if len(values) != 1:
            return False
        parsed = split_host_header(values[0].decode("latin-1"))
        if parsed is None:
            return False
        host, port = parsed
        if host not in self.hosts:
            return False
        return self.port is None or port == self.port or (port is None and self.port == 80)


def split_host_header(value: str) -> tuple[str, int | None] | None:
    """(lowercased host, port or None) of a `Host` header; None when it is malformed."""
    if value.startswith("["):
        host, bracket, rest = value.partition("]")
        host += bracket
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port = rest[1:] if rest else None
    else:
        host, colon, port_text = value.rpartition(":")
        host, port = (host, port_text) if colon else (value, None)
    if port is not None and not (port.isascii() and port.isdigit() and 0 < len(port) <= 5):
        return None
    if not host or any(c.isspace() or c in "/@\\" for c in host):
        return None
    return host.lower(), None if port is None else int(port)
