"""One long-lived `node tests/js/render.mjs --serve`, each render under a timeout.

    server = NodeServer(timeout=10.0)
    pages, late = server.render(text, server.renderers)            # {name: html}
    healed, late = server.render(text, server.healing, cuts=[3, 9])  # {name: [pages]}
    server.close()

JSON lines over the process's stdin and stdout: one request a text, one answer a render,
read as it comes, so a renderer that runs past the timeout is known by name. The process
is then killed (a synchronous regex cannot be interrupted from inside Node.js), the
renderer is listed in `late`, and the rest of the request goes to a new process.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path

JS = Path(__file__).resolve().parent.parent / "tests" / "js"
# Importing every renderer takes Node.js about a second; on a loaded machine, many.
STARTUP_SECONDS = 120.0


class RendererTimeoutError(Exception):
    """A renderer ran past its timeout (the process has been killed)."""


class NodeServer:
    """tests/js/render.mjs --serve, started on first use and again after a timeout."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.renderers: tuple[str, ...] = ()
        self.healing: tuple[str, ...] = ()
        self._process: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._start()

    def render(
        self, text: str, names: tuple[str, ...], cuts: list[int] | None = None
    ) -> tuple[dict[str, list[str]], list[str]]:
        """Each renderer's distinct pages of `text` (one without `cuts`; with them, the
        prefixes `text[:cut]`), and the renderers that ran past the timeout."""
        pages: dict[str, list[str]] = {}
        late: list[str] = []
        pending = list(names)
        while pending:
            name = pending.pop(0)
            try:
                pages[name] = self._one(text, name, cuts)
            except RendererTimeoutError:
                late.append(name)
                self._start()
        return pages, late

    def close(self) -> None:
        """End the process and wait for it (so its CPU time counts as the caller's)."""
        if self._process is None:
            return
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process = None

    def _one(self, text: str, name: str, cuts: list[int] | None) -> list[str]:
        request: dict[str, object] = {"text": text, "renderers": [name]}
        if cuts is not None:
            request["cuts"] = cuts
        self._send(request)
        answers = 1 if cuts is None else len(cuts)
        found = [self._read(self.timeout)["html"] for _ in range(answers)]
        return [html for html in found if isinstance(html, str)]

    def _start(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
        self._buffer = b""
        self._process = subprocess.Popen(
            ["node", str(JS / "render.mjs"), "--serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        names = self._read(STARTUP_SECONDS)
        self.renderers, self.healing = _names(names["renderers"]), _names(names["healing"])

    def _send(self, request: dict[str, object]) -> None:
        assert self._process is not None
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(request).encode() + b"\n")
        self._process.stdin.flush()

    def _read(self, timeout: float) -> dict[str, object]:
        """The next answer line, or RendererTimeoutError after `timeout` seconds."""
        assert self._process is not None
        assert self._process.stdout is not None
        fd = self._process.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise RendererTimeoutError
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                code = self._process.poll()
                hint = "its error is above; are its packages installed? npm ci --prefix tests/js"
                raise RuntimeError(f"render.mjs --serve exited ({code}): {hint}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        answer: dict[str, object] = json.loads(line)
        return answer


def _names(value: object) -> tuple[str, ...]:
    assert isinstance(value, list)
    return tuple(str(name) for name in value)
