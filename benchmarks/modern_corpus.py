"""A deterministic corpus of replies shaped as models write them now (~1.5 MB), mostly honest.

Beside `corpus.py`'s short answers, these are long ones (median about 10 KB): an
answer in sections with footnote references `[^1]` and their `[^1]:` definitions,
citations, reference-style links resolved by `[label]: https://...` definitions
(about 50 URLs a reply, drawn from some 1,300 distinct ones), tables, raw HTML with
attributes (`<details>`/`<summary>`, `<kbd>`, `<sup>`, `<img width>` from an allowed
host or relative), backslash escapes, inline and display math, and prose in other
languages. One reply in ten carries an exfiltration attempt.

Every figure of `bench_sanitize.py` and `bench_stream.py` is given on both corpora.
The images are on hosts `POLICY` allows (or relative, which it allows too): an
honest reply comes out unchanged under it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from corpus import ATTACKS, WORDS
from rendersafe import Policy

POLICY = Policy(
    allowed_image_hosts=("upload.wikimedia.org", "docs.python.org"),
    allow_relative_images=True,
)
HOSTS = (
    "docs.python.org", "developer.mozilla.org", "en.wikipedia.org", "github.com",
    "stackoverflow.com", "arxiv.org", "doi.org", "www.rfc-editor.org", "learn.microsoft.com",
    "kubernetes.io", "www.postgresql.org", "react.dev", "nodejs.org", "go.dev",
    "doc.rust-lang.org", "pytorch.org", "numpy.org", "pandas.pydata.org", "fr.wikipedia.org",
    "de.wikipedia.org", "ja.wikipedia.org", "www.nature.com", "pubmed.ncbi.nlm.nih.gov",
    "www.who.int", "www.nytimes.com", "www.bbc.co.uk", "aws.amazon.com", "cloud.google.com",
    "www.sqlite.org", "redis.io", "docs.djangoproject.com", "fastapi.tiangolo.com",
)  # fmt: skip
LANGUAGES = (
    "Die Funktion gibt einen Wert zurück, wenn sie mit einem gültigen Schlüssel aufgerufen wird.",
    "La réponse dépend de la configuration du serveur et de la politique de mise en cache.",
    "La función devuelve una lista ordenada; el índice empieza en cero y crece de uno en uno.",
    "この関数は非同期で実行され、結果はイベントループが次に回ったときに返されます。",
    "该方法在超时之后会重试三次，每次的等待时间加倍，直到达到上限为止。",  # noqa: RUF001
    "Эта функция возвращает значение только после того, как поток завершит работу.",
    "Ο διακομιστής απαντά με κωδικό 404 όταν η διαδρομή δεν υπάρχει.",  # noqa: RUF001
    "הפונקציה מחזירה ערך רק לאחר שהתהליך מסתיים בהצלחה.",
    "फ़ंक्शन तभी मान लौटाता है जब अनुरोध सफलतापूर्वक पूरा हो जाता है।",
    "Funkcja zwraca wartość dopiero wtedy, gdy żądanie zakończy się powodzeniem — ot, tak.",
)
ESCAPED = (
    r"use `*args` and not \*args\* here",
    r"the path is C:\\Users\\dana\\project",
    r"a literal \[bracket\] and a \# hash",
    r"costs \$5 a month",
    r"snake\_case\_names stay as they are",
    r"1\. not a list item",
    r"the pipe \| in a cell",
    r"a \<tag\> written out",
)
MATH = (
    r"$E = mc^2$",
    r"$O(n \log n)$",
    r"$\alpha + \beta = \gamma$",
    r"$x_i \in \mathbb{R}^d$",
    r"$p < 0.05$",
)
DISPLAY_MATH = (
    "$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$",
    "$$\nP(A \\mid B) = \\frac{P(B \\mid A)\\,P(A)}{P(B)}\n$$",
    "$$\n\\nabla \\cdot \\mathbf{E} = \\frac{\\rho}{\\varepsilon_0}\n$$",
)
IMAGES = (
    '<img src="https://upload.wikimedia.org/wikipedia/commons/3/3f/Fronalpstock_big.jpg"'
    ' width="480" alt="A mountain">',
    '<img src="https://docs.python.org/3/_static/py.svg" width="64" height="64" alt="Python logo">',
    '<img src="./diagrams/architecture.svg" width="600" alt="Architecture">',
    "![Diagram](https://upload.wikimedia.org/wikipedia/commons/a/a9/Example.jpg)",
)


def urls(count: int = 1300, seed: int = 11) -> list[str]:
    """`count` distinct URLs across the hosts replies cite."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        host = rng.choice(HOSTS)
        path = "/".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        url = f"https://{host}/{path}"
        if rng.random() < 0.25:
            url += f"#{rng.choice(WORDS)}-{rng.randint(1, 40)}"
        elif rng.random() < 0.15:
            url += f"?page={rng.randint(1, 9)}"
        found[url] = None
    return list(found)


