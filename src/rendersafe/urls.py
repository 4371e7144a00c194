"""Judge one URL: normalise a copy the way a browser would, then keep, proxy or drop it.

    judge = UrlJudge(policy)
    verdict = judge.judge("https://evil.example/p.png?d=aGVsbG8...", Role.IMAGE)
    verdict.action, verdict.reasons   # "drop", (image_host_not_allowed, encoded_base64)

Parsing follows the WHATWG URL standard (ada-url): `\\` is `/` in http(s), tabs and
newlines vanish, `//host` is remote, hosts are IDNA-mapped and IPs canonical.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal
from urllib.parse import parse_qsl

import ada_url

from .encoded import UrlParts, data_reasons, nested_urls
from .findings import Reason
from .hosts import HostSet, is_ip_literal, split_host
from .policy import Policy
from .proxy import verify_signature

__all__ = ["ParsedUrl", "Role", "UrlJudge", "Verdict", "parse_url", "redact", "redact_host"]

# Zero-width, bidi controls, soft hyphen and Unicode Tags: invisible in a rendered
# URL, so they can hide where a link goes or smuggle data.
INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)
# Raster types only: an SVG can carry script and references of its own.
DATA_IMAGE = re.compile(r"data:image/(?:png|gif|jpe?g|webp)[;,]", re.IGNORECASE)
_BASE = "https://rendersafe.invalid/"
_BASE_HOST = "rendersafe.invalid"
_IMAGE_SCHEMES = frozenset({"http", "https"})
_MAX_NESTING = 3


class Role(StrEnum):
    """How the client would use the URL: fetch it now, or follow it on a click."""

    IMAGE = "image"
    LINK = "link"


@dataclass(frozen=True, slots=True)
class ParsedUrl:
    """A URL as a browser would resolve it; `href` is None when it cannot be parsed."""

    raw: str
    href: str | None
    scheme: str
    host: str
    relative: bool
    invisible: bool
    parts: UrlParts | None


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision about one URL and why. `keep` verdicts have no reasons."""

    action: Literal["keep", "proxy", "drop"]
    reasons: tuple[Reason, ...]
    url: ParsedUrl

    @property
    def host(self) -> str | None:
        """The normalised host, or None for relative and hostless URLs."""
        return self.url.host or None


def parse_url(raw: str, *, decode_entities: bool = False) -> ParsedUrl:
    """Parse `raw` as a browser would, after removing invisible characters.

    With `decode_entities`, HTML character references are decoded first (for URLs
    read from raw source, where the browser decodes them in an attribute value).
    """
    text = html.unescape(raw) if decode_entities and "&" in raw else raw
    cleaned = INVISIBLE.sub("", text)
    invisible = cleaned != text
    href = _whatwg_href(cleaned)
    relative = href is None
    if relative:
        href = _whatwg_href(cleaned, base=_BASE)
    if href is None:
        return ParsedUrl(raw, None, "", "", False, invisible, None)
    parts = split_href(href)
    relative = relative and parts.host == _BASE_HOST
    host = "" if relative else parts.host.rstrip(".")
    scheme = href.partition(":")[0].lower()
    return ParsedUrl(raw, href, scheme, host, relative, invisible, parts)


def _whatwg_href(text: str, base: str | None = None) -> str | None:
    try:
        url = ada_url.URL(text, base=base) if base else ada_url.URL(text)
    except (ValueError, UnicodeError):
        return None
    return str(url.href)


def split_href(href: str) -> UrlParts:
    """Split a WHATWG-serialised href into its parts.

    A serialised href is already normalised (no backslashes, hosts lower-cased,
    reserved characters percent-encoded), so a plain split is exact. Reading one
    attribute from ada costs as much as parsing, so only `href` is read.
    """
    rest, _, fragment = href.partition("#")
    rest, _, query = rest.partition("?")
    _scheme, _, rest = rest.partition(":")
    username = password = host = ""
    path = rest
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        path = slash + path
        userinfo, at, hostport = authority.rpartition("@")
        if at:
            username, _, password = userinfo.partition(":")
        if hostport.startswith("["):  # IPv6 literal, maybe followed by a port
            host = hostport[: hostport.find("]") + 1]
        else:
            host = hostport.partition(":")[0]
    return UrlParts(
        href=href,
        username=username,
        password=password,
        host=host,
        path=path,
        query=f"?{query}" if query else "",
        fragment=f"#{fragment}" if fragment else "",
    )


