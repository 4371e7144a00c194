"""`--json-path` and `--role-path`: where the texts of a custom record are, and whose.

    a.b              field `b` of field `a`
    a[].b            field `b` of every element of list `a`
    mapping.*.text   `*` is every value of an object (or every element of a list)

    PathSpec(("mapping.*.message.content.parts[]",), ("mapping.*.message.author.role",))

A text's role is the role-path match that shares the longest stretch of the text's own
path (`mapping.<id>.message`): the role of the same message. With no role path every
text is judged as the model's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..shapes import MODEL, Kind, Text, role_of

__all__ = ["PathSpec", "path_fields", "path_texts"]

Match = tuple[Any, Any, tuple[Any, ...]]  # container, key, the concrete path to the value


@dataclass(frozen=True)
class PathSpec:
    """The text paths and role paths of a scan (picklable, for workers)."""

    paths: tuple[str, ...]
    role_paths: tuple[str, ...] = ()


def path_fields(data: Any, path: str) -> Iterator[Match]:
    """Every (container, key, concrete path) that `path` names in `data`."""
    yield from _walk(data, _steps(path), ())


def path_texts(data: Any, spec: PathSpec, hits: Counter[str] | None = None) -> list[Text]:
    """The string fields `spec.paths` name, as texts of the roles its role paths give;
    `hits` counts the fields each path matched."""
    roles = [
        (where, str(holder[key]))
        for path in spec.role_paths
        for holder, key, where in path_fields(data, path)
        if isinstance(holder[key], str)
    ]
    found = []
    for path in spec.paths:
        for holder, key, where in path_fields(data, path):
            if isinstance(holder[key], str):
                role = role_of(_role(where, roles)) if roles else MODEL
                found.append((where, Text(role, holder[key], Kind.TEXT, 0, where)))
                if hits is not None:
                    hits[path] += 1
    found.sort(key=lambda item: _order(item[0]))
    return [replace(text, turn=turn) for turn, (_, text) in enumerate(found)]


def _order(where: tuple[Any, ...]) -> tuple[tuple[int, Any], ...]:
    # In document order where the path says (list indices), object keys as they come.
    return tuple((0, step) if isinstance(step, int) else (1, "") for step in where)


def _role(where: tuple[Any, ...], roles: list[tuple[tuple[Any, ...], str]]) -> str:
    best, role = -1, "model"
    for place, name in roles:
        shared = next(
            (i for i, (a, b) in enumerate(zip(where, place, strict=False)) if a != b), None
        )
        length = min(len(where), len(place)) if shared is None else shared
        if length > best:
            best, role = length, name.lower()
    return role


def _steps(path: str) -> list[tuple[str, bool]]:
    """`a[].b` -> [("a", True), ("b", False)]: each name, and whether to take every element."""
    return [(part[:-2], True) if part.endswith("[]") else (part, False) for part in path.split(".")]


def _walk(data: Any, steps: list[tuple[str, bool]], where: tuple[Any, ...]) -> Iterator[Match]:
    (name, every), rest = steps[0], steps[1:]
    for holder, key in _named(data, name):
        place = (*where, key)
        if every:
            items = holder[key]
            if isinstance(items, list):
                for index, item in enumerate(items):
                    inner = (*place, index)
                    yield from _walk(item, rest, inner) if rest else ((items, index, inner),)
        elif rest:
            yield from _walk(holder[key], rest, place)
        else:
            yield holder, key, place


def _named(data: Any, name: str) -> Iterator[tuple[Any, Any]]:
    if name == "*":
        if isinstance(data, dict):
            yield from ((data, key) for key in data)
        elif isinstance(data, list):
            yield from ((data, index) for index in range(len(data)))
    elif isinstance(data, dict) and name in data:
        yield data, name
