"""benchmarks/fuzz_soup.py itself: a case is its seed and index whatever the job count,
`--only` replays it, and a renderer that hangs is counted apart while the run goes on."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from soup import JS

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from fuzz_soup import Settings  # noqa: E402

# commonmark.py's and commonmark.js's link-title regex backtracks exponentially on an
# unclosed title followed by escaped brackets; rendersafe leaves this reply as it is.
HANGS_COMMONMARK = '![a](g "' + "\\[" * 40
node_modules = pytest.mark.skipif(
    shutil.which("node") is None or not (JS / "node_modules").is_dir(),
    reason="needs Node.js and `npm ci --prefix tests/js`",
)


def fuzz(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """benchmarks/fuzz_soup.py run as a user would."""
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / "fuzz_soup.py"), *argv],
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def digest_of(done: subprocess.CompletedProcess[str]) -> str:
    found = re.search(r"cases digest: (\w+)", done.stdout)
    assert found is not None, done.stdout + done.stderr
    return found.group(1)


def test_a_case_is_its_seed_and_index_whatever_the_job_count() -> None:
    one = fuzz("--cases", "10", "--seed", "5", "--jobs", "1")
    two = fuzz("--cases", "10", "--seed", "5", "--jobs", "2")
    later = fuzz("--cases", "4", "--seed", "5", "--first", "6", "--jobs", "2")
    assert (one.returncode, two.returncode, later.returncode) == (0, 0, 0), one.stdout
    assert "10 cases (seed 5, --jobs 2" in two.stdout
    texts = {i: Settings(5).case(i)[0] for i in range(10)}

    def expected(indices: range) -> str:
        lines = "".join(f"{i}:{hashlib.sha256(texts[i].encode()).hexdigest()}\n" for i in indices)
        return hashlib.sha256(lines.encode()).hexdigest()[:16]

    assert digest_of(one) == digest_of(two) == expected(range(10))
    assert digest_of(later) == expected(range(6, 10))
    assert digest_of(fuzz("--cases", "10", "--seed", "6")) != digest_of(one)


def test_only_replays_one_case_and_records_its_seed_and_index(tmp_path: Path) -> None:
    out = tmp_path / "case.jsonl"
    done = fuzz("--seed", "5", "--only", "7", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    text = Settings(5).case(7)[0]
    assert f"  input   {json.dumps(text)}\n" in done.stdout
    record = json.loads(out.read_text(encoding="utf-8"))
    assert (record["seed"], record["index"], record["input"]) == (5, 7, text)
    assert record["failures"] == record["timeouts"] == []


def _inputs(tmp_path: Path) -> Path:
    inputs = tmp_path / "inputs.jsonl"
    texts = ["Sure, here it is: [a](https://docs.python.org/)", HANGS_COMMONMARK, "word *a*"]
    inputs.write_text("".join(json.dumps({"input": t}) + "\n" for t in texts), "utf-8")
    return inputs


def test_a_hanging_renderer_is_its_own_class_and_the_run_goes_on(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    inputs = _inputs(tmp_path)
    done = fuzz("--inputs", str(inputs), "--renderer-timeout", "0.5", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 cases (seed 1, --jobs 1, the Python renderers): 0 failing" in done.stdout
    assert "failures by class: none" in done.stdout
    assert "      1  renderer timeout: commonmark.py (raw input too)" in done.stdout
    assert "case 1: ['renderer timeout: commonmark.py (raw input too)']" in done.stderr
    record = json.loads(out.read_text(encoding="utf-8"))
    assert (record["index"], record["failures"]) == (1, [])


@node_modules
def test_a_hanging_javascript_renderer_is_killed_and_the_next_renders(tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    done = fuzz("--inputs", str(inputs), "--js", "--renderer-timeout", "1", "--prefixes", "4")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 cases (seed 1, --jobs 1, every renderer and healer): 0 failing" in done.stdout
    assert "      1  renderer timeout: commonmark.js (raw input too)" in done.stdout
    assert "renderer timeouts (a renderer's own run time, not failures): 1 cases" in done.stdout
