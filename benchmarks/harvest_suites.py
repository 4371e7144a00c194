"""Rebuild tests/data/renderer_suites.jsonl: every construct holding a URL in the
renderers' own test suites, for the fuzzer (tests/soup.py, family `suites`).

    python benchmarks/harvest_suites.py MIRROR... [--out tests/data/renderer_suites.jsonl]

Each MIRROR is a git directory (a bare clone, read at HEAD, nothing fetched) of one of:
commonmark-spec (`spec.txt`), markdown-it (`test/fixtures/**/*.txt`), marked
(`test/specs/**`), micromark (`test/**/*.js`, the strings passed to `micromark(...)`),
mistune (`tests/fixtures/*`), Python-Markdown (`tests/**/*.txt` and the strings passed to
`assertMarkdownRenders` in `tests/test_syntax`). Every input is cut into blocks (at blank
lines, so a long test document gives one construct per paragraph); a block is kept
when it holds a URL or a URL slot (a scheme, `//`, `www.`, `](`, `]:`, `src=`, `href=`,
`url(`), is at most 600 characters and holds no lone surrogate. One JSON object per
line (the suite it came from, the text), deduplicated, in a stable order.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "renderer_suites.jsonl"
_URLISH = re.compile(
    r"\b(?:https?|ftp|mailto|javascript|vbscript|data|file|irc|tel):|//|www\.|\]\(|\]:\s*<?/"
    r"|src\s*=|href\s*=|url\(|@import",
    re.IGNORECASE,
)
_SPEC_EXAMPLE = re.compile(r"^`{32} example[^\n]*\n(.*?)^\.\n", re.MULTILINE | re.DOTALL)
_JS_CALL = re.compile(r"micromark\(\s*(?:\n\s*)?('(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")")
_JS_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", re.DOTALL)
_JS_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
MAX_BLOCK = 600


def _git(mirror: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(mirror), *args], capture_output=True, check=True, text=True
    )
    return done.stdout


def _files(mirror: Path, pattern: str) -> Iterator[tuple[str, str]]:
    """(path, text) of the files at HEAD whose path matches `pattern`."""
    for path in sorted(_git(mirror, "ls-tree", "-r", "--name-only", "HEAD").splitlines()):
        if re.search(pattern, path):
            yield path, _git(mirror, "show", f"HEAD:{path}")


def _spec_inputs(text: str) -> Iterator[str]:
    for match in _SPEC_EXAMPLE.finditer(text):
        yield match.group(1).replace("\u2192", "\t")


def _markdown_it_inputs(text: str) -> Iterator[str]:
    """The inputs of markdown-it's fixture format: title, `.`, input, `.`, output, `.`."""
    after = {"title": "input", "input": "output", "output": "title"}
    part, held = "title", list[str]()
    for line in text.split("\n"):
        if line != ".":
            held.append(line)
            continue
        if part == "input":
            yield "\n".join(held) + "\n"
        part, held = after[part], []


def _js_string(literal: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u{"):
            return chr(int(code[2:-1], 16))
        if code[0] in "ux" and len(code) > 1:
            return chr(int(code[1:], 16))
        return _JS_SIMPLE.get(code, code)

    return _JS_ESCAPE.sub(one, literal[1:-1])


def _python_markdown_calls(text: str) -> Iterator[str]:
    for node in ast.walk(ast.parse(text)):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        if getattr(node.func, "attr", None) != "assertMarkdownRenders":
            continue
        first = node.args[0]
        if isinstance(first, ast.Call) and first.args:
            first = first.args[0]  # self.dedent("...")
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            yield textwrap.dedent(first.value)


def _commonmark_spec(mirror: Path) -> Iterator[str]:
    for _path, text in _files(mirror, r"^spec\.txt$"):
        yield from _spec_inputs(text)


def _markdown_it(mirror: Path) -> Iterator[str]:
    for _path, text in _files(mirror, r"^test/fixtures/.*\.txt$"):
        spec = "`" * 32 + " example" in text
        yield from _spec_inputs(text) if spec else _markdown_it_inputs(text)


def _marked(mirror: Path) -> Iterator[str]:
    for path, text in _files(mirror, r"^test/specs/.*\.(md|json)$"):
        if path.endswith(".json"):
            yield from (case["markdown"] for case in json.loads(text))
        else:
            yield re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)


def _micromark(mirror: Path) -> Iterator[str]:
    for _path, text in _files(mirror, r"^test/.*\.js$"):
        yield from (_js_string(m.group(1)) for m in _JS_CALL.finditer(text))


def _mistune(mirror: Path) -> Iterator[str]:
    for path, text in _files(mirror, r"^tests/fixtures/.*\.(txt|json)$"):
        if path.endswith(".json"):
            yield from (case["text"] for case in json.loads(text) if "text" in case)
        else:
            yield from _spec_inputs(text)


def _python_markdown(mirror: Path) -> Iterator[str]:
    for path, text in _files(mirror, r"^tests/.*\.(txt|py)$"):
        if path.endswith(".txt"):
            yield text
        elif "test_syntax" in path:
            yield from _python_markdown_calls(text)


# The suite a mirror holds, by the repository's name: its name here, and its reader.
SUITES: dict[str, tuple[str, Callable[[Path], Iterator[str]]]] = {
    "commonmark-spec": ("commonmark-spec", _commonmark_spec),
    "markdown-it": ("markdown-it", _markdown_it),
    "marked": ("marked", _marked),
    "micromark": ("micromark", _micromark),
    "mistune": ("mistune", _mistune),
    "markdown": ("python-markdown", _python_markdown),
}


def inputs(mirror: Path) -> Iterator[tuple[str, str]]:
    """(suite, input) for every test input of the suite in `mirror`."""
    name = mirror.parent.name if mirror.name == "repo" else mirror.name
    suite = SUITES.get(name.split("+")[-1])
    if suite is None:
        raise SystemExit(f"unknown suite {name!r}; known: {', '.join(SUITES)}")
    yield from ((suite[0], text) for text in suite[1](mirror))


def blocks(text: str) -> Iterator[str]:
    """`text` cut at blank lines, each block holding a URL or a URL slot."""
    for part in re.split(r"\n[ \t]*\n", text):
        block = part.strip("\n")
        if block and len(block) <= MAX_BLOCK and _URLISH.search(block) and _encodable(block):
            yield block


def _encodable(text: str) -> bool:
    """No lone surrogate (a JavaScript test's `\\uD800`): no reply holds one."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mirrors", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    seen: dict[str, str] = {}
    for mirror in args.mirrors:
        for suite, text in inputs(mirror):
            for block in blocks(text):
                seen.setdefault(block, suite)
    lines = [json.dumps({"suite": s, "text": t}) for t, s in seen.items()]
    args.out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    counts: dict[str, int] = {}
    for suite in seen.values():
        counts[suite] = counts.get(suite, 0) + 1
    print(f"{len(seen)} constructs: {counts}")


if __name__ == "__main__":
    main()
