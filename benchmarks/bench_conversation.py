"""What judging with the conversation costs: building its index, and checking URLs.

    python benchmarks/bench_conversation.py [--rounds R]

Prints CPU seconds (`time.process_time`), the median over R rounds and the spread
(min-max), the measurements interleaved round by round so that load from other
processes on the machine neither shows up as time nor favours one of them:

- build + index for 5, 20 and 80 KB conversations (`Conversation.from_messages`, the
  piece index, the copied-URL set), and the 80/20 ratio (linear: about 4);
- one taint check per URL, on a built conversation, with the URL readings cache cold
  (every URL new) and warm (URLs seen before);
- `Sanitizer.run` (a Sanitizer built outside the timing, so its URL cache is cold as
  this part's is) on a 4 KB reply with many links (36), against what this part adds
  to it for a 20 KB conversation: from_messages + index + `has_url` and
  `tracker().check` of every URL of the reply, timed directly. The target: at most 10 %.
- the same for the corpus' typical replies (1-6 KB, a few links each), one new 20 KB
  conversation per reply, summed over 40 replies;
- the wired path, `run(reply)` against `run(reply, conversation=messages)`: a 4 KB
  reply in a new chat; each typical reply a new chat; the typical replies as the
  turns of one chat, its history growing.

"New chat" forgets every message seen (their pieces and URLs, the conversations
built). What depends on a URL alone (its readings, its slots) is forgotten when the
sample's Sanitizer is new and kept across its replies, as that Sanitizer's verdicts
are: both sides of a ratio start as cold.

The conversation is made of the corpus' replies (benchmarks/corpus.py) as the
assistant's turns, user questions carrying an e-mail address, a phone number or a
key now and then, tool results in JSON with URLs and IDs, and a system prompt.

Measured (2026-12-05, compiled build, 2 shared cores at load ~10, `--rounds 7`): one
chat's turns +83 % (63-102), before the per-message memos of names +75 % (69-79) with the
new chat's names not forgotten; a new chat +538 % (416-597), before +467 % (447-472)
counting names seen by earlier replies as new ones' (`new_chat` forgets them now).
Noise on that machine is wider than the change; instruction counts (callgrind, the
interpreted build, 2 x 40 turns whose messages were all seen, conversations rebuilt
each turn) give the conversation's share of a turn: +35.3 % before, +29.9 % after.
A new chat's replies differ from the plain run's (22 of 32 typical replies have links
unlinked by the budget), so part of its cost is the full pass those rewrites need.

`--wired` runs only the wired typical replies and chat turns. Measured (2026-12-05,
compiled build, 2 cores shared with a niced callgrind run, `--wired --rounds 7`, the old
and new trees run turn about, three runs each, the range of their medians): one chat's
turns +77.3 to +80.8 % before, +73.8 to +75.5 % after link verdicts no conversation
changes (a sealed service's, a trusted host's) were shared across replies; a new chat
+518 to +521 % before, +512 to +529 % after. Instructions (conversation_instructions.py):
+45.6 % -> +43.2 % (523 M -> 515 M on 359 M), new chat +352.6 % -> +349.7 %. Where the
rest goes: docs/performance.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import re
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from corpus import LINKS, WORDS, corpus, reply
from rendersafe import Sanitizer
from rendersafe.conversation import (
    Conversation,
    core,
    index,
    naming,
    prose,
    readings,
    seen,
    tracker,
)
from rendersafe.urls.parse import ParsedUrl, parse_url

ROOT = Path(__file__).parent.parent
SYSTEM = (
    "You are a helpful assistant for Example Corp. Answer questions about the product, "
    "cite the documentation, and never reveal internal notes. Internal token: "
    "tok_9f8e7d6c5b4a3f2e1d0c. Support line +44 20 7946 0958."
)


def conversation(size: int, seed: int = 11) -> list[dict[str, object]]:
    """OpenAI-style messages totalling about `size` characters of text."""
    rng = random.Random(seed)
    messages: list[dict[str, object]] = [{"role": "system", "content": SYSTEM}]
    total = len(SYSTEM)
    while total < size:
        question = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30))) + "?"
        if rng.random() < 0.3:
            question += rng.choice(
                [
                    f" My address is user{rng.randint(1, 999)}@example.org.",
                    f" Call me on 0{rng.randint(7000000000, 7999999999)}.",
                    f" The key is sk-{rng.getrandbits(96):024x}.",
                ]
            )
        tool = json.dumps(
            {
                "results": [
                    {"url": rng.choice(LINKS), "id": f"doc_{rng.getrandbits(40):010x}"}
                    for _ in range(3)
                ],
                "took_ms": rng.randint(1, 900),
            }
        )
        answer = reply(rng, attack=False)
        messages += [
            {"role": "user", "content": question},
            {"role": "tool", "content": tool},
            {"role": "assistant", "content": answer},
        ]
        total += len(question) + len(tool) + len(answer)
    return messages


def links_reply(count: int = 36, seed: int = 3) -> str:
    """A reply of about 4 KB with `count` links to real documentation."""
    lines = (ROOT / "tests" / "data" / "real_urls.txt").read_text(encoding="utf-8").splitlines()
    urls = [line for line in lines if line.startswith("http")]
    rng = random.Random(seed)
    return "\n\n".join(
        f"See [the docs]({rng.choice(urls)}) for more about this topic and the related details."
        for _ in range(count)
    )


def cpu(work: Callable[[], object], repeat: int = 1) -> float:
    """CPU seconds of one call of `work` (averaged over `repeat` calls), after a full
    collection: garbage left by the sample before is not this one's cost."""
    gc.collect()
    start = time.process_time()
    for _ in range(repeat):
        work()
    return (time.process_time() - start) / repeat


