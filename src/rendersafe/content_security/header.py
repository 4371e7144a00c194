"""The Content-Security-Policy header that matches a policy.

    header = rendersafe.csp(policy)             # one line, for `Content-Security-Policy`
    rendersafe.csp(policy, connect_src=["https://api.example.com"])

The browser enforces it on the chat page and on every artifact the page shows in an
`srcdoc` iframe (those inherit the page's policy), whatever a reply holds: an image
loads only from the chat's own origin, the policy's allowed image hosts (a
registrable domain with its subdomains) and the image proxy's origin; media, frames,
`fetch` and form posts only from the chat's own origin unless you add sources;
`<base>` and plug-ins never. The directives it does not name (scripts, styles,
fonts) are yours to set: this header adds a policy, and a browser enforces every
policy a page is sent, so it only ever narrows what the page may load.

CSP cannot say "subdomains on the same site only": a registrable domain the policy
allows becomes `example.org *.example.org`, which also admits a host under a
private suffix below it that the sanitiser refuses (the sanitiser still does).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..errors import PolicyError
from ..policy import Policy
from ..urls.hosts import registrable_domain, split_port

__all__ = ["csp", "image_sources"]

_SELF = "'self'"
# A source a caller adds: a keyword, a scheme (`https:`), or a host source with an
# optional scheme, wildcard, port and path (CSP Level 3, `source-expression`).
_SOURCE = re.compile(
    r"'(?:self|none|unsafe-inline|unsafe-eval|strict-dynamic|wasm-unsafe-eval|"
    r"nonce-[A-Za-z0-9+/_-]+=*|sha(?:256|384|512)-[A-Za-z0-9+/_-]+=*)'"
    r"|[A-Za-z][A-Za-z0-9+.-]*:"
    r"|(?:[A-Za-z][A-Za-z0-9+.-]*://)?(?:\*|(?:\*\.)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)"
    r"(?::(?:[0-9]{1,5}|\*))?(?:/[!$&()*+=:@A-Za-z0-9._~%/-]*)?"
)
_DIRECTIVE = re.compile(r"[a-z][a-z-]*")
# What the header keeps to the page's own origin unless the caller adds sources.
_OWN_ORIGIN = ("media-src", "frame-src", "connect-src", "form-action")


def csp(
    policy: Policy,
    *,
    img_src: Iterable[str] = (),
    media_src: Iterable[str] = (),
    frame_src: Iterable[str] = (),
    connect_src: Iterable[str] = (),
    form_action: Iterable[str] = (),
    extra: Mapping[str, Iterable[str]] | None = None,
) -> str:
    """The `Content-Security-Policy` value for a chat page under `policy`.

    `img_src` ... `form_action` add sources to those directives (a host, an origin,
    `https:`, `'none'`...); `extra` adds directives or sources (`{"font-src":
    ["'self'"]}`). Raises `PolicyError` for a source or directive a browser would
    not read as one.
    """
    directives: dict[str, list[str]] = {"img-src": [_SELF, *image_sources(policy)]}
    added = {
        "img-src": img_src,
        "media-src": media_src,
        "frame-src": frame_src,
        "connect-src": connect_src,
        "form-action": form_action,
    }
    for name in _OWN_ORIGIN:
        directives[name] = [_SELF]
    directives["object-src"] = ["'none'"]
    directives["base-uri"] = ["'none'"]
    for name, sources in [*added.items(), *(extra or {}).items()]:
        _add(directives, name, sources)
    return "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())


def image_sources(policy: Policy) -> list[str]:
    """The sources an image may load from besides the page's own origin, as `policy`
    allows them: its image hosts, its proxy's origin, `data:` when it keeps data images."""
    sources: list[str] = []
    for entry in policy.allowed_image_hosts:
        host, port = split_port(entry)  # validated: a host name or IPv4 address
        suffix = f":{port}" if port else ""
        sources.append(host + suffix)
        if registrable_domain(host) == host:
            sources.append(f"*.{host}{suffix}")
    if policy.image_proxy is not None:
        scheme, _, rest = policy.image_proxy.url.partition("://")
        sources.append(f"{scheme}://{rest.partition('/')[0]}")
    if policy.allow_data_images:
        sources.append("data:")
    return list(dict.fromkeys(sources))


def _add(directives: dict[str, list[str]], name: str, sources: Iterable[str]) -> None:
    if isinstance(sources, str):
        sources = [sources]
    if not _DIRECTIVE.fullmatch(name):
        raise PolicyError("csp", f"{name!r} is not a directive name (e.g. 'font-src')")
    sources = list(sources)
    for source in sources:
        if not isinstance(source, str) or not _SOURCE.fullmatch(source):
            raise PolicyError(
                f"csp.{name}",
                f"{source!r} is not a CSP source: give a host ('cdn.example.com'), an origin "
                "('https://api.example.com'), a scheme ('https:') or a quoted keyword ('self')",
            )
    current = directives.setdefault(name, [])
    if "'none'" in sources or (current == ["'none'"] and sources):
        current.clear()
    current.extend(s for s in sources if s not in current)
