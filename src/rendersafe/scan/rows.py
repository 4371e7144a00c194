"""The rows of a scan report: one per finding, one per input that could not be read."""

from __future__ import annotations

import warnings

from pydantic import BaseModel, ConfigDict

from ..findings import Action, Construct, Reason

__all__ = ["ErrorRow", "FindingRow"]

with warnings.catch_warnings():  # `construct` is the schema's name (see findings.py)
    warnings.filterwarnings("ignore", message='Field name "construct"', category=UserWarning)

    class FindingRow(BaseModel):
        """One change the scan made (or would make, without --fix)."""

        model_config = ConfigDict(frozen=True, extra="forbid")

        path: str
        line: int
        record_id: str
        role: str
        construct: Construct  # type: ignore[assignment]
        action: Action
        reasons: tuple[Reason, ...]
        host: str | None = None


class ErrorRow(BaseModel):
    """An input, or a line of one, that could not be read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    line: int | None = None
    message: str
