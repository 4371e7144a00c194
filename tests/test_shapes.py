"""`rendersafe.shapes`, the one reader of chat shapes: it reads every string wherever it
is, decodes text attachments, keeps the user's words when a chat is too long, never
raises, and is the only place that knows a provider's field names."""

from __future__ import annotations

import ast
import base64
import json
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rendersafe import Conversation
from rendersafe.scan.records import texts_of
from rendersafe.shapes import Chat, Kind, Text, read, window
from rendersafe.shapes.attachments import decode_attachment
from shapes_corpus import CASES, Case

PACKAGE = Path(__file__).parent.parent / "src" / "rendersafe"
MARK = "Zq7mK2pX9marker"

# Request-side field names of the providers' chat shapes: only `shapes/` may say them.
PROVIDER_FIELDS = frozenset(
    {
        "tool_call_id",
        "tool_result",
        "toolResult",
        "toolUse",
        "functionResponse",
        "functionCall",
        "inlineData",
        "systemInstruction",
        "system_instruction",
        "chat_history",
        "preamble",
        "page_content",
        "previous_response_id",
        "function_call_output",
        "input_text",
        "input_image",
        "input_file",
        "image_url",
        "server_tool_use",
        "search_result",
        "toolInvocation",
        "chat_messages",
        "extracted_content",
        "tool_calls",
        "kwargs",
        "sender",
    }
)


def _literals(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


@pytest.mark.parametrize(
    "module",
    [p for p in sorted(PACKAGE.rglob("*.py")) if "shapes" not in p.relative_to(PACKAGE).parts],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_no_module_outside_shapes_names_a_provider_field(module: Path) -> None:
    named = _literals(module) & PROVIDER_FIELDS
    assert not named, f"{module.name} reads {sorted(named)}: only rendersafe.shapes may"


def test_the_field_test_sees_field_names() -> None:
    assert "tool_call_id" in _literals(PACKAGE / "shapes" / "openai.py") | _literals(
        PACKAGE / "shapes" / "bodies.py"
    ) or "toolResult" in _literals(PACKAGE / "shapes" / "bedrock.py")


def _grouped_roles(texts: list[Text]) -> list[tuple[int, str]]:
    """(turn, role) of each run of texts, as the conversation groups them."""
    runs: list[tuple[int, str, Kind]] = []
    for text in texts:
        key = (text.turn, text.role, text.kind)
        if not runs or runs[-1] != key:
            runs.append(key)
    return [(turn, role) for turn, role, _ in runs]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_scanner_and_the_conversation_give_every_message_the_same_role(case: Case) -> None:
    conversation = Conversation.from_messages(case.body, max_chars=1 << 30)
    as_read = [(m.index, m.role) for m in conversation.messages]
    scanned = _grouped_roles([t.source for t in texts_of(case.body)])
    assert as_read == scanned


def _nested(value: object, keys: list[str]) -> object:
    for key in reversed(keys):
        value = {key: value}
    return value


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(
        st.sampled_from(["data", "context", "status", "id", "type", "x", "content", "parts"]),
        max_size=14,
    ),
    role=st.sampled_from(["user", "assistant", "tool", "system", None]),
    listed=st.booleans(),
)
def test_every_string_is_read_whatever_its_key_and_depth(
    keys: list[str], role: str | None, listed: bool
) -> None:
    inner: object = [_nested(MARK, keys)] if listed else _nested(MARK, keys)
    message: dict[str, Any] = {"content": inner}
    if role is not None:
        message["role"] = role
    chat = read([{"role": "user", "content": "hello"}, message])
    assert any(MARK in text.text for text in chat.texts), chat.texts


def test_base64_text_attachments_are_read_as_their_text() -> None:
    coded = base64.b64encode(f"the door code is {MARK}".encode()).decode()
    for part in (
        {"type": "file", "file": {"file_data": f"data:text/plain;base64,{coded}"}},
        {"type": "input_file", "file_data": f"data:application/json;base64,{coded}"},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "text/plain", "data": coded},
        },
        {"inlineData": {"mimeType": "text/plain", "data": coded}},
        {"type": "file", "mediaType": "text/plain", "url": f"data:text/plain;base64,{coded}"},
    ):
        chat = read([{"role": "user", "content": [part]}])
        found = [t for t in chat.texts if MARK in t.text]
        assert [(t.kind, t.editable) for t in found] == [(Kind.ATTACHMENT, False)], part


