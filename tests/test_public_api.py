"""The public surface changes only on purpose."""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import rendersafe
from rendersafe import Finding, Policy, Result, Sanitizer, sanitize


def test_exported_names() -> None:
    assert sorted(rendersafe.__all__) == [
        "Action", "Construct", "Conversation", "Finding", "ImageProxy", "InputTooLargeError",
        "Policy", "PolicyError", "Reason", "RenderSafeError", "Result", "SanitizeError",
        "Sanitizer", "StreamSanitizer", "Thresholds", "asanitize_stream", "csp", "mint_canary",
        "sanitize", "sanitize_stream", "wrap_stream",
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
    assert list(inspect.signature(rendersafe.wrap_stream).parameters) == [
        "gen", "policy", "conversation", "cumulative", "sanitizer", "context",
    ]  # fmt: skip
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
        "max_request_bytes", "conversation", "context", "context_header", "sniff",
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
    # A class mypyc compiled keeps its signatures, not its docstrings: read its source.
    for name in rendersafe.__all__:
        item = getattr(rendersafe, name)
        assert inspect.getdoc(item) or _source_docstring(item), name


def _source_docstring(item: object) -> str | None:
    built = Path(str(sys.modules[getattr(item, "__module__", "")].__file__))
    source = built.with_name(built.name.split(".")[0] + ".py")
    name = getattr(item, "__name__", "")
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == name:
            return ast.get_docstring(node)
    return None
