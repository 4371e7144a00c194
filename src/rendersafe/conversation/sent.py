"""What the model's earlier replies sent: the URLs in its messages, for a key spread over
turns (`tracker`). A key sent 70 % in one turn and the other 70 % in the next is a key
spread over two URLs, one of them in the history.

The URLs are found as a browser would take them, not as the message index finds links:
any case of scheme (`HTTPS://`), backslashes for slashes (`https:/\\`), a scheme-relative
`//host` and a bare `www.`. Only the newest `MAX_SENT_URLS` count, so a long history
costs a bounded amount, and only when a reply's URL holds parts of a key.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Iterator, Sequence

from ..shapes import Kind
from .messages import MODEL_ROLES, Message
from .seen import trimmed_url

__all__ = ["MAX_SENT_URLS", "model_urls", "shown_urls"]

MAX_SENT_URLS = 512
# A scheme is short: unbounded, `[a-z0-9+.-]*` would scan to the end of `a.a.a...` from
# each of its letters (quadratic in the message).
_URLISH = re.compile(
    r"(?:\b[a-z][a-z0-9+.-]{0,31}:[\\/]+|(?<![\w\\/])[\\/]{2}(?=\w)|\bwww\.)[^\s<>\"'`]+",
    re.IGNORECASE,
)


def model_urls(messages: Sequence[Message]) -> list[str]:
    """The newest `MAX_SENT_URLS` URLs of the model's messages, absolute, newest first."""
    urls: dict[str, None] = {}
    for found in _newest_first(messages):
        urls[_absolute(found)] = None
        if len(urls) >= MAX_SENT_URLS:
            break
    return list(urls)


def _newest_first(messages: Sequence[Message]) -> Iterator[str]:
    for message in reversed(messages):
        if message.role in MODEL_ROLES:
            yield from reversed(_found(message.text))


@functools.lru_cache(maxsize=4096)
def _found(text: str) -> tuple[str, ...]:
    """The URLs of one message, in order (once per process: a chat sends its history
    again with every turn)."""
    return tuple(_URLISH.findall(text))


def _absolute(found: str) -> str:
    if found[0] in "/\\":
        return "https:" + found
    return "https://" + found if found[:4].lower() == "www." else found


_CODE_SPAN = re.compile(r"`[^`\n]*`")
_IMAGE = re.compile(
    r"!\[[^\]\n]*\]\(\s*<?([^\s)>]+)|<img\b[^>]*?\bsrc\s*=\s*[\"']?([^\"'\s>]+)", re.IGNORECASE
)


def shown_urls(messages: Sequence[Message]) -> list[tuple[str, bool]]:
    """The URLs the model's earlier replies showed (not its calls to tools, which the
    client never renders), entity-decoded as renderers read them, and whether each
    was an image; the newest `MAX_SENT_URLS`, newest first."""
    urls: dict[str, bool] = {}
    for message in reversed(messages):
        if message.role not in MODEL_ROLES or message.kind is Kind.CALL:
            continue
        for url, image in reversed(_shown(message.text)):
            urls[url] = urls.get(url, False) or image
        if len(urls) >= MAX_SENT_URLS:
            break
    return list(urls.items())


@functools.lru_cache(maxsize=4096)
def _shown(text: str) -> tuple[tuple[str, bool], ...]:
    """The URLs of one reply, absolute and entity-decoded, and which were images."""
    if "`" in text:  # a URL shown inert, as code, was never requested
        text = _CODE_SPAN.sub(" ", text)
    images = {_decoded(trimmed_url(a or b)) for a, b in _IMAGE.findall(text)}
    found = [_decoded(trimmed_url(_absolute(url))) for url in _URLISH.findall(text)]
    return tuple((url, url in images) for url in dict.fromkeys(found))


def _decoded(url: str) -> str:
    return html.unescape(url) if "&" in url and ";" in url else url
