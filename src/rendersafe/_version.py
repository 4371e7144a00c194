"""The version of rendersafe (one place; the audit records carry it)."""

__version__ = "0.1.0"
