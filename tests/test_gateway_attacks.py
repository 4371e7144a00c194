"""`rendersafe proxy` as a mandatory control (issue 35): a generated list of request
targets and reply types, sent by hand through a real `rendersafe proxy` to a real uvicorn
server that serves chat on any path *some* server would route to chat, and labels its
replies carelessly. Every reply is sanitised or refused: the image never reaches the
client however the reply is decoded, and no answer is a 500 or holds a traceback.

The targets: dot segments (plain and escaped), `;` parameters, `//`, trailing `/`,
case, escaped letters, double escapes, encoded `/` and `\\`, extensions and verbs, NUL,
letters that fold to ASCII, fragments, absolute-form, `@`, `*`, base paths, on each chat
endpoint. The replies: no type, `application/octet-stream` and other binary types, text
types that are not the format, other charsets (labelled and not), two content types,
content codings once, twice and unknown.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import anthropic
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lenient_upstream
from proxy_process import ProxyProcess
from proxy_upstream import SECRET
from raw_http import RawResponse, request, send
from rendersafe.gateway.routes import is_chat
from rendersafe.gateway.target import RequestError, canonical
from servers import Server

ENDPOINTS = (
    "/v1/chat/completions",
    "/v1/messages",
    "/api/chat",
    "/v1/responses",
    "/v1/completions",
    "/api/generate",
)
HONEST = "All done, see you."
BODY = json.dumps({"model": "m", "messages": [{"role": "user", "content": "key?"}]}).encode()


def _escaped(text: str, every: bool = False) -> str:
    return "".join(f"%{ord(c):02x}" if every or i == 0 else c for i, c in enumerate(text))


def _swap(path: str, old: str, new: str) -> str:
    """`path` with its first `old` letter (after the first segment) replaced by `new`."""
    head, rest = path[:4], path[4:]
    return head + rest.replace(old, quote(new), 1)


_TARGETS: dict[str, Callable[[str], str]] = {
    "dot first": lambda p: "/." + p,
    "dot mid": lambda p: p.replace("/", "/./", 2).replace("/./", "/", 1),
    "dot last": lambda p: p + "/.",
    "dot-dot": lambda p: p + "/x/..",
    "dot-dot above root": lambda p: "/../.." + p,
    "slash": lambda p: p + "/",
    "slashes": lambda p: p + "//",
    "leading slashes": lambda p: "/" + p,
    "inner slashes": lambda p: p.rpartition("/")[0] + "//" + p.rpartition("/")[2],
    "param": lambda p: p + ";x",
    "param mid": lambda p: p.rpartition("/")[0] + ";jsessionid=1/" + p.rpartition("/")[2],
    "tomcat": lambda p: "/x/..;" + p,
    "escaped dot": lambda p: p + "/%2e",
    "escaped dot-dot": lambda p: p + "/x/%2e%2E",
    "escaped dot first": lambda p: p.replace("/", "/%2e/", 1),
    "double-escaped dot": lambda p: p + "/%252e",
    "double-escaped dot-dot": lambda p: p + "/x/%252e%252e",
    "upper": str.upper,
    "title": lambda p: "/".join(s.capitalize() for s in p.split("/")),
    "swapcase last": lambda p: p.rpartition("/")[0] + "/" + p.rpartition("/")[2].swapcase(),
    "escaped letter": lambda p: p.rpartition("/")[0] + "/" + _escaped(p.rpartition("/")[2]),
    "escaped word": lambda p: p.rpartition("/")[0] + "/" + _escaped(p.rpartition("/")[2], True),
    "encoded slash": lambda p: p.rpartition("/")[0] + "%2F" + p.rpartition("/")[2],
    "encoded slash lower": lambda p: p.rpartition("/")[0] + "%2f" + p.rpartition("/")[2],
    "backslash": lambda p: p.rpartition("/")[0] + "\\" + p.rpartition("/")[2],
    "encoded backslash": lambda p: p.rpartition("/")[0] + "%5C" + p.rpartition("/")[2],
    "extension": lambda p: p + ".json",
    "verb": lambda p: p + ":stream",
    "trailing dot": lambda p: p + ".",
    "trailing space": lambda p: p + "%20",
    "trailing tab": lambda p: p + "%09",
    "nul": lambda p: p + "%00.png",
    "encoded semicolon": lambda p: p + "%3Bx",
    "encoded question mark": lambda p: p + "%3F",
    "encoded hash": lambda p: p + "%23",
    "dotless i": lambda p: _swap(p, "i", "\u0131"),
    "long s": lambda p: _swap(p, "s", "\u017f"),
    "full-width": lambda p: _swap(p, "a", "\uff41"),
    "query": lambda p: p + "?x=1",
    "query of dots": lambda p: p + "?/../../v1/models",
    "fragment": lambda p: p + "#x",
    "absolute-form": lambda p: "http://127.0.0.1" + p,
    "absolute-form elsewhere": lambda p: "http://attacker.example" + p,
    "at": lambda p: "@attacker.example" + p,
    "base path": lambda p: "/openai" + p,
    "base path upper": lambda p: "/Ollama" + p.upper(),
    "everything": lambda p: "//." + p.upper().replace("/", "/./") + ";x/",
}


@dataclass(frozen=True)
class Variant:
    name: str
    method: str
    target: bytes
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = BODY
    by_hand: bool = False  # the headers written as they are (twice, framing of its own)


def target_variants() -> Iterator[Variant]:
    for endpoint in ENDPOINTS:
        for name, make in _TARGETS.items():
            yield Variant(f"{endpoint} {name}", "POST", make(endpoint).encode())
    yield Variant("OPTIONS *", "OPTIONS", b"*", body=b"")
    yield Variant("CONNECT", "CONNECT", b"attacker.example:443", body=b"")
    yield Variant("TRACE", "TRACE", b"/v1/chat/completions", body=b"")
    chat = b"/v1/chat/completions"
    length_and_chunked = (("Content-Length", "4"), ("Transfer-Encoding", "chunked"))
    yield Variant("CL and TE", "POST", chat, length_and_chunked, b"0\r\n\r\n", by_hand=True)
    two_lengths = (("Content-Length", "4"), ("Content-Length", "5"))
    yield Variant("two lengths", "POST", b"/api/chat", two_lengths, b"{}{}", by_hand=True)
    yield Variant("bad length", "POST", b"/api/chat", (("Content-Length", "4, 4"),), b"{}{}", True)
    chunked_twice = (("Transfer-Encoding", "chunked, chunked"),)
    yield Variant("chunked twice", "POST", chat, chunked_twice, b"0\r\n\r\n", by_hand=True)
    upgrade: tuple[tuple[str, str], ...] = (
        ("Upgrade", "websocket"),
        ("Connection", "Upgrade"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    )
    yield Variant("websocket", "GET", chat, upgrade, b"", by_hand=True)
    yield Variant("h2c", "GET", chat, (("Upgrade", "h2c"), ("Connection", "Upgrade")), b"", True)
    yield Variant("HTTP/2 preface", "PRI", b"*", body=b"")
    yield Variant("a range of the reply", "POST", chat, (("Range", "bytes=40-"),))
    for name in ("X-Original-URL", "X-Rewrite-URL", "X-Original-URI", "X-Forwarded-Prefix"):
        routed = ((name, "/v1/chat/completions"),)
        yield Variant(f"{name} over a passthrough path", "POST", b"/v1/models", routed)


# (reply shape, Content-Type ("none": no header; `|`: two headers), charset, codings)
_REPLIES: list[tuple[str, str, str | None, str]] = [
    ("openai", "application/octet-stream", None, ""),
    ("openai", "none", None, ""),
    ("openai", "text/event-stream; charset=utf-16", "utf-16", ""),
    ("openai", "text/event-stream; charset=utf-16le", "utf-16-le", ""),
    ("openai", "text/event-stream; charset=UTF-16BE", "utf-16-be", ""),
    ("openai", "text/event-stream; charset=utf-32", "utf-32", ""),
    ("openai", "text/event-stream; charset=latin-1", "latin-1", ""),
    ("openai", "text/event-stream; charset=windows-1252", "cp1252", ""),
    ("openai", "text/event-stream; charset=utf-7", "utf-7", ""),
    ("openai", 'text/event-stream; charset="utf-16"', "utf-16", ""),
    ("openai", "text/event-stream; charset=x-no-such-charset", None, ""),
    ("openai", "text/event-stream; charset=base64", None, ""),
    ("openai", "text/event-stream; charset=utf-8; charset=utf-16", "utf-16", ""),
    ("openai", "text/event-stream; charset*=utf-16''", "utf-16", ""),
    ("openai", "text/event-stream; charset*=utf-16'en'", "utf-16", ""),
    ("openai", "text/event-stream; CHARSET='utf-16'", "utf-16", ""),
    ("openai", "text/event-stream", "utf-16", ""),
    ("openai", "text/event-stream", "utf-16-le", ""),
    ("openai", "application/octet-stream", "utf-16", ""),
    ("openai", "application/octet-stream", "utf-32-le", ""),
    ("openai", "none", "utf-16", ""),
    ("openai", "TEXT/EVENT-STREAM", None, ""),
    ("openai", "text/event-stream ; charset = utf-8", None, ""),
    ("openai", "text/plain", None, ""),
    ("openai", "text/markdown", None, ""),
    ("openai", "text/html", None, ""),
    ("openai", "application/json", None, ""),
    ("openai", "application/x-ndjson", None, ""),
    ("openai", "image/png", None, ""),
    ("openai", "multipart/mixed; boundary=x", None, ""),
    ("openai", "application/grpc", None, ""),
    ("openai", "text/event-stream|application/octet-stream", None, ""),
    ("openai", "text/event-stream|text/event-stream; charset=utf-16", "utf-16", ""),
    ("openai", "text/event-stream, application/json", None, ""),
    ("openai", "application/octet-stream", None, "gzip"),
    ("openai", "text/event-stream", None, "gzip"),
    ("openai", "text/event-stream", None, "gzip|gzip"),
    ("openai", "text/event-stream", None, "gzip, gzip"),
    ("openai", "text/event-stream", None, "gzip|identity|deflate"),
    ("openai", "text/event-stream", None, "br"),
    ("openai", "text/event-stream", None, "deflate"),
    ("openai", "text/event-stream", None, "raw-deflate"),
    ("openai", "text/event-stream", None, "identity, gzip"),
    ("openai", "text/event-stream", None, "GZIP"),
    ("openai", "text/event-stream; charset=utf-16", "utf-16", "gzip"),
    ("openai", "application/octet-stream", "utf-16", "gzip"),
    ("anthropic", "application/octet-stream", None, ""),
    ("anthropic", "text/event-stream; charset=utf-16", "utf-16", ""),
    ("anthropic", "none", None, ""),
    ("responses", "application/octet-stream", None, ""),
    ("responses", "text/event-stream; charset=utf-32", "utf-32", ""),
    ("ndjson", "application/octet-stream", None, ""),
    ("ndjson", "application/x-ndjson; charset=utf-16", "utf-16", ""),
    ("ndjson", "application/x-ndjson", "utf-16", ""),
    ("ndjson", "text/plain", None, ""),
    ("ndjson", "none", None, ""),
    ("ndjson", "application/json", None, ""),
    ("ndjson", "application/octet-stream", None, "gzip"),
    ("ndjson", "text/event-stream", None, ""),
    ("json", "text/event-stream", None, ""),
    ("text", "text/event-stream", None, ""),
    ("text", "application/x-ndjson", None, ""),
    ("text", "application/json", None, ""),
    ("json", "application/octet-stream", None, ""),
    ("json", "application/json; charset=utf-16", "utf-16", ""),
    ("json", "application/json", "utf-16", ""),
    ("json", "application/json", "utf-32", ""),
    ("json", "application/json", "utf-16-le", ""),
    ("json", "text/plain", None, ""),
    ("json", "none", None, ""),
    ("json", "application/vnd.example+json", None, ""),
    ("json", "application/octet-stream", "utf-16", ""),
    ("text", "application/octet-stream", None, ""),
    ("text", "text/markdown; charset=utf-16", "utf-16", ""),
    ("text", "text/markdown; charset=iso-8859-1", "latin-1", ""),
    ("text", "text/plain; charset=us-ascii", None, ""),
    ("text", "none", None, ""),
    ("text", "image/svg+xml", None, ""),
]


def reply_variants() -> Iterator[Variant]:
    for shape, content_type, charset, coding in _REPLIES:
        headers = [("x-reply-body", shape), ("x-reply-type", content_type)]
        if charset:
            headers.append(("x-reply-charset", charset))
        if coding:
            headers.append(("x-reply-coding", coding))
        path = "/api/chat" if shape == "ndjson" else "/v1/messages"
        path = path if shape in ("ndjson", "anthropic") else "/v1/chat/completions"
        name = f"{shape} as {content_type!r} in {charset or 'utf-8'} coded {coding or 'none'}"
        yield Variant(name, "POST", path.encode(), tuple(headers))


VARIANTS = [*target_variants(), *reply_variants()]


def readings(response: RawResponse) -> list[str]:
    """Every way a client may read the body: as it came and with each compression undone,
    in UTF-8, its label's charset, UTF-16 and UTF-32 either way, Latin-1."""
    bodies = [response.body]
    for _ in range(3):  # whatever the headers say: a client may undo what it recognises
        for unpack in (gzip.decompress, zlib.decompress, _raw_inflate):
            try:
                bodies.append(unpack(bodies[-1]))
                break
            except (OSError, zlib.error, EOFError):
                continue
        else:
            break
    charsets = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "latin-1"]
    for value in response.header("content-type"):
        for param in value.split(";")[1:]:
            key, _, charset = param.partition("=")
            if key.strip().lower() == "charset":
                charsets.append(charset.strip().strip('"'))
    found = []
    for body in bodies:
        for charset in charsets:
            try:
                found.append(body.decode(charset, errors="replace"))
            except LookupError:
                continue
    return found


