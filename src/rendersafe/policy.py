"""`Policy`: what may be rendered, validated once when it is built.

    >>> Policy(allowed_image_hosts=["cdn.example.com"], trusted_link_hosts=["docs.example.com"])

A policy is a frozen pydantic model (`extra="forbid"`). Every unsafe or
contradictory setting raises `PolicyError` naming the field and the fix. Load one
from TOML or `RENDERSAFE_*` variables with `rendersafe.config.load_policy`.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator

from .errors import PolicyError
from .urls.hosts import (
    SHARED_TENANT_HOSTS,
    is_ip_literal,
    normalise_host,
    split_host,
    split_port,
)

__all__ = ["ImageProxy", "Policy", "Thresholds"]

# Schemes that run code or read local files: no policy may allow them for links.
FORBIDDEN_SCHEMES = frozenset({"javascript", "vbscript", "file", "data", "blob", "filesystem"})

_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*")
_NOT_A_HOST = re.compile(r"[/:@*?#\s\\]")
# A URL's default port is not serialised (WHATWG), so a bare entry already names it.
_DEFAULT_PORTS = frozenset({80, 443})


class Thresholds(BaseModel):
    """When does a URL *carry data*? Tuned on real documentation links (see README)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_encoded_chars: int = Field(
        20,
        ge=8,
        description="Shortest base64/hex/base32 run that is decoded and inspected "
        "(runs from 16 characters are decoded when this is higher).",
    )
    min_decoded_bytes: int = Field(
        12, ge=4, description="Decoded runs shorter than this are ignored."
    )
    printable_ratio: float = Field(
        0.9, gt=0, le=1, description="Share of printable bytes that marks a decoded run as text."
    )
    percent_escapes: int = Field(
        6, ge=1, description="Percent-escapes of plain ASCII letters/digits that mark smuggling."
    )
    text_words: int = Field(
        10, ge=2, description="A query, path or fragment value with this many words is prose."
    )
    text_chars: int = Field(
        100, ge=16, description="A decoded value this long with spaces is prose."
    )
    non_ascii_chars: int = Field(
        48, ge=4, description="A decoded value with this many non-ASCII characters is prose."
    )
    entropy_chars: int = Field(
        48, ge=16, description="Shortest query/fragment token checked for high entropy."
    )
    entropy_bits: float = Field(
        4.5, gt=0, le=8, description="Shannon entropy (bits/char) that marks a random token."
    )
    subdomain_label_chars: int = Field(
        24,
        ge=8,
        description="Subdomain labels this long are checked for randomness (labels "
        "from 20 characters, alone or joined, are decoded for encoded data).",
    )
    max_url_chars: int = Field(
        1024, ge=64, description="A link longer than this is treated as carrying data."
    )


