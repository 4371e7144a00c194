"""The canonical request target: the one path the proxy routes on and forwards.

    target = canonical(scope)        # RequestError (a 400 or 405) if it cannot be one
    target.path, target.raw_path     # "/v1/chat/completions", b"/v1/chat/completions"

A target is read the way an upstream reads it, once: every percent-escape decoded,
`;` parameters cut from each segment (`/api/chat;x`), `.` and `..` segments resolved,
empty segments dropped (`//`, a trailing `/`). The result is routed on and forwarded
(re-encoded one way), so the path the proxy judges is the path the upstream serves.

What cannot be read one way is refused: a target that is not a path (absolute-form,
`*`, `@host`, CONNECT's authority), a fragment, an encoded `/`, a `\\`, a `%` left
after decoding (double encoding), an encoded `?` or `#`, controls and spaces, bytes
that are not UTF-8, and letters that fold to ASCII ones (dotless i, long s, the Kelvin
sign, full-width forms) which a case-insensitive upstream may match as ASCII. So are the
framing tricks: `Content-Length` with `Transfer-Encoding`, two lengths that differ,
a length that is not a number; and CONNECT and TRACE (405).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote

from starlette.types import Scope

from ..errors import RenderSafeError

__all__ = ["RequestError", "Target", "canonical"]

# Tunnels and echoes: a reverse proxy has no use for either (TRACE would reflect the
# client's credentials to a script that can read the reply).
REFUSED_METHODS: Final = frozenset({"CONNECT", "TRACE"})
# What stays unescaped in a forwarded path: RFC 3986's unreserved characters, the
# sub-delimiters but `;` (none is left), `:` and `@`.
_SAFE: Final = "!$&'()*+,=:@-._~"
_ESCAPE = re.compile(rb"%([0-9A-Fa-f]{2})")
_MALFORMED_ESCAPE = re.compile(rb"%(?![0-9A-Fa-f]{2})")
# What no decoded path may hold, and why.
_REFUSED = (
    (re.compile("%"), "a % left after decoding: an escape escaped twice"),
    (re.compile("[?#]"), "an escaped ? or #: a second decoder ends the path there"),
    (re.compile(r"\\"), "a \\ in the path: a / to some servers"),
    (re.compile(r"[\x00-\x20\x7f-\x9f\s]"), "a control character or a space in the path"),
)


class RequestError(RenderSafeError, ValueError):
    """A request the proxy refuses before forwarding it: `status` (400 or 405) and a
    short message that says what was wrong."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(message)


@dataclass(frozen=True)
class Target:
    """A canonical target: the decoded path (routed on) and its encoding (forwarded)."""

    path: str
    raw_path: bytes


def canonical(scope: Scope) -> Target:
    """The canonical target of an HTTP request; `RequestError` when there is none."""
    method = scope.get("method", "")
    if method in REFUSED_METHODS:
        raise RequestError(405, f"{method} is not forwarded")
    _check_framing(scope["headers"])
    raw: bytes = scope.get("raw_path") or scope["path"].encode("utf-8")
    if b"#" in raw or b"#" in scope.get("query_string", b""):
        raise RequestError(400, "a request target has no fragment (#)")
    if not raw.startswith(b"/"):
        raise RequestError(400, "the request target must be a path starting with /")
    path = "/" + "/".join(_segments(_decoded(raw)))
    return Target(path, quote(path, safe="/" + _SAFE).encode("ascii"))


def _decoded(raw: bytes) -> str:
    """The path with every escape decoded; `RequestError` for what cannot be."""
    if _MALFORMED_ESCAPE.search(raw):
        raise RequestError(400, "a % in the path that is not a percent-escape")
    if any(match.group(1).lower() == b"2f" for match in _ESCAPE.finditer(raw)):
        raise RequestError(400, "an encoded / (%2F) in the path")
    try:
        path = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), raw).decode("utf-8")
    except UnicodeDecodeError:
        raise RequestError(400, "the path is not UTF-8") from None
    for pattern, why in _REFUSED:
        if pattern.search(path):
            raise RequestError(400, why)
    if not path.isascii() and any(_folds_to_ascii(char) for char in path if not char.isascii()):
        raise RequestError(400, "the path holds a letter that reads as ASCII in another case")
    return path


def _segments(path: str) -> list[str]:
    """The path's segments: parameters cut, dot segments resolved, empty ones dropped."""
    kept: list[str] = []
    for segment in path.split("/"):
        name = segment.split(";", 1)[0]
        if name == "..":
            if kept:
                kept.pop()
        elif name not in ("", "."):
            kept.append(name)
    return kept


def _folds_to_ascii(char: str) -> bool:
    """Does some reading of `char` (its cases, its compatibility form) hold ASCII?"""
    readings = (char.upper(), char.lower(), char.casefold(), unicodedata.normalize("NFKC", char))
    return any(any(c.isascii() for c in reading) for reading in readings)


def _check_framing(headers: list[tuple[bytes, bytes]]) -> None:
    """`RequestError` for a body whose length two readers could read two ways."""
    lengths = {value.strip() for name, value in headers if name.lower() == b"content-length"}
    chunked = any(name.lower() == b"transfer-encoding" for name, _ in headers)
    if lengths and chunked:
        raise RequestError(400, "Content-Length and Transfer-Encoding together")
    if len(lengths) > 1:
        raise RequestError(400, "two Content-Length headers that differ")
    if lengths and not all(value.isdigit() and len(value) < 19 for value in lengths):
        raise RequestError(400, "a Content-Length that is not a number of bytes")
