"""Splicing edits into the original text."""

from __future__ import annotations

from rendersafe.engine.edits import MAX_DEPTH, Edit, Keep, splice

TEXT = "hello [link](url) world ![img](x) end"


def test_no_edits_returns_the_text() -> None:
    assert splice(TEXT, [], "X") == TEXT


def test_edits_touch_only_their_spans() -> None:
    edits = [Edit(6, 17, (Keep(7, 11),)), Edit(24, 33, (Keep(26, 29), " [removed]"))]
    assert splice(TEXT, edits, "X") == "hello link world img [removed] end"


def test_nested_edit_inside_a_kept_range() -> None:
    assert splice(TEXT, [Edit(6, 17, (Keep(7, 11),)), Edit(8, 10, ("ZZ",))], "X") == (
        "hello lZZk world ![img](x) end"
    )


def test_nested_edit_inside_a_removed_range_is_dropped() -> None:
    assert splice(TEXT, [Edit(6, 17, (Keep(7, 11),)), Edit(13, 15, ("ZZ",))], "X") == (
        "hello link world ![img](x) end"
    )


def test_conflicting_edits_are_replaced_together() -> None:
    assert splice(TEXT, [Edit(6, 17, (Keep(7, 11),)), Edit(15, 20, ("ZZ",))], "X") == (
        "hello Xrld ![img](x) end"
    )
    assert splice(TEXT, [Edit(6, 17, (Keep(7, 11),)), Edit(10, 14, ("ZZ",))], "X") == (
        "hello X world ![img](x) end"
    )


def test_very_deep_nesting_is_merged_not_recursed() -> None:
    depth = MAX_DEPTH * 3
    text = "[" * depth + "x" + "]" * depth
    edits = [Edit(i, len(text) - i, (Keep(i + 1, len(text) - i - 1),)) for i in range(depth)]
    assert splice(text, edits, "X") == "X"
