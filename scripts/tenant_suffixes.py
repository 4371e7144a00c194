"""The Public Suffix List's private section, from the snapshot tldextract bundles.

    python scripts/tenant_suffixes.py            counts, and the listed suffixes' status
    python scripts/tenant_suffixes.py --list     every private suffix, one a line

tldextract ships the raw list (`tldextract/.tld_set_snapshot`); its private entries
follow the line `// ===BEGIN PRIVATE DOMAINS===`, and tldextract's own parser
(`suffix_list.extract_tlds_from_suffix_list`) splits the two sections. Every subdomain of
a private suffix belongs to whoever registered it with the suffix's operator (a GitHub
Pages user, a Vercel project, an S3 bucket): the judge treats each as observable by that
tenant. data/observable_hosts.txt names the most used ones under `# tenant suffixes`;
this script says which of those the snapshot holds and which it does not.
"""

from __future__ import annotations

import argparse
import pkgutil
import re
from collections import Counter
from importlib.resources import files

from tldextract.suffix_list import PUBLIC_PRIVATE_SUFFIX_SEPARATOR, extract_tlds_from_suffix_list

from rendersafe.urls.datafiles import entries

_VERSION = re.compile(r"^// VERSION: (\S+)", re.MULTILINE)


def snapshot() -> str:
    """The bundled Public Suffix List text."""
    data = pkgutil.get_data("tldextract", ".tld_set_snapshot")
    if data is None:  # pragma: no cover - the package guarantees the file
        raise SystemExit("tldextract has no bundled snapshot")
    return data.decode("utf-8")


def private_suffixes(text: str | None = None) -> list[str]:
    """The private section's rules (`*.x` wildcards and `!x` exceptions as written)."""
    text = snapshot() if text is None else text
    if PUBLIC_PRIVATE_SUFFIX_SEPARATOR not in text:
        raise SystemExit("the snapshot does not separate private entries: hand-curate")
    return extract_tlds_from_suffix_list(text)[1]


def listed_tenant_suffixes() -> list[str]:
    """The `# tenant suffixes` section of data/observable_hosts.txt, as suffixes."""
    text = files("rendersafe.urls").joinpath("data", "observable_hosts.txt").read_text("utf-8")
    section = text.partition("\n# tenant suffixes\n")[2]
    wanted = {line.split()[0] for line in section.splitlines() if line and line[0] != "#"}
    return [
        entry.removeprefix("*.")
        for entry, _why in entries("observable_hosts.txt")
        if entry in wanted
    ]


def covered(suffix: str, rules: set[str]) -> bool:
    """Is `suffix` (or a parent wildcard rule) in the private section?"""
    if suffix in rules or f"*.{suffix}" in rules:
        return True
    labels = suffix.split(".")
    return any(f"*.{'.'.join(labels[i:])}" in rules for i in range(1, len(labels)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every private suffix")
    args = parser.parse_args()
    text = snapshot()
    rules = private_suffixes(text)
    if args.list:
        print("\n".join(rules))
        return
    version = _VERSION.search(text)
    wild = sum(r.startswith("*.") for r in rules)
    exceptions = sum(r.startswith("!") for r in rules)
    by_parent = Counter(".".join(r.lstrip("*.!").split(".")[-2:]) for r in rules)
    print(f"PSL snapshot {version.group(1) if version else '(no version line)'}")
    print(f"private suffixes: {len(rules)} ({wild} wildcard rules, {exceptions} exceptions)")
    print("registrable domains with the most private suffixes:")
    for parent, count in by_parent.most_common(10):
        print(f"  {count:5}  {parent}")
    rule_set = set(rules)
    listed = listed_tenant_suffixes()
    missing = [s for s in listed if not covered(s, rule_set)]
    print(
        f"observable_hosts.txt `# tenant suffixes`: {len(listed)} listed, "
        f"{len(listed) - len(missing)} in the PSL private section, {len(missing)} not:"
    )
    for suffix in missing:
        print(f"  {suffix}")


if __name__ == "__main__":
    main()
