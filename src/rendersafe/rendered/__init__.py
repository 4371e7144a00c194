"""Fences the chat UI renders as live content (`Policy.rendered_fences`), each judged
as what it becomes.

fence     a `Fence` (what a renderer receives, where it stands), `Cut`s and `record`
tags      tags and comments with their offsets, and html5lib's reading of them
markup    SVG markup and the HTML in diagram labels, tag by tag
css       the URLs a style sheet fetches
mermaid   a Mermaid diagram's directives, links, calls, labels and images
tex       the TeX macros that fetch, link, load, or make another name for one

`judge_fence` dispatches on what the fence becomes (`JUDGES`): an HTML document is
judged exactly as raw HTML in a reply is (`html.judge_fragment`), the others by the
modules above. Each span is judged once per pass, whichever reading found it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from .. import html
from ..engine.state import Pass
from .css import css_cuts
from .fence import Cut, Fence, record, relabel
from .markup import markup_cuts
from .mermaid import mermaid_cuts
from .tex import tex_cuts

__all__ = ["JUDGES", "Fence", "judge_fence"]


def judge_fence(ps: Pass, fence: Fence) -> None:
    """Judge `fence` as what it becomes and record what it must lose."""
    key = (fence.start, fence.start + len(fence.text.rstrip()), fence.kind)
    if key in ps.judged_fences or not fence.text.strip():
        return
    ps.judged_fences.add(key)
    JUDGES[fence.kind](ps, fence)


def _html(ps: Pass, fence: Fence) -> None:
    since = len(ps.notes)
    text = fence.text.rstrip("\n")
    end = fence.source(len(text))
    html.judge_fragment(ps, text, fence.start, fence.start if end is None else end)
    relabel(ps, since, fence)


def _cutting(cuts: Callable[[Pass, str], list[Cut]]) -> Callable[[Pass, Fence], None]:
    def judge(ps: Pass, fence: Fence) -> None:
        found = cuts(ps, fence.text)
        if found:
            record(ps, fence, found)

    return judge


def _css(ps: Pass, text: str) -> list[Cut]:
    return css_cuts(text, ps.spend_image, "style sheet")


Judge = Callable[[Pass, Fence], None]
JUDGES: Mapping[str, Judge] = MappingProxyType(
    {
        "html": _html,
        "svg": _cutting(markup_cuts),
        "css": _cutting(_css),
        "mermaid": _cutting(mermaid_cuts),
        "tex": _cutting(tex_cuts),
    }
)
