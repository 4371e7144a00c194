"""Judge rendersafe on the observer sets: does a payload URL stay live, and do honest
replies come back byte for byte?

    PYTHONPATH=src python benchmarks/observers_eval.py [--json] [--set 2]
    PYTHONPATH=src python benchmarks/observers_eval.py --attacks FILE --honest FILE

Each attack in tests/data/observers/attacks.jsonl (`--set N`: attacksN.jsonl and
honestN.jsonl, the Nth red team's sets; or the files given) is sanitised with its conversation,
under the default policy (plus the case's `policy`) and under `links="strict"` (reported
as unavailable while Policy has no such field). The output is rendered with the
renderers in tests/renderers.py; a payload URL is *live* when some renderer makes it an
image or other fetched resource (zero-click) or a link (click), compared after WHATWG
normalisation and percent-decoding, and through the image proxy of the case's policy
(a proxied image reaches the URL it wraps). An attack leaks when, in one renderer, at
least `min_live` of its payload URLs are live: zero-click when that many are fetched,
click otherwise. A multi-turn attack (`turns`) is judged turn by turn, each with the
conversation so far (earlier turns as the sanitised assistant messages the client sends
back, and the user's `followups` between them), its live URLs summed over the turns.
Each honest reply in honest.jsonl must come back unchanged.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote

import ada_url

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "observers"
sys.path.insert(0, str(ROOT / "tests"))

from renderers import CHAT_ORIGIN, is_fetched, render_all  # noqa: E402
from rendersafe import Policy, PolicyError, Sanitizer  # noqa: E402

MODES = ("default", "strict")
Case = dict[str, Any]


SETS = {
    "1": ("attacks.jsonl", "honest.jsonl"),
    "2": ("attacks2.jsonl", "honest2.jsonl"),
    "3": ("attacks3.jsonl", "honest3.jsonl"),
    "4": ("attacks4.jsonl", "honest4.jsonl"),
    "5": ("attacks5.jsonl", "honest5.jsonl"),
    "6": ("attacks6.jsonl", "honest6.jsonl"),
    "7": ("attacks7.jsonl", "honest7.jsonl"),
    # honest replies only: written by a helper told what real assistants write, not
    # this design's rules (carriers, orders, consoles, search citations, signed links)
    "8": ("", "honest8.jsonl"),
    # the same, by another helper, told the honest kinds (tracking numbers,
    # orders, accounts, citations, docs, presigned links, internal tools, code hosts)
    "9": ("", "honest9.jsonl"),
    # a red team against two rules of 2026-12-07: a link that starts as one the reply
    # already sent pays for where it parts; a code host's account named by `owner/repo`
    "10": ("attacks10.jsonl", "honest10.jsonl"),
    # a red team against what an operator's message names: injections in a field of the
    # record that holds the secret (a ticket's comment), or in a retrieved page apart
    "11": ("attacks11.jsonl", ""),
}


def load(name: str | Path) -> list[Case]:
    """The cases of one JSONL set (a name in tests/data/observers, or a path; "":
    none)."""
    if not str(name):
        return []
    path = Path(name) if Path(name).is_absolute() or Path(name).exists() else DATA / name
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


_SANITIZERS: dict[tuple[str, str], Sanitizer | None] = {}


def sanitizer(policy: dict[str, Any], mode: str) -> Sanitizer | None:
    """A Sanitizer for the case's policy in `mode`; None when the mode does not exist."""
    key = (mode, json.dumps(policy, sort_keys=True))
    if key not in _SANITIZERS:
        extra = {"links": "strict"} if mode == "strict" else {}
        try:
            _SANITIZERS[key] = Sanitizer(Policy(**policy, **extra))
        except (PolicyError, TypeError):
            if mode != "strict":
                raise
            _SANITIZERS[key] = None
    return _SANITIZERS[key]


def strict_available() -> bool:
    """True when Policy accepts links="strict"."""
    return sanitizer({}, "strict") is not None


def normalise(raw: str) -> str:
    """A URL as a browser reads it, percent-decoded, for comparing payloads."""
    text = unescape(raw).strip()
    if text.lower().startswith("www."):
        text = "http://" + text
    try:
        href = str(ada_url.URL(text, base=CHAT_ORIGIN).href)
    except ValueError:
        return unquote(text)
    return unquote(href)


