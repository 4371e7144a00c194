"""The conversation is read whatever shape it arrives in: every case of `shapes_corpus`
(a real request shape, a secret planted in one of its fields) against a reply whose link
carries the secret, raw and in base64, through every front door:

- `sanitize(reply, conversation=case.messages)`, and `Sanitizer().stream(...)` fed three
  characters at a time (the same output);
- `RenderSafeMiddleware` around a small app on a real uvicorn server, the case's body
  POSTed to the case's endpoint, the reply answered as an OpenAI chat completion (and in
  the provider's own stream where the fake backend speaks it);
- `rendersafe proxy` as a process in front of that app (uvicorn), on the case's path when
  the gateway routes it, else on `/v1/chat/completions`;
- the LiteLLM guardrail's hooks (success and streaming), for the OpenAI- and
  Anthropic-shaped cases LiteLLM takes.

The link is neutralised when the output no longer holds the collector's URL inside a
Markdown link. Then bad input: shapes of no kind, wrong types, cycles, 10,000-deep
nesting and a 50 MB body never raise and never let an image through.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import sys
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from chat_backend import MEDIA, STREAMED, paced
from proxy_process import ProxyProcess
from rendersafe import Conversation, Policy, Sanitizer, sanitize
from rendersafe.gateway.routes import route_of
from rendersafe.middleware import RenderSafeMiddleware
from rendersafe.urls.parse import parse_url
from rendersafe.wire.requests import conversation_of
from servers import Server
from shapes_corpus import CASES, COLLECTOR, SHAPES, Case, b64, nested, reply_for
from wire_clients import read

SANITIZER = Sanitizer()
IMAGE = "Look: ![x](https://collector.example/p.png) done."
LINK_OPEN = "](https://collector.example/"
BY_ID = {case.id: case for case in CASES}
IDS = list(BY_ID)
LITELLM_IDS = [case.id for case in CASES if SHAPES[case.shape].litellm]
# The author of a taint, as the reader names it, in the corpus's words.
AUTHORS = {
    "user": "user",
    "human": "user",
    "text": "user",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
    "function": "tool",
    "assistant": "model",
    "model": "model",
    "ai": "model",
    "chatbot": "model",
    "bot": "model",
    "gpt": "model",
    "unknown": "unknown",
    "document": "unknown",
}
FALLBACK_PATH = "/v1/chat/completions"


def variants(case: Case) -> dict[str, str]:
    """What the link carries: the secret raw, and in base64."""
    return {"raw": case.secret, "base64": case.b64}


def neutralised(reply: str, output: str) -> bool:
    """Is the collector's link gone from `output` (changed, and no Markdown link to it)?"""
    return output != reply and LINK_OPEN not in output


def why(case: Case, output: str) -> str:
    """A failure's reason: was the secret among the texts read at all?"""
    conversation = Conversation.from_messages(case.messages)
    read_it = any(case.secret in message.text for message in conversation.messages)
    seen = "the secret is in the text read" if read_it else "the secret was not read"
    return f"{case.id} ({case.field}): {seen}; output {output[:160]!r}"


def stream_out(reply: str, conversation: Any) -> str:
    """`reply` through a stream sanitiser, fed three characters at a time."""
    stream = SANITIZER.stream(conversation=conversation)
    out = [stream.feed(reply[i : i + 3]) for i in range(0, len(reply), 3)]
    return "".join(out) + stream.close()


# --- the corpus holds what it says ------------------------------------------------------


def test_the_corpus_covers_the_shapes() -> None:
    assert len(CASES) >= 200
    assert len(SHAPES) >= 15
    assert len({case.shape for case in CASES}) == len(SHAPES)
    assert len({case.secret for case in CASES}) == len(CASES)
    names = " ".join(IDS)
    for kind in ("deep", "after-300k", "base64", "file", "document", "inline-data"):
        assert kind in names, kind
    fields = " ".join(case.field for case in CASES)
    for key in ('"data"', '"status"', '"id"', "context", "source.data"):
        assert key in fields, key
    for case in CASES:
        json.dumps(case.body)  # every body is what an API receives: JSON


def test_the_reply_alone_passes_unchanged() -> None:
    # Without the conversation nothing says these links leak: each case proves a reading.
    caught = [
        (case.id, name)
        for case in CASES
        for name, carried in variants(case).items()
        if sanitize(reply_for(carried)) != reply_for(carried)
    ]
    assert caught == []


# --- one-shot and streamed ------------------------------------------------------------


