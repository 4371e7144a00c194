"""Judging one URL, never fetching it: parse it as a browser will, find the data it
carries, decide keep / proxy / drop, and redact it for logs.

    parse        WHATWG parsing of a copy cleaned of invisible characters
    hosts        host normalisation, the public suffix list, allowlists
    classes      host classes: sealed first-party services (data/*.txt, `datafiles`)
    decode       does a run of characters decode to text (base64, base32, hex)?
    credentials  key and token formats, e-mail addresses, card numbers
    shapes       signed storage URLs (S3, GCS, Azure SAS) and proxies judged by structure
    diagrams     the links inside a diagram service's payload
    detect       does a URL's userinfo, host, path, query or fragment carry data?
    judge        UrlJudge: the verdict on a URL used as an image or a link
    redact       loggable shapes of URLs and hosts

Nothing here imports the Markdown or HTML passes; the policy is read, never imported
at run time (so `policy` may use `hosts` to validate itself).
"""

from .judge import Role, UrlJudge, Verdict
from .parse import INVISIBLE, ParsedUrl, parse_url, split_href
from .redact import redact, redact_host

__all__ = [
    "INVISIBLE",
    "ParsedUrl",
    "Role",
    "UrlJudge",
    "Verdict",
    "parse_url",
    "redact",
    "redact_host",
    "split_href",
]
