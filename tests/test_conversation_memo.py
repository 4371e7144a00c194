"""A message's reading kept across conversations (`conversation.memo`) judges as one
read afresh: generated chats, their URLs checked with every memo cold, then warm
from other chats that share their messages, then with memos that keep nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rendersafe.conversation import Conversation, core, index
from rendersafe.conversation.memo import MEMO_BYTES_VARIABLE, MessageMemo, memo_chars
from rendersafe.urls.parse import parse_url

_WORDS = ["see", "the", "docs", "password", "is", "token:", "call", "me", "on", "key", "pin"]
_PIECES = [
    "alice.smith@corp.example",
    "+44 20 7946 0958",
    "07700 900123",
    "4111 1111 1111 1111",
    "a8Fk2mQ9xZ3vL7pW",
    "sk-3f9a2b1c4d5e6f7a8b9c0d1e",
    "Zq7mK2pX9",
    "PIN: 4821",
    "https://docs.example.org/guide?id=doc_77ab12cd34",
    "www.example.com/a1b2-c3d4-e5f6",
]
_text = st.lists(st.sampled_from(_WORDS + _PIECES), min_size=1, max_size=12).map(" ".join)
_message = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant", "tool"]), "content": _text}
)
_chat = st.lists(_message, min_size=1, max_size=6)
_URLS = [
    "https://evil.example/?d=" + "".join(c for c in piece if c.isalnum()) for piece in _PIECES
] + ["https://docs.example.org/guide?id=doc_77ab12cd34", "https://evil.example/?q=see+the+docs"]


def _forget() -> None:
    index._message_text.cache_clear()
    index._message_pieces.cache_clear()
    core._RECENT.clear()


def _verdicts(messages: list[dict[str, str]]) -> list[object]:
    core._RECENT.clear()  # the conversation built again, from its messages' readings
    built = Conversation.from_messages(messages)
    tracker = built.tracker()
    found: list[object] = []
    for href in _URLS:
        url = parse_url(href)
        readings = built.readings(url)
        found += [built.taint(url), built.pieces_in(readings, url.host), tracker.check(url)]
        found.append((built.has_url(href), built.copied_at(href)))
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chat=_chat, earlier=_chat)
def test_kept_readings_judge_as_fresh_ones(
    chat: list[dict[str, str]], earlier: list[dict[str, str]]
) -> None:
    _forget()
    fresh = _verdicts(chat)
    _forget()
    _verdicts(earlier + chat[:-1])  # another chat's turns, sharing all but the last
    assert _verdicts(chat) == fresh
    assert _verdicts(chat) == fresh  # every message kept now
    limits = [index._message_text.limit, index._message_pieces.limit]
    try:
        _forget()
        index._message_text.limit = index._message_pieces.limit = 0  # nothing kept
        assert _verdicts(chat) == fresh
    finally:
        index._message_text.limit, index._message_pieces.limit = limits


def test_a_memo_keeps_the_texts_used_last_up_to_its_characters() -> None:
    made: list[str] = []

    def read(text: str) -> str:
        made.append(text)
        return text.upper()

    memo: MessageMemo[str, str] = MessageMemo(read, len, limit=10)
    assert memo("abcd") == "ABCD"
    assert memo("efgh") == "EFGH"
    memo("abcd")  # used last: "efgh" goes first
    memo("ijkl")
    assert memo.cache_info().chars <= 10
    memo("abcd")
    memo("efgh")
    assert made == ["abcd", "efgh", "ijkl", "efgh"]
    memo("x" * 11)  # longer than the limit: read, never kept
    assert memo.cache_info().chars <= 10


def test_the_memo_limit_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MEMO_BYTES_VARIABLE, "1024")
    assert memo_chars() == 1024
    monkeypatch.setenv(MEMO_BYTES_VARIABLE, "lots")
    with pytest.raises(ValueError, match=MEMO_BYTES_VARIABLE):
        memo_chars()
