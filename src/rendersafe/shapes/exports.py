"""Stored chats: the export and log formats people keep, each recognised by its shape.

    chatgpt          ChatGPT data export: `mapping` of nodes (`message.author.role`,
                     `message.content.parts`), every branch; each turn answers its
                     ancestors only (`Text.after`)
    claude           Claude.ai data export: `chat_messages` (`sender`, `text` and
                     `content`, `attachments[].extracted_content`)
    open-webui       Open WebUI: `chat.history.messages` (a tree) and `chat.messages` (the
                     branch shown): one text in both places is one text (`Text.mirrors`)
    lmsys            LMSYS-Chat-1M, WildChat: `conversation`
    openai-batch     OpenAI Batch output: `custom_id`, `response.body`
    anthropic-batch  Anthropic Message Batches results: `custom_id`, `result.message`
    vertex-batch     Vertex AI batch prediction: `request.contents`, `response.candidates`
    gemini           Gemini / Vertex: `contents`, `candidates[].content` (the model's)
    completion       OpenAI `chat.completion` and text completions: `choices`
    responses        OpenAI Responses: `instructions`, `output` items
    langsmith        LangSmith runs: `inputs` and `outputs`
    sharegpt         {"conversations": [{"from", "value"}]}

Each reads its messages with `messages.message`, so a turn's author is read as in any
other shape.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from . import bodies
from .content import content, rest
from .messages import author, message
from .record import MODEL, TOOL, USER, Kind, Path, Text, role_of
from .walk import At, Reader

__all__ = [
    "EXPORTS",
    "ExportReader",
    "ExportTest",
    "is_message_list_head",
    "record_day",
    "record_id",
]

ExportTest = Callable[[Any], bool]
ExportReader = Callable[[Reader, Any], None]
Node = tuple[Any, list[Any], Any]  # parent id, child ids, the node's message
_TIME_FIELDS = ("create_time", "created_at", "timestamp", "created", "start_time", "processed_time")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_ID_FIELDS = ("id", "conversation_id", "record_id", "uuid", "custom_id", "conversation_hash")
# A JSON file that starts as a list of LangChain messages: one conversation, not a
# list of records.
_MESSAGE_LIST = re.compile(rb'(?:\xef\xbb\xbf)?\s*\[\s*\{\s*"(?:type|lc)"\s*:')


def record_id(data: Any, fallback: str) -> str:
    """The record's own id, if it has one."""
    if isinstance(data, dict):
        for name in _ID_FIELDS:
            if isinstance(data.get(name), str | int):
                return str(data[name])
    return fallback


def record_day(data: Any) -> str | None:
    """The day (YYYY-MM-DD, UTC) of the record's own timestamp, if it has one."""
    if not isinstance(data, dict):
        return None
    for name in _TIME_FIELDS:
        value = data.get(name)
        if isinstance(value, str) and _DAY.match(value):
            return value[:10]
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            seconds = value / 1000 if value > 1e11 else value  # milliseconds
            with contextlib.suppress(OverflowError, OSError, ValueError):
                return datetime.fromtimestamp(seconds, UTC).date().isoformat()
    return None


def is_message_list_head(head: bytes) -> bool:
    """Does a JSON file starting with `head` look like one list of LangChain messages
    (one conversation), not a list of records?"""
    return _MESSAGE_LIST.match(head) is not None


def _chatgpt(reader: Reader, data: dict[str, Any]) -> None:
    nodes = {
        key: (node.get("parent"), _ids(node.get("children")), node.get("message"))
        for key, node in data["mapping"].items()
        if isinstance(node, dict)
    }

    def read(key: Any, payload: Any, turn: int) -> None:
        _chatgpt_message(reader, payload, turn, ("mapping", key, "message"))

    _tree(reader, nodes, read)
    rest(reader, data, At(USER, 0, ()), ("mapping",))


def _chatgpt_message(reader: Reader, value: Any, turn: int, path: Path) -> None:
    if not isinstance(value, dict):
        return
    role = author(value) or MODEL
    at = At(role, turn, path)
    kind = Kind.RESULT if role == TOOL else Kind.TEXT
    body = value.get("content")
    if isinstance(body, dict):
        where = at / "content"
        for key in ("parts", "text"):
            if key in body:
                content(reader, body[key], where / key, kind)
        if "thoughts" in body:
            reader.strings(body["thoughts"], where.by(MODEL) / "thoughts", Kind.REASONING)
        rest(reader, body, where, ("parts", "text", "thoughts", "content_type"))
    else:
        content(reader, body, at / "content", kind)
    rest(reader, value, at, ("content", "author"))