class _Reply:
    """One reply being written: its URLs, labels and footnotes, numbered in order."""

    def __init__(self, rng: random.Random, pool: list[str]) -> None:
        self.rng = rng
        self.pool = pool
        self.labels: dict[str, str] = {}
        self.notes: list[str] = []

    def url(self) -> str:
        return self.rng.choice(self.pool)

    def words(self, low: int = 6, high: int = 18) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(low, high)))

    def label(self) -> str:
        """A reference label, defined at the end of the reply."""
        name = f"{self.rng.choice(WORDS)}-{len(self.labels) + 1}"
        self.labels[name] = self.url()
        return name

    def footnote(self) -> str:
        """A footnote reference, its definition a citation kept for the end."""
        self.notes.append(self._citation())
        return f"[^{len(self.notes)}]"

    def _citation(self) -> str:
        year, name = self.rng.randint(1998, 2025), self.rng.choice(WORDS).title()
        title = self.words(3, 8).capitalize()
        if self.rng.random() < 0.5:
            return f"{name}, J. ({year}). *{title}*. {self.url()}"
        return f"{name} et al., {year}: [{title}]({self.url()})."


def _inline(r: _Reply) -> str:
    """One inline construct a sentence may hold."""
    rng = r.rng
    kind = rng.choices(
        ("link", "ref", "short", "note", "code", "bold", "kbd", "sup", "math", "esc", "bare"),
        (22, 14, 6, 12, 8, 6, 3, 3, 4, 5, 4),
    )[0]
    makers: dict[str, Callable[[], str]] = {
        "link": lambda: f"[{r.words(1, 4)}]({r.url()})",
        "ref": lambda: f"[{r.words(1, 3)}][{r.label()}]",
        "short": lambda: f"[{r.label()}]",
        "note": r.footnote,
        "code": lambda: f"`{rng.choice(WORDS)}.{rng.choice(WORDS)}()`",
        "bold": lambda: f"**{r.words(1, 3)}**",
        "kbd": lambda: f"<kbd>Ctrl</kbd>+<kbd>{rng.choice('CVZK')}</kbd>",
        "sup": lambda: f'<sup title="{rng.choice(WORDS)}">{rng.randint(1, 9)}</sup>',
        "math": lambda: rng.choice(MATH),
        "esc": lambda: rng.choice(ESCAPED),
        "bare": lambda: f"see {r.url()}",
    }
    return makers[kind]()


def _sentence(r: _Reply) -> str:
    rng = r.rng
    if rng.random() < 0.12:
        return rng.choice(LANGUAGES)
    words = r.words().split()
    for _ in range(rng.choices((0, 1, 2), (35, 45, 20))[0]):
        words.insert(rng.randint(1, len(words)), _inline(r))
    sentence = " ".join(words)
    return sentence[0].upper() + sentence[1:] + "."


def _prose(r: _Reply) -> str:
    return " ".join(_sentence(r) for _ in range(r.rng.randint(2, 6)))


