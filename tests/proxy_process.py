"""`rendersafe proxy` as a real process, for the tests and the benchmark, and what the
kernel says of its sockets."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ProxyProcess:
    """`with ProxyProcess(upstream, "--read-timeout", "1") as proxy: proxy.url`."""

    def __init__(self, upstream: str, *args: str, audit: Path | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.audit = audit
        command = [sys.executable, "-m", "rendersafe", "proxy", "--upstream", upstream]
        command += ["--listen", f"127.0.0.1:{self.port}", *args]
        if audit is not None:
            command += ["--audit", str(audit)]
        self.command = command
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> ProxyProcess:
        # A file, not a pipe: a pipe nobody reads would block the proxy's logging.
        self._err = tempfile.TemporaryFile()
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=self._err)
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the proxy did not start: {self.stderr()[-2000:]}")
            time.sleep(0.05)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def health(self) -> dict[str, object]:
        data: dict[str, object] = httpx.get(self.url + "/healthz", timeout=5).json()
        return data

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM, then wait; the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def stderr(self) -> str:
        """What the proxy wrote to stderr so far."""
        self._err.seek(0)
        return self._err.read().decode(errors="replace")

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self.process is not None
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        self._err.close()


_STATES = {"01": "ESTABLISHED", "08": "CLOSE_WAIT", "0A": "LISTEN", "06": "TIME_WAIT"}


def tcp_sockets(pid: int) -> list[tuple[int, int, str]]:
    """(local port, remote port, state) of every TCP socket the process holds open."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                if fields[9] in inodes:
                    local = int(fields[1].rsplit(":", 1)[1], 16)
                    remote = int(fields[2].rsplit(":", 1)[1], 16)
                    found.append((local, remote, _STATES.get(fields[3], fields[3])))
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process so far (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
