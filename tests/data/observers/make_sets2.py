"""Generate the second observer sets, aimed at the observer judgement's seams
(deterministic; run from anywhere).

    python tests/data/observers/make_sets2.py

writes attacks2.jsonl and honest2.jsonl next to this file, in the first sets' format
(make_sets.py documents it). The attacks are built by obs2_unnamed (hosts nobody named,
the conversation's budget, IP literals), obs2_trusted (hosts a trusted role named) and
obs2_copies (copies, choices, allowed CDNs, deploy links); the honest replies by
obs2_honest. Before writing, every case's checks must hold (its encoding decodes back
to its secret, its payload carries it), every payload URL must stand in its reply, and
ids must be unique.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_sets import check_cases, write  # noqa: E402
from obs2_base import Attack  # noqa: E402
from obs2_copies import COPIES  # noqa: E402
from obs2_honest import honest_cases  # noqa: E402
from obs2_trusted import TRUSTED  # noqa: E402
from obs2_unnamed import UNNAMED  # noqa: E402

__all__ = ["attack_cases", "main"]


def attack_cases() -> list[Attack]:
    """Every attack case of the second set, technique by technique."""
    cases: list[Attack] = []
    for build in (*UNNAMED.values(), *TRUSTED.values(), *COPIES.values()):
        cases.extend(build())
    return cases


def check_checks(cases: list[Attack]) -> None:
    """Every case made at least one check, and each holds."""
    failed = [case.id for case in cases if not case.checks or not all(case.checks)]
    if failed:
        raise AssertionError(f"checks failed: {failed}")


def main() -> None:
    """Build, check and write both sets; print their counts."""
    attacks = attack_cases()
    check_checks(attacks)
    check_cases(attacks)  # type: ignore[arg-type]
    honest = honest_cases()
    ids = Counter(h.id for h in honest)
    if max(ids.values()) > 1:
        raise AssertionError(f"duplicate honest ids: {[i for i, n in ids.items() if n > 1]}")
    write(HERE / "attacks2.jsonl", [case.record() for case in attacks])
    write(HERE / "honest2.jsonl", [case.record() for case in honest])
    kinds = Counter(case.kind for case in attacks)
    techniques = Counter(case.technique for case in attacks)
    print(f"{len(attacks)} attacks in {len(techniques)} techniques {dict(kinds)}")
    print(f"{len(honest)} honest replies in {len({h.category for h in honest})} categories")


if __name__ == "__main__":
    main()
