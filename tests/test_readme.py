"""The README stays a five-minute read that points at the docs, and says true things about
the layout; the docs site's generated tables cover what they are generated from."""

from __future__ import annotations

import re

import docs_site
from docs_site import ROOT
from rendersafe.findings import Reason
from rendersafe.policy import Policy

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short() -> None:
    assert len(README.encode()) <= 15_000


def test_every_relative_link_of_the_readme_resolves() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert local
    assert [link for link in local if not (ROOT / link).exists()] == []


def _architecture_packages() -> list[str]:
    """The packages docs/ARCHITECTURE.md's table names, lowest first."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    table = text[text.index("## Packages and what they may import") :].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    return [name for row in rows for name in re.findall(r"`([\w/]+)`", row.split(" | ")[0])]


def test_the_readme_layout_names_the_architecture_packages_in_order() -> None:
    layout = README[README.index("Layout: ") :].split("\n\n", 1)[0]
    named = re.findall(r"`([\w/]+)`", layout)
    packages = _architecture_packages()
    assert packages
    positions = [named.index(package) for package in packages]
    assert positions == sorted(positions), packages


def test_the_policy_reference_has_every_field() -> None:
    page = docs_site.page("reference/policy.md")
    for name in Policy.model_fields:
        assert f"| `{name}` |" in page, name
    assert "| `thresholds.text_words` |" in page


def test_the_reason_codes_page_has_every_reason() -> None:
    page = docs_site.page("reference/reason-codes.md")
    for reason in Reason:
        assert f'<a id="rule-{reason.value.replace("_", "-")}"></a>`{reason.value}`' in page


def test_the_changelog_keeps_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "## [Unreleased]" in text
    assert re.search(r"^## \[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}$", text, re.MULTILINE)
