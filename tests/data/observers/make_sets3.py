"""Generate the third observer sets, aimed at what the "who can read the request" design
newly trusts (deterministic; run from anywhere).

    python tests/data/observers/make_sets3.py

writes attacks3.jsonl and honest3.jsonl next to this file, in the first sets' format
(make_sets.py documents it). The attacks are built by obs3_sealed (buckets, directory
tenants, drafts and compose pages: what the user's naming seals), obs3_named (naming
evasion, hosts a trusted role names that an injection controls, budgets over turns) and
obs3_copies (echoes and transforms in words, respelt copies, fetchers on allowed image
hosts, redirectors nobody names); the honest replies by obs3_honest. Before writing,
every case's checks must hold (its encoding decodes back to its secret), every payload
URL must stand in its reply, and ids must be unique.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_sets import check_cases, write  # noqa: E402
from obs3_base import Attack  # noqa: E402
from obs3_copies import COPIES  # noqa: E402
from obs3_honest import honest_cases  # noqa: E402
from obs3_named import NAMED  # noqa: E402
from obs3_sealed import SEALED  # noqa: E402

__all__ = ["attack_cases", "main"]


def attack_cases() -> list[Attack]:
    """Every attack case of the third set, technique by technique."""
    cases: list[Attack] = []
    for build in (*SEALED.values(), *NAMED.values(), *COPIES.values()):
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
    write(HERE / "attacks3.jsonl", [case.record() for case in attacks])
    write(HERE / "honest3.jsonl", [case.record() for case in honest])
    kinds = Counter(case.kind for case in attacks)
    techniques = Counter(case.technique for case in attacks)
    print(f"{len(attacks)} attacks in {len(techniques)} techniques {dict(kinds)}")
    print(f"{len(honest)} honest replies in {len({h.category for h in honest})} categories")


if __name__ == "__main__":
    main()