class ImageProxy(BaseModel):
    """A camo-style image proxy: images that carry no data are fetched through it.

    The rewritten source is `{url}?{url_param}=<quoted image URL>&{sig_param}=<HMAC-SHA256 hex>`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str = Field(description="Absolute https URL of the proxy endpoint, without a query.")
    key: SecretStr = Field(description="HMAC key shared with the proxy, at least 32 characters.")
    url_param: str = "url"
    sig_param: str = "sig"

    @model_validator(mode="after")
    def _check(self) -> ImageProxy:
        if not self.url.startswith("https://") or "?" in self.url or "#" in self.url:
            raise PolicyError(
                "image_proxy.url",
                f"{self.url!r} must be an absolute https:// URL without query or fragment",
            )
        if len(self.key.get_secret_value()) < 32:
            raise PolicyError(
                "image_proxy.key", "use at least 32 random characters (e.g. `openssl rand -hex 32`)"
            )
        return self


RemovedImage = Literal["alt_and_marker", "alt", "marker", "nothing"]
DataLink = Literal["text", "text_and_marker", "nothing"]
RawHtml = Literal["sanitize", "escape", "strip"]
LinkHosts = Literal["any", "conversation"]
# A canary shorter than this would match honest text by chance.
MIN_CANARY_CHARS = 8


class Policy(BaseModel):
    """What a reply may make the client fetch or link to.

    The default policy lets no remote image through, keeps ordinary links, and
    unlinks any link that carries encoded data.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    allowed_image_hosts: tuple[str, ...] = Field(
        (), description="Hosts images may load from. A registrable domain admits its subdomains."
    )
    trusted_link_hosts: tuple[str, ...] = Field(
        (), description="Hosts whose links are kept even when they carry data."
    )
    blocked_hosts: tuple[str, ...] = Field((), description="Hosts never linked to nor loaded from.")
    allowed_link_schemes: tuple[str, ...] = Field(
        ("http", "https", "mailto"), description="Schemes a link may use (relative links pass)."
    )
    allow_relative_images: bool = Field(
        False, description="Keep images with a relative source (loaded from the chat's origin)."
    )
    allow_data_images: bool = Field(
        False, description="Keep data:image/png|gif|jpeg|webp images (never SVG)."
    )
    removed_image: RemovedImage = Field(
        "alt_and_marker", description="What replaces a removed image."
    )
    data_link: DataLink = Field(
        "text", description="What replaces a link that carries data (autolinks: the marker)."
    )
    image_marker: str = Field("[image removed]", min_length=1, max_length=80)
    link_marker: str = Field("[link removed]", min_length=1, max_length=80)
    raw_html: RawHtml = Field(
        "sanitize",
        description="sanitize: keep safe tags; escape: show all tags as text; strip: drop tags.",
    )
    image_proxy: ImageProxy | None = Field(
        None, description="Rewrite images that carry no data through this proxy."
    )
    max_images: int | None = Field(
        16, ge=0, description="Images kept per reply; later ones are removed. None: no cap."
    )
    max_hold_chars: int = Field(
        8192,
        ge=256,
        description="A construct or block open longer than this is cut and its opener escaped; "
        "bounds what a stream holds back.",
    )
    max_input_chars: int = Field(
        500_000, gt=0, description="Longer replies raise InputTooLargeError."
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
        description="Images (and links) on one host whose URLs differ only in a short token "
        "kept per reply; the rest are one data channel and removed (reason beacon).",
    )
    thresholds: Thresholds = Thresholds()

    def __init__(self, **data: Any) -> None:
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
        for field in ("allowed_image_hosts", "trusted_link_hosts", "blocked_hosts"):
            if field in data:
                data[field] = _host_entries(field, data[field])
        if "allowed_link_schemes" in data:
            data["allowed_link_schemes"] = _schemes(data["allowed_link_schemes"])
        if "canaries" in data:
            data["canaries"] = _canaries(data["canaries"])
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


def _policy_error(exc: ValidationError) -> PolicyError:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "policy"
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, PolicyError):
        return cause
    return PolicyError(field, f"{first['msg']} (got {first.get('input')!r})")


def _as_list(field: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple | set | frozenset):
        raise PolicyError(field, f"expected a list of strings, got {value!r}")
    if not all(isinstance(v, str) for v in value):
        raise PolicyError(field, f"expected a list of strings, got {value!r}")
    return list(value)


def _canaries(value: Any) -> tuple[str, ...]:
    canaries = tuple(dict.fromkeys(c.strip() for c in _as_list("canaries", value)))
    short = [c for c in canaries if len(c) < MIN_CANARY_CHARS]
    if short:
        raise PolicyError(
            "canaries",
            f"{short!r}: a canary needs at least {MIN_CANARY_CHARS} characters to be rare "
            "(rendersafe.mint_canary() makes one)",
        )
    return canaries


def _host_entries(field: str, value: Any) -> tuple[str, ...]:
    hosts: list[str] = []
    for raw in _as_list(field, value):
        host = _host_entry(field, raw)
        if host not in hosts:
            hosts.append(host)
    return tuple(hosts)


def _host_entry(field: str, raw: str) -> str:
    entry = raw.strip()
    host_part, port = _entry_port(field, raw, entry)
    if not host_part or _NOT_A_HOST.search(host_part.strip("[]")):
        raise PolicyError(
            field,
            f"{raw!r} is not a host name; give only the host, e.g. 'cdn.example.com' "
            "(no scheme, path or wildcard; a registrable domain admits its subdomains; "
            "'host:port' names a non-default port)",
        )
    host = normalise_host(host_part)
    if host is None:
        raise PolicyError(field, f"{raw!r} is not a valid host name")
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
    for raw in _as_list(field, value):
        scheme = raw.strip().lower().rstrip(":")
        if not _SCHEME.fullmatch(scheme):
            raise PolicyError(field, f"{raw!r} is not a URL scheme (expected e.g. 'https')")
        if scheme in FORBIDDEN_SCHEMES:
            raise PolicyError(
                field, f"{scheme!r} can run code or read local files; it is never allowed"
            )
        schemes.append(scheme)
    return tuple(dict.fromkeys(schemes))
