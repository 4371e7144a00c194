"""The demo app under hostile requests, served by a real uvicorn: a rebound host name
cannot read it, and no parameter holds a connection or ends in a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from rendersafe.demo import LOCAL_HOSTS, build_demo
from rendersafe.demo.guard import split_host_header
from servers import Server

SRC = Path(__file__).parent.parent / "src"


@pytest.fixture(scope="module")
def demo() -> Iterator[tuple[str, int]]:
    """The demo on a port the OS picks, built knowing that port (as `rendersafe demo`)."""
    inner: dict[str, object] = {}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await inner["app"](scope, receive, send)  # type: ignore[operator]

    server = Server(app)
    port = int(server.url.rpartition(":")[2])
    inner["app"] = build_demo(port=port)
    with server:
        yield server.url, port


def _get(url: str, host: str, **kwargs: object) -> httpx.Response:
    return httpx.get(url, headers={"host": host}, timeout=10, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST", "[::1]"])
def test_local_names_on_the_demo_port_are_served(demo: tuple[str, int], name: str) -> None:
    url, port = demo
    assert _get(url + "/demo/conversation", f"{name}:{port}").status_code == 200
    assert _get(url + "/demo/audit?request_id=x", f"{name}:{port}").json() == []


@pytest.mark.parametrize(
    "host",
    [
        "attacker.example:{port}",  # DNS rebinding: the attacker's name, resolved to 127.0.0.1
        "attacker.example",
        "localhost.attacker.example:{port}",
        "127.0.0.1.nip.io:{port}",
        "127.0.0.1:{other}",  # another port: another origin
        "localhost:{other}",
        "localhost.:{port}",
        "[::1]x:{port}",
        "localhost:{port}:{port}",
        "localhost:-1",
        "user@localhost:{port}",
        "",
    ],
)
def test_other_hosts_are_refused(demo: tuple[str, int], host: str) -> None:
    url, port = demo
    header = host.format(port=port, other=port + 1 if port < 65535 else port - 1)
    for path in ("/demo/audit?request_id=x", "/", "/api/chat", "/static/demo.js"):
        answer = _get(url + path, header)
        assert answer.status_code == 400, (path, header)
        assert "Host not allowed" in answer.text


def test_a_request_without_one_host_header_is_refused(demo: tuple[str, int]) -> None:
    port = demo[1]
    for request in (
        b"GET /demo/conversation HTTP/1.0\r\n\r\n",
        b"GET /demo/conversation HTTP/1.1\r\nHost: localhost:%d\r\nHost: attacker.example\r\n\r\n"
        % port,
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(request)
            head = conn.recv(4096)
        assert head.split(b"\r\n")[0].split(b" ")[1] == b"400", head


def test_the_host_check_is_configurable() -> None:
    app = build_demo(hosts=[*LOCAL_HOSTS, "demo.internal"])
    with Server(app) as server:
        port = server.url.rpartition(":")[2]
        assert _get(server.url + "/demo/conversation", f"demo.internal:{port}").status_code == 200
        assert _get(server.url + "/demo/conversation", "other.internal").status_code == 400


def test_the_command_line_demo_checks_the_host() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "rendersafe", "demo", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--allow-host", "demo.internal"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                first = _get(url + "/demo/conversation", f"localhost:{port}")
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the demo did not start"
                time.sleep(0.1)
        assert first.status_code == 200
        assert _get(url + "/demo/conversation", f"demo.internal:{port}").status_code == 200
        assert _get(url + "/demo/audit", f"attacker.example:{port}").status_code == 400
        assert _get(url + "/demo/audit", "localhost:1").status_code == 400
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize(
    "query",
    [
        "delay=inf",
        "delay=-inf",
        "delay=nan",
        "delay=1e9",
        "delay=5.01",
        "delay=-1",
        "delay=abc",
        "delay=",
        "delay=0x10",
        "delay=" + "1" * 100,
        "delay=1" + "0" * 400,
        "scenario=nope",
        "scenario=",
    ],
)
@pytest.mark.parametrize("path", ["/api/chat", "/raw/chat"])
def test_bad_parameters_are_a_short_400(demo: tuple[str, int], path: str, query: str) -> None:
    url, port = demo
    start = time.monotonic()
    answer = httpx.post(
        f"{url}{path}?{query}", json={"messages": []}, headers={"host": f"127.0.0.1:{port}"}
    )
    assert answer.status_code == 400
    assert time.monotonic() - start < 5
    assert "Traceback" not in answer.text
    assert len(answer.text) < 200
    assert "delay" in answer.text or "scenario" in answer.text


def test_the_largest_delay_is_accepted_and_bounded(demo: tuple[str, int]) -> None:
    url, port = demo
    headers = {"host": f"127.0.0.1:{port}"}
    with httpx.stream("POST", f"{url}/raw/chat?delay=5", headers=headers, timeout=10) as answer:
        assert answer.status_code == 200
    fast = httpx.post(f"{url}/api/chat?delay=0&scenario=attack", headers=headers, timeout=30)
    assert fast.status_code == 200
    assert "[DONE]" in fast.text


def test_other_parameters_are_bounded(demo: tuple[str, int]) -> None:
    url, port = demo
    headers = {"host": f"127.0.0.1:{port}"}
    long_id = httpx.get(f"{url}/demo/audit?request_id={'x' * 500}", headers=headers)
    assert long_id.status_code == 400
    for path in ("/api/chat", "/raw/chat"):
        big = httpx.post(f"{url}{path}?delay=0", content=b"x" * (2 << 20), headers=headers)
        assert big.status_code == 400
        assert "larger than" in big.text


def test_host_header_parsing() -> None:
    assert split_host_header("[::1]:8765") == ("[::1]", 8765)
    assert split_host_header("LocalHost") == ("localhost", None)
    assert split_host_header("[::1") is None
    assert split_host_header("a b:80") is None
    assert split_host_header("localhost:123456") is None
