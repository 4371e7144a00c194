"""Safe under the JavaScript renderers chat clients actually run.

Renders every sanitised fixture and transcript reply with marked, markdown-it (15
and 14), micromark + GFM, commonmark.js and remark + rehype-raw (react-markdown's
pipeline) in one Node.js process, then checks the HTML as tests/test_renderers.py
does. `.ci/run` installs the pinned packages (`npm ci --prefix tests/js`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from attacks import PLANTED, ROOT, transcript_payloads, url_problems
from conftest import policy_for
from fixture_files import Case, all_cases
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
    attacks = [c for c in cases if not c.benign]
    # A control that the harness sees leaks; the rest target Python renderers.
    assert len(leaking) >= len(attacks) / 2


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
