"""One row of a batch: a reply and its conversation in, `Row(text, changed, findings)` out.

Every row gets a result, whatever its cells hold:

    a reply                     sanitised as `Sanitizer.run` does, findings as JSON
    a null reply                null, unchanged, no findings (there is nothing to render)
    a cell that is not text     PLACEHOLDER, with a `withheld` entry saying why
    a reply too long, or one    PLACEHOLDER, with a `withheld` entry (`input_too_large`,
    that fails to sanitise      `sanitize_failure`); in shadow mode it passes unchanged
    a conversation not read     the reply judged as for a conversation cut short, with a
                                `conversation` entry saying why

`findings` is a JSON list: each change is a `Finding` as the audit log and the scan
report write it (`construct`, `action`, `reasons`, `line`, ...); the entries a batch adds
have the same first three keys and a `detail`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass

from ..conversation import Conversation
from ..errors import InputTooLargeError, RenderSafeError
from ..findings import Finding
from ..policy import Policy
from ..sanitizer import Sanitizer
from ..urls.redact import exception_text
from .cells import Unreadable, conversation_of, reply_text

__all__ = ["NO_FINDINGS", "PLACEHOLDER", "ColumnError", "Row", "sanitize_row", "sanitizer_for"]

# What a row holds in place of a reply that could not be sanitised: never the reply.
PLACEHOLDER = "[rendersafe withheld this reply: it could not be sanitised]"
NO_FINDINGS = "[]"


class ColumnError(RenderSafeError, ValueError):
    """The columns handed to a batch do not fit together (lengths differ, or too many)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One row's result: the text to keep (None for a null reply), whether it differs
    from the reply, and the findings as a JSON list."""

    text: str | None
    changed: bool
    findings: str


_NULL = Row(None, changed=False, findings=NO_FINDINGS)


@functools.lru_cache(maxsize=8)
def sanitizer_for(policy: Policy) -> Sanitizer:
    """The one `Sanitizer` of this process for `policy`: every batch on a worker reuses it
    (and the caches it warms)."""
    return Sanitizer(policy).counted_as("batch")


def sanitize_row(sanitizer: Sanitizer, reply: object, conversation: object = None) -> Row:
    """The result of one row; never raises for what its cells hold."""
    if reply is None:
        return _NULL
    text = reply_text(reply)
    if isinstance(text, Unreadable):
        return _withheld(text)
    judged, unread = _conversation(conversation)
    notes = [_entry("conversation", "read_as_text", unread)] if unread is not None else []
    try:
        result = sanitizer.run(text, conversation=judged)
    except InputTooLargeError as exc:
        return _withheld(Unreadable("input_too_large", str(exc)), notes)
    except RenderSafeError as exc:
        return _withheld(Unreadable("sanitize_failure", exception_text(exc)), notes)
    findings = _findings(result.findings, notes)
    return Row(result.text, result.text != text, findings)


def _conversation(cell: object) -> tuple[Conversation | None, Unreadable | None]:
    try:
        return conversation_of(cell)
    except Exception as exc:  # a cell no reader foresaw: judge as if nothing was read
        why = Unreadable("conversation_unreadable", exception_text(exc))
        return Conversation((), notes=(f"unread: {why.detail}",)), why


def _withheld(why: Unreadable, notes: Sequence[str] = ()) -> Row:
    entry = _entry("reply", "withheld", why)
    return Row(PLACEHOLDER, changed=True, findings=f"[{','.join((*notes, entry))}]")


def _entry(construct: str, action: str, why: Unreadable) -> str:
    """A batch's own entry in a row's findings, in the shape of a finding's first keys."""
    fields = {"construct": construct, "action": action, "reasons": [why.reason]}
    return json.dumps({**fields, "detail": why.detail}, ensure_ascii=False, separators=(",", ":"))


def _findings(findings: Sequence[Finding], notes: Sequence[str]) -> str:
    if not findings and not notes:
        return NO_FINDINGS
    return f"[{','.join((*notes, *(f.model_dump_json() for f in findings)))}]"
