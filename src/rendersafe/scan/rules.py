"""The reason codes as SARIF rules: what each means, how severe, where it is explained.

Severities follow GitHub code scanning's `security-severity` (0.0-10.0; 9.0 and up is
critical): a URL that carries the user's data is worse than one to an unknown host.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Any

from .._build import __version__
from ..findings import Reason

__all__ = ["HELP_URL", "RULES", "level", "sarif_rule", "severity", "worst_reason"]

# Where the reason-code page is published; each rule links to its row (`#rule-<code>`).
HELP_URL = "https://github.com/rendersafe/rendersafe/blob/main/docs/reference/reason-codes.md"

_R = Reason
RULES: MappingProxyType[Reason, tuple[float, str]] = MappingProxyType(
    {
        _R.IMAGE_HOST_NOT_ALLOWED: (
            7.5,
            "An image from a host not in allowed_image_hosts: the browser fetches it on render, "
            "with no click.",
        ),
        _R.IMAGE_PORT_NOT_ALLOWED: (
            7.5,
            "An image on an allowed host but a port the policy does not allow.",
        ),
        _R.AMBIGUOUS_HOST: (
            7.0,
            "A host that parsers or browsers read differently (backslashes, odd dots, mixed "
            "scripts).",
        ),
        _R.RELATIVE_IMAGE: (
            5.0,
            "A relative image URL: where it loads from depends on the page that renders it.",
        ),
        _R.DATA_IMAGE: (4.0, "A data: image: it can carry tracking content or hide text."),
        _R.SCHEME_NOT_ALLOWED: (
            8.0,
            "A URL scheme the policy does not allow (javascript:, data:, vbscript:, file:).",
        ),
        _R.UNPARSEABLE_URL: (
            6.0,
            "A URL a browser parser cannot read: not allowed, as it cannot be judged.",
        ),
        _R.BLOCKED_HOST: (8.0, "A host on the blocked list (known collectors, request catchers)."),
        _R.INVISIBLE_CHARACTERS: (
            7.0,
            "Invisible or bidirectional characters in a URL, hiding what it says.",
        ),
        _R.ENCODED_BASE64: (
            8.5,
            "A base64 run in the URL that decodes to text: data leaving in the request.",
        ),
        _R.ENCODED_HEX: (
            8.5,
            "A hex run in the URL that decodes to text: data leaving in the request.",
        ),
        _R.PERCENT_ENCODED_RUN: (
            8.0,
            "A long percent-encoded run in the URL: encoded text leaving in the request.",
        ),
        _R.URLENCODED_TEXT: (
            8.0,
            "Words of prose in the URL's query or path: the conversation carried away.",
        ),
        _R.HIGH_ENTROPY_TOKEN: (
            7.5,
            "A high-entropy token in the URL: a key, a session id or packed data.",
        ),
        _R.SECRET_PATTERN: (
            9.0,
            "A credential format in the URL (an API key, a card number, an address).",
        ),
        _R.NESTED_URL: (6.5, "A URL inside a URL (a redirector): the real destination is hidden."),
        _R.USERINFO: (6.5, "user:password@ in the URL: it hides the host or carries data."),
        _R.SUBDOMAIN_DATA: (
            8.5,
            "Data in the subdomain labels: it leaves through DNS before any request.",
        ),
        _R.LONG_URL: (6.0, "A URL longer than the policy allows: room for the conversation."),
        _R.IMAGE_CAP_EXCEEDED: (
            6.0,
            "More images than the policy allows in one reply: a channel of many requests.",
        ),
        _R.HTML_TAG_NOT_ALLOWED: (
            6.5,
            "A raw HTML tag that fetches, scripts or restyles (img, iframe, style, form).",
        ),
        _R.HTML_ATTRIBUTE_NOT_ALLOWED: (
            6.5,
            "A raw HTML attribute that fetches or scripts (srcset, onerror, style url()).",
        ),
        _R.MALFORMED_HTML: (
            5.0,
            "Malformed HTML that renderers repair differently: cleaned to one reading.",
        ),
        _R.RAW_HTML_POLICY: (4.0, "Raw HTML where the policy allows none."),
        _R.HOLD_LIMIT: (
            3.0,
            "A stream held more than the hold limit: the held text was neutralised.",
        ),
        _R.UNSETTLED: (
            3.0,
            "A unit that did not settle in four passes: neutralised by construction.",
        ),
        _R.CONVERSATION_DATA: (
            9.0,
            "The URL carries a piece of the conversation before the reply (a token the user "
            "pasted, an address a tool returned).",
        ),
        _R.CANARY: (
            9.5,
            "The URL carries a canary planted in the conversation: proof of exfiltration.",
        ),
        _R.BEACON: (
            7.5,
            "Many URLs of one shape in one reply: a beacon sending data a piece at a time.",
        ),
        _R.HOST_NOT_IN_CONVERSATION: (
            4.0,
            "A link to a host neither trusted, allowed nor seen in the conversation.",
        ),
        _R.OBSERVABLE_HOST_BUDGET: (
            7.5,
            "A link to a host someone else can read, carrying more of the model's own choosing "
            "than its budget allows (none where only a tool named the host).",
        ),
        _R.IMAGE_CHOICE: (
            8.0,
            "An image whose URL the model chose (composed, or picked among many copies): it "
            "is fetched with no click, so almost nothing chosen may reach its host.",
        ),
        _R.LAUNDERED_COPY: (
            8.0,
            "A URL copied from a tool or another agent that carries what the model wrote first "
            "(a printed URL, an echoed query, a wrapped link): the model's choice, not a copy.",
        ),
        _R.CONVERSATION_TRUNCATED: (
            6.0,
            "A link the model composed, in a reply whose conversation was not read whole: "
            "judged as strictly as the unread part requires.",
        ),
        _R.RENDERER_DIRECTIVE: (
            8.0,
            "In a fence the chat UI renders: an instruction to its renderer that fetches, "
            "links or runs what rendersafe cannot judge (a Mermaid directive setting the "
            "security level or CSS, a click callback, a TeX macro hiding a URL).",
        ),
    }
)


_UNRATED = 5.0  # a reason with no row above: neither ignored nor alarming


def severity(reasons: Iterable[Reason]) -> float:
    """The security severity of a finding: its worst reason's (0.0 with no reason)."""
    return max((RULES.get(r, (_UNRATED, ""))[0] for r in reasons), default=0.0)


def worst_reason(reasons: Iterable[Reason]) -> Reason | None:
    """The reason a finding is filed under: its most severe (the first of equals)."""
    return max(reasons, key=lambda r: RULES.get(r, (_UNRATED, ""))[0], default=None)


def level(reasons: Iterable[Reason]) -> str:
    """The SARIF level: `error` from severity 7.0 (GitHub's "high") up, else `warning`."""
    return "error" if severity(reasons) >= 7 else "warning"


def sarif_rule(reason: Reason) -> dict[str, Any]:
    """The SARIF `reportingDescriptor` of `reason`."""
    rated, text = RULES.get(reason, (_UNRATED, str(reason).replace("_", " ")))
    return {
        "id": str(reason),
        "name": "".join(word.capitalize() for word in str(reason).split("_")),
        "shortDescription": {"text": str(reason).replace("_", " ")},
        "fullDescription": {"text": text},
        "helpUri": f"{HELP_URL}#rule-{str(reason).replace('_', '-')}",
        "help": {"text": f"{text} See the reason codes page ({__version__})."},
        "defaultConfiguration": {"level": level((reason,))},
        "properties": {"security-severity": f"{rated:.1f}", "tags": ["security"]},
    }
