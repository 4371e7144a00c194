"""Loggable shapes of URLs and hosts: the structure kept, every value replaced by its length.

`redact_text` does the same to free text that may quote a reply or a request (an
exception's message): bounded, each URL redacted, each word that could be data
replaced by its length.
"""

from __future__ import annotations

import re

from .credentials import EMAIL, SECRET_PATTERNS
from .hosts import is_ip_literal, split_host
from .parse import ParsedUrl, parse_url

__all__ = ["TEXT_LIMIT", "exception_text", "redact", "redact_host", "redact_text"]

TEXT_LIMIT = 200  # characters of free text a log or an audit record keeps, at most
# A URL, a scheme the browser runs or fetches, or a host written bare; else a word.
_PIECE = re.compile(
    r"(?P<url>(?:[A-Za-z][A-Za-z0-9+.-]*:)?//[^\s'\"<>]+"
    r"|\b(?:data|javascript|vbscript|blob|file|mailto):[^\s'\"<>]+"
    r"|\bwww\.[^\s'\"<>]+)"
    r"|[^\s'\"()<>\[\]{},;`]+",
    re.IGNORECASE,
)
# A word kept as it is: short, or plain letters (a capital first at most) with at most
# a trailing punctuation mark.
_PLAIN = re.compile(
    r"[A-Za-z][a-z]{0,23}[.:!?]?|[A-Z][A-Za-z]{0,30}(?:Error|Exception|Warning)[.:]?|.{1,7}",
    re.DOTALL,
)


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


def redact_text(text: str, limit: int = TEXT_LIMIT) -> str:
    """`text` as a log may keep it: at most `limit` characters, each URL redacted as
    `redact` does, each key, e-mail address and word that is not plain (8 or more
    characters holding digits, capitals inside, or symbols; or 25 or more letters)
    replaced by its length (`{14}`). Never raises.

    `"KeyError: 'sk-proj-abc123...'"` becomes `"KeyError: '{51}'"`.
    """
    window = text[: 4 * limit]
    if len(text) > len(window):  # never keep the start of a word cut at the window
        window = window[: max(window.rfind(" "), 0)]
    out = _PIECE.sub(_piece, window)
    if len(out) > limit or len(text) > len(window):
        out = f"{out[: limit - 24].rstrip()}... ({len(text)} characters)"
    return out


def _piece(match: re.Match[str]) -> str:
    piece = match.group()
    if match.group("url") is not None:
        try:
            return redact(parse_url(piece))
        except Exception:  # a URL no parser reads is still not kept
            return f"<unparseable:{len(piece)}>"
    if _PLAIN.fullmatch(piece) and not (SECRET_PATTERNS.search(piece) or EMAIL.search(piece)):
        return piece
    return "{" + str(len(piece)) + "}"


def exception_text(exc: BaseException, limit: int = TEXT_LIMIT) -> str:
    """`exc` as a log may keep it: its type and its message, redacted (`redact_text`)."""
    try:
        message = str(exc)
    except Exception:  # a broken __str__ is the app's, not a reason to fail here
        message = "(a message that cannot be printed)"
    return f"{type(exc).__name__}: {redact_text(message, limit)}" if message else type(exc).__name__
