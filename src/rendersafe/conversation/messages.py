"""Read what the model saw, in the shapes the chat APIs send it, as (role, text) messages.

    OpenAI chat        {"role", "content": str | [{"type": "text" | "image_url"}], "tool_calls"}
    OpenAI Responses   {"type": "message" | "function_call" | "function_call_output", ...}, strings
    Anthropic          {"role", "content": str | [text, tool_use, tool_result, image blocks]}
    Ollama             {"role", "content", "images"}; generate's {"prompt", "system"}
    request bodies     {"system" | "instructions", "messages" | "input" | "prompt"}
    Gemini             {"systemInstruction", "contents": [{"role": "user" | "model", "parts"}]}
    SDK objects        model_dump() -> dict, or attributes role / content
    LangChain          {"type": "ai" | "human" | ..., "data"}, {"type": "constructor", "kwargs"}

Any other shape gives every string in it (depth-bounded); nothing here raises for a shape.
Binary payloads (base64 images and audio, `data:` URLs, signatures) are skipped: they are
not text the model read, and they would crowd the newest text out of the size bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

__all__ = ["Message", "read_messages"]

BARE_ROLE = "text"
# A message whose author is not said: a mapping without a role, strings read out of a
# body of no known shape. It may be the model's.
UNKNOWN_ROLE = "unknown"
# Roles whose own words are the user's (a bare string is taken as the user's).
USER_ROLES = frozenset({"user", "human", BARE_ROLE})
# Roles whose words are the model's (its earlier replies, as the client sends them back).
MODEL_ROLES = frozenset({"assistant", "gpt", "model", "bot", "ai", "chatbot"})
# Messages that prove no URL copied and no host seen: the model may have written them.
UNPROVEN_ROLES = MODEL_ROLES | {UNKNOWN_ROLE}
# LangChain names a message's role by its type: `messages_to_dict` gives
# {"type": "ai", "data": {...}}, `dumpd` {"type": "constructor", "id": [..., "AIMessage"],
# "kwargs": {...}}, a message object's model_dump() {"type": "ai", "content": ...}.
_LANGCHAIN_ROLES = {
    "human": "human",
    "ai": "ai",
    "system": "system",
    "tool": "tool",
    "function": "tool",
}
# What is read from one message is kept once per process (a chat sends its history
# again each turn), for a few thousand messages of at most this many characters: a
# longer one is read again each time (linear: that costs what it cost before), so the
# memos hold at most ~4096 x 32K characters however large the requests.
MEMO_CHARS = 32_768
_MAX_DEPTH = 8
# Keys whose values are identifiers, enums or binary payloads, never text the model read.
_SKIP_KEYS = frozenset(
    {
        "b64_json",
        "cache_control",
        "call_id",
        "context",
        "data",
        "detail",
        "encrypted_content",
        "file_data",
        "format",
        "id",
        "images",
        "index",
        "media_type",
        "mime_type",
        "model",
        "signature",
        "status",
        "tool_call_id",
        "tool_use_id",
        "type",
    }
)
# The keys of a request body (`_body`).
_BODY_KEYS = frozenset({"prompt", "messages", "contents"})
# Where a tool's or a server's answer sits inside a model's item or part.
_TOOL_OUTPUT_KEYS = frozenset({"output", "outputs", "results", "result", "errorText"})
# Responses items the model makes that are not `..._call`s.
_MODEL_ITEMS = frozenset({"reasoning", "mcp_list_tools", "mcp_approval_request"})
_TEXT_PARTS = frozenset({"text", "input_text", "output_text", "summary_text", "reasoning_text"})
# Parts that point at a file: their URL is kept (a seen URL), their inline bytes are not.
_FILE_PARTS = frozenset({"image_url", "input_image", "image", "document", "file", "input_file"})


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a conversation, as the model saw it.

    `index` is its position in the conversation as given (a request body's system
    prompt is 0 and its messages follow), `role` its role as given ("text" for a
    bare string), `text` all its text parts joined by "\\n", tool calls' arguments
    and tool results included.
    """

    index: int
    role: str
    text: str


@dataclass(slots=True)
class _Read:
    role: str
    parts: list[str]
    own: list[str]  # the author's own words (not tool results): whose e-mail addresses
    # What a tool or a server returned inside a model's item (an AI SDK tool part's
    # `output`, Anthropic's `web_search_tool_result`, a Responses `mcp_call`'s `output`):
    # read as a tool message of its own, which the model did not write.
    tool: list[str] = field(default_factory=list)
    models: bool = field(init=False)  # the model's item: asked of each field and part

    def __post_init__(self) -> None:
        self.models = self.role.lower() in MODEL_ROLES


