"""A newcomer's path, in a fresh venv: the README's quick start, then each use's example.

The checkout (its sources, fixtures and build files) is copied to a temporary directory,
and the README's first command runs there as written: `python3 -m venv .venv`, `pip
install -e '.[test]'`, `rendersafe scan fixtures/transcripts/`, which exits 1 (findings).
Then, with that venv: the bot's and the middleware's Python examples, the proxy's install
line and the proxy itself (asked whether it answers), and the scan with `--fix`. The
install sets `RENDERSAFE_BUILD_NATIVE=0` (the interpreted build, which behaves the same:
hatch_build.py), so no C compile runs; it still fetches the packages, a few minutes.
LiteLLM's example needs its own large install: tests/test_docs_blocks.py starts that
config with the real LiteLLM in CI's venv.

Marked slow: `.venv/bin/python -m pytest` leaves it out, `.ci/run` runs it (`-m slow`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

import docs_site
from docs_site import ROOT, answers, free_port, serving

pytestmark = pytest.mark.slow
README = docs_site.blocks([ROOT / "README.md"])
SHELL = [command for b in README if b.lang == "sh" for command, _ in docs_site.commands(b.code)]
# What a user's checkout holds that the path reads; built and cached files are left behind.
COPIED = ("pyproject.toml", "README.md", "hatch_build.py", "src", "fixtures")
LEFT = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "_native.sha256", "*.egg-info")


def _bash(command: str, cwd: Path, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["RENDERSAFE_BUILD_NATIVE"] = "0"
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout after the README's first command, which must find the fixtures' attacks."""
    where = tmp_path_factory.mktemp("newcomer") / "rendersafe"
    where.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, where / name, ignore=LEFT)
        else:
            shutil.copy(source, where / name)
    (first,) = (c for c in SHELL if c.startswith("python3 -m venv"))
    done = _bash(first, where)
    assert done.returncode == 1, f"{first}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert "attacker.example" in done.stdout
    return where


PYTHON = [b for b in README if b.lang == "python"]


@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_a_readme_example_runs_in_the_fresh_venv(block: docs_site.Block, checkout: Path) -> None:
    (checkout / "example.py").write_text(block.code, encoding="utf-8")
    done = _bash(".venv/bin/python example.py", checkout, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert r"\[image removed\]" in done.stdout  # the marker, escaped: inert Markdown


def test_the_scan_with_fix_writes_clean_copies(checkout: Path) -> None:
    (command,) = (c for c in SHELL if " scan " in c and "--fix" in c)
    done = _bash(command, checkout, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]  # every finding fixed, as `ruff --fix`
    assert "Warning" not in done.stderr, done.stderr[-3000:]  # the install's settings are known
    assert (checkout / "cleaned" / "openai-chat.jsonl").exists()


def test_the_proxy_installs_and_answers(checkout: Path) -> None:
    (install,) = (c for c in SHELL if "pip install -e '.[proxy]'" in c)
    assert _bash(install, checkout).returncode == 0
    (command,) = (c for c in SHELL if "rendersafe proxy" in c)
    port = free_port()
    process = subprocess.Popen(serving(shlex.split(command), port), cwd=checkout)
    try:
        assert answers(f"http://127.0.0.1:{port}/healthz", process) == 200
    finally:
        process.terminate()
        process.wait(timeout=30)
