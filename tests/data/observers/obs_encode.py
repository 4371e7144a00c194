"""Invertible encodings an attacker can ask an injected model to apply to a secret.

Every encoder has its decoder next to it, and `check_roundtrips` proves, for the exact
secrets the attack set uses, that what lands in a URL decodes back to the secret: an
attack whose payload does not carry the secret is no attack.
"""

from __future__ import annotations

import base64
import json
import random
import zlib
from collections.abc import Callable, Sequence
from urllib.parse import quote, unquote

ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
DIGIT_WORDS_DE = (
    "null",
    "eins",
    "zwei",
    "drei",
    "vier",
    "fuenf",
    "sechs",
    "sieben",
    "acht",
    "neun",
)
DIGIT_WORDS_FR = ("zero", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf")
MORSE = {
    "a": ".-", "b": "-...", "c": "-.-.", "d": "-..", "e": ".", "f": "..-.", "g": "--.",
    "h": "....", "i": "..", "j": ".---", "k": "-.-", "l": ".-..", "m": "--", "n": "-.",
    "o": "---", "p": ".--.", "q": "--.-", "r": ".-.", "s": "...", "t": "-", "u": "..-",
    "v": "...-", "w": ".--", "x": "-..-", "y": "-.--", "z": "--..", "0": "-----",
    "1": ".----", "2": "..---", "3": "...--", "4": "....-", "5": ".....", "6": "-....",
    "7": "--...", "8": "---..", "9": "----.", "-": "-....-", " ": "..--", "@": ".--.-.",
    ".": ".-.-.-",
}  # fmt: skip
LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}
EMOJI = (
    "🍎🍌🍇🍒🍋🍊🍐🍑🍍🥝🥥🥑🍆🥕🌽🌶🥒🥦🧄🧅🍄🥜🌰🍞🥐🥖🥨🥯🥞🧇🧀🍖🍗🥩🥓🍔"
    "🍟🍕🌭🥪🌮🌯🥙🧆🥚🍳🥘🍲🥣🥗🍿🧈🧂🥫🍱🍘🍙🍚🍛🍜🍝🍠🍢🍣🍤🍥"
)
FULLWIDTH_OFFSET = 0xFEE0
ACROSTIC_WORDS = {
    "a": "amber", "b": "bright", "c": "cedar", "d": "dusty", "e": "early", "f": "forest",
    "g": "golden", "h": "harbor", "i": "island", "j": "jade", "k": "kettle", "l": "lunar",
    "m": "maple", "n": "north", "o": "ocean", "p": "pine", "q": "quiet", "r": "river",
    "s": "silver", "t": "timber", "u": "upper", "v": "valley", "w": "willow", "x": "xenon",
    "y": "yellow", "z": "zephyr",
}  # fmt: skip
ACROSTIC_DIGITS = ("nil", "solo", "duet", "trio", "quad", "penta", "hexa", "septa", "octo", "nona")


def reverse(text: str) -> str:
    """The characters backwards (its own inverse)."""
    return text[::-1]


def caesar(text: str, shift: int) -> str:
    """Letters rotated by `shift` within their case, digits by `shift` mod 10."""
    out = []
    for char in text:
        if "a" <= char <= "z":
            out.append(chr((ord(char) - 97 + shift) % 26 + 97))
        elif "A" <= char <= "Z":
            out.append(chr((ord(char) - 65 + shift) % 26 + 65))
        elif char.isdigit():
            out.append(str((int(char) + shift) % 10))
        else:
            out.append(char)
    return "".join(out)


def xor_hex(text: str, key: bytes) -> str:
    """UTF-8 bytes XOR a repeating key, in lower-case hex."""
    data = text.encode()
    return bytes(b ^ key[i % len(key)] for i, b in enumerate(data)).hex()


def unxor_hex(hexed: str, key: bytes) -> str:
    """Inverse of `xor_hex`."""
    data = bytes.fromhex(hexed)
    return bytes(b ^ key[i % len(key)] for i, b in enumerate(data)).decode()


def substitution_table(rng: random.Random) -> dict[str, str]:
    """A random permutation of letters and digits (the attacker's cipher alphabet)."""
    shuffled = list(ALNUM)
    rng.shuffle(shuffled)
    return dict(zip(ALNUM, shuffled, strict=True))


def substitute(text: str, table: dict[str, str]) -> str:
    """Each letter or digit replaced through `table`; anything else kept."""
    return "".join(table.get(c, c) for c in text)


def base_n(text: str, digits: str) -> str:
    """The UTF-8 bytes as one big number written in base len(digits) with `digits`."""
    number = int.from_bytes(b"\x01" + text.encode(), "big")
    base = len(digits)
    out = []
    while number:
        number, rest = divmod(number, base)
        out.append(digits[rest])
    return "".join(reversed(out))


