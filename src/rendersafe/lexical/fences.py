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

from ..engine.edits import Edit
from ..engine.regions import Regions
from ..engine.rendered import INFO_WORD, PROSE_MATH, info_language
from ..engine.state import Pass
from ..findings import Action, Construct, Reason
from ..rendered import Fence, judge_fence

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
        if after is None and ps.cut_at is not None and _demoted(ps, run, line_end):
            continue
        end = after.start() if after is not None else len(text)
        content = text[line_end + 1 : max(end, line_end + 1)]
        judge_fence(ps, Fence(language, kind, content, line_end + 1, detector="lexical"))


def _demoted(ps: Pass, run: re.Match[str], line_end: int) -> bool:
    """The last run of a unit a forced cut ended pairs with a run after the cut: shown
    as code, as a fence markdown-it reads (`markdown.rules`), its language `text`."""
    word = INFO_WORD.match(ps.source.text, run.end(), line_end)
    if word is None or not word.group(1) or run.start() < (ps.cut_at or 0):
        return False
    ps.demoted.add(run.start())
    edit = Edit(word.start(1), word.end(1), ("text",))
    detail = f"{info_language(word.group(1))}: past the hold limit, shown as code"
    reasons = (Reason.HOLD_LIMIT,)
    ps.change(
        edit,
        Construct.RENDERED_FENCE,
        Action.NEUTRALISED,
        reasons,
        detail=detail,
        detector="lexical",
    )
    return True


def prose_math(ps: Pass, code: Regions) -> None:
    """Judge the text outside code as TeX, when the policy renders math in prose."""
    text = ps.source.text
    if not ps.rules.rendered.prose_math or "\\" not in text:
        return
    masked = list(text)
    for start, end in code:
        masked[start:end] = " " * (end - start)
    judge_fence(ps, Fence(PROSE_MATH, "tex", "".join(masked), 0, detector="lexical"))
