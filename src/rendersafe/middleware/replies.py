"""The middleware's own answers, and what it reads of a scope and of headers."""

from __future__ import annotations

import json
import logging
import traceback

from starlette.types import ASGIApp, Scope, Send

from ..errors import FormatError, InputTooLargeError, RenderSafeError
from ..urls.redact import exception_text
from ..wire import format_of

__all__ = [
    "UNAUDITED",
    "WITHHELD",
    "cause_of",
    "charset_of",
    "context_key",
    "described",
    "format_for",
    "framework_page",
    "log_exception",
    "logger",
    "refuse",
]

logger = logging.getLogger("rendersafe.middleware")

WITHHELD = "rendersafe withheld the rest of this reply"
UNAUDITED = "the audit log cannot be written; replies are held back"
# The attributes of a FastAPI app that name the pages it serves about itself.
_FRAMEWORK_PAGES = ("openapi_url", "docs_url", "redoc_url", "swagger_ui_oauth2_redirect_url")


async def refuse(send: Send, status: int, message: str, request_id: str | None = None) -> None:
    """Answer with an error of ours, in JSON."""
    error = {"type": "rendersafe_error", "message": message, "request_id": request_id}
    body = json.dumps({"error": error}).encode()
    length = str(len(body)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", length)]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def cause_of(exc: Exception) -> str:
    """The cause a failure is counted under."""
    if isinstance(exc, InputTooLargeError):
        return "too_large"
    if isinstance(exc, FormatError):
        return "format_error"
    return "sanitize_failure"


def described(exc: Exception) -> str:
    """Why a response failed: our own errors say it without quoting the body; any other
    exception's text is bounded and redacted."""
    if isinstance(exc, RenderSafeError):
        return f"{type(exc).__name__}: {str(exc)[:300]}"
    return exception_text(exc)


def log_exception(message: str, exc: BaseException) -> None:
    """Log `exc` with where it was raised but not its text, which may quote the reply."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = "".join(f"\n  {f.filename}:{f.lineno} in {f.name}" for f in frames[-8:])
    logger.warning("%s %s%s", message, exception_text(exc), where)


def context_key(header: str) -> str:
    """The context key of a header: `x-conversation-id` gives `conversation_id`."""
    name = header[2:] if header.startswith("x-") else header
    return name.replace("-", "_")


def framework_page(scope: Scope, path: str, wrapped: ASGIApp) -> bool:
    """Is `path` a page the app's framework serves about the app (FastAPI's OpenAPI
    schema and its documentation), not a reply? The app is the scope's (added with
    `app.add_middleware`) or the one wrapped."""
    app = scope.get("app", wrapped)
    if getattr(app, "openapi_url", None) is None:
        return False
    root = scope.get("root_path", "")
    for name in _FRAMEWORK_PAGES:
        url = getattr(app, name, None)
        if isinstance(url, str) and url and path in (url, root + url):
            return True
    return False


def format_for(content_types: list[str]) -> str | None:
    """The format of the content type; two that disagree are read as a client may."""
    formats = {format_of(value) for value in content_types} or {format_of(None)}
    if len(formats) == 1:
        return formats.pop()
    return "unsupported"


def charset_of(content_type: str | None) -> str | None:
    """The `charset` parameter of a content type, if it has one (lower case; RFC 2231's
    `charset*=utf-16''` too, which Python's `email` reads); `FormatError` for two that
    differ, which clients would read either way."""
    found = set()
    for param in (content_type or "").split(";")[1:]:
        name, _, value = param.partition("=")
        name = name.strip().lower()
        if name == "charset*":  # charset'language'text
            found.add(value.strip().split("'", 1)[0].lower())
        elif name == "charset":
            found.add(value.strip().strip("\"'").lower())
    if len(found) > 1:
        raise FormatError("a content type with two charsets")
    return next(iter(found), None) or None
