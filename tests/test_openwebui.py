"""Open WebUI's Filter function, loaded and called as Open WebUI loads and calls it.

`openwebui_function.py` is read as Open WebUI's Functions page reads a function (its
frontmatter, then `exec` in a module of its own, then `Filter()`), and its hooks are
called with the arguments Open WebUI passes (`process_filter_functions` in
`backend/open_webui/utils/filter.py`: `event` for `stream`, `body` for `outlet`, and
those of `__body__`, `__metadata__`, `__user__`, ... the hook names). The events are
the ones Open WebUI streams: chat chunks from its own Ollama converter
(`openai_chat_chunk_message_template`) and from OpenAI-compatible upstreams, the
Responses API events its docs list, its own events (`selected_model_id`), and raw
`data:` lines (its fallback path).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import types
from pathlib import Path
from typing import Any

import pytest

from adapters import EXFIL, HONEST, TOKEN, USER_SAYS, expected, pieces

FUNCTION = (
    Path(__file__).parent.parent / "src" / "rendersafe" / "integrations" / "openwebui_function.py"
)
BODY: dict[str, Any] = {
    "stream": True,
    "model": "llama3.2:latest",
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": USER_SAYS},
    ],
    "metadata": {"chat_id": "chat-1", "message_id": "msg-1", "session_id": "sess-1"},
}
META = {"chat_id": "chat-1", "message_id": "msg-1", "session_id": "sess-1", "user_id": "u1"}
WANT = expected(EXFIL)


def _frontmatter(content: str) -> dict[str, str]:
    """Open WebUI's `extract_frontmatter` (utils/plugin.py), as it reads a function."""
    lines = content.splitlines()
    if not lines or lines[0].strip() != '"""':
        return {}
    found: dict[str, str] = {}
    for line in lines[1:]:
        if '"""' in line:
            break
        match = re.match(r"^\s*([a-z_]+):\s*(.*)\s*$", line, re.IGNORECASE)
        if match:
            found[match[1].strip()] = match[2].strip()
    return found


def _load() -> Any:
    """The Filter, as `load_function_module_by_id` builds it."""
    content = FUNCTION.read_text(encoding="utf-8")
    module = types.ModuleType("function_rendersafe")
    exec(compile(content, str(FUNCTION), "exec"), module.__dict__)
    assert hasattr(module, "Filter")
    return module.Filter()


def _call(hook: Any, form_data: Any, **extra: Any) -> Any:
    """A hook called as `process_filter_functions` calls it."""
    params = set(inspect.signature(hook).parameters)
    args = {"event": form_data} if hook.__name__ == "stream" else {"body": form_data}
    args |= {key: value for key, value in extra.items() if key in params}
    return asyncio.run(hook(**args))


def _stream(flt: Any, events: list[Any], meta: dict[str, Any] = META) -> list[Any]:
    sent = [_call(flt.stream, e, __body__=BODY, __metadata__=meta, __user__={}) for e in events]
    return [e for e in sent if e]  # Open WebUI sends on only what is truthy


def _ollama_chunk(content: str | None) -> dict[str, Any]:
    """Open WebUI's `openai_chat_chunk_message_template` (utils/misc.py)."""
    chunk: dict[str, Any] = {
        "id": "llama3.2:latest-5d1b5a4e",
        "created": 1735000000,
        "model": "llama3.2:latest",
        "choices": [{"index": 0, "logprobs": None, "finish_reason": None, "delta": {}}],
        "object": "chat.completion.chunk",
    }
    if content:
        chunk["choices"][0]["delta"]["content"] = content
    else:
        chunk["choices"][0]["finish_reason"] = "stop"
    return chunk


def _openai_chunks(text: str) -> list[dict[str, Any]]:
    head = {"id": "chatcmpl-B4l99", "object": "chat.completion.chunk", "created": 1, "model": "gpt"}
    first = {"role": "assistant", "content": ""}
    out = [{**head, "choices": [{"index": 0, "delta": first, "finish_reason": None}]}]
    out += [
        {**head, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
        for p in pieces(text)
    ]
    out.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    out.append({**head, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 30}})
    return out


