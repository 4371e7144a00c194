"""`Beacons`: many fetches on one host that differ in a token are one data channel.

A reply that shows `/px/s.png`, `/px/e.png`, `/px/c.png`, ... on an allowed host
spells its data in the order the browser fetches them, one character per image,
under any per-URL rule and under the image cap (CamoLeak did it with one signed
URL per character on GitHub's own image proxy). Each URL is harmless; the sequence
is not. So the distinct URLs of one *shape* on one host are counted per reply and
only the first few are kept.

- An image's shape is its host, its number of path segments and its query names:
  an alphabet of pre-signed URLs differs in every segment, and still has one shape.
- A link's shape is its URL with one one-character component (a path segment or a
  query value, its extension aside), not a digit, left out: `?c=a`, `?c=b`, ...
  Links need a click, or a client that unfurls them; a looser rule would take
  honest lists of documentation pages (`/library/os.html`, `/library/re.html`),
  issues (`/issues/12`, `/issues/13`) or numbered steps (`/step/1`, `/step/2`) for
  channels.

A URL seen again is no new channel use: the browser fetches it once.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from urllib.parse import parse_qsl, unquote

from ..urls import ParsedUrl
from ..urls.parse import UrlParts

__all__ = ["LinkBeacons", "image_shape", "link_shapes", "sent_href", "within"]

# One character (not a digit), and an extension a server ignores (`a.png`).
_ONE_CHARACTER = re.compile(r"[^./0-9](?:\.[A-Za-z0-9]{1,5})?")


class LinkBeacons:
    """The link channels of one reply, in the order its links were judged.

    Links have no point where a renderer spends them (images do: `Pass.spend_image`
    counts image channels in the carry), so a link counts when it is judged and kept
    (`ReplyJudge` asks `admits_all` first, and counts with `admits` once the budget
    took it too): a link judged twice is one use, and one any rule takes out counts
    nothing, so the reply's output, sanitised again, counts what its run did."""

    def __init__(self, per_shape: int) -> None:
        self.per_shape = per_shape
        self._seen: dict[str, set[str]] = {}

    def admits(self, url: ParsedUrl) -> bool:
        """Whether the link `url` stays within its channels' few uses (and counts it)."""
        href, parts = sent_href(url), url.parts
        if href is None or parts is None:
            return True
        used = [self._seen.setdefault(shape, set()) for shape in link_shapes(parts)]
        if not all(within(urls, href, self.per_shape) for urls in used):
            return False
        for urls in used:
            urls.add(href)
        return True

    def admits_all(self, urls: Iterable[ParsedUrl]) -> bool:
        """Would `admits` take each of `urls`, in this order? Counts nothing. When it
        would take them all, it would in any order: each channel ends with the same
        URLs, no more than its few, and a URL new to it came before that end."""
        added: dict[str, set[str]] = {}
        for url in urls:
            href, parts = sent_href(url), url.parts
            if href is None or parts is None:
                continue
            shapes = link_shapes(parts)
            for shape in shapes:
                seen, new = self._seen.get(shape, set()), added.setdefault(shape, set())
                if href not in seen and href not in new and len(seen) + len(new) >= self.per_shape:
                    return False
            for shape in shapes:
                if href not in self._seen.get(shape, ()):
                    added[shape].add(href)
        return True


def within(kept: Collection[str], href: str, per_shape: int) -> bool:
    """May `href` join a channel that has had the URLs `kept`? One of them again is
    no new use (the browser fetched it once); a new one, only below `per_shape`."""
    return href in kept or len(kept) < per_shape


def sent_href(url: ParsedUrl) -> str | None:
    """What a fetch of `url` sends (no fragment; `http:` as `https:`, which reach the
    same observer with the same path), or None for a URL with no host. One link read
    with and without its scheme (`e.example/c/q` in `https://e.example/c/q`) is one use."""
    if url.href is None or url.parts is None or not url.parts.host:
        return None
    href = url.href.split("#", 1)[0]
    return "https" + href[4:] if href[:7].lower() == "http://" else href


def image_shape(parts: UrlParts) -> str:
    """An image's channel: its origin, its number of path segments, its query names."""
    names = sorted({name for name, _value in parse_qsl(parts.query, keep_blank_values=True)})
    return f"{parts.host}:{parts.port}|{parts.path.count('/')}|{'&'.join(names)}"


def link_shapes(parts: UrlParts) -> list[str]:
    """A link's channels: its URL with each one-character component left out."""
    origin = f"{parts.host}:{parts.port}"
    segments = parts.path.split("/")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    shapes = []
    for i, segment in enumerate(segments):
        # (as the server reads it: `%61` and `%C3%A1` are one character)
        if _ONE_CHARACTER.fullmatch(unquote(segment) if "%" in segment else segment):
            shape = "/".join([*segments[:i], "*", *segments[i + 1 :]])
            shapes.append(f"{origin}|{shape}?{parts.query}")
    for i, (name, value) in enumerate(pairs):
        if _ONE_CHARACTER.fullmatch(value):
            rest = sorted(p for j, p in enumerate(pairs) if j != i)
            shapes.append(f"{origin}|{parts.path}?{name}=*&{rest}")
    return shapes
