"""Every example in docs/integrations.md runs as it is written (each names the package it
needs in its first line: `# requires: <module>`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adapters import need

DOC = Path(__file__).parent.parent / "docs" / "integrations.md"
BLOCKS = re.findall(
    r"```python\n(# requires: (\S+)\n.*?)```", DOC.read_text(encoding="utf-8"), re.S
)
# Documented, not run: Chainlit is not installed in CI (see the doc).
NOT_RUN = frozenset({"chainlit"})
RUN = [(code, module) for code, module in BLOCKS if module not in NOT_RUN]


def test_the_doc_has_an_example_of_each_integration() -> None:
    wanted = {"langchain", "pydantic_ai", "agents", "rendersafe", "chainlit"}
    assert {module for _, module in BLOCKS} == wanted
    assert len(RUN) == 5


@pytest.mark.parametrize(("code", "module"), RUN, ids=[f"{m}-{i}" for i, (_, m) in enumerate(RUN)])
def test_the_example_runs(code: str, module: str) -> None:
    need(module)
    exec(compile(code, f"{DOC.name}:{module}", "exec"), {"__name__": "example"})
