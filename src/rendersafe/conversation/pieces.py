"""The sensitive pieces of a conversation: e-mail addresses, phone, card and account
numbers, keys and tokens, canaries.

A piece is kept as its *key*: its ASCII letters and digits, lower case. A URL carries
the piece when one of its readings (`readings`), reduced the same way, contains the key,
so the separators an attacker puts between the characters, and their case, do not matter.

What counts, and why:

- e-mail: `local@domain.tld`, a key of 6 characters at least.
- phone: 7 to 15 digits once the separators (space, `-`, `.`, parentheses) are removed;
  card: Luhn-valid 13 to 19 digits; account: an IBAN, or 8 digits or more.
  Not dates (`2024-01-15 10`), IPv4 addresses, decimals (`3.14159265`), nor numbers
  labelled as public identifiers (`CVE-2024-12345`, `KB5034441`, `ISBN`, `PMID`, `#1234567`),
  nor a lower-case hex hash called a commit, revision or hash (`commit 3f9a2b1c4d`, and
  as an API's JSON names one: `"sha": "3f9a..."`, `commit_id=`): an honest reply links
  to those by their number.
- key: a token of 6+ letters and digits in 5 or more letter/digit blocks (`a1b2c3`,
  `4f3a9c`, nearly any random token), or 4 blocks and 10+ characters (`abc123def456`),
  a long mixed-case random-looking one, or a known credential format (`SECRET_PATTERNS`).
  Not a word with a number (`sha256`, `python3`, `x86_64`, `md5sum`, `base64url` have
  at most 3 blocks, `utf8mb4` is short): docs links repeat those. A token joined by `-`
  or `_` counts as a whole only when none of its parts is a word.
- a named secret: the value after "password", "passcode", "pw", "PIN", "OTP", "secret
  (key)", "API key", "client secret", "auth token", "access token" or "token" (also as
  `DB_PASSWORD`, "the password for staging") and then "is", `:` or `=` (its value maybe on
  the next line), or after "Bearer" ("my wifi password is orchid7731plum", "PIN: 4821"),
  from `MIN_NAMED` characters, whatever its shape when it looks like one (a digit, or
  both cases, and no code: "the token is expired" and `token = os.environ["T"]` name
  nothing, nor does an algorithm's name, "argon2id hashed"); a PIN is a number, a token
  never only one. Shorter than `MIN_KEY`, it is looked for on its own (`PieceIndex`).
- canary: a string the caller gave.

Every scan is a literal-led search over the text's character classes (one
`bytes.translate`), so the text is skipped in C; only candidates cost Python work, and
a candidate is classified (`confirm`) only when a URL carries its key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..urls.detect import SECRET_PATTERNS

__all__ = [
    "EMAIL",
    "KINDS",
    "MIN_KEY",
    "Hit",
    "alnum_key",
    "canary_keys",
    "confirm",
    "find_pieces",
]

KINDS = ("email", "phone", "card", "account", "key", "prose", "canary")
MIN_KEY = 6  # no piece is shorter but a named secret (the gram index relies on it)
MIN_NAMED = 4  # a PIN

_ALNUM = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_DROP = bytes(b for b in range(256) if b not in _ALNUM)
_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
_LOCAL_BYTES = frozenset(_ALNUM + b"._%+-")

# The text read as classes, one byte each: digit "0", letter "a", `-` and `_` "_",
# the separators numbers are written with "." (space, parentheses, dot), the rest " ".
# Each scan then starts with a literal (`0a`, `00`, 16 letters), which the regex
# engine finds with a fast search, where a scan led by a character class would try
# every position in Python's regex loop (several times slower).
_CLASSES = bytes(
    ord("0")
    if chr(b).isdigit() and b < 128
    else ord("a")
    if chr(b).isalpha() and b < 128
    else ord("_")
    if b in b"-_"
    else ord(".")
    if b in b" ().+"
    else ord(" ")
    for b in range(256)
)
# Digits, letters, digits: a key has such a core; the match runs on to the end of the
# core's letters-and-digits segment (group 1: the rest of its token).
_KEY_CORE = re.compile(rb"0a+0[0a]*([0a_]*)")
_NUMBER = re.compile(rb"00(?:[._]{0,2}0){5,}")  # 7 digits or more, lightly separated
_LETTERS = b"a" * 16  # a letters-only token long enough to be a random key
_MAX_TOKEN = 256  # a token longer than this is read from its last 256 bytes
_RUNS = re.compile(rb"[0a]*([0a_]*)")  # a segment's rest, and (group 1) its token's
EMAIL = re.compile(
    rb"@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    rb"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![A-Za-z0-9-])"
)
_BLOCKS = re.compile(rb"[0-9]+|[A-Za-z]+")
_JOINERS = re.compile(rb"[-_]+")
_SHORT_LOWER = re.compile(rb"(?<![a-z])[a-z]{1,2}(?![a-z])")
_SEPARATORS = re.compile(rb"[ ().-]+")
# Labels of public identifiers written before their number.
_ID_LABEL = re.compile(
    rb"(?:CVE|GHSA|KB|ISBN(?:-1[03])?|PMID|PMC|RFC|arXiv|doi|issue|PR|pull|#|0x)[ :#-]{0,2}$",
    re.IGNORECASE,
)
_LABEL_WINDOW = 16
# A commit or object hash the text names as one: a public identifier, as a CVE is.
_HASH_LABEL = re.compile(
    rb"(?:commit|sha(?:-?1|-?256)?|rev(?:ision)?|hash|changeset|oid)(?:s|_?ids?)?"
    rb"(?:[ \t]+(?:is|was))?[\"' :#@=-]{0,4}$",
    re.IGNORECASE,
)
_HEX = re.compile(rb"[0-9a-f]{7,64}")
_IBAN = re.compile(rb"[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}")
# What comes before an IBAN's digits: its country, maybe check digits and letter groups.
_IBAN_HEAD = re.compile(rb"(?<![A-Za-z0-9])[A-Z]{2}(?:[0-9]{2} ?(?:[A-Z0-9]{4} ?)*)?$")
_DATE = re.compile(
    rb"(?:1[89]|20)[0-9]{2}[-./ ][01]?[0-9][-./ ][0-3]?[0-9]"
    rb"|[0-3]?[0-9][-./ ][01]?[0-9][-./ ](?:1[89]|20)[0-9]{2}"
)
_COMPACT_DATE = re.compile(rb"(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])")
_IPV4 = re.compile(rb"[0-9]{1,3}(?:\.[0-9]{1,3}){3}")
_DECIMAL = re.compile(rb"[0-9]+\.[0-9]{5,}|[0-9]{5,}\.[0-9]+")
# A name of a secret (`DB_PASSWORD`, `SECRET_KEY`, "the password for staging"), then
# "is" or `:` / `=` (the value may be on the next line), or `Bearer`; group 2: the value.
_NAMED = re.compile(
    rb"(?<![A-Za-z0-9])(?:((?:pass(?:word|wd|code|phrase)?|pwd?|pin(?:[ _-]?(?:code|number))?"
    rb"|otp|secret(?:[ _-]?key)?|(?:api|client|auth)[ _-]?(?:key|token|secret)"
    rb"|access[ _-]?(?:key|token)|token)s?)[\"']?"
    rb"(?:[ \t]+(?:for|to|of|on)(?:[ \t]+[^\s:=]{1,32}){1,5})?(?:[ \t]*\([^)\n]{1,32}\))?"
    rb"(?:[ \t]+(?:is|was)[ \t]*:?|[ \t]*(?::|=>?))|bearer)"
    rb"(?:[ \t]*\n){0,2}[ \t]*[\"'`]?([^\s\"'`,;]{4,64})",
    re.IGNORECASE,
)
_SENTENCE_END = b".,;:!?)]}>*_~"
# Where a name of a secret may start (the pattern's first words, lower case).
# Not "client" nor "auth": a common word's start, and their names end in one of these
# ("client_secret", "auth token").
_LABELS = tuple(b"pass pw pin otp secret api access token bearer".split())
_CODE_BYTES = frozenset(b"()[]{}<>/\\")
_VERSION = re.compile(rb"[vV]?[0-9]+(?:\.[0-9]+)+")  # `OTP: 26.1.2`, Erlang's
_ATTRIBUTE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_]")  # `os.environ`, a domain
# Names of algorithms and encodings, which a text says a secret is kept with
# ("the password is argon2id hashed", "secret=HMAC-SHA256"): no secret.
_ALGORITHM = re.compile(
    rb"(?:hmac[-_]?)?(?:sha|aes|rsa|md|argon|bcrypt|scrypt|pbkdf|blake|crc|utf|base|ecdsa"
    rb"|ed|des|tls|ssl|rc|x)[-_]?[0-9]+[a-z]{0,3}",
    re.IGNORECASE,
)

# A candidate piece: (key, kind, start, end) in the text. "email" and "canary" are
# sure; a "number", "national" (a phone number without its country code), "segment"
# or "token" is `confirm`ed only when a URL carries its key: finding is cheap, and
# the classification runs for the few candidates that matter.
Hit = tuple[bytes, str, int, int]


def alnum_key(data: bytes) -> bytes:
    """`data` reduced to its ASCII letters and digits, lower case."""
    return data.translate(_LOWER, _DROP)


def find_pieces(text: bytes, canaries: Iterable[str] = ()) -> list[Hit]:
    """Every candidate piece in `text` (UTF-8)."""
    classes = text.translate(_CLASSES)
    hits: list[Hit] = []
    _numbers(text, classes, hits)
    _keys(text, classes, hits)
    _emails(text, hits)
    _named(text, hits)
    lowered = text.lower() if canaries else b""
    for canary in canaries:
        needle = canary.lower().encode("utf-8", "ignore")
        start = lowered.find(needle)
        while start >= 0:
            hits.extend((key, "canary", start, start + len(needle)) for key in canary_keys(canary))
            start = lowered.find(needle, start + len(needle))
    return hits


def canary_keys(canary: str) -> list[bytes]:
    """The keys of a canary: the whole one's, and its random part's alone (what follows
    a `-`, `_`, `.` or `:`, when 8 characters or more)."""
    keys = [alnum_key(canary.encode("utf-8", "ignore"))]
    for part in re.split(r"[-_.:]", canary)[1:]:
        key = alnum_key(part.encode("utf-8", "ignore"))
        if len(key) >= 8 and key not in keys:
            keys.append(key)
    return [key for key in keys if len(key) >= MIN_KEY]


def confirm(text: bytes, kind: str, start: int, end: int) -> str | None:
    """The kind of the candidate at `start:end` of `text` (None: not a piece)."""
    if kind in ("segment", "token"):
        return None if _named_hash(text, start, end) else _token_kind(text, kind, start, end)
    if kind == "named":
        return "key"
    if kind in ("number", "national"):
        number = _number(text, start, end)
        return "phone" if kind == "national" and number == "phone" else number
    return kind


def _token_kind(text: bytes, kind: str, start: int, end: int) -> str | None:
    if kind == "segment" and _IBAN.fullmatch(text, start, end):
        return "account"
    if kind == "segment":
        return "key" if _is_key(text[start:end]) else None
    return "key" if _formatted_key(text[start:end]) else None


def _named_hash(text: bytes, start: int, end: int) -> bool:
    """A lower-case hex hash the text calls a commit, revision or hash (`commit
    3f9a2b1c`): a link to it on a code host is the honest reply, and no key looks so."""
    if not _HEX.fullmatch(text, start, end):
        return False
    return _HASH_LABEL.search(text, max(0, start - _LABEL_WINDOW), start) is not None


def _numbers(text: bytes, classes: bytes, hits: list[Hit]) -> None:
    for match in _NUMBER.finditer(classes):
        start, end = _number_start(classes, match.start()), match.end()
        raw = text[start:end]
        key = alnum_key(raw)
        hits.append((key, "number", start, end))
        if key[0] == 48 or (start and text[start - 1] in b"+ "):  # `0...`, `+...`, `+ ...`
            _national(text, (start, end), key, hits)


def _national(text: bytes, span: tuple[int, int], key: bytes, hits: list[Hit]) -> None:
    """The other ways to write a phone number: an international one's national part
    (after `+` or `00` and a country code), without its trunk `0` too (`+44 (0) 7700
    900123`); a national one's without its trunk `0`, as it follows a country code
    (`07700 900123` sent as `+447700900123`)."""
    start, end = span
    before = text[max(0, start - 2) : start]
    if before.endswith(b"+") or before == b"+ ":
        prefix = 0
    elif key.startswith(b"00") and key[2:3] != b"0":
        prefix = 2
    else:
        _without_trunk(key, span, hits)
        return
    country = _SEPARATORS.split(text[start:end], maxsplit=1)[0][prefix:]
    # Written whole (`+14155550134`), its country code is one to three digits.
    for code in (len(country),) if len(country) <= 3 else (1, 2, 3):
        national = key[prefix + code :]
        if len(national) >= 7:
            hits.append((national, "national", start, end))
            if _without_trunk(national, span, hits):
                hits.append((key[prefix : prefix + code] + national[1:], "national", start, end))


def _without_trunk(key: bytes, span: tuple[int, int], hits: list[Hit]) -> bool:
    """Add a national number without its trunk `0` (if it has one)."""
    if key[:1] != b"0" or key[1:2] == b"0" or len(key) < 8:
        return False
    hits.append((key[1:], "national", *span))
    return True


def _number_start(classes: bytes, start: int) -> int:
    """Where the number really starts: its first group may be a single digit."""
    while True:
        before = start
        while before > 0 and start - before < 2 and classes[before - 1] in b"._":
            before -= 1
        if before == 0 or classes[before - 1] != ord("0"):
            return start
        start = before - 1
        while start > 0 and classes[start - 1] == ord("0"):
            start -= 1


def _keys(text: bytes, classes: bytes, hits: list[Hit]) -> None:
    """Tokens with a digits-letters-digits core, and long letters-only tokens."""
    for match in _KEY_CORE.finditer(classes):  # each match ends where its token does
        _token(text, classes, (match.start(), match.start(1), match.end()), hits)
    pos = classes.find(_LETTERS)
    while pos >= 0:
        runs = _RUNS.match(classes, pos)
        assert runs is not None  # the pattern matches the empty string
        _token(text, classes, (pos, runs.start(1), runs.end()), hits)
        pos = classes.find(_LETTERS, runs.end())


def _emails(text: bytes, hits: list[Hit]) -> None:
    for match in EMAIL.finditer(text):
        at = match.start()
        start = at
        while start > 0 and at - start < 64 and text[start - 1] in _LOCAL_BYTES:
            start -= 1
        while start < at and text[start] == ord("."):
            start += 1
        key = alnum_key(text[start : match.end()])
        if start < at and len(key) >= MIN_KEY:
            hits.append((key, "email", start, match.end()))


def _named(text: bytes, hits: list[Hit]) -> None:
    """Values the text names as secrets (see the module's docstring)."""
    lowered = text.lower()
    for label in _LABELS:  # each found in C; the pattern tried only where one is
        at = lowered.find(label)
        while at >= 0:
            _named_at(text, at, hits)
            at = lowered.find(label, at + len(label))


def _named_at(text: bytes, at: int, hits: list[Hit]) -> None:
    match = _NAMED.match(text, at)
    if match is not None:
        value = match.group(2).rstrip(_SENTENCE_END)
        key = alnum_key(value)
        label = match.group(1) or b"bearer"
        if label == b"PASS":
            return  # a test log's verdict (`--- PASS: TestParse`, `PASS: 20.11.1`)
        if len(key) >= MIN_NAMED and _secret_like(value) and _fits(label.lower(), key):
            hits.append((key, "named", match.start(2), match.start(2) + len(value)))


def _secret_like(value: bytes) -> bool:
    """A digit, or both cases not as a word is capitalised; and not code (a call, an
    index, an attribute: `token = os.environ[...]`), a path, or an algorithm's name."""
    if any(byte in _CODE_BYTES for byte in value) or _ATTRIBUTE.search(value):
        return False
    if _ALGORITHM.fullmatch(value) or _VERSION.fullmatch(value):
        return False
    if any(48 <= byte <= 57 for byte in value):
        return True
    return value != value.lower() and value != value.upper() and not value.istitle()


def _fits(label: bytes, key: bytes) -> bool:
    """Is `key` the kind of value `label` names? A PIN is a number (`GPIO17` is a pin's
    name); a token or a key is never one alone ("max tokens: 4096")."""
    if label.startswith(b"pin"):
        return key.isdigit()
    if label.startswith((b"pass", b"pw", b"otp", b"secrets")) or label == b"secret":
        return True
    return not key.isdigit()


def _token(text: bytes, classes: bytes, ends: tuple[int, int, int], hits: list[Hit]) -> None:
    """Add the token around `pos` (`ends`: it, and where the segment and the token that
    hold it end): its letters-and-digits segment, and the whole token (`-` and `_`
    included) where that is longer."""
    pos, segment_end, token_end = ends
    window = max(0, pos - _MAX_TOKEN)  # each search stays short, whatever came before
    token_start = max(
        window, classes.rfind(b".", window, pos) + 1, classes.rfind(b" ", window, pos) + 1
    )
    segment_start = classes.rfind(b"_", token_start, pos) + 1 or token_start
    key = alnum_key(text[segment_start:segment_end])
    if len(key) >= MIN_KEY:
        hits.append((key, "segment", segment_start, segment_end))
    # The whole token matters where its parts are short (`a1b2-c3d4-e5f6`): a long
    # segment is a key, or not, on its own.
    if (token_start < segment_start or token_end > segment_end) and len(key) < 12:
        whole = alnum_key(text[token_start:token_end])
        if len(whole) > len(key):
            hits.append((whole, "token", token_start, token_end))


def _is_key(token: bytes) -> bool:
    """A random-looking run of letters and digits (separators ignored)."""
    key = token.translate(None, _DROP)
    if len(key) < MIN_KEY:
        return False
    blocks = len(_BLOCKS.findall(key))
    if blocks >= 5 or (blocks >= 4 and len(key) >= 10):
        return True
    return len(key) >= 16 and _random_letters(key)


def _formatted_key(token: bytes) -> bool:
    """A token that is a key as a whole: a known credential format, or segments none
    of which is a word (`a1b2-c3d4-e5f6`, not `utf8mb4_unicode_ci`)."""
    if SECRET_PATTERNS.search(token.decode("ascii", "replace")):
        return True
    parts = _JOINERS.split(token)
    words = (part for part in parts if len(part) >= 3 and part.isalpha())
    if next(words, None) is not None:
        return False
    # Lower case with two parts of letters alone is a name (`utf8mb4_0900_ai_ci`).
    if token.islower() and sum(1 for part in parts if part.isalpha()) >= 2:
        return False
    return _is_key(token)


def _random_letters(key: bytes) -> bool:
    """Mixed case in short runs (`xKqPzTmWvLrN`), not camelCase words."""
    upper = sum(1 for b in key if 65 <= b <= 90)
    lower = sum(1 for b in key if 97 <= b <= 122)
    return upper >= 3 and lower >= 3 and len(_SHORT_LOWER.findall(key)) >= 3


def _number(text: bytes, start: int, end: int) -> str | None:
    """The kind of the number at `start:end`: "card", "phone", "account" or None."""
    raw = text[start:end]
    digits = alnum_key(raw)
    if len(digits) < 7 or not digits.isdigit() or _public_number(text, start, raw):
        return None
    if _IBAN_HEAD.search(text, max(0, start - _LABEL_WINDOW * 2), start):
        return "account"
    if 13 <= len(digits) <= 19 and digits[0] != 48 and _luhn(digits):  # no card starts with 0
        return "card"
    formatted = digits != raw or (start > 0 and text[start - 1] in b"+(")
    if len(digits) <= 15 and (formatted or len(digits) == 7):
        return "phone"
    return "account"


def _public_number(text: bytes, start: int, raw: bytes) -> bool:
    """A date, an address, a decimal, or a public identifier's number."""
    if _DATE.match(raw) or _IPV4.fullmatch(raw.strip()) or _DECIMAL.fullmatch(raw):
        return True
    if _COMPACT_DATE.fullmatch(raw) and not (start and text[start - 1] in b"+("):
        return True  # a model's or a release's date (`claude-3-5-sonnet-20241022`)
    return _ID_LABEL.search(text, max(0, start - _LABEL_WINDOW), start) is not None


def _luhn(digits: bytes) -> bool:
    total = 0
    for position, byte in enumerate(reversed(digits)):
        value = byte - 48
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0