def _tree(reader: Reader, nodes: Mapping[Any, Node], read: Callable[[Any, Any, int], None]) -> None:
    """Read a conversation tree, every branch, depth first from each root; each node's
    texts answer the turns of its ancestors only."""
    roots = [key for key, (parent, _, _) in nodes.items() if parent not in nodes]
    seen: set[Any] = set()
    stack: list[tuple[Any, tuple[int, ...]]] = [(root, ()) for root in reversed(roots)]
    turn = 0
    while stack:
        key, above = stack.pop()
        if key in seen or key not in nodes:
            continue
        seen.add(key)
        _, children, payload = nodes[key]
        start = len(reader.texts)
        read(key, payload, turn)
        reader.texts[start:] = [replace(t, after=above) for t in reader.texts[start:]]
        below = (*above, turn)
        turn += 1
        stack.extend((child, below) for child in reversed(children))


def _claude(reader: Reader, data: dict[str, Any]) -> None:
    for turn, (index, value) in enumerate(_dict_items(data["chat_messages"])):
        _claude_message(reader, value, turn, ("chat_messages", index))
    rest(reader, data, At(USER, 0, ()), ("chat_messages",))


def _claude_message(reader: Reader, value: dict[str, Any], turn: int, path: Path) -> None:
    role = role_of(value.get("sender")) if value.get("sender") else MODEL
    at = At(role, turn, path)
    start = len(reader.texts)
    content(reader, value.get("content"), at / "content", Kind.TEXT)
    text = value.get("text")
    if isinstance(text, str) and text:
        parts = [i for i in range(start, len(reader.texts)) if reader.texts[i].kind == Kind.TEXT]
        same = [i for i in parts if reader.texts[i].text == text]
        if len(parts) == 1 and same:  # the one text part is `text` again: one text
            first = reader.texts[same[0]]
            reader.texts[same[0]] = replace(first, mirrors=((*path, "text"),))
        else:
            reader.texts.insert(start, Text(role, text, Kind.TEXT, turn, (*path, "text")))
    for index, attachment in _dict_items(value.get("attachments")):
        where = At(USER, turn, (*path, "attachments", index))
        if isinstance(attachment.get("extracted_content"), str):
            where_text = where / "extracted_content"
            reader.text(attachment["extracted_content"], where_text, Kind.ATTACHMENT)
        rest(reader, attachment, where, ("extracted_content",))
    rest(reader, value, at, ("content", "text", "attachments", "sender"))


def _open_webui(reader: Reader, data: dict[str, Any]) -> None:
    top: Path = ("chat",) if isinstance(data.get("chat"), dict) else ()
    chat = data["chat"] if top else data
    listed = {m.get("id"): (i, m) for i, m in _dict_items(chat.get("messages")) if "id" in m}
    history = chat.get("history")
    tree = history.get("messages") if isinstance(history, dict) else None
    done: set[Any] = set()
    last = 0
    if isinstance(tree, dict):
        nodes = {
            key: (node.get("parentId"), _ids(node.get("childrenIds")), node)
            for key, node in tree.items()
            if isinstance(node, dict)
        }

        def read(key: Any, node: Any, turn: int) -> None:
            nonlocal last
            last = max(last, turn + 1)
            done.add(node.get("id"))
            path = (*top, "history", "messages", key)
            start = len(reader.texts)
            message(reader, node, turn, path)
            twin = listed.get(node.get("id"))
            if twin is not None:
                _mirror(reader, start, path, (*top, "messages", twin[0]), twin[1])

        _tree(reader, nodes, read)
    turn = last
    for index, value in _dict_items(chat.get("messages")):
        if value.get("id") not in done or "id" not in value:
            message(reader, value, turn, (*top, "messages", index))
            turn += 1


def _mirror(reader: Reader, start: int, path: Path, twin_path: Path, twin: dict[str, Any]) -> None:
    """Where `chat.messages` holds the same text as the history's node at `path`."""
    for i in range(start, len(reader.texts)):
        text = reader.texts[i]
        tail = text.path[len(path) :]
        if (
            text.path[: len(path)] == path
            and len(tail) == 1
            and twin.get(str(tail[0])) == text.text
        ):
            reader.texts[i] = replace(text, mirrors=((*twin_path, tail[0]),))


def _lmsys(reader: Reader, data: dict[str, Any]) -> None:
    bodies.messages(reader, data["conversation"], ("conversation",), 0)
    rest(reader, data, At(USER, 0, ()), ("conversation",))


def _openai_batch(reader: Reader, data: dict[str, Any]) -> None:
    body = data["response"].get("body")
    if isinstance(body, dict):
        for test, read in EXPORTS.values():
            if test(body):
                _nested(reader, body, ("response", "body"), read)
                return


