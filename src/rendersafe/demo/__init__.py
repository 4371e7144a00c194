"""`rendersafe demo`: a local chat page showing the middleware at work."""

from .app import build_demo

__all__ = ["build_demo"]