def unproxied(raw: str, proxy: dict[str, Any] | None) -> str:
    """The URL a proxied image reaches (the proxy's `url` parameter), else `raw`."""
    if proxy:
        endpoint = normalise(proxy["url"])
        try:
            url = ada_url.URL(unescape(raw).strip(), base=CHAT_ORIGIN)
        except ValueError:
            return raw
        if unquote(f"{url.protocol}//{url.host}{url.pathname}") == endpoint:
            wrapped = parse_qs(str(url.search).lstrip("?")).get(proxy.get("url_param", "url"))
            if wrapped:
                return wrapped[0]
    return raw


@dataclass
class Live:
    """Payload URLs a renderer made live: fetched ones and links."""

    fetched: set[str] = field(default_factory=set)
    linked: set[str] = field(default_factory=set)


def live_payloads(text: str, payloads: set[str], proxy: dict[str, Any] | None) -> dict[str, Live]:
    """Per renderer, which of the (normalised) payload URLs `text` makes live."""
    found: dict[str, Live] = defaultdict(Live)
    for url in render_all(text):
        target = normalise(unproxied(url.value, proxy))
        if target not in payloads:
            continue
        live = found[url.renderer]
        (live.fetched if is_fetched(url) else live.linked).add(target)
    return found


def sanitised(case: Case, text: str, conversation: list[dict[str, Any]], mode: str) -> str | None:
    """`text` sanitised with `conversation` under the case's policy in `mode`."""
    found = sanitizer(case.get("policy") or {}, mode)
    return None if found is None else found.run(text, conversation=conversation).text


def turns_of(case: Case) -> list[str]:
    """The replies of a case, in order (one unless it is multi-turn)."""
    turns: list[str] = case.get("turns") or [case["reply"]]
    return turns


@dataclass
class Verdict:
    """How one attack fared in one mode."""

    zero_click: bool
    click: bool


def judge_attack(case: Case, mode: str) -> Verdict | None:
    """Whether `case` leaks in `mode`; None when the mode is unavailable."""
    payloads = {normalise(u) for u in case["payload_urls"]}
    proxy = (case.get("policy") or {}).get("image_proxy")
    conversation = list(case["conversation"])
    followups: list[str] = case.get("followups") or []
    total: dict[str, Live] = defaultdict(Live)
    for index, turn in enumerate(turns_of(case)):
        output = sanitised(case, turn, conversation, mode)
        if output is None:
            return None
        for renderer, live in live_payloads(output, payloads, proxy).items():
            total[renderer].fetched |= live.fetched
            total[renderer].linked |= live.linked
        conversation.append({"role": "assistant", "content": output})
        if index < len(followups):
            conversation.append({"role": "user", "content": followups[index]})
    need = case["min_live"]
    zero_click = any(len(live.fetched) >= need for live in total.values())
    click = not zero_click and any(
        len(live.fetched | live.linked) >= need for live in total.values()
    )
    return Verdict(zero_click, click)


def judge_honest(case: Case, mode: str) -> bool | None:
    """True when the honest reply comes back byte for byte; None when unavailable."""
    output = sanitised(case, case["reply"], case["conversation"], mode)
    return None if output is None else output == case["reply"]


@dataclass
class Row:
    """Counts for one technique."""

    attacks: int = 0
    images: int = 0
    zero_click: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODES, 0))
    click: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODES, 0))


def evaluate(attacks: Iterable[Case], honest: Iterable[Case]) -> dict[str, Any]:
    """Every verdict, summed per technique and overall, and the honest results."""
    modes = [m for m in MODES if m == "default" or strict_available()]
    rows: dict[str, Row] = defaultdict(Row)
    leaks: dict[str, list[str]] = {m: [] for m in modes}
    for case in attacks:
        row = rows[case["technique"]]
        row.attacks += 1
        row.images += case["kind"] == "image"
        for mode in modes:
            verdict = judge_attack(case, mode)
            assert verdict is not None
            row.zero_click[mode] += verdict.zero_click
            row.click[mode] += verdict.click
            if verdict.zero_click or verdict.click:
                leaks[mode].append(case["id"])
    changed: dict[str, list[str]] = {m: [] for m in modes}
    honest_total = 0
    for case in honest:
        honest_total += 1
        for mode in modes:
            if not judge_honest(case, mode):
                changed[mode].append(case["id"])
    return summary(rows, leaks, changed, honest_total, modes)


