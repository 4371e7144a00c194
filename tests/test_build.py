"""The compiled build (hatch_build.py, src/rendersafe/_build.py): a process runs the
per-chunk modules compiled only when they were built from the sources it has, and on
the interpreted modules when asked to."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rendersafe
from rendersafe import _build

ROOT = Path(__file__).parent.parent
sys.path.insert(0, str(ROOT))
import hatch_build  # noqa: E402  # the build hook, beside pyproject.toml

PACKAGE = Path(rendersafe.__file__).parent
PROBE = "import rendersafe._build as b, rendersafe.streaming as s; print(b.compiled(), s.__file__)"


def _probe(path: Path | None = None, **env: str) -> tuple[bool, str]:
    """`compiled()` and the stream module's file, in a new process."""
    environment = {"PATH": "/usr/bin:/bin", **env}
    if path is not None:
        environment["PYTHONPATH"] = str(path)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, env=environment
    )
    flag, file = done.stdout.split()
    return flag == "True", file


def test_the_hook_compiles_what_the_package_lists() -> None:
    modules, digest_file = hatch_build.native_modules(ROOT / "src")
    assert tuple(modules) == _build.NATIVE_MODULES
    assert digest_file == _build.DIGEST_FILE


def test_the_hook_records_the_digest_the_package_checks() -> None:
    # The hook hashes the sources it compiled as `native_digest` hashes them.
    paths = [ROOT / "src" / "rendersafe" / module for module in _build.NATIVE_MODULES]
    joined = b"".join(path.read_bytes() for path in paths)
    assert hashlib.sha256(joined).hexdigest() == _build.native_digest(ROOT / "src" / "rendersafe")


def test_asked_for_the_interpreted_modules_a_process_gets_them() -> None:
    flag, file = _probe(RENDERSAFE_NATIVE="0")
    assert not flag
    assert file.endswith("streaming.py")


@pytest.mark.skipif(not _build.compiled(), reason="this install is not compiled")
def test_an_edited_source_is_run_instead_of_its_stale_build(tmp_path: Path) -> None:
    # A copy of the compiled install: as built it runs compiled; once a compiled
    # module's source changes, every one of them is loaded from its source.
    copy = tmp_path / "rendersafe"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for group in PACKAGE.parent.glob(f"{hatch_build.GROUP}.*"):
        shutil.copy2(group, tmp_path / group.name)
    assert _probe(tmp_path) == (True, str(next(copy.glob("streaming.*.so"))))

    segment = copy / "units" / "segment.py"
    segment.write_text(segment.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert _probe(tmp_path) == (False, str(copy / "streaming.py"))


def test_without_a_record_of_its_build_a_process_runs_the_sources(tmp_path: Path) -> None:
    copy = tmp_path / "rendersafe"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / _build.DIGEST_FILE).unlink(missing_ok=True)
    assert _probe(tmp_path) == (False, str(copy / "streaming.py"))
