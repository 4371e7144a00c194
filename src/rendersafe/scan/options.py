"""`ScanOptions`: what a scan reads, which messages it judges, and what it writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..policy import Policy
from ..shapes import MODEL, UNKNOWN, role_of

__all__ = ["ASSISTANT_ROLES", "DEFAULT_MAX_RECORD_BYTES", "FORMATS", "ScanOptions"]

# The roles a scan sanitises by default: the model's (every shape's name for it reads
# as `model`), and texts whose author is not said (judging too much is the safe mistake).
ASSISTANT_ROLES = frozenset({MODEL, UNKNOWN})
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
    # A record that cannot be sanitised is copied into a fixed copy as it is (else a
    # placeholder takes its place: the fixed copy fails closed).
    keep_unsanitisable: bool = False

    def __post_init__(self) -> None:
        if self.roles is not None:  # any shape's names for them: "assistant" is `model`
            roles = frozenset(role_of(role) for role in self.roles)
            object.__setattr__(self, "roles", roles)

    def judges(self, role: str) -> bool:
        """Is a message of `role` (any shape's name for it) sanitised?"""
        return self.roles is None or role_of(role) in self.roles
