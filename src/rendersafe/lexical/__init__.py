"""The lexical backstop: what *another* renderer could read as an image or a link.

views        the text as python-markdown and commonmark.py read it (their code spans,
             what python-markdown moves after raw HTML)
brackets     brackets outside code, paired (in each view too); the labels images use
references   reference definitions and their uses, under every label matching
inline       `[text](destination)`, every reading of the destination
destinations python-markdown's destinations, over several lines
tags         tag-like text with URL attributes
autolinks    python-markdown's autolinks over several lines
bare         bare URLs, as the most generous linkifier reads them
healers      what a self-healing renderer (remend) reads at a prefix
decide       judge a reading; neutralise a construct
backstop     all of the above, in order
"""

from .backstop import backstop
from .brackets import Bracket, BracketIndex, index_brackets, open_openers

__all__ = ["Bracket", "BracketIndex", "backstop", "index_brackets", "open_openers"]
