"""`rendersafe scan --html`: the page, opened in a real headless Chromium (Debian's,
driven by Playwright), renders its charts and every finding with no console error and
requests nothing but itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from playwright.sync_api import Browser, sync_playwright
except ImportError:  # a [dev] tool: the README's test command runs without it
    if os.environ.get("REQUIRE_BROWSER_TEST") == "1":
        raise
    pytest.skip("needs playwright: pip install -e '.[dev]'", allow_module_level=True)

ROOT = Path(__file__).parent.parent
EXPORTS = ROOT / "fixtures" / "exports"
CHROMIUM = Path("/usr/bin/chromium")
REQUIRED = os.environ.get("REQUIRE_BROWSER_TEST") == "1"
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and not REQUIRED,
    reason="needs Debian's chromium (apt-get install chromium; done by .ci/run)",
)
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


def write_report(folder: Path, *inputs: Path) -> tuple[Path, dict[str, object]]:
    page, report = folder / "report.html", folder / "report.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rendersafe",
            "scan",
            *map(str, inputs),
            "--jobs",
            "1",
            "--html",
            str(page),
            "--json",
            str(report),
            "--quiet",
        ],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    return page, json.loads(report.read_text())


def test_the_report_renders_offline_with_no_errors(browser: Browser, tmp_path: Path) -> None:
    path, report = write_report(tmp_path, EXPORTS)
    summary = report["summary"]
    assert isinstance(summary, dict)
    page = browser.new_page()
    requested: list[str] = []
    problems: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    assert requested == [path.as_uri()]  # itself, nothing else
    assert problems == []
    captions = page.locator("figcaption").all_inner_texts()
    assert captions == ["By reason", "By host", "By day"]
    assert page.locator("figure svg").count() == 3
    assert page.locator("figure svg rect").count() >= 5
    rows = page.locator("#findings tbody tr")
    assert rows.count() == summary["findings"]
    assert "attacker.example" in page.inner_text("#findings")
    assert "7f3kq9x2mz81" not in page.content()  # the user's token: redacted everywhere
    assert "2024-06-01" in page.inner_text("figure:nth-of-type(3)")  # a day from Claude.ai
    page.fill("#filter", "claude")
    visible = [row for row in rows.all() if row.is_visible()]
    assert len(visible) == 2
    assert page.locator("#totals").inner_text().split()[0] == str(summary["files"])
    page.close()
