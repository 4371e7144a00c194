"""`Settings`: where the proxy forwards, the formats pinned per path, and its limits.

Every limit bounds something a client or the upstream controls: how long a client may
take over its headers (`header_timeout`), its body (`body_timeout`), or leave the reply
unread (`idle_timeout`); how many connections one client address may hold
(`max_client_connections`); how long the upstream may take to accept a connection
(`connect_timeout`) and between two reads (`read_timeout`).

Credentials in the upstream URL (`https://user:PASSWORD@host`) are never shown: the URL
is kept without them (`upstream_url`), and they are sent as Basic auth only on a request
that carries no `Authorization` of its own (`basic_auth`).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from urllib.parse import unquote

import httpx

from ..wire import FORMATS

__all__ = ["Settings", "pins_of", "redacted"]

# Chat requests are small; one carrying images inline is a few MiB.
MAX_BODY_BYTES = 32 * 1024 * 1024
MAX_CONCURRENCY = 256
# One address: a browser opens 6, a busy backend a pool; a flood of sockets, no more.
MAX_CLIENT_CONNECTIONS = 256
# A model may think for minutes before its first token, and between tokens.
READ_TIMEOUT = 300.0
CONNECT_TIMEOUT = 10.0
# Headers are a few hundred bytes; a body of a few MiB over a slow link takes seconds.
HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 60.0
# A client that reads none of a reply for this long has gone, or means harm.
IDLE_TIMEOUT = 60.0
# On SIGTERM, in-flight streams have this long to finish before they are ended.
GRACE_SECONDS = 30.0
_POSITIVE = (
    "connect_timeout",
    "read_timeout",
    "header_timeout",
    "body_timeout",
    "idle_timeout",
)
_COUNTS = ("max_body_bytes", "max_concurrency", "max_client_connections")


@dataclass(frozen=True)
class Settings:
    """Where to forward, the formats pinned per path (`formats`: glob pattern to a
    format of `rendersafe.wire.FORMATS`), and the proxy's limits."""

    upstream: str
    formats: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    max_body_bytes: int = MAX_BODY_BYTES
    max_concurrency: int = MAX_CONCURRENCY
    max_client_connections: int = MAX_CLIENT_CONNECTIONS
    connect_timeout: float = CONNECT_TIMEOUT
    read_timeout: float = READ_TIMEOUT
    header_timeout: float = HEADER_TIMEOUT
    body_timeout: float = BODY_TIMEOUT
    idle_timeout: float = IDLE_TIMEOUT
    grace_seconds: float = GRACE_SECONDS

    def __post_init__(self) -> None:
        for name in _COUNTS:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be 1 or more, not {getattr(self, name)}")
        for name in (*_POSITIVE, "grace_seconds"):
            value = getattr(self, name)
            if not (value > 0 or (value == 0 and name == "grace_seconds")):
                raise ValueError(f"{name} must be a number of seconds above 0, not {value}")
        object.__setattr__(self, "formats", MappingProxyType(pins_of(self.formats)))
        url = _parsed(self.upstream)
        if url.scheme not in ("http", "https") or not url.host:
            shown = redacted(self.upstream)
            raise ValueError(f"the upstream must be an http(s) URL, not {shown!r}")

    @property
    def upstream_url(self) -> httpx.URL:
        """The upstream without its credentials (what is shown, and forwarded to)."""
        return _parsed(self.upstream).copy_with(username=None, password=None)

    @property
    def basic_auth(self) -> bytes | None:
        """The `Authorization` value the upstream URL's credentials make, if it has any."""
        url = _parsed(self.upstream)
        if not url.username and not url.password:
            return None
        pair = f"{unquote(url.username)}:{unquote(url.password or '')}".encode()
        return b"Basic " + base64.b64encode(pair)


def pins_of(formats: Mapping[str, str]) -> dict[str, str]:
    """`formats` checked and made canonical: each pattern a path (lower case, no
    trailing `/`), each format one the middleware reads. `ValueError` naming the
    first that is not."""
    pins = {}
    for pattern, fmt in formats.items():
        if fmt not in FORMATS:
            known = ", ".join(sorted(FORMATS))
            raise ValueError(f"--format {pattern}={fmt}: the format is not one of {known}")
        if not pattern.startswith(("/", "*")):
            raise ValueError(f"--format {pattern}={fmt}: the path must start with / or *")
        pins[pattern.lower().rstrip("/") or "/"] = fmt
    return pins


def redacted(url: str) -> str:
    """`url` with any password in it replaced by `***` (for messages and banners)."""
    scheme, sep, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    userinfo, at, host = authority.rpartition("@")
    if not sep or not at:
        return url
    user = userinfo.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}{slash}{path}"


def _parsed(url: str) -> httpx.URL:
    try:
        return httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        raise ValueError(f"the upstream must be an http(s) URL, not {redacted(url)!r}") from None
