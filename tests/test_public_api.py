"""The public surface changes only on purpose."""

from __future__ import annotations

import inspect

import rendersafe
from rendersafe import Finding, Policy, Result, Sanitizer, sanitize


def test_exported_names() -> None:
    assert sorted(rendersafe.__all__) == [
        "Action", "Construct", "Conversation", "Finding", "ImageProxy", "InputTooLargeError",
        "Policy", "PolicyError", "Reason", "RenderSafeError", "Result", "SanitizeError",
        "Sanitizer", "StreamSanitizer", "Thresholds", "asanitize_stream", "mint_canary",
        "sanitize", "sanitize_stream",
    ]  # fmt: skip


def test_signatures() -> None:
    assert str(inspect.signature(sanitize)) == (
        "(text: 'str', policy: 'Policy | None' = None, *, "
        "conversation: 'ConversationLike' = None) -> 'str'"
    )
    assert str(inspect.signature(Sanitizer.run)) == (
        "(self, text: 'str', *, context: 'Mapping[str, str] | None' = None, "
        "conversation: 'ConversationLike' = None) -> 'Result'"
    )
    assert list(inspect.signature(Sanitizer).parameters) == ["policy", "audit"]
    assert list(inspect.signature(Sanitizer.stream).parameters) == [
        "self", "context", "on_finding", "conversation",
    ]  # fmt: skip


def test_audit_and_middleware_surfaces() -> None:
    import rendersafe.audit  # noqa: PLC0415
    import rendersafe.middleware  # noqa: PLC0415

    assert sorted(rendersafe.audit.__all__) == [
        "AuditLog", "AuditRecord", "BatchSink", "Event", "JsonlSink", "LoggingSink",
        "SCHEMA_VERSION", "Sink", "Source", "policy_digest", "url_hmac",
    ]  # fmt: skip
    assert rendersafe.middleware.__all__ == [
        "ContextHook", "ConversationHook", "RenderSafeMiddleware",
    ]  # fmt: skip
    assert list(inspect.signature(rendersafe.middleware.RenderSafeMiddleware).parameters) == [
        "app", "policy", "audit", "paths", "formats", "json_paths", "request_id_header",
        "max_request_bytes", "conversation", "context", "context_header",
    ]  # fmt: skip


def test_result_and_finding_are_pydantic_models() -> None:
    result = Sanitizer(Policy()).run("![x](https://evil.example/x.png)", context={"c": "1"})
    assert isinstance(result, Result)
    (finding,) = result.findings
    assert isinstance(finding, Finding)
    dumped = finding.model_dump(mode="json")
    assert dumped["construct"] == "image"
    assert dumped["action"] == "removed"
    assert dumped["reasons"] == ["image_host_not_allowed"]
    assert (dumped["line"], dumped["column"]) == (1, 1)
    assert dumped["host"] == "evil.example"
    assert dumped["url"] == "https://evil.example/{5}"
    assert dumped["context"] == {"c": "1"}


def test_every_public_item_has_a_docstring() -> None:
    for name in rendersafe.__all__:
        assert inspect.getdoc(getattr(rendersafe, name)), name
