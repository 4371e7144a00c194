"""Compile the modules a stream runs for every chunk with mypyc, where this machine can.

Which modules, and how a process picks the compiled build or the sources, is in
`src/rendersafe/_build.py`. A machine without a C compiler, or `RENDERSAFE_BUILD_NATIVE=0`,
gets the interpreted build: the same code, more CPU per chunk. An editable install gets
the compiled modules in the source tree (ignored by git), a wheel gets them inside.
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCES = Path("src")
PACKAGE = "rendersafe"
GROUP = f"{PACKAGE}__mypyc"  # the library the compiled modules share
# mypy runs where the package's dependencies are not installed: they are read as Any
# (the compiled modules call them as any Python caller does).
MYPY_OPTIONS = ["--ignore-missing-imports", "--follow-imports=silent"]


class NativeBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """hatchling's custom build hook: compiles before a wheel is assembled."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        tree = Path(self.root) / SOURCES
        if version == "editable":
            _remove_built(tree)
        if os.environ.get("RENDERSAFE_BUILD_NATIVE", "1") == "0":
            return
        self._workspace = tempfile.TemporaryDirectory(prefix="rendersafe-native-")
        try:
            built = compile_native(tree, Path(self._workspace.name))
        except (OSError, subprocess.CalledProcessError) as exc:
            detail = getattr(exc, "output", "") or str(exc)
            self.app.display_warning(
                "rendersafe: the per-chunk modules were not compiled (the interpreted "
                f"build works the same, with more CPU per chunk):\n{detail[-2000:]}"
            )
            return
        if version == "editable":
            for relative, path in built.items():
                shutil.copy2(path, tree / relative)
        else:
            build_data["force_include"].update({str(p): r for r, p in built.items()})
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact: str) -> None:
        workspace = getattr(self, "_workspace", None)
        if workspace is not None:
            workspace.cleanup()


def native_modules(tree: Path) -> tuple[list[str], str]:
    """`NATIVE_MODULES` and `DIGEST_FILE` as `_build.py` writes them (read, not run)."""
    found: dict[str, Any] = {}
    module = ast.parse((tree / PACKAGE / "_build.py").read_text(encoding="utf-8"))
    for node in module.body:
        if not isinstance(node, ast.Assign):
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id in ("NATIVE_MODULES", "DIGEST_FILE"):
            found[target.id] = ast.literal_eval(node.value)
    return list(found["NATIVE_MODULES"]), str(found["DIGEST_FILE"])


def compile_native(tree: Path, workspace: Path) -> dict[str, Path]:
    """Compile the package's `NATIVE_MODULES` in `workspace`; return each file built
    (and the digest of the sources it was built from) by its path in a wheel."""
    modules, digest_file = native_modules(tree)
    work = workspace / "src"
    shutil.copytree(
        tree / PACKAGE,
        work / PACKAGE,
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", digest_file),
    )
    paths = [f"{PACKAGE}/{module}" for module in modules]
    setup = (
        "from setuptools import setup\n"
        "from mypyc.build import mypycify\n"
        f"modules = mypycify({MYPY_OPTIONS + paths!r}, group_name={PACKAGE!r})\n"
        "setup(name='rendersafe-native', ext_modules=modules,"
        " script_args=['build_ext', '--inplace'])\n"
    )
    subprocess.run(
        [sys.executable, "-c", setup],
        cwd=work,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPY_CACHE_DIR": str(workspace / "mypy_cache")},
    )
    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    stems = [path.removesuffix(".py") for path in paths]
    built = {f"{stem}{suffix}": work / f"{stem}{suffix}" for stem in stems}
    built[f"{GROUP}{suffix}"] = work / f"{GROUP}{suffix}"
    digest = hashlib.sha256(b"".join((work / path).read_bytes() for path in paths))
    (work / PACKAGE / digest_file).write_text(digest.hexdigest() + "\n", encoding="ascii")
    built[f"{PACKAGE}/{digest_file}"] = work / PACKAGE / digest_file
    missing = [str(path) for path in built.values() if not path.is_file()]
    if missing:
        raise OSError(f"mypyc did not build {', '.join(missing)}")
    return built


def _remove_built(tree: Path) -> None:
    """Take an earlier editable build out of the source tree."""
    _, digest_file = native_modules(tree)
    for path in [
        *tree.glob(f"{GROUP}.*"),
        *(tree / PACKAGE).rglob("*.so"),
        *(tree / PACKAGE).rglob("*.pyd"),
        tree / PACKAGE / digest_file,
    ]:
        path.unlink(missing_ok=True)
