"""Properties of the conversation index (hypothesis).

Any sensitive piece of a random conversation, planted in any part of a URL, in any
encoding the readings list, whole or split across parts (or across two URLs of one
reply, for the tracker), is found, with the message and role it came from; random
honest conversations and replies (documentation links, search links with the user's
own words, the user's own URLs, GitHub issues, mail to the user) carry nothing.
"""

from __future__ import annotations

import base64
import itertools
import random
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from rendersafe.conversation import Conversation, Taint, mint_canary
from rendersafe.conversation.fold import LOOK_ALIKE as _LOOK_ALIKE
from rendersafe.conversation.fold import decoded
from rendersafe.conversation.index import MessageText
from rendersafe.conversation.parts import MIN_PART, PARTS_FROM, PARTS_KINDS
from rendersafe.shapes import role_of
from rendersafe.urls.parse import parse_url

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROLES = ("system", "user", "assistant", "tool", "developer")
# Filler prose: common words, no piece among them.
_FILLER = (
    "the a to of and in is it you that for on with as this be are or can your we not "
    "have but they at by from if will one all would there what so about which when up "
    "out do time just like how then some into them more see other than now only could"
)
FILLER = _FILLER.split()
SEARCH_HOSTS = ("www.google.com", "www.bing.com", "duckduckgo.com")
DATA = Path(__file__).parent / "data"
DOCS = [
    line.strip()
    for name in ("real_urls.txt", "benign_urls.txt")
    for line in (DATA / name).read_text(encoding="utf-8").splitlines()
    if line.startswith("http")
]
# The user's own URLs: real ones (the benign list's placeholder IDs, `ABCDEF...`,
# `AbCdEf...`, `123456789`, `a1b2c3d4`, would be pieces that contain each other, on
# other sites too).
REAL = [u for u in DOCS if "ABCDEF" not in u.upper() and "123456" not in u and "a1b2" not in u]
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _blocks(text: str) -> int:
    kinds = ["d" if c.isdigit() else "a" for c in text if c.isalnum()]
    return 1 + sum(1 for x, y in itertools.pairwise(kinds) if x != y)


def _luhn_complete(digits: str) -> str:
    total = 0
    for position, char in enumerate(reversed(digits + "0")):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return digits + str((10 - total % 10) % 10)


def _digits(rng: random.Random, count: int) -> str:
    return str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(count - 1))


def _email(rng: random.Random) -> str:
    local = "".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(3, 9)))
    if rng.random() < 0.5:
        local += "." + "".join(rng.choice("qrstuvwxyz") for _ in range(rng.randint(2, 6)))
    domain = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 10)))
    return f"{local}@{domain}.{rng.choice(['com', 'org', 'net', 'io', 'co.uk'])}"


def _phone(rng: random.Random) -> str:
    area, local, line = _digits(rng, 3), _digits(rng, 3), _digits(rng, 4)
    return rng.choice(
        [
            f"+1 ({area}) {local}-{line}",
            f"{area}-{local}-{line}",
            f"+44 {area} {local} {line}",
            f"+1{area}{local}{line}",  # E.164, written whole
            f"+44{area}{local}{line}",
            f"0044 {area} {local} {line}",
            f"0{area} {local} {line}",  # national, with its trunk 0
        ]
    )


def _other_form(phone: str) -> str:
    """A phone number as written the other way: without its country code (`+1`, `+44`,
    `0044`), or a national one with a country code instead of its trunk `0`."""
    digits = _key_of(phone)
    if phone.startswith("0044"):
        return digits[4:]
    if phone.startswith("0"):
        return "44" + digits[1:]
    return digits[1:] if phone.startswith("+1") else digits[2:]


def _named(rng: random.Random) -> str:
    """A secret named as one, of a shape no key rule would take alone (`Summ3r24`)."""
    word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 6)))
    tail = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 4)))
    value = f"{word}{rng.randint(0, 9)}{tail}{rng.randint(0, 99)}"
    value = value.capitalize() if rng.random() < 0.5 else value
    label = rng.choice(["password", "wifi password", "passcode", "secret"])
    return f"my {label} is {value}"


