"""Where a text could first need a change: the openers of constructs and the words
that may be URLs. The segmenter cuts, the stream holds back and a forced cut splits
words by these alone, so they must match wherever any later step could edit."""

from __future__ import annotations

import re

from ..urls import INVISIBLE

__all__ = ["OPENER", "URLISH"]

# A bracket, a tag or autolink, an image (its `!` may be followed by invisibles).
OPENER = re.compile(r"\[|<|!(?=" + INVISIBLE.pattern + r"*\[)")
# A word matching this may be (part of) a URL some renderer links: a scheme, `www.`,
# an e-mail's `@`, or a dotted name followed by a path, query, fragment or port.
URLISH = re.compile(r"://|www\.|@|\.[^\W\d_][\w-]{0,62}[/?#:]", re.IGNORECASE)