def _nested(reader: Reader, value: Any, path: Path, read: ExportReader) -> None:
    """Read `value` (found at `path` of the record) with `read`, its paths from the root."""
    start = len(reader.texts)
    read(reader, value)
    reader.texts[start:] = [
        replace(t, path=(*path, *t.path), mirrors=tuple((*path, *m) for m in t.mirrors))
        for t in reader.texts[start:]
    ]


def _anthropic_batch(reader: Reader, data: dict[str, Any]) -> None:
    value = data["result"].get("message")
    if isinstance(value, dict):
        message(reader, value, 0, ("result", "message"))


def _vertex_batch(reader: Reader, data: dict[str, Any]) -> None:
    turn = _gemini_turns(reader, data["request"], ("request",), 0)
    if isinstance(data.get("response"), dict):
        _gemini_turns(reader, data["response"], ("response",), turn)


def _gemini(reader: Reader, data: dict[str, Any]) -> None:
    _gemini_turns(reader, data, (), 0)


def _gemini_turns(reader: Reader, data: dict[str, Any], path: Path, turn: int) -> int:
    without = {key: value for key, value in data.items() if key != "candidates"}
    start = len(reader.texts)
    bodies.body(reader, without, path)
    turn = max((t.turn for t in reader.texts[start:]), default=turn) + 1
    for index, candidate in _dict_items(data.get("candidates")):
        where = (*path, "candidates", index)
        reply = candidate.get("content")
        if isinstance(reply, dict):
            _as_model(reader, reply, turn, (*where, "content"))
        rest(reader, candidate, At(MODEL, turn, where), ("content",))
        turn += 1
    return turn


def _as_model(reader: Reader, value: dict[str, Any], turn: int, path: Path) -> None:
    """A reply that may not say whose it is: the model's."""
    message(reader, value if value.get("role") else {**value, "role": "model"}, turn, path)


def _completion(reader: Reader, data: dict[str, Any]) -> None:
    turn = bodies.messages(reader, _dicts(data.get("messages")), ("messages",), 0)
    for index, choice in _dict_items(data["choices"]):
        where = ("choices", index)
        if isinstance(choice.get("message"), dict):
            _as_model(reader, choice["message"], turn, (*where, "message"))
        elif isinstance(choice.get("text"), str):
            reader.text(choice["text"], At(MODEL, turn, (*where, "text")), Kind.TEXT)
        rest(reader, choice, At(MODEL, turn, where), ("message", "text"))
        turn += 1
    rest(reader, data, At(MODEL, turn, ()), ("messages", "choices"))


def _responses(reader: Reader, data: dict[str, Any]) -> None:
    turn = 0
    if isinstance(data.get("instructions"), str):
        reader.text(data["instructions"], At("system", 0, ("instructions",)), Kind.TEXT)
        turn = 1
    for index, item in _dict_items(data["output"]):
        message(reader, item, turn, ("output", index))
        turn += 1
    rest(reader, data, At(MODEL, turn, ()), ("instructions", "output"))


def _langsmith(reader: Reader, data: dict[str, Any]) -> None:
    turn = 0
    inputs, outputs = data.get("inputs"), data.get("outputs")
    if isinstance(inputs, dict):
        turn = _langsmith_inputs(reader, inputs, turn)
    if isinstance(outputs, dict):
        _langsmith_outputs(reader, outputs, turn)


def _langsmith_inputs(reader: Reader, inputs: dict[str, Any], turn: int) -> int:
    for path, value in _flat(inputs.get("messages"), ("inputs", "messages")):
        message(reader, value, turn, path)
        turn += 1
    prompts = inputs.get("prompts")
    for index, prompt in enumerate(prompts if isinstance(prompts, list) else []):
        if isinstance(prompt, str):
            reader.text(prompt, At(USER, turn, ("inputs", "prompts", index)), Kind.TEXT)
            turn += 1
    for name in ("input", "question"):
        if isinstance(inputs.get(name), str):
            reader.text(inputs[name], At(USER, turn, ("inputs", name)), Kind.TEXT)
            turn += 1
    return turn


def _langsmith_outputs(reader: Reader, outputs: dict[str, Any], turn: int) -> None:
    for path, generation in _flat(outputs.get("generations"), ("outputs", "generations")):
        if isinstance(generation, dict):
            _generation(reader, generation, turn, path)
            turn += 1
    output = outputs.get("output")
    if isinstance(output, str):
        reader.text(output, At(MODEL, turn, ("outputs", "output")), Kind.TEXT)
        turn += 1
    elif isinstance(output, dict):
        _as_model(reader, output, turn, ("outputs", "output"))
        turn += 1
    for path, value in _flat(outputs.get("messages"), ("outputs", "messages")):
        message(reader, value, turn, path)
        turn += 1
    if isinstance(outputs.get("choices"), list):
        _nested(reader, outputs, ("outputs",), _completion)