def _card(rng: random.Random) -> str:
    number = _luhn_complete("4" + _digits(rng, 14))
    return " ".join(number[i : i + 4] for i in range(0, 16, 4))


def _account(rng: random.Random) -> str:
    groups = " ".join(_digits(rng, 4) for _ in range(4))
    iban = rng.choice(
        [f"DE{_digits(rng, 2)} {groups} {_digits(rng, 2)}", f"GB{_digits(rng, 2)} WEST {groups}"]
    )
    return rng.choice([iban, iban.replace(" ", ""), _digits(rng, 11)])


def _key(rng: random.Random) -> str:
    while True:
        body = "".join(rng.choice(ALNUM) for _ in range(rng.randint(12, 32)))
        if _blocks(body) >= 5:
            return rng.choice(["", "sk-", "ghp_", "tok_"]) + body


def _prose(rng: random.Random) -> str:
    words = []
    for _ in range(rng.randint(16, 22)):
        length = rng.choice([3, 4, 5, 7, 8, 9])
        words.append(
            "".join(
                rng.choice("bcdfghjklmnprstvwz") + rng.choice("aeiou")
                for _ in range(length // 2 + 1)
            )
        )
    return " ".join(words)


PIECES: dict[str, Callable[[random.Random], str]] = {
    "email": _email,
    "phone": _phone,
    "card": _card,
    "account": _account,
    "key": _key,
    "prose": _prose,
    "named": _named,
}


def _key_of(piece: str) -> str:
    """What must reach the URL: the letters and digits (of a named secret, its value)."""
    if piece.startswith("my ") and " is " in piece:
        piece = piece.rpartition(" ")[2]
    return "".join(c for c in piece if c.isalnum())


def _encode(text: str, encoding: str) -> str:
    raw = text.encode()
    return {
        "raw": text,
        "upper": text.upper(),
        "lower": text.lower(),
        "percent": "".join(f"%{b:02X}" for b in raw),
        "double-percent": "".join(f"%25{b:02X}" for b in raw),
        "base64": quote(base64.b64encode(raw).decode(), safe=""),
        "base64url": base64.urlsafe_b64encode(raw).decode().rstrip("="),
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "base32": base64.b32encode(raw).decode().rstrip("="),
        "base32-lower": base64.b32encode(raw).decode().rstrip("=").lower(),
        "variation-selectors": quote("\ufe0f".join(text), safe=""),
        "zero-width": quote("\u200b".join(text), safe=""),
    }[encoding]


_ENCODINGS = (
    "raw upper lower percent double-percent base64 base64url hex HEX base32 base32-lower "
    "variation-selectors zero-width"
)
ENCODINGS = _ENCODINGS.split()
# Encodings whose output can be a DNS label (letters, digits).
HOST_ENCODINGS = ("hex", "base32-lower")


def _cut(rng: random.Random, payload: str) -> int:
    """Where to split `payload` in two: anywhere, but not inside a percent-escape."""
    cuts = [i for i in range(1, len(payload)) if "%" not in payload[max(0, i - 2) : i]]
    return rng.choice(cuts) if cuts else 1


def _plant(rng: random.Random, payload: str, part: str, split: str) -> str:
    """A URL carrying `payload` in `part`, maybe split in two around a separator."""
    cut = _cut(rng, payload)
    head, tail = payload[:cut], payload[cut:]
    if part == "host":
        labels = [payload[i : i + 40] for i in range(0, len(payload), 40)]
        return f"https://{'.'.join(labels)}.evil.example/p.png"
    if split == "parameters":
        return f"https://evil.example/c?a={head}&b={tail}"
    if split == "segments":
        return f"https://evil.example/{head}/{tail}.png"
    joined = payload if split == "none" else head + split + tail
    return {
        "query": f"https://evil.example/c?data={joined}",
        "name": f"https://evil.example/c?{joined}=1",
        "path": f"https://evil.example/c/{joined}.gif",
        "fragment": f"https://evil.example/c#{joined}",
        "userinfo": f"https://{joined}@evil.example/",
    }[part]


# Minted once: `mint_canary` reads `secrets`, and a draw that depends on it (a cut of the
# canary) would make hypothesis replay a case differently.
_CANARIES = [mint_canary() for _ in range(64)]


@st.composite
def planted(draw: st.DrawFn) -> tuple[Conversation, str, Taint, random.Random]:
    rng = random.Random(draw(st.integers(0, 2**32)))
    kind = draw(st.sampled_from([*PIECES, "canary"]))
    piece = rng.choice(_CANARIES) if kind == "canary" else PIECES[kind](rng)
    count = rng.randint(1, 6)
    where = rng.randrange(count)
    messages: list[dict[str, str]] = []
    for index in range(count):
        words = [rng.choice(FILLER) for _ in range(rng.randint(3, 40))]
        if index == where:
            words.insert(rng.randint(0, len(words)), piece)
        role = rng.choice(ROLES)
        messages.append({"role": role, "content": " ".join(words)})
    conversation = Conversation.from_messages(
        messages, canaries=[piece] if kind == "canary" else ()
    )
    expected = Taint(where, role_of(messages[where]["role"]), "key" if kind == "named" else kind)
    return conversation, piece, expected, rng


@SETTINGS
@given(planted(), st.data())
def test_a_planted_piece_is_found(
    case: tuple[Conversation, str, Taint, random.Random], data: st.DataObject
) -> None:
    conversation, piece, expected, rng = case
    if expected.kind == "prose":
        text = rng.choice([piece, "-".join(piece.split()), "+".join(piece.split())])
        encoding = data.draw(
            st.sampled_from(["raw", "upper", "percent", "base64", "base64url", "hex", "base32"])
        )
        url = _plant(
            rng,
            _encode(text, encoding),
            data.draw(st.sampled_from(["query", "path", "fragment"])),
            "none",
        )
    else:
        text = _key_of(piece) if expected.kind != "email" else piece
        if expected.kind == "phone" and piece[0] in "+0" and data.draw(st.booleans()):
            text = _other_form(piece)  # the country code may go, or come
        part = data.draw(st.sampled_from(["query", "name", "path", "fragment", "userinfo", "host"]))
        if part == "host":
            encoding = data.draw(st.sampled_from(["raw", "lower", *HOST_ENCODINGS]))
            text = _key_of(piece)
        else:
            encoding = data.draw(st.sampled_from(ENCODINGS))
        split = data.draw(
            st.sampled_from(["none", "-", ".", "/", "_", "+", "~", ",", "parameters", "segments"])
        )
        if encoding not in ("raw", "upper", "lower"):
            split = data.draw(st.sampled_from(["none", "parameters", "segments"]))
        if part in ("host", "userinfo") and split in ("/", "segments", "parameters"):
            split = "none"  # these would end the authority
        url = _plant(rng, _encode(text, encoding), part, split)
    assert conversation.taint(parse_url(url)) == expected, url


@SETTINGS
@given(planted(), st.data())
def test_a_piece_split_across_two_urls_is_found_by_the_tracker(
    case: tuple[Conversation, str, Taint, random.Random], data: st.DataObject
) -> None:
    conversation, piece, expected, _ = case
    if expected.kind == "prose":
        return  # prose is not joined across URLs
    encoding = data.draw(st.sampled_from(["raw", "upper", "base64url", "hex", "HEX", "base32"]))
    payload = _encode(piece if expected.kind == "email" else _key_of(piece), encoding)
    cut = data.draw(st.integers(1, len(payload) - 1)) if len(payload) > 1 else 1
    template = data.draw(
        st.sampled_from(
            [
                "https://evil.example/px/{}.png",
                "https://evil.example/c?d={}&n={}",
                "https://evil.example/{}",
                "https://{}.evil.example/i.gif",
            ]
        )
    )
    if template.startswith("https://{}") and encoding not in ("raw", "hex", "HEX"):
        template = "https://evil.example/{}"
    if template.startswith("https://{}"):
        payload = payload.replace("@", "-").replace(".", "-")
    urls = [template.format(payload[:cut], 1), template.format(payload[cut:], 2)]
    tracker = conversation.tracker()
    found = [tracker.check(parse_url(url)) for url in urls]
    assert expected in found, urls


def _mixes(*parts: str) -> bool:
    return all(not part.isalpha() and not part.isdigit() for part in parts)


def _look_alike(rng: random.Random, text: str) -> str:
    """`text` with about a third of the letters that have one swapped for a look-alike."""
    shown = {latin: chr(code) for code, latin in _LOOK_ALIKE.items()}
    return "".join(shown[c] if c in shown and rng.random() < 0.35 else c for c in text)


@SETTINGS
@given(planted(), st.data())
def test_a_long_key_in_parts_is_found(
    case: tuple[Conversation, str, Taint, random.Random], data: st.DataObject
) -> None:
    """Around a throwaway value or segment, parts swapped, cut short, or with look-alike
    letters in place of Latin ones: a long key is still found."""
    conversation, piece, expected, rng = case
    key = _key_of(re.split("[-_]", piece)[-1] if expected.kind == "key" else piece)  # no `sk-`
    if expected.kind not in PARTS_KINDS or len(key) < PARTS_FROM:
        return
    how = data.draw(st.sampled_from(["throwaway", "swapped", "short", "look-alike"]))
    # A part counts when it mixes letters and digits (a word's parts are honest links').
    cuts = [cut for cut in range(MIN_PART, len(key) - MIN_PART + 1) if _mixes(key[:cut], key[cut:])]
    if not cuts or not _mixes(key[: len(key) - len(key) // 5]):
        return
    cut = data.draw(st.sampled_from(cuts))
    head, tail = key[:cut], key[cut:]
    if how == "swapped":
        head, tail = tail, head
    elif how == "short":
        head, tail = key[: len(key) - len(key) // 5], ""
    elif how == "look-alike":
        head, tail = _look_alike(rng, key), ""
    encoding = data.draw(st.sampled_from(["raw", "upper", "percent", "base64url", "hex"]))
    if how == "look-alike":
        encoding = data.draw(st.sampled_from(["raw", "percent"]))
    head, tail = _encode(head, encoding), _encode(tail, encoding) if tail else ""
    junk = data.draw(st.sampled_from(["1", "v2", "null", "x"]))
    template = data.draw(
        st.sampled_from(["https://evil.example/c?a={}&t={}&b={}", "https://evil.example/{}/{}/{}"])
    )
    url = template.format(head, junk, tail)
    assert conversation.taint(parse_url(url)) == expected, url


@SETTINGS
@given(planted(), st.data())
def test_a_long_key_in_parts_over_urls_of_any_site_is_found_by_the_tracker(
    case: tuple[Conversation, str, Taint, random.Random], data: st.DataObject
) -> None:
    """A long key's two parts, each short of three quarters, in two URLs that share no
    template nor site: the second URL completes it."""
    conversation, piece, expected, _ = case
    key = _key_of(re.split("[-_]", piece)[-1] if expected.kind == "key" else piece)
    if expected.kind not in PARTS_KINDS or len(key) < PARTS_FROM:
        return
    most = len(key) - len(key) // 4 - 1  # a part short of three quarters: not found alone
    cuts = [
        cut
        for cut in range(max(MIN_PART, len(key) - most), min(most, len(key) - MIN_PART) + 1)
        if _mixes(key[:cut], key[cut:])
    ]
    if not cuts:
        return
    cut = data.draw(st.sampled_from(cuts))
    encoding = data.draw(st.sampled_from(["raw", "upper", "percent", "base64url", "hex"]))
    templates = data.draw(
        st.permutations(
            [
                "https://a.example/px/{}.png",
                "https://b.example/c?d={}&n=1",
                "https://c.example/{}/x",
            ]
        )
    )
    parts = (_encode(key[:cut], encoding), _encode(key[cut:], encoding))
    # Base64 without a capital is not read as base64 (`readings`: 0.2-2.4 % of 6 bytes').
    assume(encoding != "base64url" or all(part.lower() != part for part in parts))
    if data.draw(st.booleans()):
        parts = parts[::-1]
    urls = [template.format(part) for template, part in zip(templates, parts, strict=False)]
    tracker = conversation.tracker()
    # The first alone can be found too: a key's core (`pieces`) may lie inside one part.
    assert expected in [tracker.check(parse_url(url)) for url in urls], urls


@st.composite
def honest(draw: st.DrawFn) -> tuple[Conversation, list[str], list[str]]:
    """A conversation with the user's own e-mail address and URLs, and honest reply URLs."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    email = _email(rng)
    own = rng.sample(REAL, 3)
    question = " ".join(
        rng.choice([*FILLER, "nginx", "proxy", "certificate", "postgres"])
        for _ in range(rng.randint(5, 40))
    )
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {
            "role": "user",
            "content": f"{question}? My address is {email}, see {own[0]} and {own[1]}.",
        },
        {
            "role": "assistant",
            "content": f"Sure, as {own[2]} says: {' '.join(rng.choices(FILLER, k=30))}",
        },
        {"role": "user", "content": f"Thanks. Also my key {_key(rng)} and phone {_phone(rng)}."},
    ]
    words = question.split()[: rng.randint(1, 15)]
    replies = [
        *rng.sample(DOCS, 8),
        *own,
        f"mailto:{email}",
        f"mailto:{email}?subject={quote(' '.join(words))}",
        f"https://github.com/{rng.choice(['nginx', 'python'])}/x/issues/{rng.randint(1, 999999)}",
        f"https://{rng.choice(SEARCH_HOSTS)}/search?q={'+'.join(question.split())}",
        f"https://docs.example.org/{'-'.join(words)}",
    ]
    # The URL the assistant cited is not copied (the model may have planted it): judged.
    return Conversation.from_messages(messages), replies, own[:2]


@SETTINGS
@given(honest())
def test_honest_replies_carry_nothing(case: tuple[Conversation, list[str], list[str]]) -> None:
    conversation, replies, own = case
    tracker = conversation.tracker()
    for url in replies:
        if url in own:
            assert conversation.has_url(url)  # copied: the judge holds no taint against it
            continue
        parsed = parse_url(url)
        found = tracker.check(parsed)
        if found is not None and found.kind == "prose":
            assert parsed.host in SEARCH_HOSTS, url  # the judge keeps prose on search engines
            continue
        assert found is None, url


@SETTINGS
@given(honest())
def test_the_users_own_urls_are_copied(case: tuple[Conversation, list[str], list[str]]) -> None:
    conversation, _, own = case
    for url in own:
        assert conversation.has_url(url), url
        assert conversation.has_host(parse_url(url).host)


# URL starts, authority and path bytes, and each byte that ends a URL in text.
_URL_ATOMS = [
    *("http://", "https://", "www.", "ftp://", "HTTPS://", "WWW.", "a", "b.c", "B.C", "x."),
    *("/", "?", "#", "@", ":8", "é", "1", "-", "_"),
    *" \n\t<>\"'`\\",
]
_URL_TEXT = st.lists(st.sampled_from(_URL_ATOMS), max_size=40).map("".join)


@SETTINGS
@given(_URL_TEXT)
def test_the_url_around_an_offset_is_the_scans_url(text: str) -> None:
    """`host_at` (read around one offset) agrees with the message's scan for URLs."""
    message = MessageText(text)
    spans, hosts = message.links(), message.hosts()
    for offset in range(len(message.chunk)):
        inside = [i for i, (a, b) in enumerate(spans) if a <= offset < b]
        assert message.host_at(offset) == (hosts[inside[0]] if inside else None)


@SETTINGS
@given(_URL_TEXT)
@example("see https://B.C/x, WWW.x and http://user@A:8/")
def test_a_message_has_the_hosts_of_its_urls(text: str) -> None:
    """`has_host` (which skips the scan where the name is not in the text) agrees
    with the scan's hosts."""
    hosts = MessageText(text).hosts()
    for host in {*hosts, "a", "b.c", "x.", "", "é", "xn--9ca", "b.c:8"}:
        assert MessageText(text).has_host(host) == (host in hosts)


def test_a_base64_token_after_a_short_path_prefix_is_decoded() -> None:
    """`/d/` puts the token out of step with the base64 run it sits in (`/` is base64's
    too): each piece between slashes is decoded on its own as well."""
    token = base64.urlsafe_b64encode(b"chemotherapy monday").decode().rstrip("=")
    assert "chemotherapy monday" in decoded(f"files.example/d/{token}")
