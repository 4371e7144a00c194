"""Rendersafe's own reports, recognised by what is in them (not only their names), so a
scan of a tree never reads a report an earlier scan wrote into it.

Only the structured reports are recognised, and only under their own suffixes: a JSON
report (`.json`), a SARIF log (`.json`, `.sarif`), an HTML page (`.html`, `.htm`). A
text or Markdown file is never skipped for what it says, as a model writes every byte
of a reply saved as one: a reply must not be able to excuse itself from the scan.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType

__all__ = ["is_own_report"]

_HEAD = 4096
_BOM = rb"\A(?:\xef\xbb\xbf)?\s*"
_JSON = re.compile(_BOM + rb'\{\s*"version"\s*:\s*1\s*,\s*"rendersafe_version"\s*:')
_SARIF = re.compile(
    _BOM + rb'\{\s*"\$schema"\s*:\s*"[^"]*sarif[^"]*".{0,400}?'
    rb'"driver"\s*:\s*\{\s*"name"\s*:\s*"rendersafe"',
    re.DOTALL,
)
_HTML = re.compile(
    _BOM + rb"<!doctype html>.{0,600}?<title>rendersafe scan report</title>",
    re.DOTALL | re.IGNORECASE,
)
_SIGNATURES = MappingProxyType(
    {
        ".json": (_JSON, _SARIF),
        ".sarif": (_SARIF,),
        ".html": (_HTML,),
        ".htm": (_HTML,),
    }
)


def is_own_report(path: Path) -> bool:
    """Does `path` hold a report `rendersafe scan` wrote? False if it cannot be read."""
    signatures = _SIGNATURES.get(path.suffix.lower(), ())
    if not signatures:
        return False
    try:
        with path.open("rb") as file:
            head = file.read(_HEAD)
    except OSError:
        return False
    return any(signature.match(head) for signature in signatures)
