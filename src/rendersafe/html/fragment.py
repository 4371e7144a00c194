"""The raw-HTML decision of a pass: what a fragment in the reply becomes.

Under `raw_html = "escape"` or `"strip"` every fragment is shown as text or dropped.
Under `"sanitize"` a fragment passes byte for byte unless `review` finds something
to change, and is then rewritten by `clean`; an unclosed comment, which hides the
rest of the reply from markdown-it but not from python-markdown, is shown as text.
"""

from __future__ import annotations

from ..engine.edits import Edit
from ..engine.state import Pass
from ..findings import Action, Construct, Reason
from ..urls import Role, Verdict
from .clean import clean
from .review import Problem, UrlCheck, review

__all__ = ["html_escape", "judge_fragment"]


def judge_fragment(ps: Pass, fragment: str, start: int, end: int) -> None:
    """Judge raw HTML `fragment` (container markers stripped), which sits at
    `ps.source.text[start:end]`, and record the edit it needs, if any."""
    prefix = _continuation_prefix(ps, start, fragment) if "\n" in fragment else ""
    if ps.policy.raw_html != "sanitize":
        replacement = "" if ps.policy.raw_html == "strip" else html_escape(fragment)
        edit = Edit(start, end, (_reindent(replacement, prefix),))
        ps.change(edit, Construct.HTML, Action.NEUTRALISED, (Reason.RAW_HTML_POLICY,))
    elif fragment.startswith("<!--") and "-->" not in fragment[2:]:
        # An unclosed comment hides the rest of the reply from markdown-it but not from
        # python-markdown: show the opener as text and let the next pass judge the rest.
        # (`<!-->` and `<!--->` are closed, empty comments to a browser.)
        edit = Edit(start, start + 1, ("&lt;",))
        reasons = (Reason.MALFORMED_HTML,)
        ps.change(edit, Construct.HTML, Action.NEUTRALISED, reasons, detail="unclosed comment")
    else:
        _clean_fragment(ps, fragment, start, end, prefix)


def _clean_fragment(ps: Pass, fragment: str, start: int, end: int, prefix: str) -> None:
    problems, rewrites = review(fragment, _url_check(ps))
    if not problems and not rewrites:
        return
    cleaned = clean(fragment, problems, rewrites, ps.rules.link_schemes)
    reasons = {r for p in problems for r in p.reasons}
    detail = ", ".join(sorted({_describe(p) for p in problems})) or None
    urls = [p for p in problems if p.value is not None]
    verdict = _problem_verdict(ps, urls[0]) if urls else None
    action = Action.PROXIED if not problems else Action.NEUTRALISED
    edit = Edit(start, end, (_reindent(cleaned, prefix),))
    ps.change(edit, Construct.HTML, action, reasons, verdict=verdict, detail=detail)


def _reindent(cleaned: str, prefix: str) -> str:
    """Put the container markers back in front of each line after the first."""
    return cleaned.replace("\n", "\n" + prefix)


def _continuation_prefix(ps: Pass, start: int, fragment: str) -> str:
    """The container markers (`> `, list indent) in front of the fragment's second
    line: what its source line has that the fragment's line does not."""
    line_no = ps.source.line_of(start) + 1
    if line_no >= len(ps.source.lines):
        return ""
    line, content = ps.source.lines[line_no], fragment.split("\n", 2)[1]
    if content and line.endswith(content):
        return line[: len(line) - len(content)]
    return line[: len(line) - len(line.lstrip(" \t>"))]


def html_escape(fragment: str) -> str:
    """Show raw HTML as text."""
    return fragment.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _describe(problem: Problem) -> str:
    if not problem.tag:
        return "unterminated tag"
    return f"{problem.tag}[{problem.attribute}]" if problem.attribute else problem.tag


def _problem_verdict(ps: Pass, problem: Problem) -> Verdict:
    role = Role.IMAGE if problem.attribute == "src" else Role.LINK
    return ps.judge(problem.value or "", role)


def _url_check(ps: Pass) -> UrlCheck:
    def check(tag: str, attribute: str, value: str) -> tuple[Reason, ...] | str:
        if tag == "img" and attribute == "src":
            verdict = ps.spend_image(value)
            if verdict.action == "proxy" and ps.policy.image_proxy is not None:
                return ps.rules.judge.proxied(verdict.url.href or value)
        else:
            verdict = ps.judge_link(value)
        return verdict.reasons if verdict.action == "drop" else ()

    return check
