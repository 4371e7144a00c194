"""Raw data a URL can carry unencoded: credentials, e-mail addresses, card numbers.

`CREDENTIALS` is the documented list of key and token formats
(docs/reference/threat-model.md, "Raw data"); each pattern wants the shape its issuer
documents, not a bare prefix, so that `sk-learn` or a `risk-using-...` slug is not a key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["CREDENTIALS", "EMAIL", "SECRET_NAMES", "SECRET_PATTERNS", "card_numbers"]

# A key starts where a word does: `desk-top...`, `task-list-...` hold no `sk-` key.
_START = r"(?<![A-Za-z0-9])"
# A random body has digits: `sk-using-private-package-feeds` is a slug.
_DIGIT = r"(?=[A-Za-z_-]*[0-9])"

# (name, pattern): formats of credentials a model could be told to copy out of its context.
CREDENTIALS: tuple[tuple[str, str], ...] = (
    ("AWS access key id", r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![0-9A-Za-z])"),
    ("GitHub token", r"gh[pousr]_[A-Za-z0-9]{30,}"),
    ("GitHub fine-grained token", r"github_pat_[A-Za-z0-9_]{22,}"),
    (
        "OpenAI / Anthropic key",
        rf"sk-(?:proj-|svcacct-|admin-|ant-(?:api|admin)\d\d-)?{_DIGIT}"
        r"[A-Za-z0-9_-]{20,}",
    ),
    ("Slack token", r"xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}"),
    ("Google API key", r"AIza[0-9A-Za-z_-]{35}"),
    ("Google OAuth access token", r"ya29\.[0-9A-Za-z_-]{20,}"),
    ("Stripe key", r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[0-9A-Za-z]{24,}"),
    ("JSON Web Token", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\."),
    ("private key", r"-----BEGIN[ A-Z]*PRIVATE KEY"),
    ("GitLab token", r"gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,}"),
    ("npm token", r"npm_[A-Za-z0-9]{36}"),
    ("PyPI token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}"),
    ("Hugging Face token", rf"hf_{_DIGIT}[A-Za-z0-9]{{30,}}"),
    ("SendGrid key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
    ("DigitalOcean token", r"do[opr]_v1_[a-f0-9]{64}"),
    ("Databricks token", r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("Twilio API key", r"SK[0-9a-f]{32}(?![0-9A-Za-z])"),
    ("Shopify token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("Groq key", r"gsk_[A-Za-z0-9]{48,}"),
    ("xAI key", r"xai-[A-Za-z0-9]{60,}"),
    ("Replicate token", r"r8_[A-Za-z0-9]{36,}"),
    ("Perplexity key", r"pplx-[A-Za-z0-9]{40,}"),
    ("Notion token", r"(?:secret_|ntn_)[A-Za-z0-9]{40,}"),
    ("Linear key", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    ("Postman key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("Atlassian token", r"ATATT3[A-Za-z0-9_=-]{100,}"),
    ("Figma token", r"fig[dou]_[A-Za-z0-9_-]{32,}"),
    ("Mailgun key", r"key-[0-9a-f]{32}(?![0-9a-f])"),
    # After `/bot` in the Bot API's URLs, so without the word boundary.
    ("Telegram bot token", r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}"),
)
SECRET_PATTERNS = re.compile(
    f"{_START}(?:{'|'.join(p for _name, p in CREDENTIALS if not p.startswith('(?<'))})"
    f"|{'|'.join(p for _name, p in CREDENTIALS if p.startswith('(?<'))}"
)
# Query parameter names that announce a credential or a personal secret.
SECRET_NAMES = re.compile(
    r"(?:pass(?:word|wd|code)?|secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token"
    r"|session(?:id)?|cookie|private[_-]?key|client[_-]?secret|refresh[_-]?token"
    r"|pin|otp|ssn|cvv|cvc|iban|(?:credit[_-]?)?card[_-]?(?:number|num|no)|cc[_-]?num(?:ber)?"
    r"|creditcard)",
    re.IGNORECASE,
)
# An address as people write it; the domain is checked against the public suffix list.
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})(?![A-Za-z0-9-])")
# 15 or 16 digits in groups (4-4-4-4, Amex 4-6-5) split by spaces or hyphens.
_CARD = re.compile(
    r"(?<![0-9])(?:(?:[0-9]{4}[ -]){3}[0-9]{3,4}|[0-9]{4}[ -][0-9]{6}[ -][0-9]{5})(?![0-9])"
)
# Issuer prefixes (IIN) by length: Visa, Mastercard, Discover, JCB (16); Amex (15).
_ISSUER = {16: re.compile(r"4|5[1-5]|2[2-7]|6(?:011|5|4[4-9])|35"), 15: re.compile(r"3[47]")}
# Ungrouped, the digits are a card number only as a whole parameter value, and not one
# named as an id: 16-digit ids (crash reports, message ids) pass the checksum one time in ten.
_BARE_CARD = re.compile(r"[0-9]{15,16}")
_ID_NAME = re.compile(r"(?i).*id|m|n|p|page|ts|t|time.*|.*stamp")


def card_numbers(text: str, pairs: Iterable[tuple[str, str]] = ()) -> bool:
    """Does `text` hold a payment card number in groups, or a query parameter (name,
    value) one without (issuer prefix, length, Luhn checksum)?"""
    grouped = (re.sub(r"[ -]", "", m.group()) for m in _CARD.finditer(text))
    bare = (v for n, v in pairs if _BARE_CARD.fullmatch(v) and not _ID_NAME.fullmatch(n))
    return any(_card(digits) for digits in (*grouped, *bare))


def _card(digits: str) -> bool:
    issuer = _ISSUER.get(len(digits))
    return issuer is not None and issuer.match(digits) is not None and _luhn(digits)


def _luhn(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        n = int(char) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0
