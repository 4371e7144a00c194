"""A careless model server for the proxy's attack tests: it serves a chat reply (with an
exfiltration image in it) on any path that *any* lenient server would route to a chat
endpoint, and labels and encodes it as the request asks.

Routing reads the path every way some server does, and serves chat if one reading is a
chat endpoint: decoded once (uvicorn) and until nothing changes (double decoding), `\\`
as `/`, cut at a NUL, `;` parameters dropped, dot segments resolved, `//` and trailing
`/` dropped, in any case (a dotless i upper-cased is `I`), NFKC (full-width letters), trailing
dots and spaces and each segment's extension or `:verb` dropped. Like IIS and Symfony, it
routes on `X-Original-URL` or `X-Rewrite-URL` when a request has one, and it answers a
`Range: bytes=N-` with the rest of the body from byte N.

What it answers is chosen by request headers: `x-reply-body` (`openai`, `anthropic`,
`responses`, `ndjson`, `json`, `text`; by default the path's own), `x-reply-type` (the
`Content-Type`, repeated with `|`; `none` for no header), `x-reply-charset` (how the
body is encoded), `x-reply-coding` (`Content-Encoding` values, repeated with `|`, each
applied).
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
import zlib
from collections.abc import Iterator
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from proxy_upstream import REPLY, STREAMS, whole

CHAT = {
    "/v1/chat/completions": "openai",
    "/v1/completions": "openai",
    "/v1/responses": "responses",
    "/v1/messages": "anthropic",
    "/api/chat": "ndjson",
    "/api/generate": "ndjson-generate",
}
_SUFFIX = re.compile(r"(?<=[^/])[.:][^/]*")


def readings(raw_path: str) -> Iterator[str]:
    """Every way a lenient server may read `raw_path` when it routes."""
    once = unquote(raw_path)
    full = raw_path
    while (decoded := unquote(full)) != full:
        full = decoded
    for decoded_path in (once, full):
        path = decoded_path.replace("\\", "/").split("\x00", 1)[0]
        for cased in (path, path.lower(), path.upper().lower(), _nfkc(path)):
            yield _normalised(cased)
            yield _SUFFIX.sub("", _normalised(cased))


def _nfkc(path: str) -> str:
    return unicodedata.normalize("NFKC", path).casefold()


def _normalised(path: str) -> str:
    kept: list[str] = []
    for segment in path.split("/"):
        name = segment.split(";", 1)[0].rstrip(". ")
        if name == "..":
            kept = kept[:-1]
        elif name not in ("", "."):
            kept.append(name)
    return "/" + "/".join(kept)


def kind_of(raw_path: str) -> str | None:
    """The chat endpoint some reading of `raw_path` is (under any base path), or None."""
    for reading in readings(raw_path):
        for endpoint, kind in CHAT.items():
            if reading == endpoint or reading.endswith(endpoint):
                return kind
    return None


def _body(kind: str) -> tuple[bytes, str]:
    """The reply's bytes in the shape `kind`, and its honest content type."""
    if kind in ("openai", "anthropic", "responses"):
        stream = {"openai": "chat", "anthropic": "messages", "responses": "responses"}[kind]
        return b"".join(STREAMS[stream](REPLY)), "text/event-stream"
    if kind.startswith("ndjson"):
        stream = "ollama-generate" if kind.endswith("generate") else "ollama-chat"
        return b"".join(STREAMS[stream](REPLY)), "application/x-ndjson"
    if kind == "json":
        return json.dumps(whole("chat", REPLY)).encode(), "application/json"
    return REPLY.encode(), "text/markdown"


def _encoded(body: bytes, charset: str | None) -> bytes:
    return body.decode().encode(charset) if charset else body


def _coded(body: bytes, codings: list[str]) -> bytes:
    for coding in codings:
        for name in (c.strip().lower() for c in coding.split(",")):
            if name in ("gzip", "x-gzip"):
                body = gzip.compress(body, mtime=0)
            elif name == "deflate":
                body = zlib.compress(body)
            elif name == "raw-deflate":
                packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)
                body = packer.compress(body) + packer.flush()
    return body


async def anything(request: Request) -> Response:
    raw_path = request.scope["raw_path"].decode("latin-1")
    for name in ("x-original-url", "x-rewrite-url", "x-original-uri", "x-forwarded-prefix"):
        raw_path = request.headers.get(name, raw_path)
    kind = kind_of(raw_path)
    await request.body()
    if kind is None:
        return JSONResponse({"error": {"message": "not a chat path"}}, status_code=404)
    headers = request.headers
    body, content_type = _body(headers.get("x-reply-body", kind))
    body = _encoded(body, headers.get("x-reply-charset"))
    codings = [c for c in headers.get("x-reply-coding", "").split("|") if c]
    body = _coded(body, codings)
    if match := re.fullmatch(r"bytes=(\d+)-", headers.get("range", "")):
        body = body[int(match[1]) :]  # a careless server: the range, whatever the body is
    chosen = headers.get("x-reply-type", content_type)
    raw: list[tuple[bytes, bytes]] = []
    if chosen != "none":
        raw += [(b"content-type", value.encode()) for value in chosen.split("|")]
    raw += [(b"content-encoding", c.replace("raw-", "").encode()) for c in codings]
    response = Response(body)
    response.raw_headers = [*raw, (b"content-length", str(len(body)).encode())]
    return response


METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
app = Starlette(routes=[Route("/{rest:path}", anything, methods=METHODS)])
