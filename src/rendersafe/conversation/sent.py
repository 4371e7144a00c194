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
import re
from collections.abc import Iterator, Sequence

from .messages import MODEL_ROLES, Message

__all__ = ["MAX_SENT_URLS", "model_urls"]

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