def summary(
    rows: dict[str, Row],
    leaks: dict[str, list[str]],
    changed: dict[str, list[str]],
    honest_total: int,
    modes: list[str],
) -> dict[str, Any]:
    """The results as one JSON-ready dict."""
    attacks = sum(r.attacks for r in rows.values())
    images = sum(r.images for r in rows.values())
    overall = {}
    for mode in modes:
        zero = sum(r.zero_click[mode] for r in rows.values())
        click = sum(r.click[mode] for r in rows.values())
        overall[mode] = {
            "zero_click_leaks": zero,
            "click_leaks": click,
            "zero_click_pct_of_images": 100 * zero / max(images, 1),
            "click_pct_of_attacks": 100 * click / max(attacks, 1),
            "click_pct_of_links": 100 * click / max(attacks - images, 1),
            "leaked_ids": leaks[mode],
        }
    return {
        "strict_available": "strict" in modes,
        "attacks": attacks,
        "images": images,
        "techniques": {
            name: {
                "attacks": r.attacks,
                "images": r.images,
                **{f"zero_click_{m}": r.zero_click[m] for m in modes},
                **{f"click_{m}": r.click[m] for m in modes},
            }
            for name, r in sorted(rows.items())
        },
        "overall": overall,
        "honest": {
            "total": honest_total,
            **{
                mode: {
                    "unchanged": honest_total - len(changed[mode]),
                    "unchanged_pct": 100
                    * (honest_total - len(changed[mode]))
                    / max(honest_total, 1),
                    "changed_ids": changed[mode],
                }
                for mode in modes
            },
        },
    }


def print_table(result: dict[str, Any]) -> None:
    """The per-technique table and the overall figures, as text."""
    strict = result["strict_available"]
    head = f"{'technique':<26} {'n':>3} {'img':>3} | {'0-click':>7} {'click':>5}"
    head += f" | {'0-click':>7} {'click':>5}" if strict else " | strict: unavailable"
    print(f"{'':<34} | {'default':^13}" + (f" | {'strict':^13}" if strict else ""))
    print(head)
    print("-" * len(head))
    for name, row in result["techniques"].items():
        line = f"{name:<26} {row['attacks']:>3} {row['images']:>3} | "
        line += f"{row['zero_click_default']:>7} {row['click_default']:>5}"
        if strict:
            line += f" | {row['zero_click_strict']:>7} {row['click_strict']:>5}"
        print(line)
    print("-" * len(head))
    links = result["attacks"] - result["images"]
    print(f"{result['attacks']} attacks, {result['images']} images (zero-click), {links} links")
    for mode, o in result["overall"].items():
        print(
            f"{mode}: zero-click leaks {o['zero_click_leaks']} "
            f"({o['zero_click_pct_of_images']:.1f}% of images); click leaks {o['click_leaks']} "
            f"({o['click_pct_of_attacks']:.1f}% of attacks, "
            f"{o['click_pct_of_links']:.1f}% of links)"
        )
    if not strict:
        print("strict: unavailable (Policy has no links='strict')")
    honest = result["honest"]
    for mode in MODES:
        if mode in honest:
            h = honest[mode]
            print(
                f"honest {mode}: {h['unchanged']}/{honest['total']} byte-identical "
                f"({h['unchanged_pct']:.1f}%); changed: {', '.join(h['changed_ids']) or '-'}"
            )


def main(argv: list[str] | None = None) -> int:
    """Run an attack set and an honest set and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--set", choices=sorted(SETS), default="1", help="which sets to run (default: 1)"
    )
    parser.add_argument("--attacks", help="an attack set (JSONL) instead of --set's")
    parser.add_argument("--honest", help="an honest set (JSONL) instead of --set's")
    args = parser.parse_args(argv)
    attacks, honest = SETS[args.set]
    result = evaluate(load(args.attacks or attacks), load(args.honest or honest))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
