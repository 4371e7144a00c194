"""Every subcommand given bad arguments, in a real process: exit 2, a message naming
the problem (the file, the flag, the address), that subcommand's usage for a mistyped
flag, and never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).parent.parent / "src"


def rendersafe(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RENDERSAFE_")}
    return subprocess.run(
        [sys.executable, "-m", "rendersafe", *args],
        env={**env, "PYTHONPATH": str(SRC)},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bad-arguments")
    (folder / "latin1.md").write_bytes(
        "caf\xe9 ![x](https://attacker.example/x.png)".encode("latin-1")
    )
    (folder / "bad.toml").write_text("allowed_image_hosts = 3\n")
    (folder / "audit.jsonl").write_bytes(b"\xff\xfe not a record\n")
    return folder


@pytest.fixture(scope="module")
def taken() -> Iterator[int]:
    """A port something is already listening on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


# (arguments, what stderr must say); {taken} is a port in use.
CASES = [
    (["sanitize", "latin1.md"], "latin1.md: not UTF-8 text (byte 0xe9 at offset 3)"),
    (["sanitize", "missing.md"], "missing.md: No such file or directory"),
    (["sanitize", "."], ".: Is a directory"),
    (["sanitize", "--bogus"], "usage: rendersafe sanitize"),
    (["sanitize", "-", "--policy", "bad.toml"], "allowed_image_hosts"),
    (["sanitize", "-", "--policy", "missing.toml"], "missing.toml"),
    (["scan", "--bogus", "."], "usage: rendersafe scan"),
    (["scan", "missing.jsonl"], "missing.jsonl: no such file or directory"),
    (["scan", ".", "--select", "nope"], "unknown reason code 'nope'; the codes are: "),
    (["scan", ".", "--output-format", "xml"], "argument --output-format: invalid choice"),
    (["scan", ".", "--fail-on", "critical"], "argument --fail-on: invalid choice"),
    (["scan", ".", "-o", "missing/dir/r.json"], "cannot write missing/dir/r.json"),
    (["scan", "latin1.md", "--policy", "bad.toml"], "allowed_image_hosts"),
    (["policy", "schema", "--bogus"], "usage: rendersafe policy schema"),
    (["policy", "check", "missing.toml"], "missing.toml"),
    (["policy", "check", "bad.toml"], "allowed_image_hosts"),
    (["policy", "nothing"], "invalid choice: 'nothing'"),
    (["audit", "summary", "missing.jsonl"], "missing.jsonl: No such file or directory"),
    (["audit", "summary", "audit.jsonl", "--since", "yesterday"], "not an ISO 8601 time"),
    (["audit", "schema", "--bogus"], "usage: rendersafe audit schema"),
    (["csp", "--policy", "missing.toml"], "missing.toml"),
    (["csp", "--bogus"], "usage: rendersafe csp"),
    (["demo", "--port", "99999"], "argument --port: not a port (0-65535): '99999'"),
    (["demo", "--attacker-port", "http"], "argument --attacker-port: not a port"),
    (["demo", "--port", "{taken}"], "cannot serve on 127.0.0.1:{taken}: Address already in use"),
    (["demo", "--policy", "bad.toml"], "allowed_image_hosts"),
    (["proxy"], "the following arguments are required: --upstream"),
    (["proxy", "--upstream", "ftp://x"], "the upstream must be an http(s) URL"),
    (["proxy", "--upstream", "http://x", "--listen", "127.0.0.1:99999"], "--listen"),
    (
        ["proxy", "--upstream", "http://x", "--listen", "127.0.0.1:{taken}"],
        "cannot listen on 127.0.0.1:{taken}: Address already in use",
    ),
    (["proxy", "--upstream", "http://x", "--format", "nopath"], "--format takes PATH=FORMAT"),
    (["nothing"], "invalid choice: 'nothing'"),
]


@pytest.mark.parametrize(("args", "says"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_arguments_exit_2_with_a_message_and_no_traceback(
    args: list[str], says: str, work: Path, taken: int
) -> None:
    if args[0] in ("demo", "proxy"):
        pytest.importorskip("uvicorn")
    done = rendersafe(*(arg.format(taken=taken) for arg in args), cwd=work)
    assert done.returncode == 2, done.stderr
    assert says.format(taken=taken) in done.stderr
    assert "Traceback" not in done.stderr
    assert "internal error" not in done.stderr
    assert done.stdout == ""


def test_standard_input_that_is_not_utf8_is_named(work: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RENDERSAFE_")}
    done = subprocess.run(
        [sys.executable, "-m", "rendersafe", "sanitize", "-"],
        env={**env, "PYTHONPATH": str(SRC), "LC_ALL": "C"},  # surrogate-escaping stdin
        cwd=work,
        input="caf\xe9".encode("latin-1"),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "rendersafe: error: standard input: not UTF-8 text (byte 0xe9 at offset 3)\n"
    )
    assert done.stdout == b""
