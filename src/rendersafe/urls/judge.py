"""Judge one URL: keep, proxy or drop it, and why.

    judge = UrlJudge(policy)
    verdict = judge.judge("https://evil.example/p.png?d=aGVsbG8...", Role.IMAGE)
    verdict.action, verdict.reasons   # "drop", (image_host_not_allowed, encoded_base64)

The URL is parsed as the browser will (`parse`), then judged by its scheme, its host
and port against the policy's lists, and the data its parts carry (`detect`). Where
markdown-it's serialisation reaches another host than the raw string does, neither
reading is allowed for images nor trusted for links, and either can be blocked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from ..findings import Reason
from ..image_proxy import proxy_url, verified_target
from .detect import data_reasons, nested_urls
from .hosts import HostSet
from .interstitial import interstitial_url, is_interstitial
from .observers import private_name
from .parse import ParsedUrl, parse_url

if TYPE_CHECKING:
    from ..policy import Policy

__all__ = ["DATA_IMAGE", "Role", "UrlJudge", "Verdict"]

# Raster types only: an SVG can carry script and references of its own.
DATA_IMAGE = re.compile(r"data:image/(?:png|gif|jpe?g|webp)[;,]", re.IGNORECASE)
_IMAGE_SCHEMES = frozenset({"http", "https"})
# A character no URL parser takes where a host or scheme is (a C0 control, a space,
# DEL, a forbidden host code point, a `%` not escaping two hex digits): a URL that
# holds one may not parse, but the text before it does.
_BREAKS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f <>\[\]^|%{}\"`]")
_HARMLESS = frozenset({Reason.UNPARSEABLE_URL, Reason.RELATIVE_IMAGE})
_MAX_NESTING = 3


class Role(StrEnum):
    """How the client would use the URL: fetch it now, or follow it on a click."""

    IMAGE = "image"
    LINK = "link"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The decision about one URL and why. `keep` verdicts have no reasons."""

    action: Literal["keep", "proxy", "drop"]
    reasons: tuple[Reason, ...]
    url: ParsedUrl
    # Where the data came from, for the finding: "from message 2 (user)", never the data.
    source: str | None = None
    # Who can read the URL's host (`observers.HostClass`), where the verdict says so.
    host_class: str | None = None

    @property
    def host(self) -> str | None:
        """The normalised host, or None for relative and hostless URLs."""
        return self.url.host or None


