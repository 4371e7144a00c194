"""`rendersafe demo`: a local chat page showing the middleware at work, and the fake
attacker server its prompt-injected reply points at."""

from .app import build_demo
from .attacker import Attacker, AttackerLog
from .guard import LOCAL_HOSTS
from .serve import serve

__all__ = ["LOCAL_HOSTS", "Attacker", "AttackerLog", "build_demo", "serve"]
