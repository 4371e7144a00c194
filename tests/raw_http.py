"""HTTP/1.1 by hand over a socket, for requests no client library would send as they
are (`/v1/./chat`, `GET http://host/x`, `Content-Length` with `Transfer-Encoding`)."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field


@dataclass
class RawResponse:
    """A response as it came: status (0: none), headers (names lower case), the body
    with its chunked framing undone."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    def header(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]


def request(method: str, target: bytes, headers: dict[str, str], body: bytes = b"") -> bytes:
    """A request's bytes, the target as given; `Connection: close` and the body's length
    added unless the headers say otherwise."""
    lines = [method.encode() + b" " + target + b" HTTP/1.1", b"Host: 127.0.0.1"]
    lines += [f"{name}: {value}".encode() for name, value in headers.items()]
    if not any(name.lower() in ("content-length", "transfer-encoding") for name in headers):
        lines.append(f"Content-Length: {len(body)}".encode())
    lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def send(port: int, data: bytes, timeout: float = 20) -> RawResponse:
    """Send `data` to 127.0.0.1:`port`, read until the server closes."""
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        while chunk := sock.recv(65536):
            received += chunk
    return parse(received)


def parse(data: bytes) -> RawResponse:
    """The first response in `data`."""
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) < 2 or not parts[1].isdigit():
        return RawResponse(0, body=data)
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append((name.strip().lower(), value.strip()))
    response = RawResponse(int(parts[1]), headers)
    chunked = any(v.lower() == "chunked" for k, v in headers if k == "transfer-encoding")
    response.body = _unchunked(rest) if chunked else rest
    return response


def _unchunked(data: bytes) -> bytes:
    out = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += data[:size]
        data = data[size + 2 :]
    return out
