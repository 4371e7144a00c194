"""`rendersafe.integrations.spark.sanitize_udf` on a real Spark in local mode (Debian's
Java): the lake's Parquet file (tests/lake_cases.py) sanitised with its conversations
as arrays of structs and as JSON strings equals `Sanitizer.run` row by row, and bad
cells each get a result without failing the job.

Skipped without pyspark or Java, unless REQUIRE_SPARK_TEST=1 (.ci/run sets it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from lake_cases import POLICY, bad_rows, lake, mismatches
from rendersafe.batch import PLACEHOLDER

REQUIRED = os.environ.get("REQUIRE_SPARK_TEST") == "1"
if not REQUIRED and (importlib.util.find_spec("pyspark") is None or not shutil.which("java")):
    pytest.skip(
        "needs pyspark and Java: pip install 'rendersafe[spark]' (done by .ci/run)",
        allow_module_level=True,
    )
from pyspark.sql import SparkSession  # noqa: E402  (after the skip above)

from rendersafe.integrations.spark import sanitize_udf  # noqa: E402  (after the skip above)


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    # Spark's workers run this interpreter, with rendersafe on its path.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("rendersafe-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.parametrize("column", ["messages", "conversation"])
def test_the_lake_equals_sanitize_row_by_row(spark: Any, column: str) -> None:
    frame = spark.read.parquet(str(lake().replies))
    udf = sanitize_udf(POLICY)
    out = frame.select("id", udf("reply", column).alias("r")).orderBy("id").collect()
    ids = [row["id"] for row in out]
    assert mismatches(ids, [row["r"].asDict() for row in out]) == []
    assert len(out) == lake().rows


def test_bad_cells_each_get_a_result(spark: Any) -> None:
    cases = bad_rows()
    frame = spark.createDataFrame(
        [(i, r, c) for i, (r, c) in enumerate(cases)], "n int, reply string, conversation string"
    )
    out = frame.select("n", sanitize_udf()("reply", "conversation").alias("r")).orderBy("n")
    rows = [row["r"].asDict() for row in out.collect()]
    assert len(rows) == len(cases)
    assert rows[0]["text"] is None
    assert rows[1]["text"] == PLACEHOLDER
    assert all(isinstance(json.loads(row["findings"]), list) for row in rows)


def test_a_column_that_is_not_text_is_withheld_row_by_row(spark: Any) -> None:
    frame = spark.createDataFrame([(1,), (None,)], "reply int")
    rows = [row["r"].asDict() for row in frame.select(sanitize_udf()("reply").alias("r")).collect()]
    assert [row["text"] for row in rows] == [PLACEHOLDER, None]


def test_the_findings_column_reads_as_json_in_spark(spark: Any) -> None:
    from pyspark.sql import functions as F  # noqa: PLC0415, N812  (Spark's own idiom)

    frame = spark.createDataFrame([("![x](https://evil.example/x.png)",)], "reply string")
    out = frame.select(sanitize_udf()("reply").alias("r")).select(
        F.from_json("r.findings", "array<struct<construct:string, reasons:array<string>>>")
        .getItem(0)
        .alias("f")
    )
    (row,) = out.collect()
    assert (row["f"]["construct"], row["f"]["reasons"]) == ("image", ["image_host_not_allowed"])
