"""`rendersafe.shapes` reads Pydantic AI's messages (`ModelRequest`, `ModelResponse`), as
objects and as `ModelMessagesTypeAdapter` dumps them: each part by its author, files as
URLs or as the text they hold, and a secret in any of them is the conversation's."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters import TOKEN, need

need("pydantic_ai")
from pydantic_ai.messages import (  # noqa: E402
    BinaryContent,
    ImageUrl,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from rendersafe import sanitize  # noqa: E402
from rendersafe.shapes import Kind, read  # noqa: E402

MESSAGES = [
    ModelRequest(
        parts=[SystemPromptPart("Be brief."), UserPromptPart("Chart my usage.")],
        instructions="Answer in English.",
    ),
    ModelResponse(
        parts=[ThinkingPart("I need the account."), ToolCallPart("account", {"q": "key"}, "c1")]
    ),
    ModelRequest(parts=[ToolReturnPart("account", {"key": TOKEN}, "c1")]),
    ModelRequest(parts=[RetryFeedbackPart("try again", retry=RetryInfo("no_output"))]),
    ModelRequest(
        parts=[
            UserPromptPart(
                [
                    "And this file:",
                    ImageUrl(url="https://img.example/a.png"),
                    BinaryContent(data=b"notes: all good", media_type="text/plain"),
                ]
            )
        ]
    ),
    ModelResponse(parts=[TextPart("Here it is.")]),
]
WANT = [
    ("system", Kind.TEXT, "Be brief."),
    ("user", Kind.TEXT, "Chart my usage."),
    ("system", Kind.TEXT, "Answer in English."),
    ("model", Kind.REASONING, "I need the account."),
    ("model", Kind.CALL, "key"),
    ("tool", Kind.RESULT, TOKEN),
    ("tool", Kind.RESULT, "try again"),
    ("user", Kind.TEXT, "And this file:"),
    ("user", Kind.FILE, "https://img.example/a.png"),
    ("user", Kind.ATTACHMENT, "notes: all good"),
    ("model", Kind.TEXT, "Here it is."),
]


def _dumped() -> Any:
    return ModelMessagesTypeAdapter.dump_python(MESSAGES)


def _json() -> Any:
    return json.loads(ModelMessagesTypeAdapter.dump_json(MESSAGES))


@pytest.mark.parametrize(
    "given", [lambda: MESSAGES, _dumped, _json], ids=["objects", "dumped", "json"]
)
def test_each_part_is_read_as_its_authors(given: Any) -> None:
    chat = read(given())
    found = [(t.role, t.kind, t.text) for t in chat.texts if t.kind != Kind.OTHER]
    assert found == WANT
    assert not chat.notes


def test_a_secret_in_a_tool_return_is_the_conversations() -> None:
    reply = f"See [the docs](https://docs.jsontools.example/ref?t={TOKEN}) now."
    assert TOKEN in sanitize(reply)  # alone, the reply does not show it is a secret
    assert TOKEN not in sanitize(reply, conversation=MESSAGES)
    assert TOKEN not in sanitize(reply, conversation=_json())
