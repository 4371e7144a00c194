"""Ways into rendersafe from the gateways teams already run.

    rendersafe.integrations.litellm.RenderSafeGuardrail    a LiteLLM proxy guardrail
                                                           (`pip install rendersafe[litellm]`)
    rendersafe.integrations.spark.sanitize_udf             a Spark Arrow UDF ([spark])
    rendersafe.integrations.ray.Sanitize                   a Ray Data batch transform ([ray])
    rendersafe.integrations.duckdb.register                a DuckDB SQL function ([duckdb])

The lake engines' adapters are thin: each hands its engine's Arrow batches to
`rendersafe.batch.sanitize_arrow` (docs/lake.md says which engine to choose when).

Each integration lives in its own module and imports its gateway there, so importing
this package needs none of them.
"""
