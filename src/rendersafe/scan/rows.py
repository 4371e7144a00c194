"""The rows of a scan report: one per finding, one per input that could not be read."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..findings import Action, Construct, Reason

__all__ = ["ErrorRow", "FindingRow"]


class FindingRow(BaseModel):
    """One change the scan made (or would make, without --fix)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, serialize_by_alias=True
    )

    path: str
    line: int
    record_id: str
    role: str
    # `construct` in JSON, `kind` in Python (see `Finding.kind`).
    kind: Construct = Field(alias="construct")
    action: Action
    reasons: tuple[Reason, ...]
    host: str | None = None
    url: str | None = None  # redacted: values replaced by their length
    excerpt: str | None = None  # the text around the change, redacted the same way
    day: str | None = None  # the record's date (YYYY-MM-DD), where it has one


class ErrorRow(BaseModel):
    """An input, or a line of one, that could not be read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    line: int | None = None
    message: str