def read_messages(
    messages: object, max_chars: int
) -> tuple[tuple[Message, ...], tuple[str, ...], bool]:
    """The messages (newest `max_chars` characters of text), the user's own text of
    each, and whether older text was dropped. Raises TypeError for a non-iterable."""
    items = _expand(messages)
    budget = max(max_chars, 0)
    kept: list[tuple[Message, str]] = []
    truncated = False
    for index in range(len(items) - 1, -1, -1):
        if budget <= 0:
            truncated = True  # older messages are dropped unread: the work stays bounded
            break
        read = _read_any(items[index])
        # Newest first: a model item's tool output follows what the model wrote in it.
        for role, parts in (("tool", read.tool), (read.role, read.parts)):
            if not parts and role == "tool":
                continue
            text = _unescaped("\n".join(parts))
            if len(text) > budget:
                text, truncated = text[len(text) - budget :], True
            budget -= len(text)
            own = "\n".join(read.own) if role.lower() in USER_ROLES else ""
            kept.append((Message(index, role, text), own))
    kept.reverse()
    return tuple(m for m, _ in kept), tuple(own for _, own in kept), truncated


def _unescaped(text: str) -> str:
    """`text` with the JSON escapes that hide a URL undone: `\\/` (PHP's and many
    encoders' `/`) and `\\u0026` (Go's `&`), so a tool result's URLs are seen as URLs."""
    if "\\/" in text:
        text = text.replace("\\/", "/")
    if "\\u0026" in text:
        text = text.replace("\\u0026", "&")
    return text


def _expand(messages: object) -> list[object]:
    """The flat list of message-like items in `messages`."""
    if isinstance(messages, (str, bytes, bytearray)):
        return [messages]
    body = _mapping(messages)
    if body is not None:
        return _body(body)
    if not isinstance(messages, Iterable):
        kind = type(messages).__name__
        raise TypeError(f"conversation must be a string or an iterable of messages, not {kind}")
    items: list[object] = []
    for item in messages:
        fields = item if isinstance(item, Mapping) else None
        if fields is not None and "role" not in fields and not _BODY_KEYS.isdisjoint(fields):
            items.extend(_body(fields))  # a request body in a list (Ollama's generate)
        else:
            items.append(item)
    return items


def _body(body: Mapping[object, object]) -> list[object]:
    """A request body's system prompt and messages, or the mapping as one message."""
    conversation = body.get("messages", body.get("input", body.get("contents")))
    if conversation is None and "prompt" in body and "role" not in body:
        conversation = [{"role": "user", "content": body["prompt"]}]
    if conversation is None:
        return [body]
    system = body.get("system", body.get("instructions", body.get("systemInstruction")))
    head: list[object] = [{"role": "system", "content": system}] if system else []
    if isinstance(conversation, str):
        return [*head, {"role": "user", "content": conversation}]
    if isinstance(conversation, Iterable):
        return [*head, *conversation]
    return [*head, conversation]


