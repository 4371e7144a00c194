"""The docs site as the tests read it: every Markdown page, and docs/hooks.py (the
generated tables), loaded as MkDocs loads it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"


def hooks() -> ModuleType:
    """docs/hooks.py, imported from its path (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("rendersafe_docs_hooks", DOCS / "hooks.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page(name: str) -> str:
    """A page of the site (`reference/policy.md`) with its generated tables filled in."""
    text = (DOCS / name).read_text(encoding="utf-8")
    rendered: str = hooks().render(text)
    return rendered


def markdown_files() -> list[Path]:
    """README.md, CHANGELOG.md and every page under docs/, in a stable order."""
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))]
