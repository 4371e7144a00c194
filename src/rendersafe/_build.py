"""What this build of rendersafe is: its version, and whether the modules a stream
runs for every chunk are compiled.

`pip install` compiles `NATIVE_MODULES` with mypyc where it can (`hatch_build.py`: a C
compiler, and mypy from PyPI at build time; `RENDERSAFE_BUILD_NATIVE=0` skips it): the
same source, a few times cheaper per chunk. The build records the SHA-256 of the
sources it compiled (`_native.sha256`). When those sources have changed since (an
editable install being edited), or `RENDERSAFE_NATIVE=0` is set, every one of them is
loaded from its `.py` file instead: the code that runs is always the code in the tree.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

__all__ = ["NATIVE_MODULES", "__version__", "compiled", "native_digest"]

__version__ = "0.1.0"

# Compiled together (they call one another natively), so loaded all from one build or
# all from source. `hatch_build.py` reads this tuple.
NATIVE_MODULES = ("engine/triggers.py", "units/blocks.py", "units/segment.py", "streaming.py")
DIGEST_FILE = "_native.sha256"
_PACKAGE = Path(__file__).parent


def native_digest(package: Path = _PACKAGE) -> str:
    """The SHA-256 of the sources of `NATIVE_MODULES` under `package`, in order."""
    digest = hashlib.sha256()
    for path in NATIVE_MODULES:
        digest.update((package / path).read_bytes())
    return digest.hexdigest()


def compiled() -> bool:
    """Do the per-chunk modules run compiled in this process?"""
    spec = importlib.util.find_spec(f"{__package__}.streaming")
    return spec is not None and not str(spec.origin).endswith(".py")


class _FromSource:
    """Finds `NATIVE_MODULES` as their `.py` files, ahead of any compiled build."""

    def __init__(self, package: str) -> None:
        self._paths = {
            f"{package}.{path.removesuffix('.py').replace('/', '.')}": _PACKAGE / path
            for path in NATIVE_MODULES
        }

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        source = self._paths.get(name)
        if source is None or not source.is_file():
            return None  # not ours, or shipped without its source: the usual finders
        return importlib.util.spec_from_file_location(name, source)


def _built_from_these_sources() -> bool:
    """Was there a compiled build, made from the sources here now? True when only the
    build can be read (one that ships compiled modules without their sources)."""
    try:
        recorded = (_PACKAGE / DIGEST_FILE).read_text(encoding="ascii").strip()
    except OSError:
        return False
    try:
        return recorded == native_digest()
    except OSError:
        return True


# Imported first by the package, before any of `NATIVE_MODULES`.
if os.environ.get("RENDERSAFE_NATIVE", "1") == "0" or not _built_from_these_sources():
    sys.meta_path.insert(0, _FromSource(__package__ or "rendersafe"))
