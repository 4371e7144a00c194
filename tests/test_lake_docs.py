"""docs/lake.md's examples, run as written on a small lake: each `<!-- example: NAME -->`
block, in a folder holding `lake/replies.parquet`. An engine's block is skipped without
its package, unless CI's REQUIRE_<ENGINE>_TEST=1 says it must run."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import lake_cases  # noqa: F401  (puts benchmarks/ on the path)
import lake_data
from rendersafe.batch import RESULT_TYPE

DOC = Path(__file__).parent.parent / "docs" / "lake.md"
BLOCK = re.compile(r"<!-- example: (\w+) -->\n```python\n(.*?)```", re.DOTALL)
EXAMPLES = dict(BLOCK.findall(DOC.read_text(encoding="utf-8")))
NEEDS = {"arrow": "pyarrow", "spark": "pyspark", "ray": "ray", "duckdb": "duckdb"}
# Ray and Spark warn about their own settings: not what these examples show.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray", "ignore::UserWarning:ray")


def test_every_engine_has_an_example() -> None:
    assert sorted(EXAMPLES) == sorted(NEEDS)


@pytest.mark.parametrize("name", sorted(NEEDS))
def test_the_example_runs(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    required = os.environ.get(f"REQUIRE_{name.upper()}_TEST") == "1"
    if importlib.util.find_spec(NEEDS[name]) is None and not required:
        pytest.skip(f"needs {NEEDS[name]}: pip install -e '.[{name}]'")
    if name == "spark" and not shutil.which("java") and not required:
        pytest.skip("needs Java for Spark")
    if name == "ray":
        monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only
    lake_data.write(tmp_path / "lake", 200)
    monkeypatch.chdir(tmp_path)
    exec(compile(EXAMPLES[name], f"docs/lake.md:{name}", "exec"), {})
    written = sorted(p for p in (tmp_path / "lake").iterdir() if p.name.startswith("sanitised"))
    if written:
        table = pq.read_table(written[0])
        assert table.num_rows == 200
        assert table.schema.field("rendersafe").type.equals(RESULT_TYPE, check_metadata=False)