@pytest.mark.parametrize("case_id", IDS)
def test_one_shot(case_id: str) -> None:
    case = BY_ID[case_id]
    for name, carried in variants(case).items():
        reply = reply_for(carried)
        output = sanitize(reply, conversation=case.messages)
        assert neutralised(reply, output), f"{name}: {why(case, output)}"


@pytest.mark.parametrize("case_id", IDS)
def test_streamed(case_id: str) -> None:
    case = BY_ID[case_id]
    for name, carried in variants(case).items():
        reply = reply_for(carried)
        streamed = stream_out(reply, case.messages)
        assert streamed == SANITIZER.run(reply, conversation=case.messages).text
        assert neutralised(reply, streamed), f"{name}: {why(case, streamed)}"


@pytest.mark.parametrize("case_id", IDS)
def test_the_taint_names_the_author(case_id: str) -> None:
    case = BY_ID[case_id]
    taint = Conversation.from_messages(case.messages).taint(parse_url(COLLECTOR + case.secret))
    assert taint is not None, why(case, "")
    assert AUTHORS.get(taint.role.lower(), taint.role) == case.role, (
        f"{case.id}: read as {taint.role!r}, written by {case.role!r} ({case.field})"
    )


# --- over HTTP: the middleware and the gateway ----------------------------------------


def chat_completion(text: str) -> dict[str, Any]:
    """An OpenAI chat.completion body answering `text`."""
    message = {"role": "assistant", "content": text}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


def backend() -> Starlette:
    """The model: reads the whole request, answers the reply carrying `x-carry`, as a
    chat completion, or in the stream `x-stream` names (`chat_backend.STREAMED`)."""

    async def answer(request: Request) -> Response:
        await request.body()
        text = reply_for(request.headers.get("x-carry", ""))
        if request.headers.get("x-image"):
            text = IMAGE
        kind = request.headers.get("x-stream")
        if not kind:
            return JSONResponse(chat_completion(text))
        media = MEDIA.get(kind, "text/event-stream")
        return StreamingResponse(paced(STREAMED[kind](text)), media_type=media)

    return Starlette(routes=[Route("/{path:path}", answer, methods=["POST"])])


@dataclass(frozen=True)
class Ask:
    """One request of a case: where, carrying what, answered in which format."""

    case: Case
    variant: str
    stream: str | None
    path: str

    @property
    def key(self) -> tuple[str, str, str]:
        """(case id, variant, format): where its reply is kept."""
        return (self.case.id, self.variant, self.stream or "json")


def asks(path_of: dict[str, str]) -> list[Ask]:
    """Every request to make: each case, each variant, as JSON and (where the backend
    speaks the shape's stream) streamed; `path_of` a case's path."""
    found = []
    for case in CASES:
        formats = [None, SHAPES[case.shape].stream]
        for variant in variants(case):
            for stream in dict.fromkeys(formats):
                found.append(Ask(case, variant, stream, path_of[case.id]))
    return found


def reply_of(stream: str | None, response: httpx.Response) -> str:
    """The reply text a client reads from `response` (or why there is none)."""
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:200]}"
    if stream is None:
        return str(response.json()["choices"][0]["message"]["content"])
    got = read("ndjson" if stream.startswith("ollama") else stream, response.text)
    if got.errors:
        return f"stream error: {got.errors}"
    return "".join(got.texts.values())


async def post_all(base: str, todo: list[Ask]) -> dict[tuple[str, str, str], str]:
    """POST every request (a few at a time); the reply each one got."""
    limit = asyncio.Semaphore(8)
    results: dict[tuple[str, str, str], str] = {}
    async with httpx.AsyncClient(base_url=base, timeout=60, trust_env=False) as client:

        async def one(ask: Ask) -> None:
            headers = {
                "content-type": "application/json",
                "x-carry": variants(ask.case)[ask.variant],
                **({"x-stream": ask.stream} if ask.stream else {}),
            }
            async with limit:
                response = await client.post(
                    ask.path, content=json.dumps(ask.case.body), headers=headers
                )
            results[ask.key] = reply_of(ask.stream, response)

        await asyncio.gather(*(one(ask) for ask in todo))
    return results


def read_from_body(case: Case) -> bool:
    """Does the conversation the middleware reads from the case's body hold the secret?"""
    found = conversation_of(json.dumps(case.body).encode(), content_type="application/json")
    conversation = Conversation.coerce(found.chat)
    texts = conversation.messages if conversation is not None else ()
    return any(case.secret in message.text for message in texts)


