"""The docs site as the tests read it: every Markdown file's code blocks, docs/hooks.py (the
generated tables) loaded as MkDocs loads it, and a sandbox to run the examples in.

A block's language says how it is tested (tests/test_docs_blocks.py): `python` is run,
`sh` is run command by command (`$ ` lines with the output under them compared), `toml`
is loaded as a policy, `yaml` and `json` parsed (a LiteLLM config also started); a block
without a language, or `text`, is output shown, not input.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import httpx

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(
    r"^(?P<fence>```+)(?P<lang>[^\n`]*)\n(?P<code>.*?)^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL
)
# docs/lake.md names its examples; tests/test_lake_docs.py runs them on a lake it writes.
EXAMPLE = re.compile(r"<!-- example: (\w+) -->\n$")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its text."""

    path: Path
    line: int
    lang: str
    code: str
    example: str | None  # the `<!-- example: NAME -->` before it, if any

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def requires(self) -> str | None:
        """The module a `# requires: <module>` first line names."""
        first, prefix = self.code.split("\n", 1)[0], "# requires: "
        return first.removeprefix(prefix).strip() if first.startswith(prefix) else None


def markdown_files() -> list[Path]:
    """README.md, CHANGELOG.md and every page under docs/, in a stable order."""
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))]


def blocks(paths: list[Path] | None = None) -> list[Block]:
    """Every fenced block of `paths` (default: every Markdown file)."""
    found = []
    for path in paths or markdown_files():
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            before = EXAMPLE.search(text, 0, match.start())
            line = text.count("\n", 0, match.start()) + 1
            name = before.group(1) if before and before.end() == match.start() else None
            lang = match.group("lang").strip()
            found.append(Block(path, line, lang, match.group("code"), name))
    return found


def commands(code: str) -> list[tuple[str, str | None]]:
    """A shell block's commands, each with the output shown under it (`$ ` blocks), or None.

    Continuation lines are joined and comments dropped."""
    lines = code.replace("\\\n", " ").splitlines()
    if any(line.startswith("$ ") for line in lines):
        found: list[tuple[str, str | None]] = []
        for line in lines:
            if line.startswith("$ "):
                found.append((line[2:], ""))
            elif found:
                found[-1] = (found[-1][0], f"{found[-1][1]}{line}\n")
        return found
    plain = (line.split(" #", 1)[0].strip() for line in lines)
    return [(line, None) for line in plain if line and not line.startswith("#")]


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


def readme_policy() -> str:
    """The README's policy file (its TOML block): the sandbox's `rendersafe.toml`."""
    (toml,) = (b.code for b in blocks([ROOT / "README.md"]) if b.lang == "toml")
    return toml


def sandbox(where: Path) -> Path:
    """A directory laid out as the examples expect: the shipped fixtures, `logs/` (a copy of
    the transcripts), `export.jsonl`, `reply.md`, `rendersafe.toml`, and `.venv/bin` (this
    interpreter's, so `.venv/bin/rendersafe` is the one under test)."""
    (where / "fixtures").symlink_to(ROOT / "fixtures")
    shutil.copytree(ROOT / "fixtures" / "transcripts", where / "logs")
    shutil.copy(ROOT / "fixtures" / "transcripts" / "openai-chat.jsonl", where / "export.jsonl")
    shutil.copy(ROOT / "fixtures" / "replies" / "exfiltration.md", where / "reply.md")
    (where / "rendersafe.toml").write_text(readme_policy(), encoding="utf-8")
    (where / ".venv").mkdir()
    (where / ".venv" / "bin").symlink_to(Path(sys.executable).parent)
    return where


def free_port() -> int:
    """A port nothing listens on now, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serving(args: list[str], port: int) -> list[str]:
    """A `rendersafe proxy` or `demo` command line made to listen on `port` of 127.0.0.1."""
    if "demo" in args:
        return [*args, "--port", str(port)]
    kept = [a for i, a in enumerate(args) if a != "--listen" and args[i - 1] != "--listen"]
    return [*kept, "--listen", f"127.0.0.1:{port}"]


def answers(url: str, process: subprocess.Popen[bytes], timeout: float = 120) -> int:
    """The status of the first answer from `url`, waiting for the server to start."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            return httpx.get(url, timeout=5).status_code
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError(f"no answer from {url} (exit code {process.poll()})")