def _generation(reader: Reader, generation: dict[str, Any], turn: int, path: Path) -> None:
    """A LangChain generation: its `text`, and the same text in its `message`."""
    start = len(reader.texts)
    value = generation.get("message")
    if isinstance(value, dict):
        message(reader, value, turn, (*path, "message"))
    text = generation.get("text")
    if isinstance(text, str) and text:
        found = reader.texts[start:]
        same = [i for i, t in enumerate(found, start) if t.text == text and t.kind == Kind.TEXT]
        if same:
            first = reader.texts[same[0]]
            reader.texts[same[0]] = replace(first, mirrors=((*path, "text"),))
        else:
            reader.texts.insert(start, Text(MODEL, text, Kind.TEXT, turn, (*path, "text")))


def _sharegpt(reader: Reader, data: dict[str, Any]) -> None:
    without = {key: value for key, value in data.items() if key != "conversations"}
    start = len(reader.texts)
    bodies.body(reader, without)
    turn = max((t.turn for t in reader.texts[start:]), default=-1) + 1
    bodies.messages(reader, data["conversations"], ("conversations",), turn)


def _flat(value: Any, path: Path) -> Iterator[tuple[Path, Any]]:
    """The items of a list, with nested lists (a batch of prompts, LangChain's
    generations) flattened, each with its path."""
    if not isinstance(value, list):
        return
    for index, entry in enumerate(value):
        if isinstance(entry, list):
            yield from _flat(entry, (*path, index))
        else:
            yield (*path, index), entry


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _dict_items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    if not isinstance(value, list):
        return []
    return [(index, item) for index, item in enumerate(value) if isinstance(item, dict)]


def _ids(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _has(data: Any, name: str, kind: type) -> bool:
    return isinstance(data, dict) and isinstance(data.get(name), kind)


def _is_open_webui(data: Any) -> bool:
    chat = data.get("chat") if isinstance(data, dict) else None
    if isinstance(chat, dict):
        return _has(chat, "messages", list) or _has(chat, "history", dict)
    history = data.get("history") if isinstance(data, dict) else None
    return isinstance(history, dict) and isinstance(history.get("messages"), dict)


def _is_batch(part: str) -> ExportTest:
    def test(data: Any) -> bool:
        return _has(data, "custom_id", str) and _has(data, part, dict)

    return test


def _is_vertex_batch(data: Any) -> bool:
    return _has(data, "request", dict) and _has(data["request"], "contents", list)


def _is_gemini(data: Any) -> bool:
    return _any_with(data, "contents", "parts") or _any_with(data, "candidates", "content")


def _is_lmsys(data: Any) -> bool:
    return _any_with(data, "conversation", "role", "content")


def _is_completion(data: Any) -> bool:
    return _any_with(data, "choices", "message", "text")


def _any_with(data: Any, name: str, *keys: str) -> bool:
    """Is `data[name]` a list with a dict holding one of `keys` (the shape's own items,
    not a list of the same name meaning something else)?"""
    items = _dicts(data.get(name)) if isinstance(data, dict) else []
    return any(key in item for item in items for key in keys)


def _is_responses(data: Any) -> bool:
    items = _dicts(data.get("output")) if isinstance(data, dict) else []
    typed = bool(items) and all("type" in item for item in items)
    return _has(data, "output", list) and (data.get("object") == "response" or typed)


def _is_langsmith(data: Any) -> bool:
    both = _has(data, "inputs", dict) or _has(data, "outputs", dict)
    return both and ("run_type" in data or ("inputs" in data and "outputs" in data))


# Name: (recognise, read). Tried in this order, before request bodies and messages.
EXPORTS: dict[str, tuple[ExportTest, ExportReader]] = {
    "chatgpt": (lambda d: _has(d, "mapping", dict), _chatgpt),
    "claude": (lambda d: _has(d, "chat_messages", list), _claude),
    "open-webui": (_is_open_webui, _open_webui),
    "lmsys": (_is_lmsys, _lmsys),
    "openai-batch": (_is_batch("response"), _openai_batch),
    "anthropic-batch": (_is_batch("result"), _anthropic_batch),
    "vertex-batch": (_is_vertex_batch, _vertex_batch),
    "gemini": (_is_gemini, _gemini),
    "completion": (_is_completion, _completion),
    "responses": (_is_responses, _responses),
    "langsmith": (_is_langsmith, _langsmith),
    "sharegpt": (lambda d: _has(d, "conversations", list), _sharegpt),
}