class UrlJudge:
    """Decides about URLs under one compiled policy. Build once, reuse; it caches."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._images = HostSet(policy.allowed_image_hosts)
        self._trusted = HostSet(policy.trusted_link_hosts)
        self._blocked = HostSet(policy.blocked_hosts, cross_suffixes=True)
        self._schemes = frozenset(policy.allowed_link_schemes)
        self._cache: dict[tuple[str, Role, bool, bool], Verdict] = {}
        proxy = policy.image_proxy
        # A signature with an expiry or a context holds for one reply, not for this cache.
        self.signs_per_reply = proxy is not None and (
            proxy.expires_in is not None or proxy.context_key is not None
        )

    def judge(
        self, raw: str, role: Role, *, decode_entities: bool = False, copied: bool = False
    ) -> Verdict:
        """Judge `raw` used as `role`. Never fetches anything.

        `copied`: the URL is verbatim in the conversation, so it was copied, not built;
        the reply-only data heuristics are not held against it (scheme, host and image
        rules still are)."""
        # Entities matter only where there is an `&`: share the entry otherwise.
        key = (raw, role, decode_entities and "&" in raw, copied)
        verdict = self._cache.get(key)
        if verdict is None:
            if len(self._cache) > 4096:
                self._cache.clear()
            url = parse_url(raw, decode_entities=decode_entities)
            verdict = self.judge_parsed(url, role, copied=copied)
            self._cache[key] = verdict
        return verdict

    def judge_parsed(self, url: ParsedUrl, role: Role, *, copied: bool = False) -> Verdict:
        """Judge a URL already parsed (not cached)."""
        if role is Role.IMAGE:
            return self._judge_image(url, copied)
        return self._judge_link(url, copied)

    def _judge_image(self, url: ParsedUrl, copied: bool) -> Verdict:
        if not url.raw.strip():
            return _keep(url)  # an empty src fetches nothing
        if url.href is None:
            return self._unparseable(url, Role.IMAGE)
        if url.scheme == "data":
            allowed = self.policy.allow_data_images and DATA_IMAGE.match(url.href)
            return _keep(url) if allowed else _drop(url, Reason.DATA_IMAGE)
        if url.relative:
            return self._judge_relative_image(url, copied)
        if url.scheme not in _IMAGE_SCHEMES:
            return _drop(url, Reason.SCHEME_NOT_ALLOWED)
        return self._judge_remote_image(url, copied)

    def _judge_relative_image(self, url: ParsedUrl, copied: bool) -> Verdict:
        reasons = self._data(url, copied)
        if not self.policy.allow_relative_images:
            reasons.add(Reason.RELATIVE_IMAGE)
        # mdurl trims Unicode spaces a browser keeps: `\xa0//host/x` is remote behind markdown-it.
        if url.mdurl_host is not None:
            reasons.add(Reason.BLOCKED_HOST if self._is_blocked(url) else Reason.AMBIGUOUS_HOST)
        return _verdict(url, reasons)

    def _judge_remote_image(self, url: ParsedUrl, copied: bool) -> Verdict:
        if not self.signs_per_reply and self.signed_by_proxy(url):
            return _keep(url)
        reasons = self._data(url, copied)
        if not copied:
            reasons |= self._nested_for_image(url)
        if self._is_blocked(url):
            reasons.add(Reason.BLOCKED_HOST)
        elif (refused := self._image_host(url)) is not None:
            if not reasons and self.policy.image_proxy is not None:
                return Verdict("proxy", (), url)
            reasons.add(refused)
        return _verdict(url, reasons)

    def _image_host(self, url: ParsedUrl) -> Reason | None:
        """Why the allowlist refuses the image's host and port (None: it does not)."""
        if url.mdurl_host is not None:
            allowed = self._images.admits_host(url.host) or self._images.admits_host(url.mdurl_host)
            return Reason.AMBIGUOUS_HOST if allowed else Reason.IMAGE_HOST_NOT_ALLOWED
        if self._images.admits(url.host, url.port):
            return None
        if self._images.admits_host(url.host):
            return Reason.IMAGE_PORT_NOT_ALLOWED
        return Reason.IMAGE_HOST_NOT_ALLOWED

    def _is_blocked(self, url: ParsedUrl) -> bool:
        """Blocked on every port, under either reading of the host."""
        return url.host in self._blocked or bool(url.mdurl_host and url.mdurl_host in self._blocked)

    def _is_trusted(self, url: ParsedUrl) -> bool:
        """Trust is per origin, and only where every renderer reaches the same one; a
        click-through link rendersafe signed is the operator's own page."""
        if url.mdurl_host is not None:
            return False
        page = self.policy.link_interstitial
        if page is not None and url.href is not None and is_interstitial(page, url.href):
            return True
        return self._trusted.admits(url.host, url.port)

    def _unparseable(self, url: ParsedUrl, role: Role) -> Verdict:
        """A URL no browser parses fetches nothing; but a client that renders a stream
        shows it cut anywhere, and cut before what breaks it, it may parse: that
        prefix must pass (`//evil.example\x01/a.png` is `//evil.example` a moment)."""
        cut = _BREAKS.search(url.raw)
        if cut is not None and cut.start() > 0:
            before = self.judge(url.raw[: cut.start()], role)
            if before.action == "drop" and not set(before.reasons) <= _HARMLESS:
                return Verdict("drop", before.reasons, url)
        return _drop(url, Reason.UNPARSEABLE_URL)

    def _judge_link(self, url: ParsedUrl, copied: bool, depth: int = 0) -> Verdict:
        if url.href is None:
            return self._unparseable(url, Role.LINK)
        if not url.relative and url.scheme not in self._schemes:
            return _drop(url, Reason.SCHEME_NOT_ALLOWED)
        if self._is_blocked(url):
            return _drop(url, Reason.BLOCKED_HOST)
        if self._is_trusted(url):
            return _keep(url)
        # A host named under a suffix reserved for private networks (`kibana.acme.internal`)
        # is the user's own network's: what a link to it says is the user's. (An address,
        # loopback or private, may be anyone's port forward or a local test's attacker.)
        reasons = set() if url.host and private_name(url.host) else self._data(url, copied)
        if depth < _MAX_NESTING and url.parts is not None and not copied:
            for inner in nested_urls(url.parts):
                nested = self._judge_link(parse_url(inner), False, depth + 1)
                if nested.action == "drop" and nested.url.href is not None:
                    reasons |= {Reason.NESTED_URL, *nested.reasons}
        return _verdict(url, reasons)

    def trusts(self, url: ParsedUrl) -> bool:
        """Is `url` on a trusted link host (its origin, under every renderer's reading)?"""
        return url.href is not None and self._is_trusted(url)

    def allows_image_host(self, url: ParsedUrl) -> bool:
        """Does the image allowlist admit `url`'s host and port?"""
        return url.mdurl_host is None and self._images.admits(url.host, url.port)

    def names_image_host(self, url: ParsedUrl, key: str) -> bool:
        """Does the image allowlist name `key` itself (a tenant's own host), at `url`'s
        port, and admit `url`?"""
        return self.allows_image_host(url) and self._images.names(key, url.port)

    def signed_by_proxy(self, url: ParsedUrl, context: str | None = None) -> bool:
        """True for a URL rendersafe itself rewrote through the image proxy, signed for
        `context` and not expired."""
        proxy = self.policy.image_proxy
        if proxy is None or url.href is None or not url.href.startswith(proxy.url + "?"):
            return False
        query = url.href.partition("?")[2]
        return verified_target(proxy, query, context=context) is not None

    def proxied(self, href: str, context: str | None = None) -> str:
        """`href` rewritten through the policy's image proxy, signed for `context`."""
        if self.policy.image_proxy is None:
            return href
        return proxy_url(self.policy.image_proxy, href, context=context)

    def interstitial(self, href: str, host_class: str | None) -> str:
        """The policy's click-through link to `href` (a host of `host_class`), signed now."""
        page = self.policy.link_interstitial
        if page is None:
            return href
        return interstitial_url(page, href, host_class or "unknown")

    def _data(self, url: ParsedUrl, copied: bool) -> set[Reason]:
        """What the reply-only heuristics see in the URL (none for a copied one), and
        invisible characters (in any URL)."""
        parts = None if copied else url.parts
        reasons = data_reasons(parts, self.policy.thresholds) if parts else set()
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
