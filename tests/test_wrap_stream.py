"""`rendersafe.wrap_stream`: a chat UI's generator of reply text, sanitised as it streams.

Deltas and cumulative text, sync and async: what the caller receives adds up to the
one-shot `sanitize()` with the conversation, whatever the chunking; honest text is
unchanged byte for byte; findings are audited; a failure ends the stream with the
withheld notice and no traceback; a required audit log that is down refuses the reply.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters import CONVERSATION, EXFIL, HONEST, Audit, broken_sanitizer, check_exfil, pieces
from rendersafe import Policy, wrap_stream
from rendersafe.integrations.common import WITHHELD


def _cumulative(chunks: list[str]) -> Iterator[str]:
    text = ""
    for chunk in chunks:
        text += chunk
        yield text


async def _async(chunks: list[str]) -> AsyncIterator[str]:
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


def _collect(gen: AsyncIterator[str]) -> list[str]:
    async def run() -> list[str]:
        return [item async for item in gen]

    return asyncio.run(run())


def test_deltas_add_up_to_the_sanitised_reply() -> None:
    out = list(wrap_stream(iter(pieces(EXFIL)), conversation=CONVERSATION))
    check_exfil("".join(out))
    assert all(out)  # nothing empty is yielded
    assert len(out) > 1  # text before the image is not held for the whole reply


def test_async_deltas_add_up_to_the_sanitised_reply() -> None:
    out = _collect(wrap_stream(_async(pieces(EXFIL)), conversation=CONVERSATION))
    check_exfil("".join(out))


def test_cumulative_values_grow_to_the_sanitised_reply() -> None:
    out = list(wrap_stream(_cumulative(pieces(EXFIL)), conversation=CONVERSATION, cumulative=True))
    check_exfil(out[-1])
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(out))


def test_a_cumulative_value_that_starts_again_is_sanitised_from_its_start() -> None:
    values = ["Draft: ![x](https://evil.example/a.png", "Second try: ", "Second try: done."]
    out = list(wrap_stream(iter(values), cumulative=True))
    assert out[-1] == "Second try: done."


@pytest.mark.parametrize("cumulative", [False, True])
def test_honest_text_is_unchanged(cumulative: bool) -> None:
    chunks = pieces(HONEST, 3)
    source = _cumulative(chunks) if cumulative else iter(chunks)
    out = list(wrap_stream(source, cumulative=cumulative))
    assert (out[-1] if cumulative else "".join(out)) == HONEST


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(EXFIL)), max_size=12))
def test_any_chunking_gives_the_same_text(cuts: list[int]) -> None:
    bounds = sorted({0, len(EXFIL), *cuts})
    chunks = [EXFIL[a:b] for a, b in itertools.pairwise(bounds)]
    check_exfil("".join(wrap_stream(iter(chunks), conversation=CONVERSATION)))


def test_findings_are_audited_with_the_integration(tmp_path: Path) -> None:
    audit = Audit(tmp_path / "audit.jsonl")
    out = "".join(
        wrap_stream(
            iter(pieces(EXFIL)),
            sanitizer=audit.sanitizer,
            conversation=CONVERSATION,
            context={"chat": "c1"},
        )
    )
    check_exfil(out)
    found = audit.findings("wrap_stream")
    assert len(found) == 2
    assert {r["context"]["chat"] for r in found} == {"c1"}
    assert all("SECRET" not in str(r) for r in found)


def test_a_failure_ends_the_stream_with_the_notice(tmp_path: Path) -> None:
    audit = Audit(tmp_path / "audit.jsonl")
    chunks = ["fine ", "Here ![x](https://evil.example/", b"bytes", "more"]
    out = list(wrap_stream(iter(chunks), sanitizer=audit.sanitizer))  # type: ignore[arg-type]
    assert out == ["fine ", "Here ", f"\n\n{WITHHELD}"]  # nothing held is sent, nothing after
    (error,) = [r for r in audit.records() if r["event"] == "error"]
    assert "TypeError" in error["message"]


def test_a_cumulative_failure_keeps_what_was_sent() -> None:
    values: list[object] = ["fine ", "fine ![x](https://e", 7]
    out = list(wrap_stream(iter(values), cumulative=True))  # type: ignore[arg-type]
    assert out == ["fine ", f"fine \n\n{WITHHELD}"]


def test_an_error_of_the_generator_is_its_own(tmp_path: Path) -> None:
    def broken() -> Iterator[str]:
        yield "Here is ![x](https://evil.example/"
        raise ConnectionError("upstream went away")

    sent: list[str] = []
    with pytest.raises(ConnectionError):
        sent.extend(wrap_stream(broken()))
    assert "evil.example" not in "".join(sent)


def test_a_required_audit_log_that_is_down_refuses_the_reply() -> None:
    out = list(wrap_stream(iter(pieces(HONEST)), sanitizer=broken_sanitizer()))
    assert out == [WITHHELD]


def test_a_client_that_goes_away_closes_the_generator(tmp_path: Path) -> None:
    closed: list[bool] = []

    def endless() -> Iterator[str]:
        try:
            while True:
                yield "word "
        finally:
            closed.append(True)

    audit = Audit(tmp_path / "audit.jsonl")
    stream = wrap_stream(endless(), sanitizer=audit.sanitizer)
    assert next(stream) == "word "
    stream.close()
    assert closed == [True]
    assert any(r["event"] == "disconnect" for r in audit.records())


def test_policy_and_sanitizer_are_one_or_the_other() -> None:
    with pytest.raises(ValueError, match="not both"):
        wrap_stream(iter([]), policy=Policy(), sanitizer=broken_sanitizer())
