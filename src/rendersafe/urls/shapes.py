"""Provider URL shapes judged by their structure: signed storage URLs.

A presigned S3 (SigV4 or V2), Google Cloud Storage (V4 or V2) or Azure SAS URL carries
the provider's own credential id, date, expiry and signature. Where every one of those
has the provider's exact shape (and a signature decodes to random bytes, not text),
they are the provider's and are not judged; every other parameter, the path and the
host still are. Only the providers' own hosts qualify.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from .decode import is_text, unbase64, unhex

if TYPE_CHECKING:
    from ..policy import Thresholds
    from .parse import UrlParts

__all__ = ["camo_target", "provider_params"]

_DATE = r"[0-9]{8}T[0-9]{6}Z"
_ISO = r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2})?Z)?"
_GUID = r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}"
_HEADER = r"(?:host|range|content-[a-z0-9-]+|x-(?:amz|goog)-[a-z0-9-]+)"
_HEADERS = rf"{_HEADER}(?:;{_HEADER})*"
_B64 = r"[A-Za-z0-9+/ ]+={0,2}"
# A service account's address, or an HMAC key's access id.
_SERVICE_ACCOUNT = r"[a-z0-9-]+@[a-z0-9-]+\.iam\.gserviceaccount\.com|GOOG1[A-Z0-9]{20,}"

# Parameter (lower case) -> the value's shape, for each signing scheme.
_S3_V4 = MappingProxyType(
    {
        "x-amz-algorithm": r"AWS4-HMAC-SHA256",
        "x-amz-credential": r"(?:AKIA|ASIA)[0-9A-Z]{16}/[0-9]{8}/[a-z0-9-]+/s3/aws4_request",
        "x-amz-date": _DATE,
        "x-amz-expires": r"[0-9]{1,6}",
        "x-amz-signedheaders": _HEADERS,
        "x-amz-signature": r"[0-9a-f]{64}",
        "x-amz-security-token": _B64,
        "x-amz-content-sha256": r"UNSIGNED-PAYLOAD|[0-9a-f]{64}",
        "x-id": r"[A-Za-z]+",
    }
)
_S3_V2 = MappingProxyType(
    {
        "awsaccesskeyid": r"(?:AKIA|ASIA)[0-9A-Z]{16}",
        "expires": r"[0-9]{9,11}",
        "signature": r"[A-Za-z0-9+/ ]{27}=",
        "x-amz-security-token": _B64,
    }
)
_GCS_V4 = MappingProxyType(
    {
        "x-goog-algorithm": r"GOOG4-(?:RSA|HMAC)-SHA256",
        "x-goog-credential": rf"(?:{_SERVICE_ACCOUNT})/[0-9]{{8}}/[a-z0-9-]+/storage/goog4_request",
        "x-goog-date": _DATE,
        "x-goog-expires": r"[0-9]{1,6}",
        "x-goog-signedheaders": _HEADERS,
        "x-goog-signature": r"[0-9a-f]{64}|[0-9a-f]{512}|[0-9a-f]{1024}",
    }
)
_GCS_V2 = MappingProxyType(
    {
        "googleaccessid": _SERVICE_ACCOUNT,
        "expires": r"[0-9]{9,11}",
        "signature": r"[A-Za-z0-9+/ ]{340,}={0,2}|[A-Za-z0-9+/ ]{27}=",
    }
)
_AZURE_SAS = MappingProxyType(
    {
        "sv": r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
        "ss": r"[bfqt]{1,4}",
        "srt": r"[sco]{1,3}",
        "sp": r"[racwdxylmeopitfu]{1,16}",
        "st": _ISO,
        "se": _ISO,
        "sr": r"[bcdfs]|bs|bv",
        "spr": r"https(?:,http)?",
        "sip": r"[0-9.]{7,15}(?:-[0-9.]{7,15})?",
        "sig": r"[A-Za-z0-9+/ ]{43}=",
        "skoid": _GUID,
        "sktid": _GUID,
        "skt": _ISO,
        "ske": _ISO,
        "sks": r"[bfqt]",
        "skv": r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
        "sdd": r"[0-9]{1,2}",
        "saoid": _GUID,
        "suoid": _GUID,
        "scid": _GUID,
    }
)
_S3_HOSTS = re.compile(
    r"(?:.+\.)?(?:amazonaws\.com|r2\.cloudflarestorage\.com|digitaloceanspaces\.com"
    r"|wasabisys\.com|backblazeb2\.com|linodeobjects\.com)"
)
_GCS_HOSTS = re.compile(r"storage\.googleapis\.com|.+\.storage\.googleapis\.com")
_AZURE_HOSTS = re.compile(r".+\.(?:blob|file|queue|table|dfs)\.core\.windows\.net")


def _unbase64_plus(value: str) -> bytes:
    # An unescaped `+` in a query reads as a space.
    return unbase64(value.replace(" ", "+"))


@dataclass(frozen=True, slots=True)
class _Scheme:
    """One signing scheme: its hosts, its parameters' shapes, the ones it cannot lack."""

    hosts: re.Pattern[str]
    shape: Mapping[str, str]
    required: tuple[str, ...]
    signature: str
    decode: Callable[[str], bytes]


