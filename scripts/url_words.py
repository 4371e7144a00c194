"""Build src/rendersafe/urls/data/url_words.txt and english_words.txt: the words honest
URLs are made of, and the English words (what a slug is written in).

    python scripts/url_words.py          # english_words.txt needs Debian's wamerican-small

Reads the honest link corpora (tests/data/honest_links.txt, tests/data/real_urls.txt),
splits each URL's path, query, fragment and subdomain into words (runs of letters and
digits, lower case), and keeps each word seen on at least `MIN_SITES` sites (a word of
one site is that site's, not the language of URLs), with how often it occurs. The judge
counts what a composed URL carries by these frequencies (`judging.bits`): a word URLs
are made of costs a few bits, a run of characters of no known word its length in bits.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import unquote

import ada_url

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (
    ROOT / "tests" / "data" / "honest_links.txt",
    ROOT / "tests" / "data" / "real_urls.txt",
)
DATA = ROOT / "src" / "rendersafe" / "urls" / "data"
OUT = DATA / "url_words.txt"
ENGLISH = DATA / "english_words.txt"
DICTIONARY = Path("/usr/share/dict/american-english-small")
_ENGLISH_WORD = re.compile(r"[a-z]{3,15}")
_SCOWL_NOTICE = """# English words, lower case, 3 to 15 letters, from SCOWL (Debian's
# wamerican-small); scripts/url_words.py. judging/bits.py prices an English word in a
# URL at a flat few bits, not by its letters.
#
# Copyright 2000-2011 by Kevin Atkinson. Permission to use, copy, modify, distribute and
# sell these word lists, the associated scripts, the output created from the scripts,
# and its documentation for any purpose is hereby granted without fee, provided that the
# above copyright notice appears in all copies and that both that copyright notice and
# this permission notice appear in supporting documentation. Kevin Atkinson makes no
# representations about the suitability of this array for any purpose. It is provided
# "as is" without express or implied warranty.
"""
MIN_SITES = 3
_WORD = re.compile(r"[a-z]+|[0-9]+")


def words(url: str) -> tuple[str, list[str]]:
    """The site of `url` and the words of its free parts."""
    try:
        parsed = ada_url.URL(url)
    except ValueError:
        return "", []
    host = str(parsed.hostname)
    labels = host.split(".")
    text = " ".join(
        [".".join(labels[:-2]), str(parsed.pathname), str(parsed.search), str(parsed.hash)]
    )
    return ".".join(labels[-2:]), _WORD.findall(unquote(text).lower())


def main() -> None:
    counts: Counter[str] = Counter()
    sites: defaultdict[str, set[str]] = defaultdict(set)
    for source in SOURCES:
        for line in source.read_text(encoding="utf-8").splitlines():
            if not line.startswith(("http://", "https://")):
                continue
            site, found = words(line.strip())
            for word in found:
                if len(word) <= 24 and not (word.isdigit() and len(word) > 4):
                    counts[word] += 1
                    sites[word].add(site)
    kept = sorted(
        ((w, n) for w, n in counts.items() if len(sites[w]) >= MIN_SITES),
        key=lambda item: (-item[1], item[0]),
    )
    header = [
        "# The words honest URLs are made of, and how often each occurs (scripts/url_words.py",
        f"# from the honest link corpora; a word kept is seen on {MIN_SITES} sites or more).",
        "# One word a line, then its count. judging/bits.py prices a composed URL by these.",
    ]
    OUT.write_text("\n".join([*header, *(f"{w} {n}" for w, n in kept)]) + "\n", encoding="utf-8")
    print(f"{len(kept)} words, {sum(n for _, n in kept)} occurrences -> {OUT}")
    if DICTIONARY.exists():
        english = sorted(
            {
                w
                for w in DICTIONARY.read_text(encoding="utf-8").split()
                if _ENGLISH_WORD.fullmatch(w)
            }
        )
        ENGLISH.write_text(_SCOWL_NOTICE + "\n".join(english) + "\n", encoding="utf-8")
        print(f"{len(english)} English words -> {ENGLISH}")


if __name__ == "__main__":
    main()
