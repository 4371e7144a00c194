"""`ScanOptions`: what a scan reads, which messages it judges, and what it writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..conversation.messages import MODEL_ROLES
from ..policy import Policy

__all__ = ["ASSISTANT_ROLES", "DEFAULT_MAX_RECORD_BYTES", "FORMATS", "ScanOptions"]

# Roles whose messages a client renders as the model's: ShareGPT's "gpt", Gemini's
# "model", some exports' "bot".
ASSISTANT_ROLES = MODEL_ROLES
FORMATS = ("auto", "jsonl", "json", "text", "parquet")
# The most of one record (a JSONL line, a JSON or text file) a scan holds in memory:
# far above any chat transcript, far below what would exhaust a worker.
DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class ScanOptions:
    """Settings of one scan; picklable, so worker processes and Dask workers get them."""

    policy: Policy = field(default_factory=Policy)
    roles: frozenset[str] | None = ASSISTANT_ROLES  # None: every role
    fmt: str = "auto"
    json_paths: tuple[str, ...] = ()
    role_paths: tuple[str, ...] = ()  # where each --json-path text's role is
    fix_dir: Path | None = None
    in_place: bool = False
    audit_path: Path | None = None
    audit_key: bytes | None = None
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES  # a longer record is an error, not read

    def judges(self, role: str) -> bool:
        """Is a message of `role` sanitised?"""
        return self.roles is None or role.lower() in self.roles
