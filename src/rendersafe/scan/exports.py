"""The export formats people have, each recognised by its shape.

    chatgpt       ChatGPT data export: `mapping` of nodes (`message.author.role`,
                  `message.content.parts`), every branch, each reply with its ancestors
    claude        Claude.ai data export: `chat_messages` (`sender`, `text` and `content`)
    open-webui    Open WebUI: `chat.history.messages` (a tree) and `chat.messages`
                  (the current branch): a fix writes both
    lmsys         LMSYS-Chat-1M, WildChat: `conversation` (a list of role/content)
    openai-batch  OpenAI Batch output: `custom_id` and `response.body`
    anthropic-batch  Anthropic Message Batches results: `custom_id` and `result.message`
    vertex-batch  Vertex AI batch prediction: `request.contents` and `response.candidates`
    gemini        Gemini / Vertex: `contents[].parts[].text` (role `model`), `candidates`
    completion    OpenAI `chat.completion` (and text completion): `choices`
    responses     OpenAI Responses: `output` items (`message`, `reasoning` summaries)
    langsmith     LangSmith runs: `inputs` and `outputs` (messages, prompts, generations)

Each reader yields `Message`s in conversation order; only the texts the caller judges
(the model's, by default) are changed, the rest is the conversation before them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from .message import Message, counter, read_content, read_message, read_messages, read_tree

__all__ = ["EXPORT_SHAPES"]

_CLAUDE_ROLES = {"human": "user", "assistant": "assistant"}
_GEMINI_ROLES = {"model": "model", "user": "user", "function": "tool", "tool": "tool"}


def _chatgpt(data: dict[str, Any]) -> Iterator[Message]:
    nodes = {
        key: (node.get("parent"), _ids(node.get("children")), node.get("message"))
        for key, node in data["mapping"].items()
        if isinstance(node, dict)
    }
    yield from read_tree(nodes, _chatgpt_message, counter())


def _chatgpt_message(message: Any, turn: int, above: tuple[int, ...]) -> Iterator[Message]:
    if not isinstance(message, dict) or not isinstance(message.get("content"), dict):
        return
    author = message.get("author")
    role = str((author.get("role") if isinstance(author, dict) else None) or "assistant")
    content = message["content"]
    found = [
        *read_content(role, content, "parts", turn),
        *read_content(role, content, "text", turn),
    ]
    yield from (replace(m, after=above) for m in found)


def _claude(data: dict[str, Any]) -> Iterator[Message]:
    turns = counter()
    for message in data["chat_messages"]:
        if isinstance(message, dict):
            yield from _claude_message(message, next(turns))


def _claude_message(message: dict[str, Any], turn: int) -> Iterator[Message]:
    sender = str(message.get("sender") or "assistant").lower()
    role = _CLAUDE_ROLES.get(sender, sender)
    parts = list(read_content(role, message, "content", turn))
    text = message.get("text")
    if isinstance(text, str) and text:
        same = [p for p in parts if p.text == text]
        if len(parts) == 1 and same:  # the one text part is `text` again: one message
            parts = [replace(parts[0], mirrors=((message, "text"),))]
        else:
            parts.insert(0, Message(role, text, message, "text", turn))
    yield from parts
    for attachment in _dicts(message.get("attachments")):
        if isinstance(attachment.get("extracted_content"), str):
            yield Message(
                "user", attachment["extracted_content"], attachment, "extracted_content", turn
            )


def _open_webui(data: dict[str, Any]) -> Iterator[Message]:
    chat = data["chat"] if isinstance(data.get("chat"), dict) else data
    listed = {m.get("id"): m for m in _dicts(chat.get("messages")) if "id" in m}
    history = chat.get("history")
    tree = history.get("messages") if isinstance(history, dict) else None
    turns = counter()
    done: set[Any] = set()
    if isinstance(tree, dict):
        nodes = {
            key: (node.get("parentId"), _ids(node.get("childrenIds")), node)
            for key, node in tree.items()
            if isinstance(node, dict)
        }

        def read(node: dict[str, Any], turn: int, above: tuple[int, ...]) -> Iterator[Message]:
            twin = listed.get(node.get("id"))
            done.add(node.get("id"))
            for message in read_message(node, turn):
                mirrors = _twin_places(message, node, twin)
                yield replace(message, after=above, mirrors=mirrors)

        yield from read_tree(nodes, read, turns)
    # The current branch's messages the tree does not hold (or all, with no tree).
    for message in _dicts(chat.get("messages")):
        if message.get("id") not in done or "id" not in message:
            yield from read_message(message, next(turns))


def _twin_places(
    message: Message, node: dict[str, Any], twin: dict[str, Any] | None
) -> tuple[tuple[Any, Any], ...]:
    """Where `chat.messages` holds the same text as the history's `node`."""
    if twin is None or message.holder is not node or twin is node:
        return ()
    return ((twin, message.key),) if twin.get(message.key) == message.text else ()


def _lmsys(data: dict[str, Any]) -> Iterator[Message]:
    yield from read_messages(data["conversation"], counter())


