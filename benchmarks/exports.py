"""Large export files of the big formats, written streaming, for the scan benchmark
and the memory measurement.

    python benchmarks/exports.py chatgpt /tmp/conversations.json --mb 1000

Formats: `chatgpt` (a `conversations.json` list of `mapping` trees, with the metadata
a real export carries), `claude` (Claude.ai `chat_messages`), `lmsys` (JSONL
`conversation` lists) and `parquet` (Hugging Face `messages` rows; needs pyarrow).
The replies come from benchmarks/corpus.py (one in ten an attack); user turns are
short questions, one in five with a session token the reply may leak.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from corpus import corpus

_POOL = corpus(2_000_000)


def _turns(rng: random.Random) -> list[tuple[str, str]]:
    turns = []
    for _ in range(rng.randint(1, 4)):
        token = f"{rng.getrandbits(48):012x}"
        ask = f"Can you help with this? My session is {token}." if rng.random() < 0.2 else "Why?"
        turns += [("user", ask), ("assistant", rng.choice(_POOL))]
    return turns


def _chatgpt(number: int, rng: random.Random) -> dict[str, Any]:
    nodes: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None}}
    parent = "root"
    for index, (role, text) in enumerate(_turns(rng)):
        key = f"n{number}-{index}"
        nodes[parent].setdefault("children", []).append(key)
        nodes[key] = {
            "id": key,
            "message": {
                "id": key,
                "author": {"role": role, "name": None, "metadata": {}},
                "create_time": 1717000000.0 + number * 60 + index,
                "update_time": None,
                "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully",
                "end_turn": role == "assistant",
                "weight": 1.0,
                "metadata": {"model_slug": "gpt-4o", "finish_details": {"type": "stop"}},
                "recipient": "all",
            },
            "parent": parent,
            "children": [],
        }
        parent = key
    nodes["root"].setdefault("children", [])
    return {
        "title": f"Conversation {number}",
        "create_time": 1717000000.0 + number * 60,
        "update_time": 1717000000.0 + number * 60 + 30,
        "mapping": nodes,
        "moderation_results": [],
        "current_node": parent,
        "conversation_id": f"conv-{number:08d}",
        "id": f"conv-{number:08d}",
        "default_model_slug": "gpt-4o",
    }


def _claude(number: int, rng: random.Random) -> dict[str, Any]:
    messages = [
        {
            "uuid": f"m-{number}-{i}",
            "text": text,
            "content": [{"type": "text", "text": text}],
            "sender": "human" if role == "user" else "assistant",
            "created_at": "2024-06-01T09:00:00.000000Z",
            "attachments": [],
            "files": [],
        }
        for i, (role, text) in enumerate(_turns(rng))
    ]
    return {"uuid": f"c-{number:08d}", "name": f"Chat {number}", "chat_messages": messages}


def _lmsys(number: int, rng: random.Random) -> dict[str, Any]:
    turns = [{"content": text, "role": role} for role, text in _turns(rng)]
    return {"conversation_id": f"{number:016x}", "model": "vicuna-13b", "conversation": turns}


def records(kind: Callable[[int, random.Random], dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Records of one format, without end."""
    rng = random.Random(11)
    for number in itertools.count():
        yield kind(number, rng)


def write_json_list(
    path: Path, kind: Callable[[int, random.Random], dict[str, Any]], size: int
) -> int:
    """A JSON list of records, about `size` bytes, written as it goes."""
    written = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for number, record in enumerate(records(kind)):
            text = ("," if number else "") + json.dumps(record)
            out.write(text)
            written += len(text)
            if written >= size:
                break
        out.write("]\n")
    return path.stat().st_size


def write_jsonl(path: Path, size: int) -> int:
    """LMSYS-style JSONL, about `size` bytes."""
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for record in records(_lmsys):
            line = json.dumps(record) + "\n"
            out.write(line)
            written += len(line)
            if written >= size:
                break
    return path.stat().st_size


def write_parquet(path: Path, size: int) -> int:
    """Hugging Face-style Parquet (`messages` rows), about `size` bytes of text."""
    import pyarrow as pa  # noqa: PLC0415  (an optional extra)
    import pyarrow.parquet as pq  # noqa: PLC0415

    rows, written, writer = [], 0, None
    for record in records(_lmsys):
        rows.append({"id": record["conversation_id"], "messages": record["conversation"]})
        written += sum(len(t["content"]) for t in record["conversation"])
        if len(rows) == 500 or written >= size:
            table = pa.Table.from_pylist(rows)
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
            rows = []
        if written >= size:
            break
    if writer is not None:
        writer.close()
    return path.stat().st_size


def write(kind: str, path: Path, size: int) -> int:
    """Write `size` bytes (about) of format `kind` to `path`; its size."""
    if kind == "chatgpt":
        return write_json_list(path, _chatgpt, size)
    if kind == "claude":
        return write_json_list(path, _claude, size)
    if kind == "lmsys":
        return write_jsonl(path, size)
    return write_parquet(path, size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=("chatgpt", "claude", "lmsys", "parquet"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--mb", type=float, default=100.0)
    args = parser.parse_args()
    size = write(args.kind, args.path, int(args.mb * 1e6))
    print(f"{args.path}: {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
