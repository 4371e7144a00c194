"""Safe under any renderer: render sanitised output with five renderers and look.

Each attack case is also rendered *before* sanitising, to show the check can fail.
"""

from __future__ import annotations

import json

import pytest

from attacks import ROOT, transcript_payloads, violations
from conftest import policy_for
from fixture_files import Case, all_cases
from renderers import urls
from rendersafe import Sanitizer
from soup import event_handlers

CASES = all_cases()
ATTACKS = [c for c in CASES if not c.benign]


def _check(case: Case, text: str) -> list[str]:
    policy = policy_for(case.path.parent)
    image_hosts = list(policy.allowed_image_hosts)
    if policy.image_proxy is not None:
        image_hosts.append("chat.example.com")
    return violations(text, image_hosts=image_hosts, trusted_hosts=policy.trusted_link_hosts)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_sanitised_output_is_safe_in_every_renderer(case: Case) -> None:
    assert _check(case, case.expected) == []


def test_unsanitised_attacks_do_leak() -> None:
    """The checker is not blind: most raw attack inputs leak in some renderer (the
    healing renderers' attacks leak healed, tests/test_js_renderers.py; idempotence cases
    are edits a second run must not change, not leaks; a link that carries a piece of its
    case's conversation leaks only in the light of that conversation, which the checker
    does not see; a rendered fence's attack leaks in the renderer of what the fence
    becomes, tests/test_rendered_fences_live.py and tests/test_js_renderers.py)."""
    attacks = [
        c
        for c in ATTACKS
        if c.path.stem not in {"healing_renderers", "idempotence"}
        and c.conversation is None
        and c.path.parent.name != "rendered"
    ]
    leaking = [c for c in attacks if _check(c, c.input)]
    # 79.4 % of 686 on 2026-12-07: the fifteenth red-team pass's attribute-list fixtures
    # are mostly a stream's and the fast path's failures, whose raw input leaks in no
    # Python renderer (81 % before them).
    assert len(leaking) >= 0.78 * len(attacks), [c.id for c in attacks if c not in leaking]


def _transcript_replies() -> list[tuple[str, str, str]]:
    replies = []
    for path in sorted((ROOT / "fixtures" / "transcripts").glob("openai-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            reply = record["messages"][-1]["content"]
            replies.append((record["id"], record["label"], reply))
    return replies


@pytest.mark.parametrize(("conv", "label", "reply"), _transcript_replies())
def test_transcript_replies(conv: str, label: str, reply: str) -> None:
    result = Sanitizer().run(reply, context={"conversation_id": conv})
    if label == "honest":
        assert result.text == reply
        assert result.findings == ()
    else:
        assert result.findings
        assert all(f.context == {"conversation_id": conv} for f in result.findings)
        assert violations(result.text, payloads=transcript_payloads()) == []
        assert violations(reply, payloads=transcript_payloads()) != []


@pytest.mark.parametrize(
    ("html", "found"),
    [
        # A frame's `srcdoc` is a document of its own: what it fetches, the frame does.
        (
            '<iframe srcdoc="&lt;img src=//evil.example/s.png&gt;"></iframe>',
            ("img", "src", "//evil.example/s.png"),
        ),
        # An SVG animation of a link's `href` sets what a click opens.
        (
            "<svg><a><animate attributeName=href values=javascript:alert(1) /></a></svg>",
            ("a", "href", "javascript:alert(1)"),
        ),
        (
            "<svg><set attributeName=xlink:href to=//evil.example/t /></svg>",
            ("a", "href", "//evil.example/t"),
        ),
    ],
)
def test_the_checker_reads_frames_documents_and_animated_links(
    html: str, found: tuple[str, str, str]
) -> None:
    assert found in {(u.tag, u.attribute, u.value) for u in urls(html, "x")}
    # An animation of anything but a link's target is no link.
    assert not list(urls("<svg><animate attributeName=x values=javascript:1 /></svg>", "x"))


def test_the_checker_finds_handlers_in_a_frames_document() -> None:
    assert list(event_handlers('<iframe srcdoc="&lt;img src=x onerror=alert(1)&gt;">')) == [
        "<img onerror>"
    ]
