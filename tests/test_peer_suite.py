"""The peer's own bypass suite (tests/peer_suite.py): every attempt comes out safe
under every Python renderer and every JavaScript renderer and healer (where Node.js
and tests/js are installed), settles (a second run changes nothing) and streams to the
one-shot output. Unsanitised, the suite does leak, or the checks prove nothing.

The default policy only, and the healers on whole outputs, here (about a minute);
`benchmarks/peer_bypass.py` adds the peer's own image hosts and every prefix healed.
"""

from __future__ import annotations

import random
import shutil

import pytest

from peer_suite import attempts, sanitizers
from soup import JS, js_problems, problems

CASES = list(attempts())
SANITIZER = sanitizers()["default"]
_NODE = shutil.which("node") is not None and (JS / "node_modules").is_dir()


def test_the_suite_is_all_there() -> None:
    assert len(CASES) == 165


@pytest.mark.parametrize(("name", "text"), CASES, ids=[name for name, _text in CASES])
def test_every_attempt_is_safe_settled_and_streams(name: str, text: str) -> None:
    output = SANITIZER.run(text).text
    assert problems(output) == []
    assert SANITIZER.run(output).text == output
    stream, size, sent = SANITIZER.stream(), random.Random(name).randint(1, 9), ""
    for start in range(0, len(text), size):
        sent += stream.feed(text[start : start + size])
    assert sent + stream.close() == output


@pytest.mark.skipif(not _NODE, reason="needs Node.js and `npm ci --prefix tests/js`")
def test_every_attempt_is_safe_under_the_javascript_renderers_and_healers() -> None:
    outputs = [SANITIZER.run(text).text for _name, text in CASES]
    found = js_problems(outputs, prefixes=0)
    assert {name: p for (name, _t), p in zip(CASES, found, strict=True) if p} == {}


def test_unsanitised_the_suite_leaks() -> None:
    leaking = [name for name, text in CASES[:60] if problems(text)]
    assert len(leaking) >= 20
