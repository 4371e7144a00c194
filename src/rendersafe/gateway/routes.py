"""What kind of API a path is, whether its replies are sanitised, and its own errors.

OpenAI (chat and legacy completions, Responses), Anthropic Messages and Ollama (`/api/chat`,
`/api/generate`) replies are model text a client renders: chat paths, sanitised, under a
base path too (`/openai/v1/...`, `/ollama/api/chat`), and so is every path a format is
pinned for (`--format PATH=FORMAT`). Every other path (models, embeddings, files,
batches, ...) is forwarded untouched.

A path is matched on the canonical target (`target.canonical`) in every reading a
lenient upstream may give it: in any case, and with each segment's extension or `:verb`
cut (`/api/chat.json`, `/v1/chat/completions:stream`). A path any reading makes a chat
path is one. An error the proxy answers itself is written in the format the client's
SDK reads.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, TypeAlias

__all__ = [
    "NO_PINS",
    "SANITISED",
    "Family",
    "error_body",
    "family_of",
    "is_chat",
    "pinned_format",
    "readings",
    "route_of",
]

Family: TypeAlias = Literal["openai", "anthropic", "ollama"]

NO_PINS: Mapping[str, str] = MappingProxyType({})

# fnmatch patterns of the chat paths, lower case; `*` first so a base path (`/openai/v1`,
# Azure's `/openai/deployments/NAME`) is covered too. Retrieving a stored response
# (`/v1/responses/ID`) returns the model's text as well.
SANITISED = (
    "*/completions",
    "*/chat/completions/*",
    "*/responses",
    "*/responses/*",
    "*/messages",
    "*/api/chat",
    "*/api/generate",
)
# Route names for metrics: a bounded set, whatever paths clients send.
_ROUTES = (
    ("*/chat/completions*", "openai-chat"),
    ("*/completions", "openai-completions"),
    ("*/responses*", "openai-responses"),
    ("*/messages", "anthropic-messages"),
    ("*/api/chat", "ollama-chat"),
    ("*/api/generate", "ollama-generate"),
)
# A segment's extension or verb: what Rails, Spring's suffix matching or gRPC
# transcoding cut before routing.
_SUFFIX = re.compile(r"(?<=[^/])[.:][^/]*")


def readings(path: str) -> tuple[str, ...]:
    """The ways a lenient upstream may read `path` when it routes: lower case, and
    lower case with each segment's suffix cut."""
    lower = path.lower()
    stem = _SUFFIX.sub("", lower)
    return (lower,) if stem == lower else (lower, stem)


def is_chat(path: str, pinned: Mapping[str, str] = NO_PINS) -> bool:
    """Is `path` (canonical) a chat path: one of `SANITISED`, or one of the `pinned`
    patterns (lower case), in any reading?"""
    patterns = (*SANITISED, *pinned)
    return any(fnmatch.fnmatchcase(r, p) for r in readings(path) for p in patterns)


def pinned_format(path: str, pinned: Mapping[str, str]) -> str | None:
    """The format pinned for `path` (its lower-case reading), if any."""
    lower = path.lower()
    return next((fmt for p, fmt in pinned.items() if fnmatch.fnmatchcase(lower, p)), None)


def route_of(path: str, pinned: Mapping[str, str] = NO_PINS) -> str:
    """The route's name for metrics: a sanitised API, `pinned`, or `passthrough`."""
    if not is_chat(path, pinned):
        return "passthrough"
    for reading in readings(path):
        for pattern, name in _ROUTES:
            if fnmatch.fnmatchcase(reading, pattern):
                return name
    return "pinned" if pinned_format(path, pinned) else "other"


def family_of(path: str) -> Family:
    """Whose error format a client of `path` reads: Ollama's under `/api/`, Anthropic's
    for Messages, OpenAI's for the rest (the common dialect of compatible servers)."""
    lower = path.lower()
    if lower.startswith("/api/") or lower.endswith(("/api/chat", "/api/generate")):
        return "ollama"  # Ollama behind a base path (`/ollama/api/chat`) too
    if fnmatch.fnmatchcase(lower, "*/messages*") and "/threads/" not in lower:
        return "anthropic"
    return "openai"


# The error type each status is, in OpenAI's and Anthropic's own words.
_OPENAI_TYPES = {
    400: "invalid_request_error",
    405: "invalid_request_error",
    408: "invalid_request_error",
    413: "invalid_request_error",
    503: "server_error",
}
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    405: "invalid_request_error",
    408: "timeout_error",
    413: "request_too_large",
    503: "overloaded_error",
    529: "overloaded_error",
}


def error_body(family: Family, status: int, message: str, code: str) -> bytes:
    """An error in the family's format: OpenAI `{"error": {...}}`, Anthropic
    `{"type": "error", "error": {...}}`, Ollama `{"error": "..."}`."""
    body: object
    if family == "ollama":
        body = {"error": message}
    elif family == "anthropic":
        kind = _ANTHROPIC_TYPES.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message}}
    else:
        kind = _OPENAI_TYPES.get(status, "upstream_error")
        body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return json.dumps(body).encode()
