"""Rewrite a raw-HTML fragment that must change, with bleach and a tight allowlist.

One bleach `Cleaner` per set of kept URL schemes and per thread (a Cleaner's parser
has state, so it is not shared across threads); what differs between fragments, the
URLs to drop and to rewrite, reaches it through a context variable for one call.
"""

from __future__ import annotations

import contextvars
import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from bleach.html5lib_shim import Filter
from bleach.sanitizer import Cleaner

from .review import (
    ALLOWED_ATTRIBUTES,
    ALLOWED_TAGS,
    NO_ATTRIBUTES,
    URL_ATTRIBUTES,
    Problem,
    decoded_attribute,
)

__all__ = ["clean"]

_RAW_TEXT_START = re.compile(r"<(script|style)\b", re.IGNORECASE)
_RAW_TEXT_END = re.compile(r"</(script|style)\s*>|(?=\n\Z)", re.IGNORECASE)
_SINGLE_START_TAG = re.compile(r"<([a-zA-Z][a-zA-Z0-9-]*)\b[^<]*>", re.DOTALL)


@dataclass(frozen=True, slots=True)
class _Job:
    """What one `clean` call drops and rewrites."""

    dropped: frozenset[tuple[str, str, str]] = frozenset()
    rewrites: Mapping[tuple[str, str], str] = field(default_factory=dict)


_NO_JOB = _Job()
_JOB: contextvars.ContextVar[_Job] = contextvars.ContextVar("rendersafe_html_job")
_CLEANERS = threading.local()


def clean(
    fragment: str,
    problems: list[Problem],
    rewrites: Mapping[tuple[str, str], str],
    schemes: frozenset[str],
) -> str:
    """Return `fragment` with the disallowed tags stripped and bad attributes dropped.

    `schemes` are the URL schemes the policy can keep; bleach's own protocol check
    must not drop a URL rendersafe kept. The text of `<script>` and `<style>` goes
    too. A fragment that is one start tag (markdown-it's inline HTML) stays one start
    tag: bleach's added end tag is cut.
    """
    single = _SINGLE_START_TAG.fullmatch(fragment)
    fragment = _drop_raw_text(fragment)
    dropped = frozenset(
        (p.tag, p.attribute, p.value) for p in problems if p.value is not None and p.attribute
    )
    token = _JOB.set(_Job(dropped, rewrites))
    try:
        cleaned = str(_cleaner(schemes).clean(fragment))
    finally:
        _JOB.reset(token)
    if single:
        cleaned = cleaned.removesuffix(f"</{single.group(1).lower()}>")
    return cleaned


def _drop_raw_text(fragment: str) -> str:
    """Drop each `<script>` and `<style>` element, to its end tag or the end of the
    fragment (before a last newline). Once a start tag has no `>` after it, no later
    one has: a regex search would have rescanned the rest from each of them."""
    kept, pos = [], 0
    while (start := _RAW_TEXT_START.search(fragment, pos)) is not None:
        tag_end = fragment.find(">", start.end())
        if tag_end < 0:
            break
        kept.append(fragment[pos : start.start()])
        pos = _raw_text_end(fragment, tag_end + 1, start.group(1).lower())
    kept.append(fragment[pos:])
    return "".join(kept)


def _raw_text_end(fragment: str, pos: int, name: str) -> int:
    """Where the element `name` opened before `pos` ends: after its end tag (the name
    compared lowercased, as a regex backreference is), or at the end."""
    while (end := _RAW_TEXT_END.search(fragment, pos)) is not None:
        if end.group(1) is None or end.group(1).lower() == name:
            return end.end()
        pos = end.start() + 1
    return len(fragment)


def _cleaner(schemes: frozenset[str]) -> Cleaner:
    cache: dict[frozenset[str], Cleaner] | None = getattr(_CLEANERS, "by_schemes", None)
    if cache is None:
        cache = _CLEANERS.by_schemes = {}
    cleaner = cache.get(schemes)
    if cleaner is None:
        cleaner = cache[schemes] = Cleaner(
            tags=ALLOWED_TAGS,
            attributes=_keep_attribute,
            protocols=schemes | {"http", "https"},
            strip=True,
            strip_comments=True,
            filters=[_Rewrite],
        )
    return cleaner


def _keep_attribute(tag: str, name: str, value: str) -> bool:
    if name not in ALLOWED_ATTRIBUTES.get(tag, NO_ATTRIBUTES):
        return False
    dropped = _JOB.get(_NO_JOB).dropped
    if not dropped:
        return True
    # bleach hands the value as written; the problems name it as the browser reads it.
    decoded = decoded_attribute(value) if "&" in value else value
    return (tag, name, decoded) not in dropped


class _Rewrite(Filter):  # type: ignore[misc]
    """Puts the proxied URL in place of each URL the judge rewrote."""

    def __iter__(self) -> Iterator[dict[str, Any]]:
        rewrites = _JOB.get(_NO_JOB).rewrites
        for token in super().__iter__():
            data = token.get("data")
            if rewrites and token.get("name") and isinstance(data, dict):
                for key, value in list(data.items()):
                    if key[1] in URL_ATTRIBUTES and (token["name"], value) in rewrites:
                        data[key] = rewrites[(token["name"], value)]
            yield token
