"""`rendersafe proxy` as a real process in front of a fake model server on 127.0.0.1,
driven by the official `openai` and `anthropic` SDKs and by plain httpx: the injected
image never reaches a client, every sanitised stream parses, every other path passes
byte for byte, headers cross as a proxy's should, and failures come back in the API's
own error format."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from proxy_process import ProxyProcess, free_port
from proxy_upstream import EMBEDDING, EXFIL, FILE, MODELS, REPLY, STREAMS, Upstream
from rendersafe import cli
from rendersafe.demo.guard import host_names
from rendersafe.gateway import SANITISED, Settings
from rendersafe.gateway.headers import end_to_end
from rendersafe.gateway.routes import family_of, is_chat, pinned_format, route_of
from servers import Server
from wire_clients import read

MESSAGES: list[ChatCompletionMessageParam] = [{"role": "user", "content": "What is my key?"}]
PROMPT: list[MessageParam] = [{"role": "user", "content": "What is my key?"}]


@pytest.fixture(scope="module")
def upstream() -> Iterator[tuple[Upstream, str]]:
    fake = Upstream()
    with Server(fake.app) as server:
        yield fake, server.url


@pytest.fixture(scope="module")
def proxy(
    upstream: tuple[Upstream, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProxyProcess]:
    audit = tmp_path_factory.mktemp("proxy") / "audit.jsonl"
    # Long enough that a loaded CI machine's upstream still answers in time; short
    # enough that a hang ends well before the upstream's own 60 s.
    limits = ("--read-timeout", "3", "--max-body-bytes", str(1 << 20))
    with ProxyProcess(upstream[1], *limits, audit=audit) as process:
        yield process


def _rid() -> str:
    return uuid.uuid4().hex


_OPEN: list[openai.OpenAI | anthropic.Anthropic] = []


@pytest.fixture(autouse=True)
def _close_clients() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def _openai(proxy: ProxyProcess) -> openai.OpenAI:
    client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-test", max_retries=0)
    _OPEN.append(client)
    return client


def _anthropic(proxy: ProxyProcess) -> anthropic.Anthropic:
    client = anthropic.Anthropic(base_url=proxy.url, api_key="sk-ant-test", max_retries=0)
    _OPEN.append(client)
    return client


def _honest_parts_kept(text: str) -> None:
    assert "attacker" not in text
    assert "Sure, here it is." in text
    assert "All done, see you." in text


# -- the SDKs ------------------------------------------------------------------------


def test_openai_chat_streamed_through_the_sdk(proxy: ProxyProcess) -> None:
    client = _openai(proxy)
    stream = client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    with stream:
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    _honest_parts_kept(text)


def test_openai_chat_whole_through_the_sdk(proxy: ProxyProcess) -> None:
    completion = _openai(proxy).chat.completions.create(model="m", messages=MESSAGES)
    _honest_parts_kept(completion.choices[0].message.content or "")


def test_openai_responses_streamed_through_the_sdk(proxy: ProxyProcess) -> None:
    deltas, finals = [], []
    with _openai(proxy).responses.create(model="m", input="What is my key?", stream=True) as stream:
        for event in stream:
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
            elif event.type == "response.completed":
                finals.append(event.response.output_text)
    _honest_parts_kept("".join(deltas))
    assert finals == ["".join(deltas)]


def test_openai_responses_whole_through_the_sdk(proxy: ProxyProcess) -> None:
    response = _openai(proxy).responses.create(model="m", input="What is my key?")
    _honest_parts_kept(response.output_text)


def test_anthropic_streamed_through_the_sdk_helper(proxy: ProxyProcess) -> None:
    client = _anthropic(proxy)
    with client.messages.stream(model="claude", max_tokens=64, messages=PROMPT) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    _honest_parts_kept(text)
    assert final.content[0].type == "text"
    assert final.content[0].text == text
    assert final.stop_reason == "end_turn"


def test_anthropic_raw_events_and_whole(proxy: ProxyProcess) -> None:
    client = _anthropic(proxy)
    events = client.messages.create(model="claude", max_tokens=64, messages=PROMPT, stream=True)
    text = "".join(
        e.delta.text
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    )
    _honest_parts_kept(text)
    message = client.messages.create(model="claude", max_tokens=64, messages=PROMPT)
    assert message.content[0].type == "text"
    _honest_parts_kept(message.content[0].text)


@pytest.mark.parametrize("path", ["/api/chat", "/api/generate"])
@pytest.mark.parametrize("stream", [True, False])
def test_ollama_ndjson_and_whole(proxy: ProxyProcess, path: str, stream: bool) -> None:
    body = {"model": "llama3", "messages": MESSAGES, "prompt": "key?", "stream": stream}
    response = httpx.post(proxy.url + path, json=body)
    assert response.status_code == 200
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines[-1]["done"] is True
    key = "message" if path == "/api/chat" else "response"
    text = "".join(line[key]["content"] if key == "message" else line[key] for line in lines)
    _honest_parts_kept(text)


@pytest.mark.parametrize(
    "path", ["/v1/chat/completions", "/v1/responses", "/v1/messages", "/api/chat"]
)
def test_no_byte_of_the_image_reaches_the_client(
    proxy: ProxyProcess, upstream: tuple[Upstream, str], path: str
) -> None:
    body = {"model": "m", "messages": MESSAGES, "stream": True}
    kind = _CLIENTS[path]
    direct = httpx.post(upstream[1] + path, json=body).text
    assert EXFIL in "".join(read(kind, direct).texts.values())  # sent split across tokens
    proxied = httpx.post(proxy.url + path, json=body).text
    assert "attacker" not in proxied
    _honest_parts_kept("".join(read(kind, proxied).texts.values()))


_CLIENTS = {
    "/v1/chat/completions": "openai-chat",
    "/v1/responses": "openai-responses",
    "/v1/messages": "anthropic",
    "/api/chat": "ndjson",
}


# -- what passes untouched --------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("GET", "/v1/models", MODELS),
        ("POST", "/v1/embeddings", json.dumps(EMBEDDING).encode()),
        ("GET", "/v1/files/file-1/content", FILE),
    ],
)
def test_other_paths_pass_byte_for_byte(
    proxy: ProxyProcess, upstream: tuple[Upstream, str], method: str, path: str, expected: bytes
) -> None:
    kwargs: dict[str, Any] = {"json": {"input": "x", "model": "e1"}} if method == "POST" else {}
    direct = httpx.request(method, upstream[1] + path, **kwargs)
    proxied = httpx.request(method, proxy.url + path, **kwargs)
    assert proxied.status_code == direct.status_code == 200
    assert proxied.content == direct.content
    assert proxied.headers["content-type"] == direct.headers["content-type"]
    if path != "/v1/embeddings":
        assert EXFIL.encode() in proxied.content  # it holds an image, and was left alone
        assert proxied.content == expected


def test_a_compressed_body_passes_compressed(
    proxy: ProxyProcess, upstream: tuple[Upstream, str]
) -> None:
    headers = {"accept-encoding": "gzip"}
    raw = []
    for base in (upstream[1], proxy.url):
        with httpx.stream("GET", base + "/v1/files/f/content", headers=headers) as response:
            assert response.headers["content-encoding"] == "gzip"
            raw.append(b"".join(response.iter_raw()))
    assert raw[0] == raw[1] == gzip.compress(FILE, mtime=0)


def test_the_sdk_lists_models_and_embeds(proxy: ProxyProcess) -> None:
    client = _openai(proxy)
    assert [m.id for m in client.models.list()] == ["m1"]
    assert client.embeddings.create(model="e1", input="x").data[0].embedding == [0.5] * 8


# -- headers ---------------------------------------------------------------------


def test_request_headers_and_auth_pass_hop_by_hop_do_not(
    proxy: ProxyProcess, upstream: tuple[Upstream, str]
) -> None:
    fake, url = upstream
    for path in ("/v1/chat/completions", "/v1/models"):
        rid = _rid()
        headers = {
            "x-request-id": rid,
            "authorization": "Bearer sk-secret",
            "x-api-key": "ant-key",
            "anthropic-version": "2023-06-01",
            "x-custom": "kept",
            "accept-encoding": "gzip, br",
            "connection": "keep-alive, x-drop-me",
            "x-drop-me": "1",
            "keep-alive": "timeout=5",
            "te": "trailers",
            "proxy-authorization": "Basic abc",
            "upgrade": "h2c",
        }
        method = "POST" if path.startswith("/v1/chat") else "GET"
        body = json.dumps({"messages": MESSAGES}).encode() if method == "POST" else None
        httpx.request(method, proxy.url + path, headers=headers, content=body)
        seen = dict(fake.headers[rid])
        assert len(seen) == len(fake.headers[rid])  # none repeated
        assert seen["authorization"] == "Bearer sk-secret"
        assert seen["x-api-key"] == "ant-key"
        assert seen["anthropic-version"] == "2023-06-01"
        assert seen["x-custom"] == "kept"
        assert seen["host"] == url.removeprefix("http://")
        for name in ("x-drop-me", "keep-alive", "te", "proxy-authorization", "upgrade"):
            assert name not in seen, name
        assert seen.get("connection", "keep-alive") == "keep-alive"  # the proxy's own, if any
        # The middleware reads gzip and deflate only: a sanitised reply is asked plain.
        expected = "identity" if method == "POST" else "gzip, br"
        assert seen["accept-encoding"] == expected


def test_response_headers_pass_hop_by_hop_do_not(proxy: ProxyProcess) -> None:
    response = httpx.get(proxy.url + "/v1/models")
    assert response.headers["x-upstream"] == "yes"
    for name in ("x-hop", "keep-alive", "proxy-authenticate"):
        assert name not in response.headers, name
    assert response.headers["content-length"] == str(len(MODELS))


def test_a_request_body_streams_up_whole(
    proxy: ProxyProcess, upstream: tuple[Upstream, str]
) -> None:
    rid = _rid()
    payload = json.dumps({"messages": MESSAGES, "pad": "x" * 300_000}).encode()

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(payload), 65536):
            yield payload[i : i + 65536]

    response = httpx.post(
        proxy.url + "/v1/chat/completions", content=chunks(), headers={"x-request-id": rid}
    )
    assert response.status_code == 200
    assert upstream[0].bodies[rid] == payload


# -- failures in the API's own format ---------------------------------------------


def test_an_upstream_error_passes_with_its_status(proxy: ProxyProcess) -> None:
    headers = {"x-fault": "status-429"}
    response = httpx.post(proxy.url + "/v1/chat/completions", json={}, headers=headers)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    assert response.json()["error"]["message"] == "slow down"
    with pytest.raises(openai.RateLimitError):
        _openai(proxy).chat.completions.create(
            model="m",
            messages=MESSAGES,
            extra_headers=headers,
        )


def _check_error(response: httpx.Response, path: str, status: int) -> None:
    assert response.status_code == status
    body = response.json()
    if path.startswith("/api/"):
        assert isinstance(body["error"], str)
    elif path == "/v1/messages":
        assert body["type"] == "error"
        assert isinstance(body["error"]["message"], str)
    else:
        assert isinstance(body["error"]["message"], str)
        assert body["error"]["code"].startswith("upstream_")


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages", "/api/chat"])
def test_a_hang_before_the_headers_is_a_504(proxy: ProxyProcess, path: str) -> None:
    began = time.monotonic()
    response = httpx.post(
        proxy.url + path,
        json={"stream": True},
        headers={"x-fault": "hang-before"},
        timeout=10,
    )
    _check_error(response, path, 504)
    assert time.monotonic() - began < 10


def test_a_refused_upstream_is_a_502_each_sdk_reads() -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    with ProxyProcess(closed, "--monitor") as proxy:
        assert proxy.health()["mode"] == "monitor"  # --monitor reaches the policy
        for path in ("/v1/chat/completions", "/v1/messages", "/api/generate", "/v1/models"):
            _check_error(httpx.post(proxy.url + path, json={}), path, 502)
        with pytest.raises(openai.APIStatusError) as caught:
            _openai(proxy).chat.completions.create(model="m", messages=MESSAGES)
        assert caught.value.status_code == 502
        with pytest.raises(anthropic.APIStatusError) as failed:
            _anthropic(proxy).messages.create(model="c", max_tokens=9, messages=PROMPT)
        assert failed.value.status_code == 502
        assert "refused" in str(failed.value.body)


@pytest.mark.parametrize("fault", ["error-mid", "hang"])
@pytest.mark.parametrize(
    ("path", "client_error"),
    [
        ("/v1/chat/completions", '"rendersafe_error"'),
        ("/v1/responses", "event: error"),
        ("/v1/messages", "event: error"),
        ("/api/chat", '{"error":'),
    ],
)
def test_a_fault_mid_stream_ends_with_the_formats_error(
    proxy: ProxyProcess, fault: str, path: str, client_error: str
) -> None:
    rid = _rid()
    body = {"model": "m", "messages": MESSAGES, "stream": True}
    headers = {"x-fault": fault, "x-request-id": rid}
    response = httpx.post(proxy.url + path, json=body, headers=headers, timeout=10)
    assert response.status_code == 200  # the body ended cleanly: no protocol error
    assert "attacker" not in response.text
    assert client_error in "\n".join(response.text.splitlines()[-3:])


def test_the_sdks_report_a_broken_stream_as_an_error(proxy: ProxyProcess) -> None:
    headers = {"x-fault": "error-mid"}
    stream = _openai(proxy).chat.completions.create(
        model="m",
        messages=MESSAGES,
        stream=True,
        extra_headers=headers,
    )
    got: list[str] = []
    with pytest.raises(openai.APIError, match="withheld"):
        got.extend(chunk.choices[0].delta.content or "" for chunk in stream)
    assert "attacker" not in "".join(got)
    events = _anthropic(proxy).messages.stream(
        model="c",
        max_tokens=9,
        messages=PROMPT,
        extra_headers=headers,
    )
    with events as stream_, pytest.raises(anthropic.APIStatusError, match="withheld"):
        got.extend(stream_.text_stream)
    assert "attacker" not in "".join(got)


def test_a_body_over_the_limit_is_a_413(proxy: ProxyProcess) -> None:
    big = json.dumps({"messages": MESSAGES, "pad": "x" * (1 << 20)}).encode()
    for path in ("/v1/chat/completions", "/v1/messages", "/api/chat"):
        response = httpx.post(proxy.url + path, content=big)
        assert response.status_code == 413
        _check_error_shape(response, path)
        streamed = httpx.post(proxy.url + path, content=iter([big[:600_000], big[600_000:]]))
        assert streamed.status_code == 413


def _check_error_shape(response: httpx.Response, path: str) -> None:
    body = response.json()
    if path.startswith("/api/"):
        assert isinstance(body["error"], str)
    elif path == "/v1/messages":
        assert body["error"]["type"] == "request_too_large"
    else:
        assert body["error"]["code"] == "too_large"


# -- the proxy's own --------------------------------------------------------------


def test_healthz_and_metrics(proxy: ProxyProcess, upstream: tuple[Upstream, str]) -> None:
    httpx.post(proxy.url + "/v1/chat/completions", json={"messages": MESSAGES})
    health = httpx.get(proxy.url + "/healthz")
    assert health.status_code == 200
    assert health.json()["upstream"] == upstream[1]
    assert health.json()["status"] == "ok"
    metrics = httpx.get(proxy.url + "/metrics")
    assert metrics.status_code == 200
    assert 'rendersafe_proxy_requests_total{route="openai-chat",status="200"}' in metrics.text
    assert 'rendersafe_proxy_upstream_errors_total{cause="timeout"}' in metrics.text
    assert "rendersafe_proxy_in_flight" in metrics.text


def test_the_audit_log_has_each_requests_records(proxy: ProxyProcess) -> None:
    rids = [_rid(), _rid()]
    httpx.post(proxy.url + "/v1/messages", json={"stream": True}, headers={"x-request-id": rids[0]})
    httpx.post(
        proxy.url + "/api/chat",
        json={},
        headers={"x-request-id": rids[1], "x-fault": "error-mid"},
    )
    assert proxy.audit is not None
    deadline = time.monotonic() + 10
    while True:
        records = [json.loads(line) for line in proxy.audit.read_text().splitlines()]
        by_id = {rid: [r for r in records if r["source"]["request_id"] == rid] for rid in rids}
        if all(by_id.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert [r["event"] for r in by_id[rids[0]]] == ["finding"]
    assert "error" in [r["event"] for r in by_id[rids[1]]]


def test_bad_settings_are_refused() -> None:
    bad_settings: list[dict[str, Any]] = [
        {"max_concurrency": 0},
        {"read_timeout": 0},
        {"grace_seconds": -1},
    ]
    for bad in bad_settings:
        with pytest.raises(ValueError, match="must be"):
            Settings(upstream="http://127.0.0.1:1", **bad)
    err = io.StringIO()
    assert cli.run(["proxy", "--upstream", "ftp://x"], stderr=err) == 2
    assert "http(s) URL" in err.getvalue()


def test_routes_and_hop_by_hop_tables() -> None:
    assert route_of("/v1/chat/completions") == "openai-chat"
    assert route_of("/openai/deployments/gpt/chat/completions") == "openai-chat"
    assert route_of("/v1/responses/resp_1") == "openai-responses"
    assert route_of("/v1/completions") == "openai-completions"
    assert route_of("/v1/embeddings") == route_of("/v1/models") == "passthrough"
    assert family_of("/v1/messages") == "anthropic"
    assert family_of("/api/tags") == "ollama"
    assert family_of("/v1/chat/completions") == "openai"
    # Ollama behind a base path is sanitised too, and answered in its own format.
    assert route_of("/ollama/api/chat") == "ollama-chat"
    assert route_of("/ollama/api/generate") == "ollama-generate"
    assert family_of("/ollama/api/chat") == "ollama"
    assert "*/messages" in SANITISED
    # Every reading a lenient server gives a path: any case, an extension or verb cut.
    for chat in ("/V1/Chat/Completions", "/api/chat.json", "/v1/messages:stream", "/API/CHAT"):
        assert is_chat(chat), chat
    for other in ("/v1/models", "/v1/messages/batches", "/v1/messages/count_tokens", "/healthz"):
        assert not is_chat(other), other
    assert is_chat("/custom/Chat", {"/custom/*": "sse"})
    assert route_of("/custom/chat", {"/custom/*": "sse"}) == "pinned"
    assert pinned_format("/CUSTOM/chat", {"/custom/*": "sse"}) == "sse"
    headers = [(b"Connection", b"close, X-A"), (b"x-a", b"1"), (b"x-b", b"2"), (b"TE", b"x")]
    assert end_to_end(headers) == [(b"x-b", b"2")]


# -- shutdown --------------------------------------------------------------------


def _stream_then_term(proxy: ProxyProcess, paths: list[str]) -> list[bytes]:
    """Start a stream on each path, SIGTERM the proxy once each has sent its first
    bytes, read the rest of each (httpx raises if a body is cut)."""
    body = {"model": "m", "messages": MESSAGES, "stream": True}
    with httpx.Client(timeout=30) as client, contextlib.ExitStack() as stack:
        responses = [
            stack.enter_context(client.stream("POST", proxy.url + p, json=body)) for p in paths
        ]
        readers = [response.iter_raw() for response in responses]
        received = [next(reader) for reader in readers]
        assert proxy.process is not None
        proxy.process.send_signal(signal.SIGTERM)
        return [first + b"".join(reader) for first, reader in zip(received, readers, strict=True)]


def test_sigterm_lets_a_stream_finish_within_the_grace_and_503_past_the_limit() -> None:
    fake = Upstream(pace=0.04)  # about a second and a half per reply
    args = ("--grace", "10", "--max-concurrency", "1")
    with Server(fake.app) as server, ProxyProcess(server.url, *args) as proxy:
        body = {"messages": MESSAGES, "stream": True}
        with httpx.stream("POST", proxy.url + "/v1/messages", json=body) as first:
            chunks = first.iter_raw()  # kept: a dropped iterator closes the response
            next(chunks)  # streamed: the first event is here long before the last
            second = httpx.post(proxy.url + "/v1/messages", json=body)
            assert second.status_code == 503
            assert second.json()["error"]["type"] == "overloaded_error"
            assert b"".join(chunks).rstrip().endswith(b'"message_stop"}')
        [received] = _stream_then_term(proxy, ["/v1/chat/completions"])
        assert proxy.process is not None
        status = proxy.process.wait(30)
    assert received.rstrip().endswith(b"data: [DONE]")
    _honest_parts_kept("".join(read("openai-chat", received.decode()).texts.values()))
    assert status in (0, -signal.SIGTERM)


def test_sigterm_ends_long_streams_with_the_formats_error(tmp_path: Path) -> None:
    fake = Upstream(pace=0.3)  # ~12 seconds per reply
    audit = tmp_path / "audit.jsonl"
    args = ("--grace", "0.5")
    with Server(fake.app) as server, ProxyProcess(server.url, *args, audit=audit) as proxy:
        began = time.monotonic()
        chat, messages = _stream_then_term(proxy, ["/v1/chat/completions", "/v1/messages"])
        assert time.monotonic() - began < 6
        assert proxy.process is not None
        status = proxy.process.wait(30)
    assert b'"rendersafe_error"' in b"\n".join(chat.splitlines()[-3:])
    assert b"event: error" in b"\n".join(messages.splitlines()[-3:])
    assert b"attacker" not in chat + messages
    assert status in (0, -signal.SIGTERM)
    events = [json.loads(line)["event"] for line in audit.read_text().splitlines()]
    assert events.count("error") == 2  # written before the process exited


# -- the demo's --host -----------------------------------------------------------


def test_host_names_of_a_bind_address() -> None:
    assert host_names("192.168.1.5") == ("192.168.1.5",)
    assert host_names("::1") == ("[::1]",)
    assert host_names("demo.internal") == ("demo.internal",)
    assert host_names("0.0.0.0") == (socket.gethostname().lower(),)


def test_the_demo_binds_the_host_it_is_given() -> None:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "rendersafe",
        "demo",
        "--host",
        "127.0.0.2",
        "--port",
        str(port),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        url = f"http://127.0.0.2:{port}/demo/conversation"
        deadline = time.monotonic() + 20
        while True:
            try:
                first = httpx.get(url, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the demo did not start"
                time.sleep(0.05)
        assert first.status_code == 200  # Host 127.0.0.2:port: its own address
        assert httpx.get(url, headers={"host": f"attacker.example:{port}"}).status_code == 400
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{port}/demo/conversation")  # bound there only
    finally:
        process.terminate()
        process.wait(10)
        err = process.stderr.read().decode() if process.stderr else ""
        if process.stderr:
            process.stderr.close()
    assert "127.0.0.2" in err
    assert "not loopback" not in err  # 127.0.0.2 is loopback: no warning


# -- issue 35: credentials, pinned formats, redirects ------------------------------


def test_upstream_credentials_are_never_shown_nor_put_over_a_clients_own(
    upstream: tuple[Upstream, str],
) -> None:
    fake, url = upstream
    secret_url = url.replace("http://", "http://svc:hunter2-PW@")
    with ProxyProcess(secret_url) as proxy:
        assert "hunter2" not in json.dumps(proxy.health())
        rids = [_rid(), _rid()]
        httpx.get(proxy.url + "/v1/models", headers={"x-request-id": rids[0]})
        mine = {"x-request-id": rids[1], "authorization": "Bearer sk-client"}
        httpx.get(proxy.url + "/v1/models", headers=mine)
        banner = proxy.stderr()
    assert dict(fake.headers[rids[0]])["authorization"] == "Basic c3ZjOmh1bnRlcjItUFc="
    assert dict(fake.headers[rids[1]])["authorization"] == "Bearer sk-client"
    assert "hunter2" not in banner
    assert "with the URL's credentials" in banner
    err = io.StringIO()
    assert cli.run(["proxy", "--upstream", "ftp://svc:hunter2@x"], stderr=err) == 2
    assert "hunter2" not in err.getvalue()
    assert "svc:***@x" in err.getvalue()


def _custom_app() -> Starlette:
    """A backend whose chat path no SDK knows, labelling its stream as nothing useful;
    and a redirect into its own origin."""
    stream = b"".join(STREAMS["chat"](REPLY))

    async def chat(request: Request) -> Response:
        return Response(stream, media_type="text/plain")

    async def moved(request: Request) -> Response:
        own = str(request.base_url).rstrip("/")
        return Response(status_code=307, headers={"location": own + "/custom/chat?x=1#f"})

    routes = [Route("/custom/chat", chat, methods=["POST"]), Route("/moved", moved)]
    return Starlette(routes=routes)


def test_a_pinned_format_makes_a_path_a_chat_path(tmp_path: Path) -> None:
    policy = tmp_path / "rendersafe.toml"
    policy.write_text('[proxy.formats]\n"/custom/chat" = "openai-chat"\n')
    with Server(_custom_app()) as server:
        body = {"messages": MESSAGES}
        with ProxyProcess(server.url) as plain:
            # Not pinned: not a chat path, passed as it is.
            text = httpx.post(plain.url + "/custom/chat", json=body).text
            assert EXFIL in "".join(read("openai-chat", text).texts.values())
        for args in (("--policy", str(policy)), ("--format", "/custom/*=openai-chat")):
            with ProxyProcess(server.url, *args) as proxy:
                for path in ("/custom/chat", "/custom/chat/", "/custom/./chat", "/custom/chat;x"):
                    text = httpx.post(proxy.url + path, json=body).text
                    _honest_parts_kept("".join(read("openai-chat", text).texts.values()))
                moved = httpx.get(proxy.url + "/moved")
                assert moved.headers["location"] == "/custom/chat?x=1#f"  # back through us
    err = io.StringIO()
    bad = ["proxy", "--upstream", "http://127.0.0.1:1", "--format", "/x=yaml"]
    assert cli.run(bad, stderr=err) == 2
    assert "the format is not one of" in err.getvalue()
    policy.write_text('[proxy]\nformat = {"/x" = "sse"}\n')
    assert cli.run(["proxy", "--upstream", "http://127.0.0.1:1", "--policy", str(policy)]) == 2
    assert cli.run(["policy", "check", str(policy)], stdout=io.StringIO()) == 0