def check_http(case_id: str, results: dict[tuple[str, str, str], str]) -> None:
    """Every request of the case came back with the link neutralised."""
    case = BY_ID[case_id]
    done = {key: out for key, out in results.items() if key[0] == case_id}
    assert done
    failed = {
        f"{variant}/{fmt}": output[:160]
        for (_, variant, fmt), output in done.items()
        if not neutralised(reply_for(variants(case)[variant]), output)
    }
    seen = "is in" if read_from_body(case) else "is not in"
    assert not failed, (
        f"{case.id} ({case.field}) on {case.endpoint}: the secret {seen} the conversation "
        f"read from the body; {failed}"
    )


@pytest.fixture(scope="module")
def middleware_url() -> Iterator[str]:
    with Server(RenderSafeMiddleware(backend(), policy=Policy())) as server:
        yield server.url


@pytest.fixture(scope="module")
def middleware_results(middleware_url: str) -> dict[tuple[str, str, str], str]:
    return asyncio.run(post_all(middleware_url, asks({c.id: c.endpoint for c in CASES})))


@pytest.mark.parametrize("case_id", IDS)
def test_middleware(case_id: str, middleware_results: dict[tuple[str, str, str], str]) -> None:
    check_http(case_id, middleware_results)


def proxy_path(case: Case) -> str:
    """Where the gateway is asked: the case's own path if it sanitises it, else the
    OpenAI-compatible one."""
    return case.endpoint if route_of(case.endpoint) != "passthrough" else FALLBACK_PATH


@pytest.fixture(scope="module")
def proxy_results() -> Iterator[dict[tuple[str, str, str], str]]:
    with Server(backend()) as upstream, ProxyProcess(upstream.url) as proxy:
        yield asyncio.run(post_all(proxy.url, asks({c.id: proxy_path(c) for c in CASES})))


@pytest.mark.parametrize("case_id", IDS)
def test_proxy(case_id: str, proxy_results: dict[tuple[str, str, str], str]) -> None:
    check_http(case_id, proxy_results)


# --- the LiteLLM guardrail ------------------------------------------------------------


@pytest.fixture(scope="module")
def guardrail() -> Any:
    if "litellm" not in sys.modules:  # offline: LiteLLM reads its bundled cost map
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with warnings.catch_warnings():  # LiteLLM's own types warn as pydantic builds them
        warnings.simplefilter("ignore")
        litellm_module = pytest.importorskip("rendersafe.integrations.litellm")
    return litellm_module.RenderSafeGuardrail(
        guardrail_name="rendersafe", event_hook="post_call", default_on=True
    )


async def guarded(guard: Any, case: Case, reply: str) -> tuple[str, str]:
    """The reply through the guardrail's success hook and its streaming hook, with the
    case's body as LiteLLM's request data."""
    # Imported here: LiteLLM is optional, and slow to import.
    from litellm.types.utils import (  # noqa: PLC0415
        Delta,
        ModelResponse,
        ModelResponseStream,
        StreamingChoices,
    )

    auth = SimpleNamespace(request_route=case.endpoint)
    response = ModelResponse(choices=[{"message": {"role": "assistant", "content": reply}}])
    response = await guard.async_post_call_success_hook(copy.deepcopy(case.body), auth, response)
    whole = str(response.choices[0].message.content)

    async def chunks() -> AsyncIterator[Any]:
        for i in range(0, len(reply), 3):
            delta = Delta(content=reply[i : i + 3])
            yield ModelResponseStream(choices=[StreamingChoices(index=0, delta=delta)])
        end = StreamingChoices(index=0, delta=Delta(), finish_reason="stop")
        yield ModelResponseStream(choices=[end])

    hook = guard.async_post_call_streaming_iterator_hook(auth, chunks(), copy.deepcopy(case.body))
    streamed = "".join([c.choices[0].delta.content or "" async for c in hook if c.choices])
    return whole, streamed


@pytest.mark.parametrize("case_id", LITELLM_IDS)
def test_litellm_guardrail(case_id: str, guardrail: Any) -> None:
    case = BY_ID[case_id]
    for name, carried in variants(case).items():
        reply = reply_for(carried)
        with warnings.catch_warnings():  # LiteLLM's types warn as pydantic builds them
            warnings.simplefilter("ignore")
            whole, streamed = asyncio.run(guarded(guardrail, case, reply))
        assert neutralised(reply, whole), f"{name} whole: {why(case, whole)}"
        assert neutralised(reply, streamed), f"{name} streamed: {why(case, streamed)}"


