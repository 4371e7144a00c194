"""Loggable shapes of URLs and hosts: the structure kept, every value replaced by its length."""

from __future__ import annotations

import re

from .hosts import is_ip_literal, split_host
from .parse import ParsedUrl

__all__ = ["redact", "redact_host"]


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
