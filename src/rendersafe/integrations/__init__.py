"""Ways into rendersafe from the gateways, frameworks and chat UIs teams already run.

    rendersafe.integrations.litellm.RenderSafeGuardrail      a LiteLLM proxy guardrail
                                                             (`pip install rendersafe[litellm]`)
    rendersafe.integrations.langchain.RenderSafeMiddleware   a LangChain v1 agent middleware;
    rendersafe.integrations.langchain.RenderSafeTransform    a stream transform (LCEL,
                                                             stream_mode="messages")
                                                             (`rendersafe[langchain]`)
    rendersafe.integrations.pydantic_ai.RenderSafe           a Pydantic AI capability
                                                             (`rendersafe[pydantic-ai]`)
    rendersafe.integrations.openai_agents.RenderSafeModel    an OpenAI Agents SDK model
                                                             wrapper (`rendersafe[openai-agents]`)
    rendersafe.integrations.openwebui.Filter                 an Open WebUI filter function
    rendersafe.wrap_stream                                   a generator of reply text, for
                                                             Gradio, Streamlit, Chainlit
    rendersafe.integrations.spark.sanitize_udf               a Spark Arrow UDF ([spark])
    rendersafe.integrations.ray.Sanitize                     a Ray Data batch transform ([ray])
    rendersafe.integrations.duckdb.register                  a DuckDB SQL function ([duckdb])

The lake engines' adapters are thin: each hands its engine's Arrow batches to
`rendersafe.batch.sanitize_arrow` (docs/lake.md says which engine to choose when).

Each integration lives in its own module and imports its framework there, so importing
this package needs none of them. docs/integrations.md has an example of each.
"""
