"""The part readers of every family, by part type and by key (see `content`)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import ai_sdk, anthropic, bedrock, gemini, langchain, openai
from .common import file_part, image_part, reasoning_part, text_part
from .content import PartReader

__all__ = ["KEYED", "TYPED", "typed_family"]

TYPED: Mapping[str, PartReader] = MappingProxyType(
    {
        "text": text_part,
        "image": image_part,
        "file": file_part,
        "reasoning": reasoning_part,
        **openai.PARTS,
        **anthropic.PARTS,
        **ai_sdk.PARTS,
        **langchain.PARTS,
    }
)
KEYED: Mapping[str, PartReader] = MappingProxyType({**gemini.KEYED, **bedrock.KEYED})
_STARTS = ai_sdk.FAMILIES
_ENDS = ((anthropic.TOOL_RESULT_END, anthropic.tool_result), *openai.ITEM_FAMILIES)


def typed_family(kind: str) -> PartReader | None:
    """The reader of a part type named by its start (`tool-<name>`) or end
    (`web_search_tool_result`, `mcp_call`, `function_call_output`)."""
    for start, read in _STARTS:
        if kind.startswith(start):
            return read
    for end, read in _ENDS:
        if kind.endswith(end):
            return read
    return None