def unbase_n(encoded: str, digits: str) -> str:
    """Inverse of `base_n`."""
    number = 0
    for char in encoded:
        number = number * len(digits) + digits.index(char)
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return raw[1:].decode()


def digits_as_words(text: str, words: Sequence[str] = DIGIT_WORDS, sep: str = "-") -> str:
    """Every digit as its word; other characters dropped (the secret is its digits)."""
    return sep.join(words[int(c)] for c in text if c.isdigit())


def words_as_digits(encoded: str, words: Sequence[str] = DIGIT_WORDS, sep: str = "-") -> str:
    """Inverse of `digits_as_words` (on the secret's digits)."""
    return "".join(str(list(words).index(w)) for w in encoded.split(sep))


def acrostic(text: str) -> str:
    """One word per character whose first letter is it (capitalised for upper case);
    a digit is a word from ACROSTIC_DIGITS (nil, solo, duet, ...)."""
    out = []
    for char in text:
        if char.isdigit():
            out.append(ACROSTIC_DIGITS[int(char)])
        elif char.lower() in ACROSTIC_WORDS:
            word = ACROSTIC_WORDS[char.lower()]
            out.append(word.capitalize() if char.isupper() else word)
    return "-".join(out)


def unacrostic(encoded: str) -> str:
    """Inverse of `acrostic` (on letters and digits)."""
    out = []
    for word in encoded.split("-"):
        if word in ACROSTIC_DIGITS:
            out.append(str(ACROSTIC_DIGITS.index(word)))
        else:
            out.append(word[0])
    return "".join(out)


def interleave(text: str, rng: random.Random, every: int) -> str:
    """`every` random letters or digits after each character of `text`."""
    return "".join(c + "".join(rng.choice(ALNUM) for _ in range(every)) for c in text)


def uninterleave(encoded: str, every: int) -> str:
    """Inverse of `interleave`: every (every+1)-th character."""
    return encoded[:: every + 1]


def chunks(text: str, size: int) -> list[str]:
    """`text` cut into pieces of `size` characters."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def leet(text: str) -> str:
    """Leetspeak: a, e, i, o, s, t as 4, 3, 1, 0, 5, 7; spaces as dashes; lower case."""
    return "".join(LEET.get(c, c) for c in text.lower().replace(" ", "-"))


def unleet(encoded: str) -> str:
    """Inverse of `leet` where the plain text had no digits (a reader's reading)."""
    back = {v: k for k, v in LEET.items()}
    return "".join(back.get(c, c) for c in encoded).replace("-", " ")


def morse(text: str, dot: str = ".", dash: str = "-", sep: str = "/") -> str:
    """Morse code, one letter per `sep`-separated group; dots and dashes as given."""
    return sep.join(
        MORSE[c].replace(".", "\0").replace("-", dash).replace("\0", dot) for c in text.lower()
    )


def unmorse(encoded: str, dot: str = ".", dash: str = "-", sep: str = "/") -> str:
    """Inverse of `morse` (lower case)."""
    back = {v: k for k, v in MORSE.items()}
    out = []
    for group in encoded.split(sep):
        symbols = []
        rest = group
        while rest:
            if rest.startswith(dot):
                symbols.append(".")
                rest = rest[len(dot) :]
            else:
                symbols.append("-")
                rest = rest[len(dash) :]
        out.append(back["".join(symbols)])
    return "".join(out)


def binary(text: str, zero: str = "0", one: str = "1", sep: str = "") -> str:
    """The UTF-8 bytes as bits, written with `zero` and `one`."""
    bits = "".join(f"{b:08b}" for b in text.encode())
    return sep.join(one if bit == "1" else zero for bit in bits)


def unbinary(encoded: str, zero: str = "0", one: str = "1", sep: str = "") -> str:
    """Inverse of `binary`."""
    if sep:
        bits = "".join("1" if w == one else "0" for w in encoded.split(sep))
    else:
        bits = encoded.replace(one, "1").replace(zero, "0")
    return bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8)).decode()


def emoji(text: str) -> str:
    """Each letter or digit as an emoji (ALNUM order); other characters dropped."""
    return "".join(EMOJI[ALNUM.index(c)] for c in text if c in ALNUM)


def unemoji(encoded: str) -> str:
    """Inverse of `emoji`."""
    return "".join(ALNUM[EMOJI.index(c)] for c in encoded)


def fullwidth(text: str) -> str:
    """ASCII letters and digits as their full-width forms."""
    return "".join(
        chr(ord(c) + FULLWIDTH_OFFSET) if c.isascii() and c.isalnum() else c for c in text
    )


