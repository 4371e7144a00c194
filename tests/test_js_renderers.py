"""Safe under the JavaScript renderers chat clients actually run.

Renders every sanitised fixture and transcript reply with marked, markdown-it (15
and 14), micromark + GFM, commonmark.js and remark + rehype-raw (react-markdown's
pipeline) in one Node.js process, then checks the HTML as tests/test_renderers.py
does. `.ci/run` installs the pinned packages (`npm ci --prefix tests/js`).

A streaming client that heals (Streamdown runs remend on every prefix it receives)
renders every prefix of what was sent: each fixture's output is healed and rendered
at every prefix by remend + markdown-it and marked, and by remend + remark at every
prefix ending next to markup or inside a bracket's text.

A fence the policy renders (tests/fixtures/rendered) is rendered as what it becomes:
its TeX, and math in prose, with KaTeX at its most permissive (`trust: true`); Mermaid
and the HTML, SVG and CSS artifacts need a browser (tests/test_rendered_fences_live.py).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from attacks import PLANTED, ROOT, transcript_payloads, url_problems
from conftest import policy_for
from fixture_files import Case, all_cases
from rendered_cases import leaks, rendered, verdict
from renderers import urls
from rendersafe import Sanitizer

JS = Path(__file__).parent / "js"
pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (JS / "node_modules").is_dir(),
    reason="needs Node.js and `npm ci --prefix tests/js` (done by .ci/run)",
)


def _render(texts: list[str]) -> list[dict[str, str]]:
    done = subprocess.run(
        ["node", str(JS / "render.mjs")],
        input=json.dumps(texts), capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    rendered: list[dict[str, str]] = json.loads(done.stdout)
    return rendered


# remend+remark (the slowest) renders the prefixes that end next to one of these or
# inside a bracket's text; markdown-it and marked render every prefix.
_SPECIAL = frozenset("[]()!<>`~*_$\n")
_BRACKET_TEXT = re.compile(r"\[[^\[\]\n]{0,80}")


def _remark_cuts(text: str) -> list[int]:
    inside = {c for m in _BRACKET_TEXT.finditer(text) for c in range(m.start() + 1, m.end() + 1)}
    return [
        c
        for c in range(len(text) + 1)
        if c in (0, len(text)) or c in inside or {text[c - 1], text[c]} & _SPECIAL
    ]


def _healed(texts: list[str]) -> list[dict[str, str]]:
    """Each text healed and rendered at its prefixes: the distinct pages, by renderer."""
    inputs = [{"text": t, "cuts": None, "remark_cuts": _remark_cuts(t)} for t in texts]
    done = subprocess.run(
        ["node", str(JS / "render.mjs"), "--prefixes"],
        input=json.dumps(inputs),
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    rendered: list[dict[str, list[str]]] = json.loads(done.stdout)
    return [{f"{n} #{i}": p for n, ps in r.items() for i, p in enumerate(ps)} for r in rendered]


def _image_hosts(case: Case) -> list[str]:
    policy = policy_for(case.path.parent)
    hosts = list(policy.allowed_image_hosts)
    return [*hosts, "chat.example.com"] if policy.image_proxy is not None else hosts


def _leaks(
    html: dict[str, str], image_hosts: list[str], trusted: list[str], payloads: list[str]
) -> list[str]:
    return sorted(
        problem
        for name, page in html.items()
        for url in urls(page, name)
        for problem in url_problems(url, image_hosts, trusted, payloads)
    )


def test_fixture_outputs_are_safe_and_attacks_leak_without_rendersafe() -> None:
    cases = all_cases()
    rendered = _render([c.expected for c in cases] + [c.input for c in cases])
    outputs, inputs = rendered[: len(cases)], rendered[len(cases) :]
    leaking = []
    for case, out, raw in zip(cases, outputs, inputs, strict=True):
        trusted = list(policy_for(case.path.parent).trusted_link_hosts)
        assert _leaks(out, _image_hosts(case), trusted, list(PLANTED)) == [], case.id
        if not case.benign and _leaks(raw, _image_hosts(case), trusted, list(PLANTED)):
            leaking.append(case.id)
    # Leaks the harness cannot see: a piece of the conversation, a channel of many URLs,
    # a fence that leaks in the renderer of what it becomes (`test_rendered_fences`).
    beyond = {"conversation_data", "canary", "beacon", "host_not_in_conversation"}
    attacks = [
        c
        for c in cases
        if not c.benign
        and not (c.reasons or frozenset()) & beyond
        and c.path.parent.name != "rendered"
    ]
    # A control that the harness sees leaks; the rest target Python renderers (43 % of
    # 686 leak here since the thirteenth and fourteenth red-team passes' cases, most of
    # them python-markdown+extra's fence attributes, mistune's and marko's, were added;
    # 48 % of 602 before them, 52 % before the fence agreement's).
    assert len(leaking) >= 0.40 * len(attacks)


def test_transcript_replies_are_safe() -> None:
    replies = []
    for path in sorted((ROOT / "fixtures" / "transcripts").glob("openai-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            replies.append(json.loads(line)["messages"][-1]["content"])
    sanitizer = Sanitizer()
    rendered = _render([sanitizer.run(reply).text for reply in replies])
    payloads = list(transcript_payloads())
    for html in rendered:
        assert _leaks(html, [], [], payloads) == []


def test_fixture_outputs_are_safe_healed_at_every_prefix() -> None:
    """A stream sends the one-shot output (tests/test_streaming.py), so the prefixes
    a client may render, at any chunk or network boundary, are the output's.

    Not counted, open and not a healer's doing (no healing needed at that prefix): a
    URL cut short that the output holds whole (a late definition of an allowed image,
    `[l]: https://c`), and, under an image proxy, a kept definition that the proxied
    inline image's alt names (`![r](proxied)` at the prefix `![r]`)."""
    cases = all_cases()
    for case, pages in zip(cases, _healed([c.expected for c in cases]), strict=True):
        policy = policy_for(case.path.parent)
        trusted = list(policy.trusted_link_hosts)
        proxied = policy.image_proxy is not None
        for name, page in pages.items():
            cut = [
                u
                for u in urls(page, name)
                if not _cut_short(u.value, case.expected)
                and not (proxied and f"]: {u.value}" in case.expected)
            ]
            problems = [
                p for u in cut for p in url_problems(u, _image_hosts(case), trusted, [*PLANTED])
            ]
            assert problems == [], (case.id, name)


