"""The layout is part of the design: imports flow one way, packages stay packages.

docs/ARCHITECTURE.md draws the layers; this test holds the code to the drawing.
Imports needed only for type checking (under `if TYPE_CHECKING:`) do not count:
they create no dependency at run time.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "src" / "rendersafe"

# Lowest first. A component may import its own modules and any component in a
# lower layer, never one in its own layer or above.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"_build", "errors", "findings", "image_proxy"}),
    frozenset({"urls", "shapes"}),
    frozenset({"policy"}),
    frozenset({"conversation"}),
    frozenset({"judging"}),
    frozenset({"config", "content_security"}),
    frozenset({"observe"}),
    frozenset({"audit"}),
    frozenset({"engine"}),
    frozenset({"html"}),
    frozenset({"rendered"}),
    frozenset({"markdown"}),
    frozenset({"lexical"}),
    frozenset({"guard"}),
    frozenset({"units"}),
    frozenset({"streaming"}),
    frozenset({"sanitizer"}),
    frozenset({"wire"}),
    frozenset({"batch"}),
    frozenset({"exchange"}),
    frozenset({"middleware", "scan"}),
    frozenset({"integrations"}),
    frozenset({"demo", "gateway"}),
    frozenset({"cli"}),
    frozenset({"__main__", "__init__"}),
)
LAYER_OF = {name: index for index, layer in enumerate(LAYERS) for name in layer}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _component(module: Path) -> str:
    parts = module.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def _runtime_imports(tree: ast.Module) -> Iterator[ast.ImportFrom | ast.Import]:
    """Import statements outside `if TYPE_CHECKING:` blocks."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def _imported_components(module: Path) -> set[str]:
    """The top-level components of rendersafe that `module` imports at run time."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    package = module.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    if module.name == "__init__.py":
        package = module.relative_to(PACKAGE.parent).parts[:-1]
    found: set[str] = set()
    for node in _runtime_imports(tree):
        if isinstance(node, ast.Import):
            names = [alias.name.split(".") for alias in node.names]
        elif node.level:
            base = list(package[: len(package) - node.level + 1])
            module_path = node.module.split(".") if node.module else None
            names = [base + (module_path or [alias.name]) for alias in node.names]
        else:
            names = [(node.module or "").split(".")]
        for name in names:
            if name[0] == "rendersafe" and len(name) > 1:
                found.add(name[1])
    return found


@pytest.mark.parametrize("module", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_flow_down_the_layers(module: Path) -> None:
    own = _component(module)
    assert own in LAYER_OF, f"{own} has no layer in this test and docs/ARCHITECTURE.md"
    upward = {
        other
        for other in _imported_components(module) - {own}
        if LAYER_OF.get(other, len(LAYERS)) >= LAYER_OF[own]
    }
    assert not upward, f"{module.name} ({own}) imports {sorted(upward)}: not below it"


def test_the_layer_test_sees_imports() -> None:
    # A test that cannot fail proves nothing: the walker must find known imports.
    assert "policy" in _imported_components(PACKAGE / "sanitizer.py")
    assert "engine" in _imported_components(PACKAGE / "units" / "settle.py")
    assert "policy" not in _imported_components(PACKAGE / "urls" / "judge.py")  # typing only


def test_at_most_twelve_modules_at_the_top() -> None:
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= 12, modules


def test_ruff_owns_the_formatting() -> None:
    skips = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in _modules()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "# fmt: skip" in line
    ]
    assert len(skips) <= 5, skips


def _exception_classes() -> Iterator[tuple[str, str]]:
    """(module, class) of every public exception class rendersafe defines."""
    for module in _modules():
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                if any(b.endswith(("Error", "Exception")) for b in bases):
                    name = ".".join(module.relative_to(PACKAGE.parent).with_suffix("").parts)
                    yield name, node.name


@pytest.mark.parametrize(("module", "name"), list(_exception_classes()))
def test_every_public_exception_is_a_rendersafe_error(module: str, name: str) -> None:
    errors = importlib.import_module("rendersafe.errors")
    if module.endswith("integrations.litellm"):
        pytest.importorskip("litellm")
    found = getattr(importlib.import_module(module), name)
    assert issubclass(found, errors.RenderSafeError), f"{module}.{name}"
    assert name in (errors.__doc__ or ""), f"errors.py's tree lacks {name}"


def test_the_exception_test_sees_exceptions() -> None:
    assert ("rendersafe.scan.records", "UnknownShapeError") in set(_exception_classes())
