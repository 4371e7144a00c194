"""The audit log: what was removed, where and why, without storing the secret.

from rendersafe.audit import AuditLog
records = []
audit = AuditLog([records.append])
app.add_middleware(RenderSafeMiddleware, policy=policy, audit=audit)
"""

from .log import AuditLog, Sink
from .record import SCHEMA_VERSION, AuditRecord, Source, policy_digest

__all__ = ["SCHEMA_VERSION", "AuditLog", "AuditRecord", "Sink", "Source", "policy_digest"]
