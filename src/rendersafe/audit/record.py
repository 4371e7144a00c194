"""`AuditRecord`: one line of the audit log, versioned, with the URL redacted.

Every record says what happened (`event`), where (`source`), and, for a finding, what
was changed and why. The URL is stored redacted (`Finding.url`: scheme, host and the
shape of path and query, values replaced by their length) with a keyed hash of the
full URL (`url_hmac`), so two records of one URL can be matched without storing it;
the full URL only when the operator asks for it.
"""

from __future__ import annotations

import hashlib
import hmac
import uuid
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..findings import Action, Construct, Finding, Reason
from ..policy import Policy

__all__ = ["SCHEMA_VERSION", "AuditRecord", "Event", "Source", "policy_digest", "url_hmac"]

SCHEMA_VERSION = 1

Event = Literal["finding", "error", "disconnect", "lost"]


class Source(BaseModel):
    """Where the sanitised text came from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["function", "middleware", "batch"]
    method: str | None = None
    path: str | None = None
    request_id: str | None = None
    file: str | None = None
    line: int | None = None
    record_id: str | None = None


class AuditRecord(BaseModel):
    """One audit event: a finding, an error, a client that went away, or `lost`: the
    count of records a sink could not write, put in front of the next it could."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, serialize_by_alias=True
    )

    schema_version: Literal[1] = 1
    event_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    time: datetime = Field(default_factory=lambda: datetime.now(UTC))
    rendersafe_version: str
    policy_digest: str
    event: Event
    source: Source
    # `construct` in JSON, `kind` in Python (see `Finding.kind`).
    kind: Construct | None = Field(default=None, alias="construct")
    action: Action | None = None
    reasons: tuple[Reason, ...] = ()
    host: str | None = None
    url: str | None = None
    url_hmac: str | None = None
    line: int | None = None
    column: int | None = None
    detail: str | None = None
    message: str | None = None
    context: dict[str, str] = Field(default_factory=dict)
    lost: int | None = None  # event `lost`: how many records before this one were lost
    # False in shadow mode (`Policy(mode="monitor")`): nothing was changed or withheld.
    enforced: bool = True

    @property
    def construct(self) -> Construct | None:  # type: ignore[override]  # see `kind`
        """The construct, by its name in JSON (see `Finding.construct`)."""
        return self.kind

    @classmethod
    def of_finding(
        cls,
        finding: Finding,
        source: Source,
        *,
        policy_digest: str,
        version: str,
        key: bytes,
        full_urls: bool = False,
    ) -> AuditRecord:
        """The record of one finding; `key` keys the URL's hash."""
        full = finding.full_url
        return cls(
            rendersafe_version=version,
            policy_digest=policy_digest,
            event="finding",
            source=source,
            kind=finding.kind,
            action=finding.action,
            reasons=finding.reasons,
            host=finding.host,
            url=full if full_urls and full is not None else finding.url,
            url_hmac=url_hmac(key, full) if full is not None else None,
            line=finding.line,
            column=finding.column,
            detail=finding.detail,
            context=finding.context,
            enforced=finding.enforced,
        )


def url_hmac(key: bytes, url: str) -> str:
    """The keyed hash that stands for `url` in the log (HMAC-SHA256, hex)."""
    return hmac.new(key, url.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def policy_digest(policy: Policy) -> str:
    """A short, stable digest of the policy: which rules produced a record."""
    canonical = policy.model_dump_json(exclude={"image_proxy": {"key"}})
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
