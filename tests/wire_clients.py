"""What a client reads from a response body, written from the formats' documentation
(not from rendersafe's code): the text of each reply, the URLs shown beside it."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Read:
    """A client's reading of one body."""

    texts: dict[Any, str] = field(default_factory=lambda: defaultdict(str))
    finals: list[str] = field(default_factory=list)  # full texts repeated after the deltas
    urls: list[str] = field(default_factory=list)  # citations and sources
    errors: list[Any] = field(default_factory=list)


def sse_events(body: str) -> list[tuple[str | None, str]]:
    """(event name, data) of each dispatched event, per the HTML standard's rules."""
    events: list[tuple[str | None, str]] = []
    name: str | None = None
    data: list[str] = []
    for line in re.split(r"\r\n|\r|\n", body):
        if not line:
            if data:
                events.append((name, "\n".join(data)))
            name, data = None, []
            continue
        key, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if key == "data":
            data.append(value)
        elif key == "event":
            name = value
    return events


def read(kind: str, body: str) -> Read:
    """Read `body` as a client of `kind` would."""
    return _READERS[kind](body)


def _chat(body: str) -> Read:
    out = Read()
    for _, data in sse_events(body):
        if data == "[DONE]":
            continue
        chunk = json.loads(data)
        if "error" in chunk:
            out.errors.append(chunk["error"])
        for choice in chunk.get("choices", []):
            out.texts[choice["index"]] += choice.get("delta", {}).get("content") or ""
    return out


def _responses(body: str) -> Read:
    out = Read()
    for _, data in sse_events(body):
        event = json.loads(data)
        kind = event["type"]
        if kind == "response.output_text.delta":
            out.texts[event["item_id"]] += event["delta"]
        elif kind == "response.output_text.done":
            out.finals.append(event["text"])
        elif kind == "response.content_part.done":
            out.finals.append(event["part"]["text"])
            out.urls += [a["url"] for a in event["part"]["annotations"]]
        elif kind in ("response.output_item.done", "response.completed"):
            items = [event["item"]] if "item" in event else event["response"]["output"]
            for part in (p for item in items for p in item["content"]):
                out.finals.append(part["text"])
                out.urls += [a["url"] for a in part["annotations"]]
        elif kind == "response.output_text.annotation.added":
            out.urls.append(event["annotation"]["url"])
        elif kind == "error":
            out.errors.append(event)
    return out


def _anthropic(body: str) -> Read:
    out = Read()
    for name, data in sse_events(body):
        event = json.loads(data)
        if name == "error":
            out.errors.append(event)
        if event["type"] == "content_block_start" and event["content_block"]["type"] == "text":
            out.texts[event["index"]] += event["content_block"]["text"]
        if event["type"] != "content_block_delta":
            continue
        delta = event["delta"]
        if delta["type"] == "text_delta":
            out.texts[event["index"]] += delta["text"]
        elif delta["type"] == "citations_delta":
            out.urls.append(delta["citation"]["url"])
    return out


def _ai_sdk(body: str) -> Read:
    out = Read()
    for _, data in sse_events(body):
        if data == "[DONE]":
            continue
        part = json.loads(data)
        if part["type"] in ("text-delta", "reasoning-delta"):
            out.texts[(part["type"], part["id"])] += part["delta"]
        elif part["type"] == "source-url":
            out.urls.append(part["url"])
        elif part["type"] == "error":
            out.errors.append(part)
    return out


def _plain(body: str) -> Read:
    out = Read()
    for name, data in sse_events(body):
        if name == "error":
            out.errors.append(data)
        elif data != "[DONE]":
            out.texts[0] += data
    return out


def _ollama(body: str) -> Read:
    out = Read()
    for line in body.splitlines():
        message = json.loads(line)
        if "error" in message:
            out.errors.append(message["error"])
        text = message["message"]["content"] if "message" in message else message.get("response")
        out.texts[0] += text or ""
    return out


_READERS = {
    "openai-chat": _chat,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "ai-sdk": _ai_sdk,
    "sse-text": _plain,
    "ndjson": _ollama,
}