def _raw_inflate(data: bytes) -> bytes:
    return zlib.decompress(data, -zlib.MAX_WBITS)


@dataclass
class Outcome:
    variant: Variant
    response: RawResponse

    @property
    def leaked(self) -> bool:
        return any(
            "attacker.example/p.png" in text or SECRET in text for text in readings(self.response)
        )

    @property
    def traceback(self) -> bool:
        status, body = self.response.status, self.response.body
        return status == 500 or b"Traceback" in body or b"Internal Server Error" in body

    @property
    def kind(self) -> str:
        status = self.response.status
        if status == 200 and any(HONEST in text for text in readings(self.response)):
            return "sanitised"
        if status == 200 and b"rendersafe withheld the rest of this reply" in self.response.body:
            return "withheld mid-stream"  # refused after the headers: the format's error
        return f"refused {status}" if status >= 400 else f"other {status}"


def _run(proxy: ProxyProcess, variant: Variant) -> Outcome:
    data = request(variant.method, variant.target, dict(variant.headers), variant.body)
    if variant.by_hand:
        head = b"".join(f"{k}: {v}\r\n".encode() for k, v in variant.headers)
        line = variant.method.encode() + b" " + variant.target + b" HTTP/1.1\r\n"
        close = b"" if "Connection" in dict(variant.headers) else b"Connection: close\r\n"
        data = line + b"Host: x\r\n" + head + close + b"\r\n" + variant.body
    return Outcome(variant, send(proxy.port, data))


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxyProcess]:
    audit = tmp_path_factory.mktemp("attacks") / "audit.jsonl"
    with Server(lenient_upstream.app) as upstream, ProxyProcess(upstream.url, audit=audit) as p:
        yield p


