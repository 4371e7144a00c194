"""`Policy`: what may be rendered, validated once when it is built.

    >>> Policy(allowed_image_hosts=["cdn.example.com"], trusted_link_hosts=["docs.example.com"])

A policy is a frozen pydantic model (`extra="forbid"`). Every unsafe or
contradictory setting raises `PolicyError` naming the field and the fix. Load one
from TOML or `RENDERSAFE_*` variables with `rendersafe.config.load_policy`.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

import ada_url
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator

from .errors import PolicyError
from .urls.hosts import (
    SHARED_TENANT_HOSTS,
    is_ip_literal,
    normalise_host,
    split_host,
    split_port,
)

__all__ = ["RENDERED_FENCES", "ImageProxy", "LinkInterstitial", "Policy", "Thresholds"]

# Schemes that run code or read local files: no policy may allow them for links.
FORBIDDEN_SCHEMES = frozenset({"javascript", "vbscript", "file", "data", "blob", "filesystem"})

_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_NOT_A_HOST = re.compile(r"[/:@*?#\s\\]")
# A URL's default port is not serialised (WHATWG), so a bare entry already names it.
_DEFAULT_PORTS = frozenset({80, 443})
# DNS limits (RFC 1035): a longer name never resolves, so an entry holding one is a mistake.
MAX_HOST_CHARS = 253
MAX_LABEL_CHARS = 63
# Bounds on what one policy may hold: each list is validated in linear time, and these
# keep one hostile file from holding a process (100,000 hosts validate in about 2 s).
MAX_HOSTS = 1_000_000
MAX_CANARIES = 10_000
MAX_CANARY_CHARS = 256
MAX_SCHEMES = 64
# A proxy key shorter than this, or this poor in distinct characters or in entropy per
# character, is a placeholder or a typo, not a secret (`openssl rand -hex 32` passes).
MIN_KEY_CHARS = 32
MAX_KEY_CHARS = 1024
MIN_KEY_DISTINCT = 8
MIN_KEY_BITS_PER_CHAR = 3.0
# A query parameter name that needs no escaping: `&`, `#`, `=` or a space would change
# what the proxy reads.
_PARAM = re.compile(r"[A-Za-z0-9_.~-]{1,64}")
MAX_PROXY_URL_CHARS = 2048
MAX_EXPIRES_SECONDS = 30 * 24 * 3600
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# A marker is one line of text: a newline or control character would change the structure.
_ONE_LINE = r"^[^\x00-\x1f\x7f-\x9f]*$"
_shown = reprlib.Repr()
_shown.maxstring = _shown.maxother = 80
_shown.maxlist = _shown.maxtuple = _shown.maxdict = 4
_shown.maxlevel = 3


_NUMBERS = (int, float, int | None, float | None)


def _refuse_bools(model: type[BaseModel], data: dict[str, Any], prefix: str = "") -> None:
    """pydantic reads `true` as 1 for a number; in a policy it is a mistake."""
    for name, value in data.items():
        info = model.model_fields.get(name)
        if isinstance(value, bool) and info is not None and info.annotation in _NUMBERS:
            raise PolicyError(prefix + name, f"expected a number, got {value!r}")


class Thresholds(BaseModel):
    """When does a URL *carry data*? Tuned on real links (docs/reference/threat-model.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_encoded_chars: int = Field(
        20,
        ge=8,
        le=4096,
        description="Shortest base64/hex/base32 run that is decoded and inspected "
        "(runs from 16 characters are decoded when this is higher).",
    )
    min_decoded_bytes: int = Field(
        12, ge=4, le=4096, description="Decoded runs shorter than this are ignored."
    )
    printable_ratio: float = Field(
        0.9, gt=0, le=1, description="Share of printable bytes that marks a decoded run as text."
    )
    percent_escapes: int = Field(
        6,
        ge=1,
        le=4096,
        description="Percent-escapes of plain ASCII letters/digits that mark smuggling.",
    )
    text_words: int = Field(
        10,
        ge=2,
        le=4096,
        description="A query, path or fragment value with this many words is prose.",
    )
    text_chars: int = Field(
        100, ge=16, le=65536, description="A decoded value this long with spaces is prose."
    )
    non_ascii_chars: int = Field(
        48,
        ge=4,
        le=65536,
        description="A decoded value with this many non-ASCII characters is prose.",
    )
    entropy_chars: int = Field(
        48, ge=16, le=65536, description="Shortest query/fragment token checked for high entropy."
    )
    entropy_bits: float = Field(
        4.5, gt=0, le=8, description="Shannon entropy (bits/char) that marks a random token."
    )
    subdomain_label_chars: int = Field(
        24,
        ge=8,
        le=63,
        description="Subdomain labels this long are checked for randomness (labels "
        "from 20 characters, alone or joined, are decoded for encoded data).",
    )

    max_url_chars: int = Field(
        1024,
        ge=64,
        le=1_000_000,
        description="A link longer than this is treated as carrying data.",
    )

    @model_validator(mode="before")
    @classmethod
    def _numbers(cls, data: Any) -> Any:
        if isinstance(data, dict):
            _refuse_bools(cls, data, "thresholds.")
        return data


class ImageProxy(BaseModel):
    """A camo-style image proxy: images that carry no data are fetched through it.

    The rewritten source is `{url}?{url_param}=<quoted image URL>&{sig_param}=<HMAC-SHA256 hex>`,
    with `&{expires_param}=<unix time>` before the signature when `expires_in` is set. The
    signature covers the URL, the expiry and the context (`context_key`), so a signed URL
    does not verify after it expires nor for another context (`rendersafe.image_proxy`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str = Field(
        description="Absolute https URL of the proxy endpoint, without query, fragment or "
        "user info, written as a browser reads it."
    )
    key: SecretStr = Field(
        description=f"HMAC key shared with the proxy: {MIN_KEY_CHARS} to {MAX_KEY_CHARS} "
        f"characters, at least {MIN_KEY_DISTINCT} distinct, no surrounding whitespace."
    )
    url_param: str = Field("url", description="Query parameter holding the image URL.")
    sig_param: str = Field("sig", description="Query parameter holding the signature.")
    expires_param: str = Field("exp", description="Query parameter holding the expiry.")
    expires_in: int | None = Field(
        None,
        ge=60,
        le=MAX_EXPIRES_SECONDS,
        description="Seconds a proxied URL stays valid (rounded up to the minute); "
        "None: it never expires.",
    )
    context_key: str | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="The entry of the caller's context (`Sanitizer.run(context=...)`) whose "
        "value is signed into each proxied URL, e.g. 'user_id': your proxy verifies with the "
        "value it knows from the request, so a URL signed for one user does not load for another.",
    )

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _policy_error(exc, "image_proxy") from None

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if isinstance(data, dict):
            _refuse_bools(cls, data, "image_proxy.")
            if isinstance(data.get("url"), str):
                data = {**data, "url": _proxy_endpoint(data["url"])}
        return data

    @model_validator(mode="after")
    def _check(self) -> ImageProxy:
        _check_key(self.key.get_secret_value())
        names = ("url_param", "sig_param", "expires_param")
        for name in names:
            value = getattr(self, name)
            if not _PARAM.fullmatch(value):
                raise PolicyError(
                    f"image_proxy.{name}",
                    f"{_shown.repr(value)} must be 1 to 64 letters, digits or '_.~-' "
                    "(no '&', '#', '=', '%' or space, which change what the proxy reads)",
                )
        if len({getattr(self, name) for name in names}) < len(names):
            raise PolicyError(
                "image_proxy.sig_param",
                f"url_param, sig_param and expires_param must differ "
                f"(got {self.url_param!r}, {self.sig_param!r}, {self.expires_param!r})",
            )
        return self


def _proxy_endpoint(url: str, field: str = "image_proxy.url") -> str:
    """The endpoint URL as a browser reads it; a `PolicyError` for any URL that could
    point elsewhere than it reads (user info, backslashes, encoded or odd hosts)."""
    shown = _shown.repr(url)
    if len(url) > MAX_PROXY_URL_CHARS:
        raise PolicyError(field, f"{shown} is longer than {MAX_PROXY_URL_CHARS} characters")
    if not url.isascii() or "\\" in url or any(c <= " " or c == "\x7f" for c in url):
        raise PolicyError(
            field,
            f"{shown} holds whitespace, a control character, a backslash or non-ASCII text "
            "(give an IDN host in its xn-- form)",
        )
    if not url.startswith("https://") or "?" in url or "#" in url:
        raise PolicyError(
            field, f"{shown} must be an absolute https:// URL without query or fragment"
        )
    authority = url.removeprefix("https://").partition("/")[0]
    if "@" in authority:
        elsewhere = _shown.repr(authority.rpartition("@")[2])
        raise PolicyError(
            field, f"{shown} holds user info: a browser sends it to {elsewhere}; remove it"
        )
    if "%" in authority:
        raise PolicyError(
            field, f"{shown} has a percent-escape in its host; write the host as it is"
        )
    try:
        parsed = ada_url.URL(url)
    except ValueError:
        raise PolicyError(field, f"{shown} is not a URL a browser can read") from None
    host = str(parsed.hostname)
    if not host or not authority:
        raise PolicyError(field, f"{shown} names no host")
    _check_host_length(field, url, host)
    canonical = str(parsed.href)
    if canonical not in (url, url + "/"):
        raise PolicyError(
            field, f"{shown} reads as {_shown.repr(canonical)} in a browser; write it that way"
        )
    return canonical


def _check_key(key: str, field: str = "image_proxy.key") -> None:
    fix = "(e.g. `openssl rand -hex 32`)"
    if not key.strip():
        raise PolicyError(field, f"the key is only whitespace; use random characters {fix}")
    if not MIN_KEY_CHARS <= len(key) <= MAX_KEY_CHARS:
        raise PolicyError(field, f"use {MIN_KEY_CHARS} to {MAX_KEY_CHARS} random characters {fix}")
    if key != key.strip() or _CONTROL.search(key):
        raise PolicyError(
            field, "the key has surrounding whitespace or a control character (a stray newline?)"
        )
    counts = Counter(key)
    bits = sum(n / len(key) * math.log2(len(key) / n) for n in counts.values())
    if len(counts) < MIN_KEY_DISTINCT or bits < MIN_KEY_BITS_PER_CHAR:
        raise PolicyError(
            field,
            f"the key has too little entropy ({len(counts)} distinct characters, "
            f"{bits:.1f} bits a character; at least {MIN_KEY_DISTINCT} and "
            f"{MIN_KEY_BITS_PER_CHAR:.0f} needed): use random characters {fix}",
        )


def _check_host_length(field: str, raw: str, host: str) -> None:
    labels = host.strip("[]").split(".")
    if len(host) > MAX_HOST_CHARS or max(len(label) for label in labels) > MAX_LABEL_CHARS:
        raise PolicyError(
            field,
            f"{_shown.repr(raw)}: a host name has at most {MAX_HOST_CHARS} characters and "
            f"labels of at most {MAX_LABEL_CHARS}",
        )


class LinkInterstitial(BaseModel):
    """A click-through page on the operator's origin for links the budget takes out.

    Such a link then goes to `{url}?to=<the destination>&class=<its host class>
    &exp=<unix time>&sig=<HMAC-SHA256>`; the ASGI middleware (and `rendersafe proxy`)
    serve that page at `url`'s path: it shows the full destination and its host class,
    and lets the user go on deliberately. The signature covers all of it, so the page
    is no open redirect; the page never fetches the destination and sends no Referer.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str = Field(
        description="Absolute https URL of the page, on the chat's own origin, without query, "
        "fragment or user info."
    )
    key: SecretStr = Field(
        description=f"HMAC key the page verifies with: {MIN_KEY_CHARS} to {MAX_KEY_CHARS} "
        "random characters (not the image proxy's)."
    )
    expires_in: int = Field(
        7 * 24 * 3600,
        ge=60,
        le=MAX_EXPIRES_SECONDS,
        description="Seconds a click-through link stays valid (rounded up to the minute).",
    )

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _policy_error(exc, "link_interstitial") from None

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if isinstance(data, dict):
            _refuse_bools(cls, data, "link_interstitial.")
            if isinstance(data.get("url"), str):
                data = {**data, "url": _proxy_endpoint(data["url"], "link_interstitial.url")}
        return data

    @model_validator(mode="after")
    def _check(self) -> LinkInterstitial:
        _check_key(self.key.get_secret_value(), "link_interstitial.key")
        return self


RemovedImage = Literal["alt_and_marker", "alt", "marker", "nothing"]
DataLink = Literal["text", "text_and_marker", "nothing"]
RawHtml = Literal["sanitize", "escape", "strip"]
LinkHosts = Literal["any", "conversation"]
Links = Literal["balanced", "strict"]
# The roles a conversation's messages can have (`rendersafe.shapes`), and the ones
# whose words may be trusted as the user's.
_ROLES = frozenset({"user", "system", "developer", "tool", "model", "unknown"})
Mode = Literal["enforce", "monitor"]
# A canary shorter than this would match honest text by chance.
MIN_CANARY_CHARS = 8
# The fence languages a chat UI may render as live content, and what each becomes: an
# HTML document, an SVG image, CSS, a Mermaid diagram or TeX. `$$` is math in prose
# (`$$...$$`, `$...$`, `\(...\)`, `\[...\]`), read as TeX wherever it is not code.
RENDERED_FENCES: Mapping[str, str] = MappingProxyType(
    {
        "html": "html",
        "htm": "html",
        "xhtml": "html",
        "svg": "svg",
        "css": "css",
        "mermaid": "mermaid",
        "math": "tex",
        "latex": "tex",
        "tex": "tex",
        "katex": "tex",
        "$$": "tex",
    }
)


class Policy(BaseModel):
    """What a reply may make the client fetch or link to.

    The default policy lets no remote image through, keeps ordinary links, and
    unlinks any link that carries encoded data.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    allowed_image_hosts: tuple[str, ...] = Field(
        (),
        description="Hosts images may load from. A registrable domain admits its subdomains "
        "on its own site (not tenants below a public suffix under it). `host:port` allows a "
        "non-default port; a bare host, the default one.",
    )
    trusted_link_hosts: tuple[str, ...] = Field(
        (),
        description="Hosts whose links are kept even when they carry data. Matched like "
        "allowed_image_hosts, port included.",
    )
    blocked_hosts: tuple[str, ...] = Field(
        (),
        description="Hosts never linked to nor loaded from, on any port; a domain blocks "
        "everything under it. No port.",
    )
    allowed_link_schemes: tuple[str, ...] = Field(
        ("http", "https", "mailto"),
        description="Schemes a link may use (relative links pass). javascript, vbscript, "
        "file and data are refused.",
    )
    allow_relative_images: bool = Field(
        False, description="Keep images with a relative source (loaded from the chat's origin)."
    )
    allow_data_images: bool = Field(
        False, description="Keep data:image/png|gif|jpeg|webp images (never SVG)."
    )
    removed_image: RemovedImage = Field(
        "alt_and_marker",
        description="What replaces a removed image: its alt text, the marker, both, or nothing.",
    )
    data_link: DataLink = Field(
        "text", description="What replaces a link that carries data (autolinks: the marker)."
    )
    image_marker: str = Field(
        "[image removed]",
        min_length=1,
        max_length=80,
        pattern=_ONE_LINE,
        description="Put where an image was; inserted backslash-escaped, inert in every renderer.",
    )
    link_marker: str = Field(
        "[link removed]",
        min_length=1,
        max_length=80,
        pattern=_ONE_LINE,
        description="Put where an autolink or bare URL was, backslash-escaped.",
    )
    raw_html: RawHtml = Field(
        "sanitize",
        description="sanitize: keep safe tags; escape: show all tags as text; strip: drop tags.",
    )
    image_proxy: ImageProxy | None = Field(
        None, description="Rewrite images that carry no data through this proxy."
    )
    max_images: int | None = Field(
        16,
        ge=0,
        le=100_000,
        description="Images kept per reply (Markdown and HTML, in order); later ones are "
        "removed. None: no cap.",
    )
    max_hold_chars: int = Field(
        8192,
        ge=256,
        le=1_000_000,
        description="A construct or block open longer than this is cut and its opener escaped; "
        "bounds what a stream holds back.",
    )
    max_input_chars: int = Field(
        500_000,
        gt=0,
        le=100_000_000,
        description="Longer replies raise InputTooLargeError from run and sanitize (a stream is "
        "bounded by max_hold_chars instead).",
    )
    audit_required: bool = Field(
        False,
        description="The middleware answers 503 while the audit log cannot be written, "
        "instead of serving replies it cannot record.",
    )
    canaries: tuple[str, ...] = Field(
        (),
        description="Strings planted in the system prompt (see rendersafe.mint_canary); a URL "
        "holding one, in any encoding, is removed whatever its host.",
    )
    link_hosts: LinkHosts = Field(
        "any",
        description="any: a link may go to any host it carries no data to; conversation: a "
        "link to a host neither trusted, allowed nor seen in the conversation becomes text.",
    )
    max_beacon_images: int = Field(
        4,
        ge=1,
        le=10_000,
        description="Images (and links) on one host whose URLs differ only in a short token "
        "kept per reply; the rest are one data channel and removed (reason beacon).",
    )
    links: Links = Field(
        "balanced",
        description="With the conversation, who can read a request decides how much the "
        "model may choose in it (`judging/budget.py`). balanced: bounded budgets of bits "
        "per reply and per conversation for hosts anyone but the user and a sealed "
        "service can read; strict: nothing composed reaches such a host, and copies only "
        "a few choices a conversation.",
    )
    link_budget_bits: float = Field(
        1024.0,
        ge=0,
        le=1_000_000,
        description="Bits of the model's own choosing (`judging/bits.py`: words, not "
        "patterns) one observer that no text of the conversation names, in any writing, "
        "may be sent in links, per reply, in balanced mode: links written from memory. "
        "Beside text anyone could write (a tool's answer, a fetched page, another agent), "
        "only a well-known site is read so (`unnamed_host_budget_bits`).",
    )
    named_host_budget_bits: float = Field(
        64.0,
        ge=0,
        le=1_000_000,
        description="Bits of the model's own choosing the hosts a message of a trusted role "
        "names (the user's own services, the operator's internal tools) may be sent in "
        "links, all together, per reply, in balanced mode; what they already have (the "
        "words beside their name, their URLs the conversation gave) costs a choice among "
        "those words.",
    )
    tool_host_budget_bits: float = Field(
        16.0,
        ge=0,
        le=1_000_000,
        description="The same, for hosts only a tool's result, a retrieved document or "
        "another agent names: an instruction there may have chosen them.",
    )
    unnamed_host_budget_bits: float = Field(
        16.0,
        ge=0,
        le=1_000_000,
        description="The same, for hosts no message visibly names in a conversation holding "
        "text anyone could write (a tool's answer, a fetched page, another agent), which "
        "may have spelt them in a way no reader reads; a well-known site "
        "(`urls/data/known_hosts.txt`, a public body's suffix) or a repository owner on a "
        "code host is read as written from memory instead (`link_budget_bits`). Raise it "
        "to `link_budget_bits` to read every such host so.",
    )
    image_budget_bits: float = Field(
        8.0,
        ge=0,
        le=1_000_000,
        description="Bits a conversation's images may say by which copied images they "
        "show (log2 of the ways to pick them); a composed image URL gets none. Also what "
        "copies in links to an observable host (and any host in strict mode) may say.",
    )
    conversation_budget_factor: float = Field(
        1.5,
        ge=1,
        le=1000,
        description="A conversation's replies together may send named hosts, and choose "
        "among copies in links, this many times a reply's budget (the model's earlier "
        "turns, as the client sends them back, are counted with each reply).",
    )
    copy_choice_bits: float = Field(
        12.0,
        ge=0,
        le=1_000_000,
        description="Bits a reply's links may say by which copied URLs they pick (log2 of "
        "the ways to pick them, per observer and across observers): a few citations, not "
        "an alphabet of pre-built links.",
    )
    link_interstitial: LinkInterstitial | None = Field(
        None,
        description="A link the budget takes out becomes a link to this click-through page "
        "(see LinkInterstitial); without one it becomes its text and its URL, shown inert "
        "as code.",
    )
    trusted_roles: tuple[str, ...] = Field(
        ("user", "system", "developer"),
        description="The roles whose words are the user's (or the operator's): a host one "
        "of them named first is the user's own service. Leave `user` out where other "
        "agents' messages arrive as user messages.",
    )
    rendered_fences: tuple[str, ...] = Field(
        (),
        description="Fence languages the chat UI renders as live content (an HTML artifact, "
        "an inline SVG, a Mermaid diagram, math), each judged as what it becomes: html, htm, "
        "xhtml, svg, css, mermaid, math, latex, tex, katex, and `$$` for math in prose. "
        "Other fences are code and stay as they are.",
    )
    mode: Mode = Field(
        "enforce",
        description="enforce: replies are sanitised; monitor (shadow mode): replies pass "
        "unchanged and every finding is recorded as it would have been, enforced false.",
    )
    thresholds: Thresholds = Thresholds()

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _policy_error(exc) from None

    @model_validator(mode="before")
    @classmethod
    def _normalise(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        _refuse_bools(cls, data)
        for field in ("allowed_image_hosts", "trusted_link_hosts", "blocked_hosts"):
            if field in data:
                data[field] = _host_entries(field, data[field])
        if "allowed_link_schemes" in data:
            data["allowed_link_schemes"] = _schemes(data["allowed_link_schemes"])
        if "canaries" in data:
            data["canaries"] = _canaries(data["canaries"])
        if "trusted_roles" in data:
            data["trusted_roles"] = _roles(data["trusted_roles"])
        if "rendered_fences" in data:
            data["rendered_fences"] = _rendered_fences(data["rendered_fences"])
        return data

    @model_validator(mode="after")
    def _contradictions(self) -> Policy:
        blocked = set(self.blocked_hosts)
        for field in ("allowed_image_hosts", "trusted_link_hosts"):
            both = blocked.intersection(split_port(e)[0] for e in getattr(self, field))
            if both:
                raise PolicyError(
                    field, f"{sorted(both)} also in blocked_hosts; remove it from one of the lists"
                )
        return self


def _policy_error(exc: ValidationError, prefix: str = "") -> PolicyError:
    first = exc.errors()[0]
    field = ".".join((prefix, *(str(p) for p in first["loc"]))).strip(".") or "policy"
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, PolicyError):
        return cause
    message = first["msg"]
    if first["type"] == "string_pattern_mismatch":
        message = "must be one line of text, without control characters"
    if field.endswith(".key"):  # a secret, even a mistyped one, stays out of the message
        return PolicyError(field, f"{message} (got a {type(first.get('input')).__name__})")
    # reprlib: the input may be huge or nested thousands deep.
    return PolicyError(field, f"{message} (got {_shown.repr(first.get('input'))})")


def _as_list(field: str, value: Any, limit: int) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple | set | frozenset):
        raise PolicyError(field, f"expected a list of strings, got {_shown.repr(value)}")
    if len(value) > limit:
        raise PolicyError(field, f"{len(value)} entries; at most {limit} are accepted")
    for item in value:
        if not isinstance(item, str):
            raise PolicyError(field, f"expected a list of strings, got {_shown.repr(item)} in it")
    return list(value)


def _roles(value: Any) -> tuple[str, ...]:
    roles = tuple(dict.fromkeys(r.strip().lower() for r in _as_list("trusted_roles", value, 8)))
    odd = [r for r in roles if r not in _ROLES]
    if odd:
        raise PolicyError(
            "trusted_roles", f"{_shown.repr(odd)}: roles are {', '.join(sorted(_ROLES))}"
        )
    if "model" in roles or "unknown" in roles:
        raise PolicyError(
            "trusted_roles", "the model's own words (and words of no known author) prove nothing"
        )
    return roles


def _rendered_fences(value: Any) -> tuple[str, ...]:
    raw = _as_list("rendered_fences", value, 64)
    names = tuple(dict.fromkeys(name.strip().lower() for name in raw))
    odd = [name for name in names if name not in RENDERED_FENCES]
    if odd:
        raise PolicyError(
            "rendered_fences",
            f"{_shown.repr(odd)}: the languages rendersafe can judge as rendered are "
            f"{', '.join(RENDERED_FENCES)} (a fence in any other language stays code)",
        )
    return names


def _canaries(value: Any) -> tuple[str, ...]:
    raw = _as_list("canaries", value, MAX_CANARIES)
    canaries = tuple(dict.fromkeys(c.strip() for c in raw))
    short = [c for c in canaries if len(c) < MIN_CANARY_CHARS]
    if short:
        raise PolicyError(
            "canaries",
            f"{_shown.repr(short)}: a canary needs at least {MIN_CANARY_CHARS} characters to "
            "be rare (rendersafe.mint_canary() makes one)",
        )
    odd = [c for c in canaries if len(c) > MAX_CANARY_CHARS or _CONTROL.search(c)]
    if odd:
        raise PolicyError(
            "canaries",
            f"{_shown.repr(odd)}: a canary is one line of at most {MAX_CANARY_CHARS} characters",
        )
    return canaries


def _host_entries(field: str, value: Any) -> tuple[str, ...]:
    # A dict keeps the first of each entry in order: linear, where a list search is not.
    return tuple(
        dict.fromkeys(_host_entry(field, raw) for raw in _as_list(field, value, MAX_HOSTS))
    )


def _host_entry(field: str, raw: str) -> str:
    entry = raw.strip()
    if len(entry) > 4 * MAX_HOST_CHARS:  # before the parser spends time on it
        _check_host_length(field, raw, entry)
    host_part, port = _entry_port(field, raw, entry)
    if not host_part or _NOT_A_HOST.search(host_part.strip("[]")):
        raise PolicyError(
            field,
            f"{_shown.repr(raw)} is not a host name; give only the host, e.g. 'cdn.example.com' "
            "(no scheme, path or wildcard; a registrable domain admits its subdomains; "
            "'host:port' names a non-default port)",
        )
    host = normalise_host(host_part)
    if host is None:
        raise PolicyError(field, f"{_shown.repr(raw)} is not a valid host name")
    _check_host_length(field, raw, host)
    if field != "blocked_hosts":
        _refuse_shared(field, raw, host)
    return f"{host}:{port}" if port else host


def _entry_port(field: str, raw: str, entry: str) -> tuple[str, str]:
    """Split `host:port` and validate the port; "" when the entry names none, or a
    default port (80, 443), which a bare entry already matches."""
    host, port = split_port(entry)
    if not port:
        return entry, ""
    if field == "blocked_hosts":
        raise PolicyError(
            field, f"{raw!r}: a blocked host is blocked on every port; give the host alone"
        )
    number = int(port)
    if not 0 < number < 65536:
        raise PolicyError(field, f"{raw!r}: the port must be a number from 1 to 65535")
    return host, "" if number in _DEFAULT_PORTS else str(number)


def _refuse_shared(field: str, raw: str, host: str) -> None:
    if is_ip_literal(host):
        return
    _sub, domain, suffix = split_host(host)
    if suffix and not domain:
        raise PolicyError(
            field,
            f"{raw!r} is a public suffix: it would admit every site under it; "
            "list the exact hosts you serve from",
        )
    shared = sorted(
        h for h in SHARED_TENANT_HOSTS if h == host or (domain == host and h.endswith("." + host))
    )
    if shared:
        raise PolicyError(
            field,
            f"{raw!r} admits {', '.join(shared)}, where anyone can publish content; "
            "list the exact hosts you own instead (or use image_proxy for images)",
        )


def _schemes(value: Any) -> tuple[str, ...]:
    field = "allowed_link_schemes"
    schemes: list[str] = []
    for raw in _as_list(field, value, MAX_SCHEMES):
        scheme = raw.strip().lower().rstrip(":")
        if len(scheme) > 32 or not _SCHEME.fullmatch(scheme):
            raise PolicyError(
                field, f"{_shown.repr(raw)} is not a URL scheme (expected e.g. 'https')"
            )
        if scheme in FORBIDDEN_SCHEMES:
            raise PolicyError(
                field, f"{scheme!r} can run code or read local files; it is never allowed"
            )
        schemes.append(scheme)
    return tuple(dict.fromkeys(schemes))