def test_binary_is_skipped_and_unreadable_files_are_noted() -> None:
    image = base64.b64encode(bytes(range(256)) * 40).decode()
    chat = read(
        [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64," + image}}
                ],
            }
        ]
    )
    assert all(image[:40] not in t.text for t in chat.texts)
    assert chat.notes == ()
    docx = base64.b64encode(b"PK\x03\x04" + bytes(range(256)) * 4).decode()
    word = {
        "type": "file",
        "mediaType": "application/msword",
        "url": f"data:application/msword;base64,{docx}",
    }
    noted = read([{"role": "user", "content": [word]}])
    assert noted.notes == ("unread: an attachment of type application/msword (not text)",)
    assert Conversation.from_messages([{"role": "user", "content": [word]}]).truncated


def test_a_pdf_is_read_as_far_as_its_text_streams_show_it() -> None:
    content = zlib.compress(f"BT /F1 12 Tf 72 700 Td [(The key is ) -20 ({MARK})] TJ ET".encode())
    head = f"1 0 obj << /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode()
    pdf = b"%PDF-1.4\n" + head
    pdf += content + b"\nendstream\nendobj\n%%EOF\n"
    coded = base64.b64encode(pdf).decode()
    block = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": coded},
    }
    chat = read([{"role": "user", "content": [block]}])
    assert [t.text for t in chat.texts if t.kind == Kind.ATTACHMENT] == [f"The key is {MARK}"]
    assert chat.notes == ("partial: a PDF attachment was read as far as its text streams show it",)


@pytest.mark.parametrize(
    ("data", "media", "expected"),
    [
        ("data:text/plain,hello%20there", None, "hello there"),
        ("aGVsbG8gdGhlcmU=", "text/plain", "hello there"),
        ("plain words", "text/markdown", "plain words"),
        ("data:image/png;base64,AAAA", None, ""),
        ("QUJD" * 2000, "image/jpeg", ""),
    ],
)
def test_decode_attachment(data: str, media: str | None, expected: str) -> None:
    assert decode_attachment(data, media).text == expected


def test_the_window_keeps_the_system_prompt_and_the_user_over_tools_and_the_model() -> None:
    texts = [
        Text("system", "S" * 50, Kind.TEXT, 0),
        Text("user", f"question {MARK}", Kind.TEXT, 1),
        Text("model", "M" * 5_000, Kind.TEXT, 2),
        Text("tool", "T" * 300_000, Kind.RESULT, 3),
        Text("user", "L" * 400, Kind.TEXT, 4),
    ]
    kept, dropped = window(texts, 1_000)
    assert [t.turn for t in kept] == [0, 1, 3, 4]  # the model's turn first to go
    assert kept[0].text == "S" * 50
    assert MARK in kept[1].text
    assert kept[3].text == "L" * 400
    assert sum(len(t.text) for t in kept) == 1_000
    assert dropped == sum(len(t.text) for t in texts) - 1_000


class _Exploding:
    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(name)


def _cyclic() -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "content": [MARK]}
    message["content"].append(message)
    return message


def _deep(depth: int) -> object:
    value: object = MARK
    for _ in range(depth):
        value = {"content": [value]}
    return value


@pytest.mark.parametrize(
    "value",
    [
        [_Exploding(), {"role": "user", "content": MARK}],
        [_cyclic()],
        [{"role": "tool", "content": _deep(10_000)}],
        json.loads("[" * 900 + json.dumps(MARK) + "]" * 900),
        {"messages": [{"role": {}, "content": {"type": {}, "text": MARK}}]},
    ],
    ids=["exploding", "cyclic", "10000-deep", "900-deep-lists", "odd-types"],
)
def test_bad_input_is_read_as_far_as_it_goes_and_never_raises(value: object) -> None:
    chat = read(value)
    assert isinstance(chat, Chat)
    assert any(MARK in text.text for text in chat.texts)