def test_no_target_or_reply_type_gets_past_the_proxy(proxy: ProxyProcess) -> None:
    assert len(VARIANTS) >= 200
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda v: _run(proxy, v), VARIANTS))
    leaked = [o.variant.name for o in outcomes if o.leaked]
    crashed = [(o.variant.name, o.response.status) for o in outcomes if o.traceback]
    assert not leaked, leaked
    assert not crashed, crashed
    kinds = Counter(o.kind for o in outcomes)
    # Not a proof by refusal: most variants reach the server and come back sanitised.
    assert kinds["sanitised"] >= len(VARIANTS) // 2, kinds
    assert not [o.variant.name for o in outcomes if o.kind.startswith("other")]
    assert "Traceback" not in proxy.stderr()
    print(f"\n{len(VARIANTS)} variants: {dict(sorted(kinds.items()))}")


@pytest.mark.parametrize(
    ("target", "routed"),
    [
        ("/v1/./chat/completions", "/v1/chat/completions"),
        ("/api/chat/.", "/api/chat"),
        ("/api/chat/x/..", "/api/chat"),
        ("/v1/messages/", "/v1/messages"),
        ("/v1/chat;x/completions;y", "/v1/chat/completions"),
        ("/%76%31/chat/completions", "/v1/chat/completions"),
        ("//v1//messages//", "/v1/messages"),
        ("/x/..;/api/generate", "/api/generate"),
        ("/v1/models/ft:gpt-4o:org::1", "/v1/models/ft:gpt-4o:org::1"),
        ("/v1/files/a%20b", None),
        ("/", "/"),
    ],
)
def test_the_canonical_target(target: str, routed: str | None) -> None:
    scope: dict[str, object] = {"type": "http", "method": "POST", "path": target}
    scope.update(headers=[], raw_path=target.encode())
    if routed is None:
        with pytest.raises(RequestError):
            canonical(scope)
        return
    found = canonical(scope)
    assert found.path == routed
    assert found.raw_path == routed.encode()


