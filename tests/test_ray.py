"""`rendersafe.integrations.ray.Sanitize` on a real local Ray (two CPUs): the lake's
Parquet file (tests/lake_cases.py) read by Ray Data and sanitised by a pool of actors
equals `Sanitizer.run` row by row; bad cells each get a result.

Skipped without `ray[data]`, unless REQUIRE_RAY_TEST=1 (.ci/run sets it).
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest

from lake_cases import POLICY, bad_rows, lake, mismatches
from rendersafe.batch import PLACEHOLDER, ColumnError

REQUIRED = os.environ.get("REQUIRE_RAY_TEST") == "1"
if not REQUIRED and importlib.util.find_spec("ray") is None:
    pytest.skip(
        "needs ray[data]: pip install 'rendersafe[ray]' (done by .ci/run)",
        allow_module_level=True,
    )
# Ray on loopback only (read when ray is imported; its default is the address of the
# interface that routes out): the tests talk to 127.0.0.1 alone.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
import ray  # noqa: E402  (after the skip above)
import ray.data  # noqa: E402  (after the skip above)

from rendersafe.integrations.ray import Sanitize  # noqa: E402  (after the skip above)

# Ray warns about its own settings (deprecations inside ray.data): not this test's subject.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray", "ignore::UserWarning:ray")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _sanitised(dataset: Any, **settings: Any) -> pa.Table:
    out = dataset.map_batches(
        Sanitize,
        fn_constructor_kwargs={"policy": POLICY, **settings},
        batch_format="pyarrow",
        concurrency=2,
        # Half a logical CPU each: two actors holding both of Ray's CPUs would leave none
        # for the task that lists the files, and wait for it forever (two cores run both).
        num_cpus=0.5,
    )
    return pa.concat_tables(ray.get(out.to_arrow_refs())).sort_by("id")


@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("column", ["messages", "conversation"])
def test_the_lake_equals_sanitize_row_by_row(column: str) -> None:
    dataset = ray.data.read_parquet(str(lake().replies), override_num_blocks=4)
    table = _sanitised(dataset, conversation=column)
    assert table.num_rows == lake().rows
    assert mismatches(table["id"].to_pylist(), table["rendersafe"].to_pylist()) == []


@pytest.mark.usefixtures("local_ray")
def test_keep_carries_only_the_columns_named() -> None:
    dataset = ray.data.read_parquet(str(lake().replies), override_num_blocks=2)
    table = _sanitised(dataset, conversation="messages", keep=("id",))
    assert table.column_names == ["id", "rendersafe"]
    assert mismatches(table["id"].to_pylist(), table["rendersafe"].to_pylist()) == []


def test_keep_names_a_column_the_batch_lacks() -> None:
    batch = pa.table({"id": ["1"], "reply": ["hi"]})
    with pytest.raises(ColumnError, match="no column 'row'"):
        Sanitize(POLICY, keep=("row",))(batch)


@pytest.mark.usefixtures("local_ray")
def test_bad_cells_each_get_a_result() -> None:
    cases = bad_rows()
    rows = {
        "id": [f"{n:02d}" for n in range(len(cases))],
        "reply": [r for r, _ in cases],
        "conversation": [c for _, c in cases],
    }
    dataset = ray.data.from_arrow(pa.table(rows)).repartition(2)
    results = _sanitised(dataset, conversation="conversation")["rendersafe"].to_pylist()
    assert len(results) == len(cases)
    assert results[0]["text"] is None
    assert results[1]["text"] == PLACEHOLDER
    assert all(isinstance(json.loads(row["findings"]), list) for row in results)
