"""JSON paths: `a.b` names a field, `a[].b` that field of every element of list `a`.

    for holder, key in json_path_fields(body, "choices[].message.content"):
        holder[key] = sanitise(holder[key])

Each match is the container and key holding the value, so a caller can replace it
in place. Used for response bodies (`json_paths=`) and for scanned records
(`--json-path`) alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["Holder", "json_path_fields"]

Holder = tuple[Any, Any]  # a dict and key, or a list and index, holding a value


def json_path_fields(data: Any, path: str) -> Iterator[Holder]:
    """The (container, key) pairs that `path` names: `a.b`, `a[].b` for every element."""
    head, _, rest = path.partition(".")
    name, every = (head[:-2], True) if head.endswith("[]") else (head, False)
    if not isinstance(data, dict) or name not in data:
        return
    if not every:
        yield from ((data, name),) if not rest else json_path_fields(data[name], rest)
        return
    items = data[name]
    if isinstance(items, list):
        for index, item in enumerate(items):
            yield from json_path_fields(item, rest) if rest else ((items, index),)
