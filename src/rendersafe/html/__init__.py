"""Raw HTML, behind one seam: every raw-HTML decision the sanitiser makes.

review     read a fragment as a browser tokenises it; what must change
clean      rewrite a fragment that must change (bleach, a tight allowlist)
fragment   the pass's decision: keep, escape, strip or clean a fragment
"""

from .clean import clean
from .fragment import html_escape, judge_fragment
from .review import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, Element, Problem, review, static_reasons

__all__ = [
    "ALLOWED_ATTRIBUTES",
    "ALLOWED_TAGS",
    "Element",
    "Problem",
    "clean",
    "html_escape",
    "judge_fragment",
    "review",
    "static_reasons",
]
