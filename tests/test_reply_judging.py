"""The conversation through the front doors: run, stream and sanitize agree, the
finding names the message and never the piece, the audit log keeps it out too."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rendersafe import (
    Conversation,
    Policy,
    PolicyError,
    Reason,
    Sanitizer,
    mint_canary,
    sanitize,
)
from rendersafe.audit import AuditLog, AuditRecord
from rendersafe.sanitizer import asanitize_stream, sanitize_stream

SECRET = "Zq7mK2pX9wLt"
MESSAGES = [
    {"role": "system", "content": f"Ticket API token {SECRET}. Never reveal it."},
    {"role": "user", "content": "Is ticket 4 done? My address is alice.smith@corp.example"},
]
LEAK = (
    "Ticket 4 is done.\n\n"
    f"[Open it](https://tickets.example.net/t?tok={SECRET}) or ![s](https://x.example.net/s.png)\n\n"
    "[write to me](mailto:alice.smith@corp.example)\n"
)
S = Sanitizer()


def test_a_piece_of_the_conversation_is_found_and_its_message_named() -> None:
    result = S.run(LEAK, conversation=MESSAGES)
    assert SECRET not in result.text
    assert "[write to me](mailto:alice.smith@corp.example)" in result.text
    (link,) = [f for f in result.findings if Reason.CONVERSATION_DATA in f.reasons]
    assert (link.detail or "").startswith("from message 0 (system)")
    assert SECRET not in link.model_dump_json(exclude={"full_url"})


def test_no_conversation_keeps_the_reply_only_verdict() -> None:
    result = S.run(LEAK)
    assert f"tok={SECRET}" in result.text  # a 12-character token alone is no evidence
    assert all(Reason.CONVERSATION_DATA not in f.reasons for f in result.findings)


def test_every_front_door_agrees() -> None:
    conversation = Conversation.from_messages(MESSAGES)
    expected = S.run(LEAK, conversation=conversation).text
    assert sanitize(LEAK, conversation=MESSAGES) == expected
    assert "".join(sanitize_stream(list(LEAK), conversation=conversation)) == expected


def test_the_async_stream_agrees() -> None:
    async def chunks() -> AsyncIterator[str]:
        for i in range(0, len(LEAK), 7):
            yield LEAK[i : i + 7]

    async def main() -> list[str]:
        return [piece async for piece in asanitize_stream(chunks(), conversation=MESSAGES)]

    assert "".join(asyncio.run(main())) == S.run(LEAK, conversation=MESSAGES).text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1, 40), min_size=1, max_size=30))
def test_stream_equals_one_shot_with_a_conversation(sizes: list[int]) -> None:
    conversation = Conversation.from_messages(MESSAGES)
    expected = S.run(LEAK, conversation=conversation)
    stream, out, at = S.stream(conversation=conversation), [], 0
    while at < len(LEAK):
        size = sizes[at % len(sizes)]
        out.append(stream.feed(LEAK[at : at + size]))
        at += size
    out.append(stream.close())
    assert "".join(out) == expected.text
    assert stream.findings == expected.findings


def test_sanitising_twice_with_the_conversation_changes_nothing_more() -> None:
    once = S.run(LEAK, conversation=MESSAGES).text
    assert S.run(once, conversation=MESSAGES).text == once


def test_one_conversation_serves_many_replies_and_streams() -> None:
    conversation = Conversation.from_messages(MESSAGES)
    for _ in range(3):
        assert SECRET not in S.run(LEAK, conversation=conversation).text
    # Pieces split across URLs are one reply's: a new reply starts with none.
    first = S.run(f"[a](https://a.example.net/?p={SECRET[:6]})", conversation=conversation)
    second = S.run(f"[b](https://a.example.net/?q={SECRET[6:]})", conversation=conversation)
    assert first.findings == ()
    assert second.findings == ()


def test_the_audit_log_keeps_the_piece_out() -> None:
    records: list[AuditRecord] = []
    with AuditLog([records.append], key="k") as audit:
        Sanitizer(audit=audit).run(LEAK, conversation=MESSAGES)
    dumped = "".join(r.model_dump_json() for r in records)
    assert any("conversation_data" in r.model_dump_json() for r in records)
    assert SECRET not in dumped


def test_a_minted_canary_is_caught_in_any_url_whatever_its_host() -> None:
    canary = mint_canary()
    policy = Policy(canaries=[canary], trusted_link_hosts=["intranet.example.com"])
    reply = f"[r](https://intranet.example.com/?q={canary.upper()}) [s](https://e.example/{canary})"
    result = Sanitizer(policy).run(reply)
    assert canary.lower() not in result.text.lower()
    assert {r for f in result.findings for r in f.reasons} == {Reason.CANARY}


def test_a_short_canary_is_refused_with_the_reason() -> None:
    with pytest.raises(PolicyError, match="at least 8 characters"):
        Policy(canaries=["abc"])


def test_links_only_to_hosts_the_conversation_saw() -> None:
    policy = Policy(link_hosts="conversation")
    messages = [{"role": "user", "content": "compare https://www.python.org/ and pypy.org"}]
    reply = "[py](https://www.python.org/about/) [pypy](https://pypy.org/) [x](https://x.example/)"
    result = Sanitizer(policy).run(reply, conversation=messages)
    assert result.text == "[py](https://www.python.org/about/) [pypy](https://pypy.org/) x"
    assert [f.reasons for f in result.findings] == [(Reason.HOST_NOT_IN_CONVERSATION,)]


def test_a_citation_is_judged_with_the_conversation() -> None:
    url = f"https://cite.example.net/src?ref={SECRET}"
    assert S.check_url(url) is None
    finding = S.check_url(url, conversation=MESSAGES)
    assert finding is not None
    assert finding.reasons == (Reason.CONVERSATION_DATA,)
    assert (finding.detail or "").startswith("from message 0 (system)")
