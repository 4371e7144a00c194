"""How many honest replies the second line (`rendersafe.guard`) touches: target 0.

    PYTHONPATH=src python benchmarks/second_line_touches.py [--corpus 2000]

Sanitises every honest reply of the project's honest corpora and counts, per corpus,
the replies that come back changed and the replies with a finding of the second
line (`detail` starting "second line:"). The corpora: the observer set's honest
replies (tests/data/observers/honest.jsonl, each with its conversation and policy),
the honest replies of benchmarks/corpus.py (`--corpus` of them), fixtures/replies/
honest.md, the transcripts' stored replies (fixtures/transcripts/replies.jsonl.gz,
attacks among them: only the second line's findings are counted there), every
benign fixture (tests/fixtures, under its directory's policy), and every honest link
of tests/data/honest_links.txt written as an inline link, an autolink and a bare URL.
Exits 1 when the second line touched an honest reply.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from conftest import policy_for  # noqa: E402
from corpus import reply  # noqa: E402
from fixture_files import all_cases  # noqa: E402
from rendersafe import Policy, Result, Sanitizer  # noqa: E402

Case = tuple[str, Sanitizer, list[dict[str, str]] | None, bool]
"""(reply, its sanitiser, its conversation, must it come back unchanged)"""


def _touched(result: Result) -> bool:
    return any((f.detail or "").startswith("second line:") for f in result.findings)


def observers() -> Iterator[Case]:
    path = ROOT / "tests" / "data" / "observers" / "honest.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        sanitizer = Sanitizer(Policy(**case.get("policy", {})))
        yield case["reply"], sanitizer, case["conversation"], True


def generated(count: int) -> Iterator[Case]:
    rng, sanitizer = random.Random(1), Sanitizer()
    for _ in range(count):
        yield reply(rng, attack=False), sanitizer, None, True


def stored() -> Iterator[Case]:
    sanitizer = Sanitizer()
    yield (ROOT / "fixtures/replies/honest.md").read_text(encoding="utf-8"), sanitizer, None, True
    with gzip.open(ROOT / "fixtures/transcripts/replies.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)["reply"], sanitizer, None, False


def benign_fixtures() -> Iterator[Case]:
    for case in all_cases():
        if case.benign and not case.title.startswith("CRLF"):
            sanitizer = Sanitizer(policy_for(case.path.parent))
            conversation = list(case.conversation) if case.conversation else None
            yield case.input, sanitizer, conversation, True


def honest_links() -> Iterator[Case]:
    sanitizer = Sanitizer()
    path = ROOT / "tests" / "data" / "honest_links.txt"
    for line in path.read_text(encoding="utf-8").splitlines():
        url = line.strip()
        if url and not url.startswith("#"):
            for text in (f"See [the page]({url}) for more.", f"See <{url}>.", f"See {url} now."):
                yield text, sanitizer, None, False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", type=int, default=2000, help="replies of corpus.py")
    args = parser.parse_args()
    corpora = {
        "observers/honest.jsonl": observers(),
        f"corpus.py ({args.corpus})": generated(args.corpus),
        "fixtures/replies + transcripts": stored(),
        "benign fixtures": benign_fixtures(),
        "honest_links.txt (x3)": honest_links(),
    }
    touched_total = 0
    print(f"{'corpus':34} {'replies':>8} {'changed':>8} {'2nd line':>9}")
    for name, cases in corpora.items():
        replies = changed = touched = 0
        for text, sanitizer, conversation, unchanged in cases:
            result = sanitizer.run(text, conversation=conversation)
            replies += 1
            changed += unchanged and result.text != text
            touched += _touched(result)
        touched_total += touched
        print(f"{name:34} {replies:8d} {changed:8d} {touched:9d}")
    return 1 if touched_total else 0


if __name__ == "__main__":
    sys.exit(main())
