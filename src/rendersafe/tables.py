"""Counts as aligned text rows, for the summaries the command line prints."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["count_rows"]


def count_rows(items: Iterable[tuple[str, int]], *, count_width: int = 8) -> list[str]:
    """One indented row per (name, count), names padded to the longest."""
    rows = list(items)
    if not rows:
        return ["  (none)"]
    width = max(len(name) for name, _ in rows)
    return [f"  {name:<{width}}  {count:>{count_width}}" for name, count in rows]
