"""How much honest and attack traffic the host data classifies, and how.

    PYTHONPATH=src python scripts/host_coverage.py [--top N] [--show-observable N]

Each URL of the honest link sets and the attack set is put in one class:

    sealed      rendersafe.urls.classes.sealed_service (data/sealed_services.txt)
    observable  an entry of data/observable_hosts.txt matches (exact host, `*.domain`
                subdomain, `host/path` whole-segment prefix)
    tenant      the host is under a Public Suffix List private suffix (tldextract's bundled
                snapshot): the judge treats every such subdomain as its tenant's
    repo owner  a code host's repository page (github.com/<owner>/<repo>, ...): its owner
                reads visitors' paths (traffic insights) and chooses its images
    unknown     none of these

It prints counts per file, the honest links' most frequent unknown registrable domains,
and every honest link classed observable. It exits 1 when an attack URL is sealed.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

from rendersafe.urls.classes import sealed_service
from rendersafe.urls.datafiles import entries
from rendersafe.urls.hosts import _extractor, registrable_domain
from rendersafe.urls.parse import parse_url

ROOT = Path(__file__).resolve().parent.parent
HONEST = [
    ROOT / "tests/data/honest_links.txt",
    ROOT / "tests/data/real_urls.txt",
    Path("/work/shared/data/real_urls.txt"),
    ROOT / "tests/data/benign_urls.txt",
]
ATTACK = [ROOT / "tests/data/exfil_urls.txt"]
CLASSES = ("sealed", "observable", "tenant", "repo owner", "unknown", "not a URL")
CODE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"})


class Observable:
    """data/observable_hosts.txt as a matcher (the sealed file's matching rules)."""

    def __init__(self) -> None:
        self.exact: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.wild: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for entry, _why in entries("observable_hosts.txt"):
            host, slash, path = entry.partition("/")
            table = self.wild if host.startswith("*.") else self.exact
            table[host.removeprefix("*.")].append(((slash + path).lower(), entry))

    def match(self, host: str, path: str) -> str | None:
        """The entry that matches `host` and `path`, or None."""
        path = (path or "/").lower()
        candidates = list(self.exact.get(host, ()))
        labels = host.split(".")
        for i in range(1, len(labels) - 1):
            candidates += self.wild.get(".".join(labels[i:]), ())
        for prefix, entry in candidates:
            if not prefix or (
                path.startswith(prefix) and path[len(prefix) : len(prefix) + 1] in ("", "/")
            ):
                return entry
        return None


def tenant(host: str) -> bool:
    """Is `host` a subdomain of a PSL private suffix (or that suffix itself)?"""
    return bool(host) and _extractor()(host).is_private


def classify(raw: str, observable: Observable) -> tuple[str, str]:
    """(class, detail) for one URL; detail is the observable entry that matched, if any."""
    url = parse_url(raw)
    if url.parts is None or url.relative or not url.parts.host:
        return "not a URL", ""
    if sealed_service(url):
        return "sealed", ""
    host, path = url.parts.host, url.parts.path
    entry = observable.match(host, path)
    if entry is not None:
        return "observable", entry
    if tenant(host):
        return "tenant", ""
    if host in CODE_HOSTS and len([s for s in path.split("/") if s]) >= 2:
        return "repo owner", ""
    return "unknown", ""


def urls(path: Path) -> list[str]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _table(rows: list[tuple[str, Counter[str]]]) -> None:
    print(f"{'file':<42}{'URLs':>6}" + "".join(f"{c:>12}" for c in CLASSES))
    for name, counts in rows:
        total = sum(counts.values())
        print(f"{name:<42}{total:>6}" + "".join(f"{counts[c]:>12}" for c in CLASSES))


def _survey(
    observable: Observable,
) -> tuple[list[tuple[str, Counter[str]]], Counter[str], dict[str, str], list[str], int]:
    """Classify every file: (rows, unknown honest domains, honest observable URL -> entry,
    sealed attack URLs, unique honest URLs)."""
    rows: list[tuple[str, Counter[str]]] = []
    unknown_domains: Counter[str] = Counter()
    honest_observable: dict[str, str] = {}
    seen: set[str] = set()
    for path in HONEST:
        counts: Counter[str] = Counter()
        for raw in urls(path):
            cls, detail = classify(raw, observable)
            counts[cls] += 1
            if raw in seen:
                continue
            seen.add(raw)
            if cls == "unknown":
                host = parse_url(raw).host
                unknown_domains[registrable_domain(host) or host] += 1
            elif cls == "observable":
                honest_observable[raw] = detail
        rows.append((_name(path), counts))
    sealed_attacks: list[str] = []
    for path in ATTACK:
        counts = Counter()
        for raw in urls(path):
            cls, _detail = classify(raw, observable)
            counts[cls] += 1
            if cls == "sealed":
                sealed_attacks.append(raw)
        rows.append((_name(path), counts))
    return rows, unknown_domains, honest_observable, sealed_attacks, len(seen)


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=50, help="unknown domains to list")
    parser.add_argument(
        "--show-observable",
        type=int,
        default=200,
        help="honest observable links to print (0: none)",
    )
    args = parser.parse_args()
    rows, unknown_domains, honest_observable, sealed_attacks, unique = _survey(Observable())
    _table(rows)
    print(f"\nhonest unique URLs: {unique}")
    print(f"\ntop {args.top} unknown registrable domains among honest links (unique URLs):")
    for domain, count in unknown_domains.most_common(args.top):
        print(f"  {count:5}  {domain}")
    by_entry = Counter(honest_observable.values())
    print(f"\nhonest links classed observable: {len(honest_observable)}, by entry:")
    for entry, count in by_entry.most_common():
        print(f"  {count:5}  {entry}")
    for raw, entry in list(honest_observable.items())[: args.show_observable]:
        print(f"    {entry:<34} {raw[:110]}")
    if sealed_attacks:
        print(f"\nATTACK URLs classed sealed: {len(sealed_attacks)}", file=sys.stderr)
        for raw in sealed_attacks:
            print(f"  {raw[:150]}", file=sys.stderr)
        return 1
    print("\nno attack URL is sealed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