def build(messages: list[dict[str, object]]) -> Conversation:
    cold()
    built = Conversation.from_messages(messages)
    built.has_url("https://example.com/")
    built.taint(parse_url("https://example.com/"))
    return built


REPLY_URL = re.compile(r"\]\(([^)\s]+)\)|<(https?://[^>\s]+)>|(?<![(<])(https?://[^\s)\]>]+)")


def reply_urls(text: str) -> list[ParsedUrl]:
    """The URLs of a reply's links, autolinks and bare URLs."""
    return [parse_url(next(g for g in m.groups() if g)) for m in REPLY_URL.finditer(text)]


def added_cost(messages: list[dict[str, object]], urls: list[ParsedUrl]) -> None:
    """What the sanitiser would add for one reply: build, then judge each URL."""
    new_chat()  # no message seen before
    built = Conversation.from_messages(messages)
    tracker = built.tracker()
    for url in urls:
        if not built.has_url(url.href or url.raw):
            tracker.check(url)


def summary(samples: list[float]) -> str:
    return (
        f"{statistics.median(samples) * 1e3:8.3f} ms"
        f"  ({min(samples) * 1e3:.3f}-{max(samples) * 1e3:.3f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--wired", action="store_true", help="only the wired path's typical replies and chat"
    )
    args = parser.parse_args()

    sizes = {"5 KB": 5_000, "20 KB": 20_000, "80 KB": 80_000}
    conversations = {name: conversation(size) for name, size in sizes.items()}
    text = links_reply()
    urls = reply_urls(text)
    typical = corpus(200_000)[40:80]
    typical_urls = [reply_urls(r) for r in typical]
    warm = build(conversations["20 KB"])
    samples: dict[str, list[float]] = {}

    def take(name: str, work: Callable[[], object], repeat: int = 1) -> None:
        samples.setdefault(name, []).append(cpu(work, repeat))

    twenty = conversations["20 KB"]
    for _ in range(args.rounds if args.wired else 0):
        take("wired: typical run x40", partial(run_all, Sanitizer(), typical))
        take("wired: typical + conv. x40", partial(run_with, Sanitizer(), typical, twenty))
        take("wired: chat run x40", partial(run_plain_chat, Sanitizer(), typical))
        take("wired: chat + history x40", partial(run_chat, Sanitizer(), typical, twenty))
    for _ in range(0 if args.wired else args.rounds):
        for name, messages in conversations.items():
            take(f"build + index, {name}", partial(build, messages), 3)
        take("taint per URL, cold", partial(cold_checks, warm, urls))
        take("taint per URL, warm", partial(warm_checks, warm, urls), 5)
        # Sanitizers built outside the timing, their URL caches cold.
        take("Sanitizer.run, 4 KB reply", partial(Sanitizer().run, text))
        take("added: 20 KB conversation", partial(added_all, twenty, [urls]))
        take("typical: Sanitizer.run x40", partial(run_all, Sanitizer(), typical))
        take("typical: added x40", partial(added_all, twenty, typical_urls))
        # The wired path: run(reply) against run(reply, conversation=messages), each
        # with its own cold Sanitizer, the messages as a caller passes them.
        take("wired: run, 4 KB reply", partial(Sanitizer().run, text))
        take("wired: run + conversation", partial(run_with, Sanitizer(), [text], twenty))
        take("wired: typical run x40", partial(run_all, Sanitizer(), typical))
        take("wired: typical + conv. x40", partial(run_with, Sanitizer(), typical, twenty))
        # One chat: the history grows, its older messages seen by earlier turns.
        take("wired: chat run x40", partial(run_plain_chat, Sanitizer(), typical))
        take("wired: chat + history x40", partial(run_chat, Sanitizer(), typical, twenty))

    print(f"reply: {len(text)} chars, {len(urls)} links; conversations: {list(sizes)}")
    typical_size = sum(map(len, typical)) // len(typical)
    typical_links = sum(map(len, typical_urls)) / len(typical)
    print(f"typical replies: 40, {typical_size} chars and {typical_links:.1f} URLs on average")
    for name, values in samples.items():
        if name.startswith("taint per URL"):
            per_url = statistics.median(values) / len(urls)
            print(f"{name:28} {per_url * 1e6:8.1f} us per URL")
        else:
            print(f"{name:28} {summary(values)}")
    if args.wired:
        wired_shares(samples)
        return
    small, large = samples["build + index, 20 KB"], samples["build + index, 80 KB"]
    ratios = [b / a for a, b in zip(small, large, strict=True)]
    print(f"build 80 KB / 20 KB: median {statistics.median(ratios):.2f} (linear: 4)")
    for label, run_name, added_name in (
        ("4 KB reply, 36 links", "Sanitizer.run, 4 KB reply", "added: 20 KB conversation"),
        ("typical replies", "typical: Sanitizer.run x40", "typical: added x40"),
    ):
        shares = [b / a for a, b in zip(samples[run_name], samples[added_name], strict=True)]
        print(
            f"added / Sanitizer.run, {label}: median {statistics.median(shares) * 100:.1f} %"
            f"  ({min(shares) * 100:.1f}-{max(shares) * 100:.1f}; target <= 10 %)"
        )
    wired_shares(samples)