_PIECES = st.sampled_from(
    [
        "v1", "api", "chat", "completions", "messages", "responses", "generate", "models",
        "Chat", "MESSAGES", ".", "..", "", ";x", "%2e", "%2E%2e", "%252e", "%2f", "%5c",
        "\\", "%00", "%20", ".json", ":stream", "%63hat", "%C4%B1", "%C5%BF", "%EF%BD%81",
        "x", "openai", "%3b", "%3f", "%23", "%41", "~", "@", "%25",
    ]
)  # fmt: skip


_NOISE = st.sampled_from([".", "", "x/..", "%2e", "x/%2e%2e", ";p", "x/..;", "%2E"])


@st.composite
def _segment(draw: st.DrawFn, name: str) -> str:
    """`name` as a client may spell it to a lenient server."""
    how = draw(st.sampled_from(["same", "upper", "swap", "escape", "param", "ext", "fold"]))
    at = draw(st.integers(0, len(name) - 1))
    spelt = {
        "same": name,
        "upper": name.upper(),
        "swap": name.swapcase(),
        "escape": name[:at] + f"%{ord(name[at]):02X}" + name[at + 1 :],
        "param": name + ";x=1",
        "ext": name + draw(st.sampled_from([".json", ":stream", ".", "..json"])),
        "fold": name.replace("i", "%C4%B1").replace("s", "%C5%BF").replace("a", "%EF%BD%81"),
    }
    return spelt[how]


