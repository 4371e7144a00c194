"""Every observer case's sanitised text and findings, as JSON: a change that must not
change a verdict is checked by dumping before and after and comparing the files.

    PYTHONPATH=src python benchmarks/observers_dump.py OUT.json
    cmp before.json after.json

Each case of tests/data/observers/*.jsonl (attacks and honest sets 1-3), in each mode
`observers_eval.py` runs, turn by turn as it runs them (each turn with the conversation
so far, the sanitised reply appended): the text, and each finding's kind, action,
reasons, detail, URL and place. The Sanitizers are shared across cases, as there.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import observers_eval as ev


def turns(case: dict[str, Any], mode: str) -> list[object] | None:
    """What each turn of `case` comes out as in `mode` (None: no such mode)."""
    sanitizer = ev.sanitizer(case.get("policy") or {}, mode)
    if sanitizer is None:
        return None
    conversation = list(case["conversation"])
    followups: list[str] = case.get("followups") or []
    found: list[object] = []
    for index, turn in enumerate(ev.turns_of(case)):
        result = sanitizer.run(turn, conversation=conversation)
        findings = [
            [f.kind, f.action, list(f.reasons), f.detail, f.full_url, f.start, f.end]
            for f in result.findings
        ]
        found.append([result.text, findings])
        conversation.append({"role": "assistant", "content": result.text})
        if index < len(followups):
            conversation.append({"role": "user", "content": followups[index]})
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="the JSON file to write")
    args = parser.parse_args()
    dump: dict[str, object] = {}
    for path in sorted(ev.DATA.glob("*.jsonl")):
        for case in ev.load(path):
            for mode in ev.MODES:
                found = turns(case, mode)
                if found is not None:
                    dump[f"{path.name}:{case.get('id')}:{mode}"] = found
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(dump, out, indent=0, sort_keys=True, default=str)
    print(f"{len(dump)} cases and modes written to {args.out}")


if __name__ == "__main__":
    main()