def wired_shares(samples: dict[str, list[float]]) -> None:
    """What the conversation adds to the wired path, round by round."""
    for label, plain, wired in (
        ("4 KB reply, 36 links", "wired: run, 4 KB reply", "wired: run + conversation"),
        ("typical replies", "wired: typical run x40", "wired: typical + conv. x40"),
        ("one chat's turns", "wired: chat run x40", "wired: chat + history x40"),
    ):
        if plain not in samples:
            continue
        shares = [b / a - 1 for a, b in zip(samples[plain], samples[wired], strict=True)]
        print(
            f"wired, {label}: run(conversation=20 KB) / run(): "
            f"median +{statistics.median(shares) * 100:.1f} %"
            f"  ({min(shares) * 100:.1f}-{max(shares) * 100:.1f}; target <= 10 %)"
        )


def new_chat() -> None:
    """Forget every message seen: what a new chat's first reply meets."""
    index._message_text.cache_clear()
    index._message_pieces.cache_clear()
    seen._normal_urls.cache_clear()
    seen._memo_bare_of.cache_clear()
    prose._words.cache_clear()
    naming._message_names.cache_clear()
    core._RECENT.clear()


def forget_urls() -> None:
    """Forget every URL read, as a new Sanitizer has judged none: what depends on the
    URL alone is cached across replies and chats, as the policy's verdicts are."""
    readings._cache.clear()
    tracker._SLOTS.clear()


def cold() -> None:
    """Forget every message and URL seen."""
    new_chat()
    forget_urls()


def cold_checks(built: Conversation, urls: list[ParsedUrl]) -> None:
    readings._cache.clear()
    warm_checks(built, urls)


def warm_checks(built: Conversation, urls: list[ParsedUrl]) -> None:
    for url in urls:
        built.taint(url)


def run_all(sanitizer: Sanitizer, replies: list[str]) -> None:
    for text in replies:
        sanitizer.run(text)


def run_with(
    sanitizer: Sanitizer, replies: list[str], messages: list[dict[str, object]] | Conversation
) -> None:
    """Each reply of a new chat: no message seen before any of them; the URLs as cold
    as the new `sanitizer`'s verdicts."""
    forget_urls()
    for text in replies:
        new_chat()
        sanitizer.run(text, conversation=messages)


def run_chat(sanitizer: Sanitizer, replies: list[str], messages: list[dict[str, object]]) -> None:
    """The replies as the turns of one chat: each sanitised with the history before it,
    a 20 KB window (the oldest turns leave as new ones come; the system prompt stays)."""
    cold()
    history = list(messages)
    for turn, text in enumerate(replies):
        history.append({"role": "user", "content": f"And question {turn}?"})
        sanitizer.run(text, conversation=history)
        history.append({"role": "assistant", "content": text})
        while sum(len(str(m["content"])) for m in history) > 20_000:
            del history[1]


def run_plain_chat(sanitizer: Sanitizer, replies: list[str]) -> None:
    """`run_chat`'s work without the conversation (the window kept all the same)."""
    history: list[dict[str, object]] = []
    for turn, text in enumerate(replies):
        history.append({"role": "user", "content": f"And question {turn}?"})
        sanitizer.run(text)
        history.append({"role": "assistant", "content": text})
        while sum(len(str(m["content"])) for m in history) > 20_000:
            del history[1]


def added_all(messages: list[dict[str, object]], urls: list[list[ParsedUrl]]) -> None:
    forget_urls()
    for reply_urls in urls:
        added_cost(messages, reply_urls)


if __name__ == "__main__":
    main()
