"""OpenAI's shapes: chat messages and their parts, Responses items.

    chat message   {"role", "content": str | [parts], "name", "tool_calls", "function_call",
                    "refusal", "reasoning_content", "tool_call_id"}     (Mistral, Ollama,
                   Groq, vLLM and every OpenAI-compatible server send the same; Ollama
                   adds "images" and "thinking")
    parts          text, image_url, input_audio, file ({"file_data", "filename"})
    Responses      input_text, input_image, input_file, output_text, refusal,
                   summary_text, reasoning_text; items: message, function_call(_output),
                   reasoning, custom_tool_call(_output), computer_call(_output),
                   web_search_call, file_search_call, mcp_call, mcp_list_tools,
                   mcp_approval_request/response, local_shell_call(_output),
                   code_interpreter_call, image_generation_call, item_reference

A message's own content is its author's; a tool message's is the tool's result. Tool
calls are the model's, whatever message holds them.

Sources: openai-python `types/chat/chat_completion_*_param.py`, `types/responses/
response_input_item_param.py`, `response_input_param.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .common import file_part, image_part, reasoning_part, text_part
from .content import PartReader, content, rest
from .record import MODEL, TOOL, Kind, role_of
from .walk import At, Fields, Reader

__all__ = ["ITEM_FAMILIES", "PARTS", "chat_message", "item_role"]

# The keys of a chat message read as its text, in order: the first present is it
# (Cohere's first API says `message`, ShareGPT `value`).
_TEXT_KEYS = ("content", "message", "value")
_REASONING_KEYS = ("reasoning_content", "reasoning", "thinking", "tool_plan")


def chat_message(reader: Reader, fields: Fields, at: At) -> None:
    """A chat message of any OpenAI-compatible API (and Anthropic's, Bedrock's,
    Cohere's and the AI SDK's model messages, which share its keys)."""
    kind = Kind.RESULT if at.role == TOOL else Kind.TEXT
    done = ["role", "type", "from", "sender"]
    key = next((k for k in _TEXT_KEYS if k in fields), None)
    if key is not None:
        content(reader, fields[key], at / key, kind)
        done.append(key)
    for name in ("tool_calls", "function_call"):
        if name in fields:
            reader.strings(fields[name], at.by(MODEL) / name, Kind.CALL)
            done.append(name)
    for name in ("tool_results", "context"):
        # Cohere's first API: results in the chatbot's turn; Azure OpenAI "on your data":
        # the retrieved citations in the assistant's.
        if name in fields and (name == "tool_results" or at.role == MODEL):
            reader.strings(fields[name], at.by(TOOL) / name, Kind.RESULT)
            done.append(name)
    if "refusal" in fields:
        content(reader, fields["refusal"], at / "refusal", Kind.REFUSAL)
        done.append("refusal")
    for name in _REASONING_KEYS:
        if name in fields:
            content(reader, fields[name], at / name, Kind.REASONING)
            done.append(name)
    rest(reader, fields, at, done)


def _refusal(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    content(reader, fields.get("refusal"), at / "refusal", Kind.REFUSAL)
    rest(reader, fields, at, ("type", "refusal"))


def _image_url(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """`{"type": "image_url", "image_url": {"url"}}`; Responses' `input_image` has
    `image_url` as a string."""
    inner = fields.get("image_url")
    if isinstance(inner, Mapping):
        image_part(reader, inner, at / "image_url", Kind.FILE)
        rest(reader, fields, at, ("type", "image_url"))
    else:
        image_part(reader, {"url": inner} if isinstance(inner, str) else {}, at / "image_url", kind)
        rest(reader, fields, at, ("type", "image_url"))


def _audio(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """Sound: no text to read (its transcript, where sent, is another part)."""
    rest(reader, fields, at, ("type", "input_audio", "data"))


def _call(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """A tool call item the model made (`function_call`, any `..._call`): its
    arguments are the model's; what the tool gave back inside it (`output`,
    `results`, `outputs`, `error`, a web search's `sources`) is the tool's."""
    mine, theirs = at.by(MODEL), at.by(TOOL)
    done = ["type"]
    for key in ("output", "outputs", "results", "result", "error", "sources"):
        if key in fields:
            reader.strings(fields[key], theirs / key, Kind.RESULT)
            done.append(key)
    action = fields.get("action")
    if isinstance(action, Mapping) and "sources" in action:
        reader.strings(action["sources"], theirs / "action" / "sources", Kind.RESULT)
        rest(reader, action, mine / "action", ("sources",), Kind.CALL)
        done.append("action")
    rest(reader, fields, mine, done, Kind.CALL)


def _output(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """A tool's answer item (`function_call_output`, any `..._output`)."""
    theirs = at.by(TOOL)
    content(reader, fields.get("output"), theirs / "output", Kind.RESULT)
    rest(reader, fields, theirs, ("type", "output"))


def _message_item(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """A Responses `message` item, or a chat message with a `type` (LangChain's dump)."""
    chat_message(reader, fields, at.by(role_of(fields.get("role"))) if "role" in fields else at)


def _approval(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    """`mcp_approval_response`: the user's (or the app's) answer to the model's request."""
    rest(reader, fields, at, ("type",))


def item_role(kind: str) -> Kind | None:
    """The kind of a Responses item by its type, for an item that names no role."""
    if kind.endswith("_output"):
        return Kind.RESULT
    if kind.endswith("_call"):
        return Kind.CALL
    return None


PARTS: Mapping[str, PartReader] = MappingProxyType(
    {
        "input_text": text_part,
        "output_text": text_part,
        "summary_text": text_part,
        "reasoning_text": text_part,
        "refusal": _refusal,
        "image_url": _image_url,
        "input_image": _image_url,
        "input_audio": _audio,
        "input_file": file_part,
        "message": _message_item,
        "reasoning": reasoning_part,
        "mcp_list_tools": _output,
        "mcp_approval_request": _call,
        "mcp_approval_response": _approval,
        "item_reference": _approval,
    }
)
# Item types read by their ends: `..._call` the model's, `..._output` the tool's.
ITEM_FAMILIES: tuple[tuple[str, PartReader], ...] = (("_call_output", _output), ("_call", _call))