def _cut_short(url: str, text: str) -> bool:
    """Is `url` a proper prefix of a URL `text` holds whole?"""
    at = text.find(url)
    while at >= 0:
        after = text[at + len(url) : at + len(url) + 1]
        if after and not after.isspace() and after not in ")>\"'":
            return True
        at = text.find(url, at + 1)
    return False


def test_healing_attacks_leak_without_rendersafe() -> None:
    cases = [c for c in all_cases() if c.path.stem == "healing_renderers" and not c.benign]
    assert len(cases) >= 6
    for case, pages in zip(cases, _healed([c.input for c in cases]), strict=True):
        assert _leaks(pages, _image_hosts(case), [], []), case.id


# -- rendered fences: TeX with KaTeX --------------------------------------------------


def test_katex_renders_no_link_or_image_off_the_policy() -> None:
    """Each case's TeX (fences and math in prose), sanitised, links and fetches nothing
    off the policy; as written, every attack KaTeX honours does (`\\style`, `\\require`
    and `\\csname` are other renderers')."""
    pieces = rendered("tex")
    inputs = [{"tex": p.text, "display": True} for p in pieces]
    done = subprocess.run(
        ["node", str(JS / "katex.mjs")],
        input=json.dumps(inputs), capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    pages = json.loads(done.stdout)
    found = {
        p: [x for u in urls(page, "katex") for x in leaks(u)]
        for p, page in zip(pieces, pages, strict=True)
    }
    assert len({p.case.id for p in pieces if not p.case.benign}) >= 10
    verdict(found, other_renderers=("MathJax", "csname"))
