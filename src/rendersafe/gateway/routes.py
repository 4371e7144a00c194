"""What kind of API a path is, whether its replies are sanitised, and its own errors.

OpenAI (chat and legacy completions, Responses), Anthropic Messages and Ollama (`/api/chat`,
`/api/generate`) replies are model text a client renders: the middleware covers them, under
a base path too (`/openai/v1/...`, `/ollama/api/chat`).
Every other path (models, embeddings, files, batches, ...) is forwarded untouched.
An error the proxy answers itself is written in the format the client's SDK reads.
"""

from __future__ import annotations

import fnmatch
import json
from typing import Literal, TypeAlias

__all__ = ["SANITISED", "Family", "error_body", "family_of", "route_of"]

Family: TypeAlias = Literal["openai", "anthropic", "ollama"]

# fnmatch patterns the middleware covers; `*` first so a base path (`/openai/v1`,
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


def route_of(path: str) -> str:
    """The route's name for metrics: a sanitised API, or `passthrough`."""
    if not any(fnmatch.fnmatchcase(path, pattern) for pattern in SANITISED):
        return "passthrough"
    return next((name for pattern, name in _ROUTES if fnmatch.fnmatchcase(path, pattern)), "other")


def family_of(path: str) -> Family:
    """Whose error format a client of `path` reads: Ollama's under `/api/`, Anthropic's
    for Messages, OpenAI's for the rest (the common dialect of compatible servers)."""
    if path.startswith("/api/") or path.endswith(("/api/chat", "/api/generate")):
        return "ollama"  # Ollama behind a base path (`/ollama/api/chat`) too
    if fnmatch.fnmatchcase(path, "*/messages*") and "/threads/" not in path:
        return "anthropic"
    return "openai"


# The error type each status is, in OpenAI's and Anthropic's own words.
_OPENAI_TYPES = {413: "invalid_request_error", 503: "server_error"}
_ANTHROPIC_TYPES = {413: "request_too_large", 503: "overloaded_error", 529: "overloaded_error"}


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
