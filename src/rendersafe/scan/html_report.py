"""`--html FILE`: the scan report as one self-contained page.

Charts (findings by reason, by host, by day), the conversations with the most
findings, and every finding with its redacted context. Inline CSS, inline SVG and a
few lines of inline script (a filter box); a Content-Security-Policy of
`default-src 'none'` so the page can fetch nothing, opened from disk or served.
"""

from __future__ import annotations

from collections import Counter
from html import escape

from .._build import __version__
from .report import ScanReport

__all__ = ["html_report"]

_MAX_ROWS = 5000  # findings listed; the counts above cover them all
_TOP = 15
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;
color:#1d232b}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:2rem}
.totals{display:flex;gap:1rem;flex-wrap:wrap}
.totals div{background:#f1f4f8;border-radius:6px;padding:.6rem 1rem}
.totals b{display:block;font-size:1.4rem}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:1.5rem}
figure{margin:0}figcaption{font-weight:600;margin-bottom:.3rem}
svg text{font-size:11px;fill:#1d232b}svg rect{fill:#c2410c}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border-bottom:1px solid #e3e7ec;padding:.3rem .4rem;text-align:left;vertical-align:top}
code{font-size:12px;word-break:break-all}
input{padding:.3rem;width:20rem;margin:.4rem 0}
"""
_SCRIPT = """
document.getElementById('filter').addEventListener('input', function (event) {
  var needle = event.target.value.toLowerCase();
  document.querySelectorAll('#findings tbody tr').forEach(function (row) {
    row.hidden = needle !== '' && row.textContent.toLowerCase().indexOf(needle) < 0;
  });
});
"""


def html_report(report: ScanReport) -> str:
    """The page, as text."""
    s = report.summary
    days = Counter(row.day or "(no date)" for row in report.findings)
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        "<title>rendersafe scan report</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>rendersafe scan report</h1><p>rendersafe {escape(__version__)}</p>",
        _totals(report),
        '<h2>Findings</h2><div class="charts">',
        _bars("By reason", dict(list(s.by_reason.items())[:_TOP])),
        _bars("By host", dict(list(s.by_host.items())[:_TOP])),
        _bars("By day", dict(sorted(days.items()))),
        "</div>",
        _top(report),
        _findings(report),
        _errors(report),
        f"<script>{_SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts) + "\n"


def _totals(report: ScanReport) -> str:
    s = report.summary
    cells = [
        ("files", f"{s.files}"),
        ("records", f"{s.records}"),
        ("records with findings", f"{s.records_changed}"),
        ("findings", f"{s.findings}"),
        ("errors", f"{len(report.errors)}"),
        ("MB read", f"{s.bytes / 1e6:.1f}"),
    ]
    inner = "".join(f"<div><b>{value}</b>{escape(name)}</div>" for name, value in cells)
    return f'<div class="totals" id="totals">{inner}</div>'


def _bars(title: str, counts: dict[str, int]) -> str:
    """A horizontal bar chart, as inline SVG."""
    if not counts:
        return f"<figure><figcaption>{escape(title)}</figcaption><p>none</p></figure>"
    top, row, label, width = max(counts.values()), 18, 170, 190
    bars = []
    for i, (name, count) in enumerate(counts.items()):
        y, length = i * row, max(int(width * count / top), 1)
        bars.append(
            f'<text x="{label - 6}" y="{y + 13}" text-anchor="end">{escape(name[:28])}</text>'
            f'<rect x="{label}" y="{y + 3}" width="{length}" height="{row - 6}"></rect>'
            f'<text x="{label + length + 4}" y="{y + 13}">{count}</text>'
        )
    height = row * len(counts)
    svg = (
        f'<svg role="img" aria-label="{escape(title)}" width="100%" '
        f'viewBox="0 0 420 {height}">{"".join(bars)}</svg>'
    )
    return f"<figure><figcaption>{escape(title)}</figcaption>{svg}</figure>"


def _top(report: ScanReport) -> str:
    rows = "".join(
        f"<tr><td>{escape(t.path)}</td><td>{escape(t.record_id)}</td><td>{t.findings}</td></tr>"
        for t in report.summary.top_records
    )
    head = "<tr><th>file</th><th>conversation</th><th>findings</th></tr>"
    return f"<h2>Conversations with the most findings</h2><table>{head}{rows}</table>"


def _findings(report: ScanReport) -> str:
    shown = report.findings[:_MAX_ROWS]
    rows = "".join(
        "<tr>"
        f"<td>{escape(f.path)}:{f.line}</td><td>{escape(f.record_id)}</td>"
        f"<td>{escape(f.role)}</td><td>{escape(f'{f.kind} {f.action}')}</td>"
        f"<td>{escape(', '.join(f.reasons))}</td><td>{escape(f.host or '')}</td>"
        f"<td><code>{escape(f.url or '')}</code></td><td>{escape(f.excerpt or '')}</td>"
        "</tr>"
        for f in shown
    )
    more = len(report.findings) - len(shown)
    note = f"<p>{more} more findings are in the JSON report.</p>" if more > 0 else ""
    head = (
        "<thead><tr><th>where</th><th>conversation</th><th>role</th><th>change</th>"
        "<th>reasons</th><th>host</th><th>URL (redacted)</th><th>context (redacted)</th>"
        "</tr></thead>"
    )
    box = '<input id="filter" type="search" placeholder="filter findings" aria-label="filter">'
    table = f'<table id="findings">{head}<tbody>{rows}</tbody></table>'
    return f"<h2>Every finding</h2>{box}{table}{note}"


def _errors(report: ScanReport) -> str:
    if not report.errors:
        return "<h2>Errors</h2><p>none</p>"
    rows = "".join(
        f"<tr><td>{escape(e.path)}:{e.line or '-'}</td><td>{escape(e.message)}</td></tr>"
        for e in report.errors
    )
    return f"<h2>Errors</h2><table><tr><th>where</th><th>message</th></tr>{rows}</table>"