@st.composite
def _chat_like(draw: st.DrawFn) -> list[str]:
    """An endpoint's segments, each spelt some way, noise between them."""
    segments = draw(st.lists(st.sampled_from(["openai", "ollama", "x"]), max_size=1))
    for name in draw(st.sampled_from(ENDPOINTS)).strip("/").split("/"):
        segments += draw(st.lists(_NOISE, max_size=2))
        segments.append(draw(_segment(name)))
    return segments + draw(st.lists(_NOISE, max_size=2))


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        _chat_like(), st.lists(st.lists(_PIECES, min_size=1, max_size=3).map("".join), max_size=7)
    )
)
def test_whatever_a_lenient_server_serves_as_chat_the_proxy_routes_as_chat(
    segments: list[str],
) -> None:
    raw = "/" + "/".join(segments)
    scope: dict[str, object] = {"type": "http", "method": "POST", "path": raw}
    scope.update(headers=[], raw_path=raw.encode())
    try:
        found = canonical(scope)
    except RequestError:
        return  # refused: never forwarded
    # What is forwarded is what was routed on, and reading it again changes nothing.
    again = canonical({**scope, "raw_path": found.raw_path, "path": found.path})
    assert again == found
    assert not any(piece in found.path for piece in ("//", "/./", "/../"))
    if lenient_upstream.kind_of(found.raw_path.decode()) is not None:
        assert is_chat(found.path), (raw, found)


def test_the_audit_log_has_the_findings(proxy: ProxyProcess) -> None:
    assert proxy.audit is not None
    response = send(proxy.port, request("POST", b"/v1/./chat/completions", {}, BODY))
    assert response.status == 200
    events = [json.loads(line)["event"] for line in Path(proxy.audit).read_text().splitlines()]
    assert "finding" in events


@pytest.mark.parametrize(
    ("content_type", "charset"),
    [
        ("application/octet-stream", None),
        ("text/event-stream; charset=utf-16", "utf-16"),
        ("image/png", None),
        ("text/event-stream; charset=latin-1", "latin-1"),
    ],
)
def test_the_official_sdks_get_no_image_however_the_stream_is_labelled(
    proxy: ProxyProcess, content_type: str, charset: str | None
) -> None:
    headers = {"x-reply-type": content_type}
    if charset:
        headers["x-reply-charset"] = charset
    client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="sk-test", max_retries=0)
    with client:
        stream = client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "key?"}],
            stream=True,
            extra_headers=headers,
        )
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert "attacker" not in text
    assert HONEST in text
    claude = anthropic.Anthropic(base_url=proxy.url, api_key="k", max_retries=0)
    with (
        claude,
        claude.messages.stream(
            model="c",
            max_tokens=9,
            messages=[{"role": "user", "content": "key?"}],
            extra_headers={**headers, "x-reply-body": "anthropic"},
        ) as events,
    ):
        said = "".join(events.text_stream)
    assert "attacker" not in said
    assert HONEST in said