_SCHEMES = (
    _Scheme(
        _S3_HOSTS,
        _S3_V4,
        ("x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-signature"),
        "x-amz-signature",
        unhex,
    ),
    _Scheme(
        _S3_HOSTS, _S3_V2, ("awsaccesskeyid", "expires", "signature"), "signature", _unbase64_plus
    ),
    _Scheme(
        _GCS_HOSTS,
        _GCS_V4,
        ("x-goog-algorithm", "x-goog-credential", "x-goog-date", "x-goog-signature"),
        "x-goog-signature",
        unhex,
    ),
    _Scheme(
        _GCS_HOSTS, _GCS_V2, ("googleaccessid", "expires", "signature"), "signature", _unbase64_plus
    ),
    _Scheme(_AZURE_HOSTS, _AZURE_SAS, ("sv", "sig"), "sig", _unbase64_plus),
)


def provider_params(host: str, pairs: Sequence[tuple[str, str]], th: Thresholds) -> frozenset[int]:
    """The indexes of `pairs` (decoded query names and values) that are the provider's own.

    Empty unless the host is the provider's and every parameter the scheme cannot lack is
    there once, in its exact shape, with a signature that decodes to random bytes."""
    for scheme in _SCHEMES:
        if scheme.hosts.fullmatch(host):
            own = _own(scheme, pairs, th)
            if own:
                return own
    return frozenset()


def _own(scheme: _Scheme, pairs: Sequence[tuple[str, str]], th: Thresholds) -> frozenset[int]:
    own: dict[str, int] = {}
    for i, (name, value) in enumerate(pairs):
        key = name.lower()
        pattern = scheme.shape.get(key)
        if pattern is None:
            continue
        if key in own or not re.fullmatch(pattern, value):
            return frozenset()  # repeated, or not the provider's shape: judge everything
        own[key] = i
    if not all(name in own for name in scheme.required):
        return frozenset()
    if is_text(scheme.decode(pairs[own[scheme.signature]][1]), th):
        return frozenset()
    return frozenset(own.values())


_CAMO = "camo.githubusercontent.com"
_CAMO_PATH = re.compile(r"/[0-9a-f]{40,64}/([0-9a-f]{16,})")


def camo_target(parts: UrlParts) -> str | None:
    """The URL a GitHub camo link proxies (`/<HMAC>/<hex of the URL>`), or None.

    The hex is the target's address, not data: the target is judged as a nested URL."""
    if parts.host != _CAMO:
        return None
    match = _CAMO_PATH.fullmatch(parts.path)
    if match is None:
        return None
    target = unhex(match.group(1)).decode("utf-8", errors="replace")
    return target if target.startswith(("https://", "http://")) else None