def _responses_events(text: str) -> list[dict[str, Any]]:
    """The Responses API events Open WebUI's filter docs list (a connection of that type)."""
    item = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    out: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    out += [{"type": "response.output_text.delta", **where, "delta": p} for p in pieces(text)]
    whole = {"type": "message", "content": [{"type": "output_text", "text": text}]}
    out += [
        {"type": "response.output_text.done", **where, "text": text},
        {
            "type": "response.content_part.done",
            **where,
            "part": {"type": "output_text", "text": text},
        },
        {"type": "response.output_item.done", "output_index": 0, "item": whole},
        {
            "type": "response.completed",
            "response": {"output": [whole], "usage": {"input_tokens": 9}},
        },
    ]
    return out


def _chat_text(events: list[dict[str, Any]]) -> str:
    return "".join(c["delta"].get("content") or "" for e in events for c in e.get("choices", []))


def test_the_function_file_is_what_open_webui_imports() -> None:
    front = _frontmatter(FUNCTION.read_text(encoding="utf-8"))
    assert front["requirements"] == "rendersafe"
    assert front["title"]
    flt = _load()
    assert flt.valves.priority == 0
    assert set(type(flt.valves).model_fields) == {"priority", "policy_file", "audit_log"}


def test_ollama_chunks_reach_the_browser_sanitised() -> None:
    events = [_ollama_chunk(p) for p in pieces(EXFIL)] + [_ollama_chunk(None)]
    sent = _stream(_load(), events)
    assert _chat_text(sent) == WANT
    assert TOKEN not in json.dumps(sent)  # the body's messages were the conversation
    assert sent[-1]["choices"][0]["finish_reason"] == "stop"


def test_openai_chunks_reach_the_browser_sanitised() -> None:
    sent = _stream(_load(), _openai_chunks(EXFIL))
    assert _chat_text(sent) == WANT
    assert sent[-1]["usage"] == {"prompt_tokens": 9, "completion_tokens": 30}


def test_responses_events_repeat_the_same_sanitised_text() -> None:
    sent = _stream(_load(), _responses_events(EXFIL))
    deltas = "".join(e["delta"] for e in sent if e["type"] == "response.output_text.delta")
    by_type = {e["type"]: e for e in sent}
    # The tail held at the end goes out with `output_text.done`, the one event Open WebUI
    # takes for an event (it rebuilds the message from the text that event repeats).
    assert WANT.startswith(deltas)
    assert by_type["response.output_text.done"]["text"] == WANT
    assert by_type["response.content_part.done"]["part"]["text"] == WANT
    assert by_type["response.output_item.done"]["item"]["content"][0]["text"] == WANT
    assert by_type["response.completed"]["response"]["output"][0]["content"][0]["text"] == WANT
    assert by_type["response.completed"]["response"]["usage"] == {"input_tokens": 9}


def test_an_honest_stream_is_unchanged() -> None:
    flt = _load()
    events = [_ollama_chunk(p) for p in pieces(HONEST, 3)] + [_ollama_chunk(None)]
    assert _chat_text(_stream(flt, events)) == HONEST
    sent = _stream(_load(), _responses_events(HONEST), {**META, "message_id": "msg-2"})
    assert [e for e in sent if e["type"] == "response.completed"] == _responses_events(HONEST)[-1:]


def test_open_webuis_own_events_pass_unchanged() -> None:
    flt = _load()
    event = {"selected_model_id": "llama3.2:latest"}
    assert _stream(flt, [event]) == [event]


