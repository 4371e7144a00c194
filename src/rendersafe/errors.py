"""Exceptions raised by rendersafe: every one it raises on purpose is a RenderSafeError.

    RenderSafeError                 base of everything rendersafe raises on purpose
    ├── PolicyError                 the policy is contradictory or unsafe (a ValueError)
    ├── AuditError                  the audit log cannot be written where it was asked to be
    │                               (a framework adapter raises it instead of a reply while
    │                               the policy requires the log and it is down)
    │   └── audit.sinks.SinkWriteError  a sink wrote only part of a batch (`written`)
    ├── SanitizeError               a reply could not be sanitised; nothing was emitted
    │   ├── InputTooLargeError      the reply is longer than `Policy.max_input_chars`
    │   └── FormatError             a response is not in the wire format it claims
    ├── batch.ColumnError           the columns handed to a batch do not fit together
    │                               (also a ValueError)
    ├── integrations.litellm.ReplyWithheldError
    │                               LiteLLM answers with it (502, or 503 while a required
    │                               audit log is down) instead of the reply
    ├── gateway.forward.UpstreamError
    │                               the upstream failed after the response started
    ├── gateway.target.RequestError a request `rendersafe proxy` refuses (400, 405)
    └── scan errors                 (each also a ValueError, but the last)
        ├── scan.records.UnknownShapeError    a record in no shape rendersafe reads
        ├── scan.jsondoc.BrokenDocumentError  a JSON list cut short or broken
        ├── scan.runner.ScanUsageError        a scan asked to do what it must not
        └── scan.parquet.ParquetMissingError  a Parquet file, and no pyarrow

The command line exits with `EXIT_CLEAN` (nothing found), `EXIT_FINDINGS` or
`EXIT_ERROR` (a usage, policy or input error: any `RenderSafeError` it catches).

A non-`str` reply raises the built-in `TypeError`. No error path returns the
unsanitised text: callers that catch `SanitizeError` must send nothing, or a
fixed fallback message of their own.
"""

from __future__ import annotations

__all__ = [
    "EXIT_CLEAN",
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "AuditError",
    "FormatError",
    "InputTooLargeError",
    "PolicyError",
    "RenderSafeError",
    "SanitizeError",
]

EXIT_CLEAN = 0  # the command line found nothing
EXIT_FINDINGS = 1  # it found (or fixed) something, or could not read some input
EXIT_ERROR = 2  # usage, policy or input error


class RenderSafeError(Exception):
    """Base class for the errors rendersafe raises on purpose."""


class PolicyError(RenderSafeError, ValueError):
    """A policy setting is contradictory or unsafe.

    The message names the field, the offending value and how to fix it.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class SanitizeError(RenderSafeError):
    """The reply could not be sanitised; no part of it may be sent on."""


class InputTooLargeError(SanitizeError):
    """The reply is longer than the policy's `max_input_chars`."""

    def __init__(self, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"reply is {size} characters, above max_input_chars={limit}; "
            "raise Policy.max_input_chars or split the reply"
        )

    def __reduce__(self) -> tuple[type[InputTooLargeError], tuple[int, int]]:
        return type(self), (self.size, self.limit)  # it pickles: workers send it back


class FormatError(SanitizeError):
    """A response body could not be read in its wire format (SSE, NDJSON, JSON, text),
    so its text could not be found and sanitised."""


class AuditError(RenderSafeError):
    """The audit log cannot be opened or written (raised when it is set up)."""