class UrlJudge:
    """Decides about URLs under one compiled policy. Build once, reuse; it caches."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._images = HostSet(policy.allowed_image_hosts)
        self._trusted = HostSet(policy.trusted_link_hosts)
        self._blocked = HostSet(policy.blocked_hosts)
        self._schemes = frozenset(policy.allowed_link_schemes)
        self._cache: dict[tuple[str, Role, bool], Verdict] = {}

    def judge(self, raw: str, role: Role, *, decode_entities: bool = False) -> Verdict:
        """Judge `raw` used as `role`. Never fetches anything."""
        # Entities matter only where there is an `&`: share the entry otherwise.
        key = (raw, role, decode_entities and "&" in raw)
        verdict = self._cache.get(key)
        if verdict is None:
            if len(self._cache) > 4096:
                self._cache.clear()
            url = parse_url(raw, decode_entities=decode_entities)
            verdict = self._judge_image(url) if role is Role.IMAGE else self._judge_link(url)
            self._cache[key] = verdict
        return verdict

    def _judge_image(self, url: ParsedUrl) -> Verdict:
        if not url.raw.strip():
            return _keep(url)  # an empty src fetches nothing
        if url.href is None:
            return _drop(url, Reason.UNPARSEABLE_URL)
        if url.scheme == "data":
            allowed = self.policy.allow_data_images and DATA_IMAGE.match(url.href)
            return _keep(url) if allowed else _drop(url, Reason.DATA_IMAGE)
        if url.relative:
            reasons = self._data(url)
            if not self.policy.allow_relative_images:
                reasons.add(Reason.RELATIVE_IMAGE)
            return _verdict(url, reasons)
        if url.scheme not in _IMAGE_SCHEMES:
            return _drop(url, Reason.SCHEME_NOT_ALLOWED)
        return self._judge_remote_image(url)

    def _judge_remote_image(self, url: ParsedUrl) -> Verdict:
        if self._signed_by_proxy(url):
            return _keep(url)
        reasons = self._data(url) | self._nested_for_image(url)
        if url.host in self._blocked:
            reasons.add(Reason.BLOCKED_HOST)
        elif url.host not in self._images:
            if not reasons and self.policy.image_proxy is not None:
                return Verdict("proxy", (), url)
            reasons.add(Reason.IMAGE_HOST_NOT_ALLOWED)
        return _verdict(url, reasons)

    def _judge_link(self, url: ParsedUrl, depth: int = 0) -> Verdict:
        if url.href is None:
            return _drop(url, Reason.UNPARSEABLE_URL)
        if not url.relative and url.scheme not in self._schemes:
            return _drop(url, Reason.SCHEME_NOT_ALLOWED)
        if url.host and url.host in self._blocked:
            return _drop(url, Reason.BLOCKED_HOST)
        if url.host and url.host in self._trusted:
            return _keep(url)
        reasons = self._data(url)
        if depth < _MAX_NESTING and url.parts is not None:
            for inner in nested_urls(url.parts):
                nested = self._judge_link(parse_url(inner), depth + 1)
                if nested.action == "drop" and nested.url.href is not None:
                    reasons |= {Reason.NESTED_URL, *nested.reasons}
        return _verdict(url, reasons)

    def _signed_by_proxy(self, url: ParsedUrl) -> bool:
        """True for a URL rendersafe itself rewrote through the image proxy."""
        proxy = self.policy.image_proxy
        if proxy is None or url.href is None or not url.href.startswith(proxy.url + "?"):
            return False
        params = dict(parse_qsl(url.href.partition("?")[2]))
        target, signature = params.get(proxy.url_param), params.get(proxy.sig_param)
        return bool(target and signature and verify_signature(proxy, target, signature))

    def _data(self, url: ParsedUrl) -> set[Reason]:
        reasons = data_reasons(url.parts, self.policy.thresholds) if url.parts else set()
        if url.invisible:
            reasons.add(Reason.INVISIBLE_CHARACTERS)
        return reasons

    def _nested_for_image(self, url: ParsedUrl) -> set[Reason]:
        if url.parts is not None and next(nested_urls(url.parts), None) is not None:
            return {Reason.NESTED_URL}
        return set()


def _keep(url: ParsedUrl) -> Verdict:
    return Verdict("keep", (), url)


def _drop(url: ParsedUrl, reason: Reason) -> Verdict:
    return Verdict("drop", (reason,), url)


def _verdict(url: ParsedUrl, reasons: set[Reason]) -> Verdict:
    if not reasons:
        return _keep(url)
    return Verdict("drop", tuple(sorted(reasons)), url)


def redact(url: ParsedUrl) -> str:
    """A loggable shape of the URL: scheme and host kept, every value replaced by its length.

    `https://evil.example/p.png?d=aGVsbG8` becomes `https://evil.example/{5}?d={7}`.
    """
    parts = url.parts
    if url.href is None or parts is None:
        return f"<unparseable:{len(url.raw)}>"
    if url.scheme not in ("http", "https") or url.relative:
        prefix = "" if url.relative else f"{url.scheme}:"
        return f"{prefix}{{{len(url.href) - len(prefix)}}}"
    user = "{" + str(len(parts.username) + len(parts.password)) + "}@" if parts.username else ""
    host = redact_host(url.host)
    path = "/".join(_mask(seg, 0) for seg in parts.path.split("/"))
    query = _redact_pairs(parts.query, "?")
    fragment = _redact_pairs(parts.fragment, "#")
    return f"{url.scheme}://{user}{host}{path}{query}{fragment}"


def redact_host(host: str) -> str:
    """The host with each subdomain label longer than 8 characters replaced by its
    length (`{15}.attacker.example`): a subdomain can carry the data itself."""
    if not host or is_ip_literal(host):
        return host
    subdomain, domain, _suffix = split_host(host)
    if not domain:  # under no known suffix: keep the last two labels
        labels = host.split(".")
        subdomain, domain = ".".join(labels[:-2]), ".".join(labels[-2:])
    masked = [_mask(label, 8) for label in subdomain.split(".")] if subdomain else []
    return ".".join([*masked, domain])


def _mask(value: str, keep_up_to: int) -> str:
    if not value or len(value) <= keep_up_to:
        return value
    return "{" + str(len(value)) + "}"


def _redact_pairs(part: str, lead: str) -> str:
    body = part.removeprefix(lead)
    if not body:
        return ""
    items = []
    for item in re.split(r"([&;])", body):
        if item in ("&", ";"):
            items.append(item)
            continue
        name, sep, value = item.partition("=")
        items.append(f"{_mask(name, 24)}{sep}{_mask(value, 0)}" if sep else _mask(name, 0))
    return lead + "".join(items)
