"""Cohere's chat shapes.

    v1   {"preamble", "message", "chat_history": [{"role": "USER" | "CHATBOT" | "SYSTEM" |
          "TOOL", "message", "tool_calls", "tool_results": [{"call", "outputs"}]}],
          "documents": [{...}], "tool_results"}
    v2   {"messages": [{"role", "content": str | [{"type": "text"} | {"type": "document",
          "document": {"data", "id"}}], "tool_plan", "tool_calls"}], "documents"}
         (a document part is read as a part of its message: every string of it)

A request's `documents` are what the app retrieved: a tool's, not the user's words.
v2 messages are read as chat messages (`openai.chat_message`); v1 turns too (`message`
is their text, `tool_results` the tool's).

Sources: cohere-python `types/message.py`, `v2/types/chat_message_v2.py`;
docs.cohere.com "Chat API (v1)", "Retrieval Augmented Generation".
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["BODY_ROLES", "V1_KEYS"]

# A v1 request: its keys that say so (with `message`).
V1_KEYS = frozenset({"chat_history", "preamble"})
# Request fields and whose they are: the system prompt, and retrieved documents.
BODY_ROLES = MappingProxyType({"preamble": "system", "documents": "tool"})