def test_real_langchain_objects() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    planted: dict[str, Callable[[str], Any]] = {
        "Tq4nW8kR3": lambda s: messages.SystemMessage(f"Escalation code {s}."),
        "Hm7pX2vL9": lambda s: messages.HumanMessage([{"type": "text", "text": f"Key {s}"}]),
        "Zr3kQ8wN5": lambda s: messages.AIMessage(
            "", tool_calls=[{"name": "f", "args": nested({"q": s}), "id": "c1"}]
        ),
        "Bx6tJ4mP8": lambda s: messages.ToolMessage(
            json.dumps({"status": "ok", "data": {"id": s}}), tool_call_id="c1"
        ),
    }
    for secret, make in planted.items():
        history = [messages.HumanMessage("Why was I charged twice?"), make(secret)]
        for carried in (secret, b64(secret)):
            reply = reply_for(carried)
            assert neutralised(reply, sanitize(reply, conversation=history)), secret


# --- bad input: never an exception, never an image through ----------------------------


def _cyclic_dict() -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "content": "Hi"}
    message["self"] = message
    return message


def _cyclic_parts() -> dict[str, Any]:
    parts: list[Any] = [{"type": "text", "text": "Hi"}]
    parts.append(parts)
    return {"role": "user", "content": parts}


def _deep_python(depth: int = 10_000) -> list[Any]:
    value: Any = "Zq7mK2pX9"
    for level in range(depth):
        value = {"a": value} if level % 2 else [value]
    return [{"role": "user", "content": value}]


BAD_CONVERSATIONS: dict[str, Any] = {
    "unknown-shape": [{"weird": {"nested": ["x", {"deeper": 3}]}, "n": 3}],
    "content-int": [{"role": "user", "content": 12}],
    "type-dict-parts": [
        {"role": "user", "content": [{"type": {}}, {"type": "text", "text": None}]}
    ],
    "nones": [None, {"role": None, "content": None}, {"role": 5, "content": ["a", None, 7]}],
    "body-of-nones": {"messages": None, "system": 3, "input": None},
    "gemini-nones": {"contents": [{"parts": None}, None], "systemInstruction": {"parts": [None]}},
    "bytes-and-floats": [{"role": "user", "content": [b"\xff\xfe", 1.5, float("nan")]}],
    "cyclic-dict": [_cyclic_dict()],
    "cyclic-parts": [_cyclic_parts()],
    "cyclic-top": _cyclic_dict(),
    "deep-10000": _deep_python(),
}


@pytest.mark.parametrize("name", list(BAD_CONVERSATIONS))
def test_bad_conversations_still_sanitise(name: str) -> None:
    conversation = BAD_CONVERSATIONS[name]
    output = sanitize(IMAGE, conversation=conversation)
    assert "collector.example" not in output
    assert stream_out(IMAGE, conversation) == output


def _deep_json(depth: int = 10_000) -> bytes:
    inner = '{"a":' * depth + '"Zq7mK2pX9"' + "}" * depth
    return ('{"messages":[{"role":"user","content":[' + inner + "]}]}").encode()


BAD_BODIES: dict[str, bytes] = {
    "deep-10000": _deep_json(),
    "unknown-shape": json.dumps({"weird": [{"x": {"y": None}}], "n": 3}).encode(),
    "content-int": json.dumps({"messages": [{"role": "user", "content": 12}]}).encode(),
    "type-dict-parts": json.dumps(
        {"messages": [{"role": "user", "content": [{"type": {}}]}]}
    ).encode(),
    "nones": json.dumps({"messages": [None, {"role": None, "content": None}]}).encode(),
    "not-json": b'{"messages": [{"role": "user", "content": "cut',
    "fifty-mb": (
        b'{"model":"m","messages":[{"role":"user","content":"'
        + b"All quiet on the loading dock. " * (50 * 1024 * 1024 // 31)
        + b'"}]}'
    ),
}


@pytest.mark.parametrize("name", list(BAD_BODIES))
def test_bad_bodies_through_the_middleware_still_sanitise(name: str, middleware_url: str) -> None:
    headers = {"content-type": "application/json", "x-image": "1"}
    response = httpx.post(
        middleware_url + FALLBACK_PATH, content=BAD_BODIES[name], headers=headers, timeout=60
    )
    assert response.status_code == 200, response.text[:300]
    output = reply_of(None, response)
    assert "collector.example" not in output
    assert output.startswith("Look: ")