def _bullets(r: _Reply) -> str:
    marker = r.rng.choice(("-", "*", "1."))
    return "\n".join(f"{marker} {_sentence(r)}" for _ in range(r.rng.randint(3, 7)))


def _table(r: _Reply) -> str:
    rng = r.rng
    rows = [
        f"| {rng.choice(WORDS)} | {rng.randint(1, 999)} | {_sentence(r)} | {r.footnote()} |"
        for _ in range(rng.randint(3, 9))
    ]
    return "| name | count | notes | source |\n|---|---:|---|---|\n" + "\n".join(rows)


def _code(r: _Reply) -> str:
    rng = r.rng
    lines = [f"value = {rng.choice(WORDS)}({rng.choice(WORDS)}, retries={i})" for i in range(9)]
    lang = rng.choice(("python", "bash", "json", "ts"))
    return f"```{lang}\n" + "\n".join(lines[: rng.randint(2, 9)]) + "\n```"


def _details(r: _Reply) -> str:
    summary = r.words(2, 5).capitalize()
    return f"<details>\n<summary>{summary}</summary>\n\n{_prose(r)}\n\n</details>"


def _figure(r: _Reply) -> str:
    return f"{r.rng.choice(IMAGES)}\n\n*Figure: {r.words(3, 7)}.*"


def _quote(r: _Reply) -> str:
    return "> **Note**\n> " + _sentence(r)


def _math(r: _Reply) -> str:
    return f"{_sentence(r)}\n\n{r.rng.choice(DISPLAY_MATH)}"


def _heading(r: _Reply) -> str:
    return f"{r.rng.choice(('##', '###'))} {r.words(2, 5).capitalize()}"


# Block makers and their relative frequency in an answer.
BLOCKS: tuple[tuple[Callable[[_Reply], str], int], ...] = (
    (_prose, 40),
    (_bullets, 14),
    (_heading, 10),
    (_table, 7),
    (_code, 7),
    (_details, 5),
    (_quote, 5),
    (_math, 4),
    (_figure, 3),
)


def reply(rng: random.Random, pool: list[str], attack: bool) -> str:
    """One long reply, its footnotes and reference definitions at the end."""
    r = _Reply(rng, pool)
    makers, weights = zip(*BLOCKS, strict=True)
    blocks = [f"{_heading(r)}\n\n{_prose(r)}"]
    size = rng.lognormvariate(8.85, 0.45)  # median about 7 KB before the notes
    while sum(map(len, blocks)) < size:
        blocks.append(rng.choices(makers, weights)[0](r))
    if attack:
        blocks.insert(rng.randint(1, len(blocks)), rng.choice(ATTACKS))
    notes = "\n".join(f"[^{i}]: {note}" for i, note in enumerate(r.notes, 1))
    definitions = "\n".join(f"[{label}]: {url}" for label, url in r.labels.items())
    tail = [part for part in (notes, definitions) if part]
    return "\n\n".join(blocks + tail) + "\n"


def corpus(size: int = 1_500_000, seed: int = 23) -> list[str]:
    """Replies totalling about `size` characters; one in ten is an attack."""
    rng = random.Random(seed)
    pool = urls()
    replies: list[str] = []
    while sum(map(len, replies)) < size:
        replies.append(reply(rng, pool, attack=rng.random() < 0.1))
    return replies


if __name__ == "__main__":
    import re
    import statistics

    URL = re.compile(r"https?://[^\s)\]>\"]+")
    replies = corpus()
    links = [len(set(URL.findall(reply))) for reply in replies]
    distinct = len(set(URL.findall("\n".join(replies))))
    print(
        f"{len(replies)} replies, {sum(map(len, replies)) / 1e6:.2f} MB, median "
        f"{statistics.median(map(len, replies)) / 1e3:.1f} KB, median {statistics.median(links)}"
        f" distinct URLs a reply, {distinct} distinct in all"
    )