def _openai_batch(data: dict[str, Any]) -> Iterator[Message]:
    body = data["response"].get("body")
    if isinstance(body, dict):
        for test, read in EXPORT_SHAPES.values():
            if test(body):
                yield from read(body)
                return


def _anthropic_batch(data: dict[str, Any]) -> Iterator[Message]:
    message = data["result"].get("message")
    if isinstance(message, dict):
        yield from read_message(message)


def _vertex_batch(data: dict[str, Any]) -> Iterator[Message]:
    turns = counter()
    yield from _gemini_turns(data["request"], turns)
    if isinstance(data.get("response"), dict):
        yield from _gemini_turns(data["response"], turns)


def _gemini(data: dict[str, Any]) -> Iterator[Message]:
    yield from _gemini_turns(data, counter())


def _gemini_turns(data: dict[str, Any], turns: Iterator[int]) -> Iterator[Message]:
    system = data.get("systemInstruction", data.get("system_instruction"))
    if isinstance(system, dict):
        yield from _gemini_content(system, "system", next(turns))
    for content in _dicts(data.get("contents")):
        yield from _gemini_content(content, str(content.get("role") or "user"), next(turns))
    for candidate in _dicts(data.get("candidates")):
        reply = candidate.get("content")
        if isinstance(reply, dict):
            yield from _gemini_content(reply, str(reply.get("role") or "model"), next(turns))


def _gemini_content(content: dict[str, Any], role: str, turn: int) -> Iterator[Message]:
    role = _GEMINI_ROLES.get(role.lower(), role.lower())
    yield from read_content(role, content, "parts", turn)


def _completion(data: dict[str, Any]) -> Iterator[Message]:
    turns = counter()
    yield from read_messages(_dicts(data.get("messages")), turns)  # a request kept beside it
    for choice in _dicts(data["choices"]):
        if isinstance(choice.get("message"), dict):
            yield from read_message(choice["message"], next(turns))
        elif isinstance(choice.get("text"), str):
            yield Message("assistant", choice["text"], choice, "text", next(turns))


def _responses(data: dict[str, Any]) -> Iterator[Message]:
    turns = counter()
    if isinstance(data.get("instructions"), str):
        yield Message("system", data["instructions"], data, "instructions", next(turns))
    for item in _dicts(data["output"]):
        if item.get("type") == "reasoning":
            yield from read_content("assistant", item, "summary", next(turns))
        elif "content" in item:
            yield from read_message(item, next(turns))


def _langsmith(data: dict[str, Any]) -> Iterator[Message]:
    turns = counter()
    inputs, outputs = data.get("inputs"), data.get("outputs")
    if isinstance(inputs, dict):
        yield from _langsmith_inputs(inputs, turns)
    if isinstance(outputs, dict):
        yield from _langsmith_outputs(outputs, turns)


def _langsmith_inputs(inputs: dict[str, Any], turns: Iterator[int]) -> Iterator[Message]:
    yield from read_messages(_flat(inputs.get("messages")), turns)
    prompts = inputs.get("prompts")
    for index, prompt in enumerate(prompts if isinstance(prompts, list) else []):
        if isinstance(prompt, str):
            yield Message("user", prompt, prompts, index, next(turns))
    for name in ("input", "question"):
        if isinstance(inputs.get(name), str):
            yield Message("user", inputs[name], inputs, name, next(turns))


def _langsmith_outputs(outputs: dict[str, Any], turns: Iterator[int]) -> Iterator[Message]:
    for generation in _dicts(_flat(outputs.get("generations"))):
        yield from _generation(generation, next(turns))
    output = outputs.get("output")
    if isinstance(output, str):
        yield Message("assistant", output, outputs, "output", next(turns))
    elif isinstance(output, dict):
        yield from read_message(output, next(turns))
    yield from read_messages(_flat(outputs.get("messages")), turns)
    if isinstance(outputs.get("choices"), list):
        yield from _completion(outputs)


def _generation(generation: dict[str, Any], turn: int) -> Iterator[Message]:
    """A LangChain generation: its `text`, and the same text in its `message`."""
    message = generation.get("message")
    found = list(read_message(message, turn)) if isinstance(message, dict) else []
    text = generation.get("text")
    if isinstance(text, str) and text:
        same = [m for m in found if m.text == text]
        if same:
            found[found.index(same[0])] = replace(same[0], mirrors=((generation, "text"),))
        else:
            found.insert(0, Message("assistant", text, generation, "text", turn))
    yield from found


def _flat(value: Any) -> list[Any]:
    """A list, with nested lists (a batch of prompts, LangChain's generations) flattened."""
    if not isinstance(value, list):
        return []
    return [
        item for entry in value for item in (_flat(entry) if isinstance(entry, list) else [entry])
    ]


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


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


def _is_batch(part: str) -> Callable[[Any], bool]:
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


# Name: (recognise, read). Tried in this order, before the generic shapes.
EXPORT_SHAPES: dict[str, tuple[Callable[[Any], bool], Callable[[Any], Iterator[Message]]]] = {
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
}
