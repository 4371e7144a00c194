"""The audit log: what was removed, where and why, without storing the secret.

    from rendersafe.audit import AuditLog, JsonlSink, LoggingSink
    audit = AuditLog([JsonlSink("audit.jsonl"), LoggingSink("rendersafe.audit")])
    Sanitizer(policy, audit=audit).run(reply, context={"conversation_id": "c1"})
    audit.close()                      # or `with AuditLog(...) as audit:`

`rendersafe audit summary audit.jsonl` counts the records by host, construct, reason
and day.
"""

from .log import AuditLog, BatchSink, Sink
from .record import SCHEMA_VERSION, AuditRecord, Event, Source, policy_digest, url_hmac
from .sinks import JsonlSink, LoggingSink

__all__ = [
    "SCHEMA_VERSION",
    "AuditLog",
    "AuditRecord",
    "BatchSink",
    "Event",
    "JsonlSink",
    "LoggingSink",
    "Sink",
    "Source",
    "policy_digest",
    "url_hmac",
]
