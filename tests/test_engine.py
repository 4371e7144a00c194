"""The pieces the passes share: code trust, the carried state, the bracket index."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rendersafe import Policy, Sanitizer
from rendersafe.engine.carry import MAX_LABELS, Carry, Delta, parsed_references
from rendersafe.engine.healing import Fence, _fence_after, _next_fence
from rendersafe.engine.regions import Regions
from rendersafe.engine.source import SourceText
from rendersafe.engine.trust import CodeKind, CodeTrust
from rendersafe.lexical import index_brackets
from rendersafe.units.segment import Unit
from rendersafe.units.sent import SentText


@pytest.mark.parametrize(
    ("after_cut", "continued", "in_context", "trusted"),
    [
        (False, False, True, {"span", "block", "opening_block"}),
        (False, True, True, {"span", "block"}),
        (True, False, True, {"block"}),
        (True, True, True, {"block"}),
        (False, False, False, set()),
        (True, True, False, set()),
    ],
)
def test_code_trust_narrows_with_each_circumstance(
    after_cut: bool, continued: bool, in_context: bool, trusted: set[CodeKind]
) -> None:
    trust = CodeTrust.of(
        after_forced_cut=after_cut, continues_block=continued, in_context=in_context
    )
    kinds: tuple[CodeKind, ...] = ("span", "block", "opening_block")
    assert {kind for kind in kinds if trust.trusts(kind)} == trusted


def _delta(**changes: object) -> Delta:
    base = Delta(references={}, definitions={}, lenient=(), image_labels=frozenset(), images_kept=0)
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def test_a_carry_cannot_be_changed_in_place() -> None:
    carry = Carry()
    with pytest.raises(dataclasses.FrozenInstanceError):
        carry.images_kept = 3  # type: ignore[misc]


def test_carry_after_moves_the_position_and_keeps_the_old_carry() -> None:
    carry = Carry()
    after = carry.after(_delta(images_kept=2), "ab\ncd\r\nef", False)
    assert (after.line, after.column, after.images_kept) == (2, 2, 2)
    assert (carry.line, carry.images_kept) == (0, 0)
    same_line = after.after(_delta(images_kept=2), "gh", True)
    assert (same_line.line, same_line.column, same_line.after_forced_cut) == (2, 4, True)


def test_carry_after_folds_in_new_definitions_and_labels() -> None:
    reference = {"href": "https://a.example/", "title": ""}
    delta = _delta(references={"R": reference}, definitions={"R": True}, image_labels={"r"})
    after = Carry().after(delta, "[r]: https://a.example/\n", False)
    assert after.is_defined("R")
    assert list(after.image_labels) == ["r"]
    env = after.env()
    assert dict(env["references"]) == {"R": reference}
    env["references"]["S"] = {"href": "https://b.example/", "title": ""}
    assert "S" not in after.env()["references"]  # a parse's writes stay its own
    assert parsed_references(env) == {"S": {"href": "https://b.example/", "title": ""}}


def test_carried_tables_are_shared_not_copied() -> None:
    carry = Carry()
    for i in range(100):
        label = f"R{i}"
        delta = _delta(references={label: {"href": f"/{i}"}}, definitions={label: True})
        carry = carry.after(delta, "x\n\n", False)
    assert len(carry.references) == 100
    assert carry.references.get("R7") == {"href": "/7"}
    assert carry.is_defined("R99")
    assert not carry.is_defined("R100")
    assert carry.references.depth() <= 8  # log2(100) layers, not 100


def test_carried_tables_stop_growing_at_the_cap() -> None:
    many = {f"R{i}": True for i in range(MAX_LABELS + 5)}
    after = Carry().after(_delta(definitions=many), "x", False)
    assert len(after.definitions) == MAX_LABELS
    assert after.is_defined("R0")
    assert not after.is_defined(f"R{MAX_LABELS}")


def test_too_many_image_labels_switch_to_the_strict_reading() -> None:
    labels = frozenset(f"l{i}" for i in range(MAX_LABELS + 1))
    after = Carry().after(_delta(image_labels=labels), "x", False)
    assert after.labels_overflowed
    assert not after.image_labels


def test_regions_hold_ranges_added_in_any_order() -> None:
    regions = Regions()
    for start, end in [(50, 60), (0, 10), (2, 3), (20, 30), (21, 22), (5, 40)]:
        regions.add(start, end)
    inside = {o for o in range(70) if o in regions}
    assert inside == set(range(40)) | set(range(50, 60))
    assert [regions.end_of(o) for o in (2, 7, 45)] == [10, 40, 45]
    assert [start for start, _end in regions] == [0, 2, 5, 20, 21, 50]
    nested = Regions()
    nested.add(0, 10)
    nested.add(2, 3)  # in order, inside the first: 5 is still held
    assert 5 in nested
    assert nested.end_of(5) == 10


def test_the_bracket_index_pairs_and_records_image_labels() -> None:
    source = SourceText.of("![a][r] [b] `[c]` [open")
    code = Regions()
    code.add(12, 17)  # the code span
    index = index_brackets(source, code, frozenset({"old"}))
    assert [(b.open, b.close, b.bang) for b in index.pairs] == [(1, 3, 0), (4, 6, -1), (8, 10, -1)]
    assert index.open_brackets == (18,)
    assert index.image_uses["a"] == 0
    assert index.image_uses["r"] == 0
    assert index.image_uses["old"] == -1
    assert "b" not in index.image_uses


def test_sent_text_is_read_from_the_reply_only_after_a_change() -> None:
    sent = SentText.of_reply("one\n\ntwo\n\nthree\n", limit=8192)
    first = Unit(0, "one\n\n")
    sent.record(first, first.text)  # unchanged: the units' own contexts stand
    second = Unit(5, "two\n\n", prefix="")
    assert sent.context(second) == ""
    sent.record(second, "```\n\n")  # suppose an edit had opened a fence
    assert sent.context(Unit(10, "three\n")) == "```\n"  # read inside what was sent


def test_a_stream_reads_the_units_it_sent_unchanged_at_the_first_change() -> None:
    sent = SentText.streaming(limit=8192)
    unit = Unit(0, "```\n", prefix="")
    sent.record(unit, unit.text)  # unchanged: the units' own contexts stand
    assert sent.context(Unit(4, "x\n")) == ""
    sent.record(Unit(4, "x\n"), "y\n")  # changed: read inside what was sent
    assert sent.context(Unit(6, "z")) == "```\n"


def test_a_sanitiser_is_built_from_one_compiled_policy() -> None:
    sanitizer = Sanitizer(Policy(image_marker="[img]"))
    assert sanitizer.units.rules.markers.image == "\\[img\\]"
    assert sanitizer.units.policy is sanitizer.policy


def _fence_line_by_line(fence: Fence | None, text: str) -> Fence | None:
    for line in text.split("\n"):
        fence = _next_fence(fence, line)
    return fence


@given(
    st.sampled_from(
        [None, Fence("```", 0, 0), Fence("~~~~", 0, 0), Fence("```", 2, 0), Fence("```", 0, 1)]
    ),
    st.lists(
        st.sampled_from(
            ["```", "````", "~~~", "~~~~", "`", " ", "  ", "> ", "- ", "x", "\n", "\r"]
        ),
        max_size=30,
    ).map("".join),
)
def test_the_healer_fence_skips_only_lines_that_cannot_close_it(
    fence: Fence | None, text: str
) -> None:
    assert _fence_after(fence, text) == _fence_line_by_line(fence, text)
