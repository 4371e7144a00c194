"""Ways into rendersafe from the gateways teams already run.

    rendersafe.integrations.litellm.RenderSafeGuardrail    a LiteLLM proxy guardrail
                                                           (`pip install rendersafe[litellm]`)

Each integration lives in its own module and imports its gateway there, so importing
this package needs none of them.
"""
