"""Gemini's parts (the Gemini API and Vertex AI), read by their one key.

    {"systemInstruction": {"parts"}, "contents": [{"role": "user" | "model" | "function",
     "parts": [part]}]}                          (the Python SDK: snake_case keys)
    text                 {"text", "thought": bool}: the author's, or the model's thinking
    inlineData           {"mimeType", "data": base64}: a file's bytes
    fileData             {"mimeType", "fileUri"}
    functionCall         {"name", "args"}: the model's
    functionResponse     {"name", "response": {...}}: the tool's
    executableCode       {"language", "code"}: the model's
    codeExecutionResult  {"outcome", "output"}: the tool's
    thoughtSignature     opaque bytes

Sources: ai.google.dev/api/caching#Content, #Part; googleapis/python-genai `types.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .common import media_type
from .content import PartReader, content, rest
from .record import MODEL, TOOL, Kind
from .walk import At, Fields, Reader, fields_of

__all__ = ["KEYED", "gemini_content"]


def gemini_content(reader: Reader, fields: Fields, at: At) -> None:
    """A Gemini `Content`: its parts, then any other field."""
    content(reader, fields.get("parts"), at / "parts", Kind.TEXT)
    rest(reader, fields, at, ("role", "parts"))


def _text(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    thought = fields.get("thought") is True
    where = at.by(MODEL) if thought else at
    content(reader, fields.get("text"), where / "text", Kind.REASONING if thought else kind)
    rest(reader, fields, at, ("text", "thought", "thoughtSignature", "thought_signature"))


def _inline(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    name = "inlineData" if "inlineData" in fields else "inline_data"
    inner = fields_of(fields.get(name))
    if inner is not None:
        reader.attachment(inner.get("data"), media_type(inner), at / name / "data")
        rest(reader, inner, at / name, ("data",))
    rest(reader, fields, at, (name,))


def _call(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(MODEL), ("thoughtSignature", "thought_signature"), Kind.CALL)


def _response(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at.by(TOOL), (), Kind.RESULT)


def _file(reader: Reader, fields: Fields, at: At, kind: Kind) -> None:
    rest(reader, fields, at, (), Kind.FILE)


KEYED: Mapping[str, PartReader] = MappingProxyType(
    {
        "text": _text,
        "inlineData": _inline,
        "inline_data": _inline,
        "fileData": _file,
        "file_data": _file,
        "functionCall": _call,
        "function_call": _call,
        "executableCode": _call,
        "executable_code": _call,
        "functionResponse": _response,
        "function_response": _response,
        "codeExecutionResult": _response,
        "code_execution_result": _response,
    }
)
