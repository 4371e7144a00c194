"""`sanitize_udf`: rendersafe as a Spark Arrow UDF (`pip install 'rendersafe[spark]'`).

    from pyspark.sql import functions as F
    from rendersafe import Policy
    from rendersafe.integrations.spark import sanitize_udf

    sanitize = sanitize_udf(Policy(allowed_image_hosts=["cdn.example.com"]))
    df = spark.read.parquet("s3://lake/chats/")
    out = df.withColumn("rendersafe", sanitize("reply", "messages"))
    out.select("id", "rendersafe.text", "rendersafe.findings").where("rendersafe.changed")

The column holds `text`, `changed` and `findings` (a JSON list; `F.from_json` reads it),
one per row, as `rendersafe.batch.sanitize_arrow` gives them: the conversation column
(optional) may be a JSON string or an array of structs in any chat shape. Spark hands
each Python worker Arrow batches (`spark.sql.execution.arrow.maxRecordsPerBatch`, 10,000
rows by default); every batch a worker runs reuses one `Sanitizer`. The policy is pickled
with the UDF: build it on the driver. Needs Spark 4.1 or newer (`arrow_udf`).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from pyspark.sql.functions import arrow_udf

from ..batch import ColumnError, sanitize_arrow
from ..policy import Policy

__all__ = ["RESULT_DDL", "sanitize_udf"]

# `rendersafe.batch.RESULT_TYPE` as Spark declares it.
RESULT_DDL = "text string, changed boolean not null, findings string not null"


def sanitize_udf(policy: Policy | None = None) -> Any:
    """A Spark UDF of one column (replies) or two (replies, conversations) returning a
    struct of `RESULT_DDL`, sanitised under `policy` (the default policy if None)."""

    def sanitize(*columns: pa.Array) -> pa.Array:
        if len(columns) not in (1, 2):
            raise ColumnError(
                f"rendersafe's UDF takes a reply column and, optionally, a conversation "
                f"column, not {len(columns)} columns"
            )
        return sanitize_arrow(*columns, policy=policy)

    return arrow_udf(sanitize, returnType=RESULT_DDL)
