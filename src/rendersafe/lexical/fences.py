"""Rendered fences as a chat UI that finds them by pattern reads them, and math in
prose.

Open WebUI takes its HTML artifacts with a pattern, not a Markdown parser: from any
three backticks to the next three, anywhere, the language the rest of the first
line. Its pairing depends on every backtick run before, so each run is read as an
opener here: the text from the line after it to the next run is judged as what its
language becomes (`rendered.judge_fence`; a span markdown-it read as a fence is not
judged twice). With `$$` declared, the text outside code is judged as TeX: a math
renderer finds `$$...$$`, `$...$`, `\\(...\\)` and `\\[...\\]` by its own delimiters,
and a macro outside them renders as nothing.
"""

from __future__ import annotations

import re

from ..engine.regions import Regions
from ..engine.rendered import PROSE_MATH, info_language
from ..engine.state import Pass
from ..rendered import Fence, judge_fence
from ..rendered.fence import show_as_code

__all__ = ["pattern_fences", "prose_math"]

_RUN = re.compile(r"`{3,}")


def pattern_fences(ps: Pass) -> None:
    """Judge the rendered fences a pattern over the text finds."""
    rendered = ps.rules.rendered
    text = ps.source.text
    if not rendered.kinds or "```" not in text:
        return
    runs = list(_RUN.finditer(text))
    for run, after in zip(runs, [*runs[1:], None], strict=True):
        line_end = text.find("\n", run.end())
        if line_end < 0:
            continue
        language = info_language(text[run.end() : line_end])
        kind = rendered.kind(language)
        if kind is None or run.start() in ps.demoted:
            continue
        # The last run of a unit a forced cut ended pairs with a run after the cut.
        last = after is None and ps.cut_at is not None
        if last and show_as_code(ps, run.start(), run.end(), line_end, detector="lexical"):
            continue
        end = after.start() if after is not None else len(text)
        content = text[line_end + 1 : max(end, line_end + 1)]
        judge_fence(ps, Fence(language, kind, content, line_end + 1, detector="lexical"))


def prose_math(ps: Pass, code: Regions) -> None:
    """Judge the text outside code as TeX, when the policy renders math in prose."""
    text = ps.source.text
    if not ps.rules.rendered.prose_math or "\\" not in text:
        return
    masked = list(text)
    for start, end in code:
        masked[start:end] = " " * (end - start)
    judge_fence(ps, Fence(PROSE_MATH, "tex", "".join(masked), 0, detector="lexical"))
