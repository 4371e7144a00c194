"""`ContentSecurityPolicyMiddleware`: the header of `csp(policy)` on every HTML page an
ASGI app (Starlette, FastAPI) serves.

    app.add_middleware(ContentSecurityPolicyMiddleware, policy=policy)   # FastAPI
    app = ContentSecurityPolicyMiddleware(app, policy=policy)            # any ASGI app

A header the app sets itself is kept: the browser enforces both, so this one only
narrows what the page may load. `report_only=True` sends it as
`Content-Security-Policy-Report-Only` (see what it would block before enforcing it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..policy import Policy
from .header import csp

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ContentSecurityPolicyMiddleware"]

_ENFORCE = b"content-security-policy"
_REPORT = b"content-security-policy-report-only"


class ContentSecurityPolicyMiddleware:
    """Adds `csp(policy)` (or `header`, a value of your own) to each HTML response;
    with `html_only=False`, to every response."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        policy: Policy | None = None,
        header: str | None = None,
        report_only: bool = False,
        html_only: bool = True,
    ) -> None:
        self.app = app
        value = header if header is not None else csp(policy or Policy())
        self._header = (_REPORT if report_only else _ENFORCE, value.encode("latin-1"))
        self._html_only = html_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start" and self._applies(message["headers"]):
                message = {**message, "headers": [*message["headers"], self._header]}
            await send(message)

        await self.app(scope, receive, send_with_header)

    def _applies(self, headers: Iterable[tuple[bytes, bytes]]) -> bool:
        if not self._html_only:
            return True
        kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
        return kind.split(b";")[0].strip().lower() in (b"text/html", b"application/xhtml+xml")