def test_replies_streaming_at_once_are_kept_apart() -> None:
    flt = _load()
    one, two = dict(META), {**META, "chat_id": "chat-2", "message_id": "msg-9"}
    sent: dict[str, list[Any]] = {"one": [], "two": []}
    for a, b in zip(pieces(EXFIL), pieces(HONEST, 5), strict=False):
        sent["one"] += _stream(flt, [_ollama_chunk(a)], one)
        sent["two"] += _stream(flt, [_ollama_chunk(b)], two)
    sent["one"] += _stream(
        flt, [_ollama_chunk(p) for p in pieces(EXFIL)[len(pieces(HONEST, 5)) :]], one
    )
    sent["one"] += _stream(flt, [_ollama_chunk(None)], one)
    sent["two"] += _stream(flt, [_ollama_chunk(None)], two)
    assert _chat_text(sent["one"]) == WANT
    assert _chat_text(sent["two"]) == HONEST[: len(EXFIL)]


def test_raw_data_lines_are_rewritten_as_text() -> None:
    flt = _load()
    lines = [f"data: {json.dumps(_ollama_chunk(p))}\n\n" for p in pieces(EXFIL)]
    lines.append(f"data: {json.dumps(_ollama_chunk(None))}\n\n")
    sent = _stream(flt, lines)
    events = [
        json.loads(line[6:])
        for chunk in sent
        for line in chunk.split("\n")
        if line.startswith("data: ")
    ]
    assert _chat_text(events) == WANT


def _outlet_body(reply: str) -> dict[str, Any]:
    """What Open WebUI's frontend sends to /api/chat/completed, which runs `outlet`."""
    return {
        "model": "llama3.2:latest",
        "messages": [
            {"id": "u-1", "role": "user", "content": USER_SAYS, "timestamp": 1735000000},
            {
                "id": "msg-1",
                "role": "assistant",
                "content": reply,
                "timestamp": 1735000001,
                "info": {},
            },
        ],
        "chat_id": "chat-1",
        "session_id": "sess-1",
        "id": "msg-1",
    }


def test_outlet_sanitises_a_reply_that_was_not_streamed(tmp_path: Path) -> None:
    flt = _load()
    flt.valves = flt.Valves(audit_log=str(tmp_path / "audit.jsonl"))
    body = _call(flt.outlet, _outlet_body(EXFIL), __metadata__=META, __user__={})
    assert body["messages"][-1]["content"] == WANT
    assert body["messages"][0]["content"] == USER_SAYS
    flt._sanitizer().audit.flush()
    records = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert len([r for r in records if r["context"].get("integration") == "openwebui"]) == 2


def test_outlet_after_a_stream_keeps_what_was_shown() -> None:
    flt = _load()
    shown = _chat_text(
        _stream(flt, [_ollama_chunk(p) for p in pieces(EXFIL)] + [_ollama_chunk(None)])
    )
    body = _call(flt.outlet, _outlet_body(shown), __metadata__=META)
    assert body["messages"][-1]["content"] == shown == WANT
    assert not flt._replies  # the reply's state is gone with it


def test_outlet_leaves_an_honest_chat_alone() -> None:
    body = _outlet_body(HONEST)
    assert _call(_load().outlet, json.loads(json.dumps(body)), __metadata__=META) == body


def test_a_broken_stream_sends_nothing_more_and_outlet_says_so() -> None:
    flt = _load()
    events = [
        _ollama_chunk("Here is ![x](https://evil.example/"),
        {"choices": [{"index": 0, "delta": {"content": 7}}]},
    ]
    sent = _stream(flt, [*events, _ollama_chunk("more"), _ollama_chunk(None)])
    assert "evil.example" not in json.dumps(sent)
    assert "more" not in _chat_text(sent)
    body = _call(flt.outlet, _outlet_body(_chat_text(sent)), __metadata__=META)
    assert body["messages"][-1]["content"].endswith("rendersafe withheld the rest of this reply")


@pytest.mark.parametrize("valve", ["policy_file"])
def test_a_policy_file_valve_is_read(tmp_path: Path, valve: str) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('mode = "monitor"\n')
    flt = _load()
    flt.valves = flt.Valves(**{valve: str(policy)})
    body = _call(flt.outlet, _outlet_body(EXFIL), __metadata__=META)
    assert body["messages"][-1]["content"] == EXFIL  # shadow mode: recorded, not changed
