"""Every code block in README.md, CHANGELOG.md and docs/**/*.md runs as it is written.

`python` blocks are run in a sandbox laid out as the examples expect (tests/docs_site.py);
one whose first line is `# requires: <module>` is skipped without that module (failed
where CI's REQUIRE_INTEGRATIONS=1 says it must run). `sh` commands run there too, each
matched against COMMANDS: run and expected to exit 0 or 1 (findings), started as a server
on a free port and asked whether it answers, or listed as not run with the reason. A `$ `
block's output is compared with what the command prints. `toml` is loaded as a policy,
`json` and `yaml` parsed, and a LiteLLM config is started with the real LiteLLM.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import docs_site
from adapters import need
from docs_site import ROOT, Block, answers, free_port, serving
from rendersafe.config import load_policy

BLOCKS = docs_site.blocks()
RUN, SERVE, LITELLM = "run", "serve", "litellm"
# How each shell command is tested: the first pattern that matches it decides.
COMMANDS: dict[str, str] = {
    r"^python3 -m venv": "the quick start's install: tests/test_newcomer.py runs it",
    r"pip install": "installs packages: tests/test_newcomer.py installs the checkout",
    r"pytest": "the test suite itself (.ci/run runs it)",
    r"^npm ci": "downloads the JavaScript renderers (.ci/run does)",
    r"^\.venv/bin/(ruff|mypy|mkdocs)": "tooling ([dev], [docs]): .ci/run runs it",
    r"benchmarks/(bench_|pathological|conversation_)": "a benchmark, minutes long (.ci/run "
    "runs each bench_*.py once, small)",
    r"benchmarks/": "a long research run (fuzzing, sampling in Chromium, counting, shrinking "
    "failures): minutes to hours",
    r"^vllm serve": "needs a model server and its weights",
    r"^curl ": "needs Ollama behind the proxy",
    r"litellm --config": LITELLM,
    r"rendersafe (proxy|demo)": SERVE,
    r"(^|/|\| )rendersafe ": RUN,
}
# Documented, not run: Chainlit is not installed in CI (docs/integrations.md says so).
NOT_RUN_MODULES = frozenset({"chainlit"})
OFFLINE = {  # LiteLLM reads its bundled maps instead of fetching them at start
    f"LITELLM_LOCAL_{name}": "True"
    for name in ("MODEL_COST_MAP", "POLICY_TEMPLATES", "BLOG_POSTS", "AUTOROUTER_PRESETS")
} | {"LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True"}


def handling(command: str) -> str:
    """What COMMANDS says of `command` (a reason, or RUN, SERVE, LITELLM)."""
    for pattern, how in COMMANDS.items():
        if re.search(pattern, command):
            return how
    raise AssertionError(f"no rule in COMMANDS for {command!r}: run it, or say why not")


def shell(how: str) -> list[tuple[str, str, str | None]]:
    """(block id, command, shown output) of every shell command handled `how`."""
    found = []
    for block in BLOCKS:
        if block.lang == "sh":
            for command, output in docs_site.commands(block.code):
                if handling(command) == how:
                    found.append((block.id, command, output))
    return found


PYTHON = [b for b in BLOCKS if b.lang == "python" and b.example is None]
RUNS, SERVES = shell(RUN), shell(SERVE)


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(docs_site.sandbox(tmp_path))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_python_block_runs(block: Block, sandbox: Path) -> None:
    if block.requires in NOT_RUN_MODULES:
        pytest.skip(f"documented, not run: {block.requires} is not installed in CI")
    if block.requires:
        need(block.requires)
    exec(compile(block.code, block.id, "exec"), {"__name__": "docs_example"})


@pytest.mark.parametrize(("where", "command", "output"), RUNS, ids=[f"{r[0]}:{r[1]}" for r in RUNS])
def test_shell_command_runs(where: str, command: str, output: str | None, sandbox: Path) -> None:
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode in (0, 1), f"{where}: {command}\n{done.stderr[-2000:]}"
    if output:
        assert done.stdout == output, where


@pytest.fixture
def started(sandbox: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    running: list[subprocess.Popen[bytes]] = []
    yield running
    for process in running:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.parametrize(("where", "command", "_"), SERVES, ids=[f"{s[0]}:{s[1]}" for s in SERVES])
def test_server_command_answers(
    where: str, command: str, _: None, started: list[subprocess.Popen[bytes]]
) -> None:
    port = free_port()
    args = serving(shlex.split(command), port)
    log = Path("server.log").open("wb")  # noqa: SIM115  (closed with the process)
    process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    started.append(process)
    path = "/" if "demo" in args else "/healthz"
    status = answers(f"http://127.0.0.1:{port}{path}", process)
    log.close()
    assert status == 200, (where, Path("server.log").read_text()[-2000:])


TOML = [b for b in BLOCKS if b.lang == "toml"]


@pytest.mark.parametrize("block", TOML, ids=[b.id for b in TOML])
def test_toml_block_is_a_valid_policy(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "[image_proxy]" in block.code:  # its key is kept out of the file
        monkeypatch.setenv("RENDERSAFE_IMAGE_PROXY__KEY", os.urandom(32).hex())
    (tmp_path / "policy.toml").write_text(block.code, encoding="utf-8")
    load_policy(tmp_path / "policy.toml")


DATA = [b for b in BLOCKS if b.lang in ("json", "yaml")]


@pytest.mark.parametrize("block", DATA, ids=[b.id for b in DATA])
def test_json_and_yaml_blocks_parse(block: Block) -> None:
    yaml = need("yaml")
    assert (json.loads if block.lang == "json" else yaml.safe_load)(block.code)


LITELLM_CONFIGS = [b for b in DATA if b.lang == "yaml" and "guardrails:" in b.code]


@pytest.mark.parametrize("block", LITELLM_CONFIGS, ids=[b.id for b in LITELLM_CONFIGS])
def test_litellm_config_starts(block: Block, started: list[subprocess.Popen[bytes]]) -> None:
    """The config starts a real LiteLLM proxy (offline), which serves its model list."""
    if importlib.util.find_spec("litellm") is None:  # not imported here: it is slow to import
        need("litellm")  # skips, or fails where CI requires it
    Path("config.yaml").write_text(block.code, encoding="utf-8")
    port, key = free_port(), "sk-docs-test-master"
    src = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, **OFFLINE, "PYTHONPATH": src, "OPENAI_API_KEY": "sk-upstream"}
    env["LITELLM_MASTER_KEY"] = key
    run = "import sys; from litellm import run_server; sys.argv[0] = 'litellm'; run_server()"
    args = ["--config", "config.yaml", "--host", "127.0.0.1", "--port", str(port)]
    with Path("litellm.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", run, *args], stdout=log, stderr=subprocess.STDOUT, env=env
        )
    started.append(process)
    url = f"http://127.0.0.1:{port}"
    status = answers(f"{url}/health/liveliness", process, 180)
    assert status == 200, Path("litellm.log").read_text()[-3000:]
    models = httpx.get(f"{url}/v1/models", headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert [m["id"] for m in models.json()["data"]] == ["gpt-4o"]


def test_every_block_is_run_or_said_not_to_be() -> None:
    """A block of no known language would go untested: each is one of these."""
    languages = {b.lang for b in BLOCKS}
    assert languages <= {"python", "sh", "toml", "yaml", "json", "text", ""}, languages
    examples = {b.example for b in BLOCKS if b.example}
    assert examples == {"arrow", "spark", "ray", "duckdb"}  # tests/test_lake_docs.py
    assert len(PYTHON) + len(RUNS) + len(SERVES) + len(LITELLM_CONFIGS) >= 30


def test_every_command_rule_is_used() -> None:
    used = {handling(c) for b in BLOCKS if b.lang == "sh" for c, _ in docs_site.commands(b.code)}
    assert used == set(COMMANDS.values())


def test_the_integrations_page_has_an_example_of_each_integration() -> None:
    page = ROOT / "docs" / "integrations.md"
    modules = {b.requires for b in PYTHON if b.path == page}
    assert modules == {"langchain", "pydantic_ai", "agents", "rendersafe", "chainlit"}