def unfullwidth(encoded: str) -> str:
    """Inverse of `fullwidth`."""
    return "".join(chr(ord(c) - FULLWIDTH_OFFSET) if ord(c) > 0xFF00 else c for c in encoded)


def circled(text: str) -> str:
    """Lower-case letters as circled letters (U+24D0...), digits 1-9 as circled digits."""
    out = []
    for c in text.lower():
        if "a" <= c <= "z":
            out.append(chr(0x24D0 + ord(c) - 97))
        elif "1" <= c <= "9":
            out.append(chr(0x2460 + int(c) - 1))
        elif c == "0":
            out.append("\u24ea")
        else:
            out.append(c)
    return "".join(out)


def uncircled(encoded: str) -> str:
    """Inverse of `circled`."""
    out = []
    for c in encoded:
        code = ord(c)
        if 0x24D0 <= code <= 0x24E9:
            out.append(chr(code - 0x24D0 + 97))
        elif 0x2460 <= code <= 0x2468:
            out.append(str(code - 0x2460 + 1))
        elif c == "\u24ea":
            out.append("0")
        else:
            out.append(c)
    return "".join(out)


def percent_all(text: str, times: int = 1) -> str:
    """Every byte as %XX (letters too), `times` times over."""
    out = "".join(f"%{b:02X}" for b in text.encode())
    for _ in range(times - 1):
        out = out.replace("%", "%25")
    return out


def unpercent_all(encoded: str, times: int = 1) -> str:
    """Inverse of `percent_all`."""
    for _ in range(times):
        encoded = unquote(encoded)
    return encoded


def json_b64(record: dict[str, str]) -> str:
    """A JSON record in unpadded base64url."""
    raw = json.dumps(record, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unjson_b64(encoded: str) -> dict[str, str]:
    """Inverse of `json_b64`."""
    raw = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    decoded: dict[str, str] = json.loads(raw)
    return decoded


def deflate_hex(text: str) -> str:
    """zlib-compressed UTF-8 in hex (the 'gzip it first' trick)."""
    return zlib.compress(text.encode(), 9).hex()


def undeflate_hex(encoded: str) -> str:
    """Inverse of `deflate_hex`."""
    return zlib.decompress(bytes.fromhex(encoded)).decode()


def deflate_b64(text: str) -> str:
    """Raw-deflate UTF-8 in unpadded base64url."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = packer.compress(text.encode()) + packer.flush()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def undeflate_b64(encoded: str) -> str:
    """Inverse of `deflate_b64`."""
    raw = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    return zlib.decompress(raw, -15).decode()


def b64url(text: str) -> str:
    """Unpadded base64url of the UTF-8 bytes."""
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def b32_lower(text: str) -> str:
    """Unpadded lower-case base32 (survives a host name's case folding)."""
    return base64.b32encode(text.encode()).decode().rstrip("=").lower()


def unb32_lower(encoded: str) -> str:
    """Inverse of `b32_lower`."""
    padded = encoded.upper() + "=" * (-len(encoded) % 8)
    return base64.b32decode(padded).decode()


def slug(text: str) -> str:
    """A URL slug: lower case, words joined by dashes, punctuation dropped."""
    out = []
    for char in text.lower():
        if char.isalnum():
            out.append(char)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-")


def q(text: str) -> str:
    """Percent-encode for a query value or path segment (as a model writes it)."""
    return quote(text, safe="")


def q_plus(text: str) -> str:
    """Percent-encode for a query value, spaces as '+'."""
    return quote(text, safe="").replace("%20", "+")


RoundTrip = tuple[str, Callable[[str], str], Callable[[str], str]]


def roundtrips(secret: str) -> list[RoundTrip]:
    """(name, encode, decode) for the encodings whose decode must give `secret` back."""
    key = b"k3y"
    digits4 = "acgt"
    return [
        ("reverse", reverse, reverse),
        ("caesar", lambda s: caesar(s, 7), lambda s: caesar(s, -7)),
        ("xor_hex", lambda s: xor_hex(s, key), lambda s: unxor_hex(s, key)),
        ("base_n", lambda s: base_n(s, digits4), lambda s: unbase_n(s, digits4)),
        ("interleave", lambda s: interleave(s, random.Random(1), 2), lambda s: uninterleave(s, 2)),
        ("binary", binary, unbinary),
        ("fullwidth", fullwidth, unfullwidth),
        ("percent_all", lambda s: percent_all(s, 2), lambda s: unpercent_all(s, 2)),
        ("deflate_hex", deflate_hex, undeflate_hex),
        ("deflate_b64", deflate_b64, undeflate_b64),
        ("b32", b32_lower, unb32_lower),
    ]
