"""Rebuild tests/data/honest_links.txt: real links people wrote, harvested offline.

    python benchmarks/harvest_links.py [--per-host N] [--out tests/data/honest_links.txt]

Sources, all on this machine: tests/data/real_urls.txt and benign_urls.txt (the
earlier corpora), the documentation of the installed Python packages (METADATA,
README, changelogs, licences: `*.md`, `*.rst`, `*.txt`), the JavaScript renderers'
`*.md` and `package.json` under tests/js/node_modules, and /usr/share/doc (plain
and gzipped). Nothing is fetched. A URL is kept when it parses, has a public host
(no placeholder domain, no IP, no localhost), holds no template syntax, and does not
carry an obviously fake test token (counted and printed). At most `--per-host`
links per host are kept, picked by a stable hash, so that one project's changelog
(75,000 commit links on github.com) does not drown the others.

The hand-written section of the output (the provider and diagram shapes the issue
names) is kept as it is: everything between the `# --- hand-written` and
`# --- harvested` marker lines.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import re
import sys
import sysconfig
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from rendersafe.urls import parse_url
from rendersafe.urls.hosts import registrable_domain

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "honest_links.txt"
HAND, HARVESTED = "# --- hand-written", "# --- harvested"
SITE_PACKAGES = Path(sysconfig.get_paths()["purelib"])
SOURCES: tuple[tuple[Path, tuple[str, ...]], ...] = (
    (ROOT / "tests" / "data", ("real_urls.txt", "benign_urls.txt")),
    (SITE_PACKAGES, ("METADATA", "*.md", "*.rst", "*.txt")),
    (ROOT / "tests" / "js" / "node_modules", ("*.md", "package.json")),
    (Path("/usr/share/doc"), ("*",)),
)
_URL = re.compile(r"https?://[^\s<>\"'`{}|\\^\[\]]+")
_TRAILING = ".,;:!?*'_"
# Hosts that stand for no one: documentation placeholders and test hosts.
_PLACEHOLDER = re.compile(
    r"(?:^|\.)(?:example|localhost|invalid|test|local|domain|yourdomain|mydomain|host)"
    r"(?:\.[a-z]+)?$|(?:^|\.)(?:example\.(?:com|org|net)|foo\.(?:bar|com)|acme\.com|company\.com)$"
)
_TEMPLATE = re.compile(r"\$\{|\$\(|%[sd]\b|<[a-z]|\{\{|\.\.\.|%[0-9]\$|\*\*")
# Fake credentials in test fixtures and docs (`AKIAIOSFODNN7EXAMPLE`, `ghp_xxxxxxxx`).
_FAKE_TOKEN = re.compile(r"EXAMPLE|x{8,}|X{8,}|(?i:your[_-]?(?:api[_-]?)?(?:key|token))")


LEFT_OUT = (
    "template",
    "unparseable",
    "placeholder host",
    "credentials in the URL (syntax examples)",
    "fake token",
)


def files(root: Path, patterns: tuple[str, ...]) -> Iterator[Path]:
    """Every regular file under `root` matching one of `patterns`."""
    if not root.is_dir():
        return
    for pattern in patterns:
        for path in sorted(root.rglob(pattern)):
            if path.is_file():
                yield path


def text_of(path: Path) -> str:
    """The file's text (gunzipped), or "" for binary or unreadable files."""
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return ""
    if b"\0" in data[:4096]:
        return ""
    return data.decode("utf-8", errors="replace")


def urls_in(text: str) -> Iterator[str]:
    """URLs as a reader would copy them out of prose, Markdown or JSON."""
    for match in _URL.finditer(text):
        url = match.group().rstrip(_TRAILING)
        # A closing parenthesis belongs to the URL only when it opened one (Wikipedia).
        while url.endswith(")") and url.count("(") < url.count(")"):
            url = url[:-1].rstrip(_TRAILING)
        yield url


def verdict(url: str) -> str:
    """ "keep", or why the URL is left out."""
    if _TEMPLATE.search(url) or "\ufffd" in url:
        return "template"
    parsed = parse_url(url)
    if parsed.href is None or parsed.relative or parsed.mdurl_host is not None:
        return "unparseable"
    host = parsed.host
    if _PLACEHOLDER.search(host) or not registrable_domain(host):
        return "placeholder host"
    if parsed.parts is not None and (parsed.parts.username or parsed.parts.password):
        return "credentials in the URL (syntax examples)"
    if _FAKE_TOKEN.search(url):
        return "fake token"
    return "keep"


def harvest(sources: Iterable[tuple[Path, tuple[str, ...]]]) -> tuple[set[str], Counter[str]]:
    """Every URL kept from `sources`, and the count of those left out, by reason."""
    kept: set[str] = set()
    dropped: Counter[str] = Counter()
    seen: set[str] = set()
    for root, patterns in sources:
        for path in files(root, patterns):
            for url in urls_in(text_of(path)):
                if url in seen:
                    continue
                seen.add(url)
                why = verdict(url)
                if why == "keep":
                    kept.add(url)
                else:
                    dropped[why] += 1
    return kept, dropped


def cap_per_host(urls: Iterable[str], per_host: int) -> list[str]:
    """At most `per_host` URLs per host, picked by a stable hash; sorted."""
    by_host: dict[str, list[str]] = defaultdict(list)
    for url in urls:
        by_host[parse_url(url).host].append(url)
    picked: list[str] = []
    for group in by_host.values():
        group.sort(key=lambda u: hashlib.sha256(u.encode()).digest())
        picked.extend(group[:per_host])
    return sorted(picked)


def hand_written(path: Path) -> list[str]:
    """The hand-written section of the current corpus file (marker lines excluded)."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    if HAND not in lines or HARVESTED not in lines:
        return []
    return lines[lines.index(HAND) + 1 : lines.index(HARVESTED)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-host", type=int, default=60)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    kept, dropped = harvest(SOURCES)
    hand = hand_written(args.out)
    hand_urls = {line for line in hand if line and not line.startswith("#")}
    harvested = [u for u in cap_per_host(kept, args.per_host) if u not in hand_urls]
    hosts = {parse_url(u).host for u in [*harvested, *hand_urls]}
    header = [
        "# Honest links: every one must be kept unchanged (tests/test_reply_only_corpus.py).",
        "# Rebuilt by benchmarks/harvest_links.py; edit only the hand-written section.",
        f"# {len(harvested) + len(hand_urls)} links on {len(hosts)} hosts.",
    ]
    body = [*header, HAND, *hand, HARVESTED, *harvested]
    args.out.write_text("\n".join(body) + "\n", encoding="utf-8")
    print(f"harvested {len(kept)} distinct URLs, kept {len(harvested)} (<= {args.per_host}/host)")
    print(f"hand-written: {len(hand_urls)}; hosts: {len(hosts)}")
    for why in LEFT_OUT:
        print(f"left out ({why}): {dropped[why]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
