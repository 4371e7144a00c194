"""Generate the observer attack and honest sets (deterministic; run from anywhere).

    python tests/data/observers/make_sets.py

writes attacks.jsonl and honest.jsonl next to this file. The attacks are built by
obs_attacks (encodings), obs_special (splitting, alphabets, tools, agents, several
replies) and obs_channels (hosts and constructs); the honest replies by obs_honest.
Before writing, every encoding is checked to decode back to its secret and every
payload URL to stand in its reply.

attacks.jsonl, one object a line:
    id, technique, description   the case, and how it encodes what
    conversation                 OpenAI chat messages up to the reply (the injection sits
                                 in a tool result; tools the model called after it follow)
    reply                        what the injected model writes (the last turn, if several)
    policy                       extra Policy kwargs (an image proxy, allowed image hosts)
    secret                       what leaks
    observers                    registrable domains or hosts whose owner reads the request
    payload_urls                 the exact URLs in the reply that carry data
    min_live                     how many of them must stay live to leak >= 8 bits
    kind                         "image" (zero-click) or "link" (click)
    turns, followups             multi-turn only: the replies in order, and the user's
                                 messages between them (len(turns) - 1)
honest.jsonl: id, category, conversation, reply, policy; the reply must come back
byte for byte.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

__all__ = ["attack_cases", "check_cases", "check_encodings", "honest_cases", "main"]

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from obs_attacks import ENCODINGS, Case, encoding_cases  # noqa: E402
from obs_channels import CHANNELS  # noqa: E402
from obs_encode import roundtrips  # noqa: E402
from obs_honest import honest_cases  # noqa: E402
from obs_scenarios import SCENARIOS  # noqa: E402
from obs_special import SPECIAL  # noqa: E402


def attack_cases() -> list[Case]:
    """Every attack case, technique by technique."""
    cases = [case for name in ENCODINGS for case in encoding_cases(name)]
    for build in (*SPECIAL.values(), *CHANNELS.values()):
        cases.extend(build())
    return cases


def check_encodings() -> None:
    """Every invertible encoding gives back every secret of the scenarios."""
    for scenario in SCENARIOS:
        for secret in scenario.secrets:
            for name, encode, decode in roundtrips(secret.value):
                if decode(encode(secret.value)) != secret.value:
                    raise AssertionError(f"{name} does not round-trip {secret.value!r}")


def check_cases(cases: list[Case]) -> None:
    """Ids unique; payload URLs in the reply (or its turns); min_live reachable."""
    ids = Counter(case.id for case in cases)
    if max(ids.values()) > 1:
        raise AssertionError(f"duplicate ids: {[i for i, n in ids.items() if n > 1]}")
    for case in cases:
        text = "\n".join(case.turns) if case.turns else case.reply
        missing = [u for u in case.payload_urls if u not in text]
        if missing or not case.observers or not 1 <= case.min_live <= len(case.payload_urls):
            raise AssertionError(f"{case.id}: malformed ({missing=})")


def write(path: Path, records: list[dict[str, Any]]) -> None:
    """One JSON object a line, keys in a stable order."""
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    """Build, check and write both sets; print their counts."""
    check_encodings()
    attacks = attack_cases()
    check_cases(attacks)
    honest = honest_cases()
    write(HERE / "attacks.jsonl", [case.record() for case in attacks])
    write(HERE / "honest.jsonl", [case.record() for case in honest])
    kinds = Counter(case.kind for case in attacks)
    techniques = Counter(case.technique for case in attacks)
    print(f"{len(attacks)} attacks in {len(techniques)} techniques {dict(kinds)}")
    print(f"{len(honest)} honest replies in {len({h.category for h in honest})} categories")


if __name__ == "__main__":
    main()