def _mapping(value: object) -> Mapping[object, object] | None:
    """`value` as a mapping: itself, its model_dump(), or its role and content."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, (str, bytes, bytearray, list, tuple)):
        return None
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            dumped = dump()
        except Exception:  # a broken SDK object is read by its attributes instead
            dumped = None
        if isinstance(dumped, Mapping):
            return dumped
    content = getattr(value, "content", None)
    if content is None:
        return None
    role = getattr(value, "role", None) or getattr(value, "type", None)
    return {"role": role if isinstance(role, str) else UNKNOWN_ROLE, "content": content}


# Keys of the plain chat message, read without the general walk: the common case.
_PLAIN_KEYS = frozenset({"role", "content", "name"})


def _read_any(item: object) -> _Read:
    """`_read`, for any item: one that breaks it (an object whose attributes raise) gives
    its strings, of no known author, rather than costing the whole conversation."""
    try:
        return _read(item)
    except Exception:  # any shape, any failure: the rest is still read
        try:
            return _Read(UNKNOWN_ROLE, list(_strings(item, 0)), [])
        except Exception:
            return _Read(UNKNOWN_ROLE, [], [])


def _read(item: object) -> _Read:
    if type(item) is dict and isinstance(item.get("content"), str) and item.keys() <= _PLAIN_KEYS:
        role = item.get("role")
        return _Read(
            role if isinstance(role, str) and role else UNKNOWN_ROLE,
            [item["content"]],
            [item["content"]],
        )
    if isinstance(item, str):
        return _Read(BARE_ROLE, [item], [item])
    if isinstance(item, (bytes, bytearray)):
        text = bytes(item).decode("utf-8", "replace")
        return _Read(BARE_ROLE, [text], [text])
    fields = _mapping(item)
    if fields is None:
        return _Read(UNKNOWN_ROLE, list(_strings(item, 0)), [])
    return _read_fields(fields)


def _read_fields(fields: Mapping[object, object]) -> _Read:
    fields = _langchain(fields) or fields
    kind = fields.get("type")
    role = fields.get("role") or fields.get("from") or fields.get("author")
    if not role and isinstance(kind, str):
        role = _item_role(kind)
    if not isinstance(role, str) or not role:
        # A chat message that does not say whose it is may be the model's; a record
        # with no message's shape (a retrieved document: `page_content`) is a source.
        role = UNKNOWN_ROLE if "content" in fields or kind == "message" else "document"
    read = _Read(role, [], [])
    for key, value in fields.items():
        if key in ("role", "from", "author", "name") or key in _SKIP_KEYS:
            continue
        if read.models and key in _TOOL_OUTPUT_KEYS:
            read.tool.extend(_strings(value, 1))
        elif key in ("content", "parts", "value", "output", "prompt", "text"):
            _content(value, read, own=True, depth=1)
        else:
            read.parts.extend(_strings(value, 1))
    return read


def _langchain(fields: Mapping[object, object]) -> Mapping[object, object] | None:
    """A LangChain message serialised as a dict: its fields, with its role."""
    kind, inner = fields.get("type"), fields.get("kwargs", fields.get("data"))
    if not isinstance(inner, Mapping) or "content" not in inner:
        return None
    path = fields.get("id")
    if kind == "constructor" and isinstance(path, list) and path:
        role = _langchain_role(str(path[-1]))
    elif isinstance(kind, str) and kind in _LANGCHAIN_ROLES and "data" in fields:
        role = _LANGCHAIN_ROLES[kind]
    else:
        return None
    return {**inner, "role": inner.get("role") or role or UNKNOWN_ROLE, "type": "message"}


def _langchain_role(name: str) -> str | None:
    """The role of a LangChain message type or class (`ai`, `AIMessage`, `AIMessageChunk`)."""
    return _LANGCHAIN_ROLES.get(name.removesuffix("Chunk").removesuffix("Message").lower())


def _item_role(kind: str) -> str | None:
    """The role of an item that names none, by its type: a Responses item the model
    made (`function_call`, `reasoning`, any `..._call`) or a tool's output, or a
    LangChain message (`ai`, `AIMessageChunk`)."""
    if kind.endswith("_output"):
        return "tool"
    if kind.endswith("_call") or kind in _MODEL_ITEMS:
        return "assistant"
    return _langchain_role(kind)


def _content(value: object, read: _Read, *, own: bool, depth: int) -> None:
    """A message's content: a string, or a list of parts / blocks."""
    if isinstance(value, str):
        read.parts.append(value)
        if own:
            read.own.append(value)
    elif isinstance(value, (list, tuple)) and depth < _MAX_DEPTH:
        for part in value:
            _part(part, read, own=own, depth=depth + 1)
    else:
        read.parts.extend(_strings(value, depth))


def _part(part: object, read: _Read, *, own: bool, depth: int) -> None:
    fields = None if isinstance(part, str) else _mapping(part)
    if fields is None:
        _content(part, read, own=own, depth=depth)
        return
    kind = fields.get("type")
    kind = kind if isinstance(kind, str) else None  # `{"type": {}}` names no part
    if kind in _TEXT_PARTS and isinstance(fields.get("text"), str):
        _content(fields["text"], read, own=own, depth=depth)
    elif read.models and kind is not None and _returned(kind, fields):
        _tool_part(fields, read, depth)
    elif kind == "tool_result":
        _content(fields.get("content"), read, own=False, depth=depth)
    elif kind in _FILE_PARTS:
        read.parts.extend(url for url in _strings(fields, depth) if not url.startswith("data:"))
    else:
        read.parts.extend(_strings(fields, depth))


def _returned(kind: str, fields: Mapping[object, object]) -> bool:
    """Does a part of a model's message hold what a tool returned? Anthropic's server
    tools' results (`web_search_tool_result`, ...), an AI SDK tool part with its output."""
    if kind.endswith("tool_result"):
        return True
    tool = kind.startswith("tool-") or kind == "dynamic-tool"
    return tool and any(key in fields for key in _TOOL_OUTPUT_KEYS)


def _tool_part(fields: Mapping[object, object], read: _Read, depth: int) -> None:
    """A tool's part of a model's message: what it returned goes to the tool's message,
    what the model gave it (`input`) stays the model's."""
    for key, value in fields.items():
        if key in _SKIP_KEYS:
            continue
        returned = key in _TOOL_OUTPUT_KEYS or key == "content"
        (read.tool if returned else read.parts).extend(_strings(value, depth))


def _strings(value: object, depth: int) -> Iterator[str]:
    """Every string in `value`, skipping identifiers and binary payloads."""
    if isinstance(value, str):
        if not value.startswith("data:"):
            yield value
        return
    if depth >= _MAX_DEPTH:
        return
    fields = _mapping(value)
    if fields is not None:
        for key, item in fields.items():
            if key not in _SKIP_KEYS:
                yield from _strings(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item, depth + 1)
