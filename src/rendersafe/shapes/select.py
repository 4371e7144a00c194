"""Which texts of a long chat are read: the window, chosen by whose they are.

A conversation longer than the window loses, first, the model's own turns (it cannot
leak what it wrote), then tool output and text of no known author; the system prompt,
the developer's and the user's own words go last. Within each, the shorter texts are
kept first (as many messages as fit, a system prompt over the log pasted after it),
then the newer; a text that does not fit whole keeps its start and its end. What is
dropped is noted: the judge is stricter for a reply whose conversation was not read whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .record import MODEL, TRUSTED_ROLES, Text

__all__ = ["window"]

_CUT = "\n…\n"


def window(texts: Sequence[Text], max_chars: int) -> tuple[list[Text], int]:
    """The texts that fit in `max_chars` characters, in their order (one cut to fit),
    and how many characters were dropped."""
    total = sum(len(t.text) for t in texts)
    if total <= max_chars:
        return list(texts), 0
    room = max(max_chars, 0)
    kept: dict[int, Text] = {}
    order = sorted(range(len(texts)), key=lambda i: (_rank(texts[i]), len(texts[i].text), -i))
    for index in order:
        if room <= 0:
            break
        text = texts[index]
        if len(text.text) > room:
            text = _cut(text, room)
        if text.text:
            kept[index] = text
            room -= len(text.text)
    dropped = total - sum(len(t.text) for t in kept.values())
    return [kept[i] for i in sorted(kept)], dropped


def _rank(text: Text) -> int:
    if text.role in TRUSTED_ROLES:
        return 0
    return 2 if text.role == MODEL else 1


def _cut(text: Text, room: int) -> Text:
    """`text` cut to `room` characters: its start and its end."""
    inner = room - len(_CUT)
    if inner < 2:
        return replace(text, text=text.text[:room], editable=False)
    head, tail = inner - inner // 2, inner // 2
    body = text.text[:head] + _CUT + text.text[len(text.text) - tail :]
    return replace(text, text=body, editable=False)
