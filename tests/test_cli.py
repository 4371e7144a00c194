"""The `rendersafe` command line: output, findings, exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

from rendersafe.cli import run

ROOT = Path(__file__).parent.parent
ATTACK = ROOT / "fixtures" / "replies" / "exfiltration.md"
HONEST = ROOT / "fixtures" / "replies" / "honest.md"


def _run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_findings_exit_1_with_clean_text_on_stdout() -> None:
    code, out, err = _run("sanitize", str(ATTACK))
    assert code == 1
    assert "attacker.example" not in out
    assert "# Quarterly summary" in out
    assert "image removed (encoded_base64" in err
    assert str(ATTACK) in err


def test_honest_reply_exits_0_and_is_unchanged() -> None:
    code, out, err = _run("sanitize", str(HONEST))
    assert (code, err) == (0, "")
    assert out == HONEST.read_text()


def test_stdin_and_json_findings() -> None:
    code, out, err = _run("sanitize", "-", "--json", stdin="![x](https://evil.example/x.png)")
    assert code == 1
    assert out == "x \\[image removed\\]"
    record = json.loads(err.splitlines()[0])
    assert record["construct"] == "image"
    assert record["reasons"] == ["image_host_not_allowed"]
    assert record["context"] == {"source": "-"}


def test_policy_file(tmp_path: Path) -> None:
    policy = tmp_path / "p.toml"
    policy.write_text('allowed_image_hosts = ["evil.example"]\n')
    code, out, _ = _run(
        "sanitize", "-", "--policy", str(policy), stdin="![x](https://evil.example/x.png)"
    )
    assert (code, out) == (0, "![x](https://evil.example/x.png)")


def test_errors_exit_2(tmp_path: Path) -> None:
    assert _run("sanitize", str(tmp_path / "missing.md"))[0] == 2
    bad = tmp_path / "bad.toml"
    bad.write_text('allowed_image_hosts = ["github.io"]\n')
    code, _, err = _run("sanitize", "-", "--policy", str(bad))
    assert code == 2
    assert "public suffix" in err
    assert _run("no-such-command")[0] == 2


def test_policy_schema_and_check(tmp_path: Path) -> None:
    code, out, _ = _run("policy", "schema")
    assert code == 0
    assert "allowed_image_hosts" in json.loads(out)["properties"]
    good = tmp_path / "good.toml"
    good.write_text("max_images = 2\n")
    assert _run("policy", "check", str(good))[0] == 0
    bad = tmp_path / "bad.toml"
    bad.write_text('allowed_link_schemes = ["javascript"]\n')
    code, _, err = _run("policy", "check", str(bad))
    assert code == 2
    assert "never allowed" in err


def test_console_script_runs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rendersafe", "sanitize", str(ATTACK)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "attacker.example" not in done.stdout
