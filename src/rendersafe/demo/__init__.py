"""`rendersafe demo`: a local chat page showing the middleware at work."""

from .app import build_demo
from .guard import LOCAL_HOSTS

__all__ = ["LOCAL_HOSTS", "build_demo"]
