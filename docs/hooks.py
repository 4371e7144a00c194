"""MkDocs hook: the tables that are generated, not written twice.

A page asks for one with a marker comment on a line of its own
(`<!-- rendersafe: policy-fields -->`); the hook replaces it when the site is built:

- `policy-fields`, and `policy-thresholds`, `policy-image-proxy`, `policy-link-interstitial`
  for its nested models: from `Policy`'s JSON schema, its pydantic `Field` descriptions,
  defaults and bounds (docs/reference/policy.md);
- `reason-codes`: from `rendersafe.scan.rules.RULES`, the severities and texts the SARIF
  report carries (docs/reference/reason-codes.md);
- `audit-record-fields`: from docs/audit-record.schema.json (docs/reference/audit-record.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rendersafe.findings import Reason
from rendersafe.policy import Policy
from rendersafe.scan.rules import RULES

AUDIT_SCHEMA = Path(__file__).parent / "audit-record.schema.json"
MARKER = re.compile(r"^<!-- rendersafe: ([a-z-]+) -->$", re.MULTILINE)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _default(spec: Mapping[str, Any]) -> str:
    if "default" not in spec:
        return "required"
    value = spec["default"]
    if isinstance(value, dict):
        return "see below"
    return f"`{json.dumps(value)}`"


def _kind(spec: Mapping[str, Any]) -> str:
    """The type and bounds the schema gives, in a few words."""
    options = spec.get("anyOf", [spec])
    parts = []
    for option in options:
        if "$ref" in option:
            parts.append(f"table ({option['$ref'].rpartition('/')[2]})")
        elif "enum" in option:
            parts.append(" \\| ".join(f"`{v}`" for v in option["enum"]))
        elif option.get("type") == "array":
            parts.append("list of " + option.get("items", {}).get("type", "values"))
        elif "type" in option:
            bounds = [f"{k[:3]} {option[k]}" for k in ("minimum", "maximum") if k in option]
            parts.append(option["type"] + (f" ({', '.join(bounds)})" if bounds else ""))
    return " or ".join(parts)


def _fields(properties: Mapping[str, Any], prefix: str = "") -> str:
    rows = ["| field | type | default | meaning |", "|---|---|---|---|"]
    for name, spec in properties.items():
        meaning = _cell(spec.get("description", ""))
        rows.append(f"| `{prefix}{name}` | {_kind(spec)} | {_default(spec)} | {meaning} |")
    return "\n".join(rows)


def policy_fields() -> str:
    """Every top-level `Policy` field, in declaration order."""
    return _fields(Policy.model_json_schema()["properties"])


def _nested(model: str, prefix: str) -> Callable[[], str]:
    """The table of one nested model of the policy (`Thresholds`, `ImageProxy`, ...)."""

    def table() -> str:
        schema = Policy.model_json_schema()
        return _fields(schema["$defs"][model]["properties"], prefix)

    return table


def reason_codes() -> str:
    """Every reason code with its SARIF severity and meaning; each row has its anchor."""
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    for reason in Reason:
        severity, text = RULES.get(reason, (5.0, str(reason).replace("_", " ")))
        anchor = f"rule-{str(reason).replace('_', '-')}"
        rows.append(f'| <a id="{anchor}"></a>`{reason}` | {severity:.1f} | {_cell(text)} |')
    return "\n".join(rows)


def audit_record_fields() -> str:
    """Every field of an audit record and of its `source`, with its JSON type."""
    schema = json.loads(AUDIT_SCHEMA.read_text(encoding="utf-8"))
    required = set(schema.get("required", ()))
    rows = ["| field | type | always there |", "|---|---|---|"]
    source = schema["$defs"]["Source"]["properties"]
    named = [(name, spec) for name, spec in schema["properties"].items()]
    named += [(f"source.{name}", spec) for name, spec in source.items()]
    for name, spec in named:
        there = "yes" if name in required else ""
        rows.append(f"| `{name}` | {_kind(spec)} | {there} |")
    return "\n".join(rows)


TABLES: Mapping[str, Callable[[], str]] = {
    "policy-fields": policy_fields,
    "policy-thresholds": _nested("Thresholds", "thresholds."),
    "policy-image-proxy": _nested("ImageProxy", "image_proxy."),
    "policy-link-interstitial": _nested("LinkInterstitial", "link_interstitial."),
    "reason-codes": reason_codes,
    "audit-record-fields": audit_record_fields,
}


def render(markdown: str) -> str:
    """`markdown` with every marker replaced by its table (an unknown marker is an error)."""
    return MARKER.sub(lambda match: TABLES[match.group(1)](), markdown)


def on_page_markdown(markdown: str, **_: object) -> str:
    """MkDocs' hook: called with each page's Markdown before it is rendered."""
    return render(markdown)
