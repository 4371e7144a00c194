"""Every data-driven case: expected output, expected reasons, and invariants."""

from __future__ import annotations

import pytest

from conftest import sanitizer_for
from fixture_files import Case, all_cases
from rendersafe import Result

CASES = all_cases()


def _run(case: Case) -> tuple[Result, str]:
    crlf = case.title.startswith("CRLF")
    text = case.input.replace("\n", "\r\n") if crlf else case.input
    result = sanitizer_for(case.path.parent).run(text, conversation=case.conversation)
    output = result.text.replace("\r\n", "\n") if crlf else result.text
    return result, output


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_expected_output(case: Case) -> None:
    _result, output = _run(case)
    assert output == case.expected


@pytest.mark.parametrize("case", [c for c in CASES if c.reasons is not None], ids=lambda c: c.id)
def test_expected_reasons(case: Case) -> None:
    result, _output = _run(case)
    assert frozenset(r.value for f in result.findings for r in f.reasons) == case.reasons


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_findings_explain_every_change(case: Case) -> None:
    result, output = _run(case)
    assert bool(result.findings) == (output != case.input)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_idempotent(case: Case) -> None:
    result, _output = _run(case)
    again = sanitizer_for(case.path.parent).run(result.text, conversation=case.conversation)
    assert again.text == result.text
    assert again.findings == ()


def test_fixture_corpus_is_large_and_mixed() -> None:
    benign = [c for c in CASES if c.benign]
    attacks = [c for c in CASES if not c.benign]
    assert len(CASES) >= 150
    assert len(benign) >= 20
    assert len(attacks) >= 100
