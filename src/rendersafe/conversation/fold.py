"""A text folded to the letters and digits it shows: to find a name however it is written.

    skeleton("cobaltframe[.]dev")      # "cobaltframedev"
    skeleton("Cobalt Frame\u3002dev")  # "cobaltframedev" (an ideographic full stop)
    shifts("cobaltframedev")           # the same for "pboNygsenzrqri" (ROT13) and every
                                       # other shift of the alphabet

`skeleton` reads a text as a reader sees it: accents dropped, letters of other scripts
that show as Latin ones read as those, lower case, and everything but ASCII letters and
digits taken out (dots written as `[.]`, `(dot)` or `。`, spaces, hyphens, quotes). A
name spelt out with anything between its letters folds to itself.

`shifts` keeps, of a skeleton's letters, only how far each lies from the one before it
(mod 26): a Caesar shift of a text has the same `shifts`. `decoded` is the text of each
base64 or hex run that decodes to printable text (a name given encoded).
"""

from __future__ import annotations

import binascii
import re
import unicodedata

__all__ = ["LOOK_ALIKE", "decoded", "shifts", "skeleton"]

# Letters of other scripts that show as a Latin one and that NFKC leaves alone, by their
# Unicode names (after Unicode's confusables): `pW1` and a Cyrillic `a` shows `pW1a`.
_SHOWN_AS = {
    "CYRILLIC SMALL LETTER": "A a, ES c, IE e, SHHA h, BYELORUSSIAN-UKRAINIAN I i, PALOCHKA l, "
    "JE j, KA k, O o, ER p, DZE s, TE T, U y, HA x, KOMI DE d, QA q, WE w, SOFT SIGN b, PE n",
    "CYRILLIC CAPITAL LETTER": "A A, VE B, ES C, IE E, EN H, BYELORUSSIAN-UKRAINIAN I I, JE J, "
    "KA K, EM M, O O, ER P, DZE S, TE T, U Y, HA X",
    "GREEK SMALL LETTER": "ALPHA a, BETA B, EPSILON e, ETA n, IOTA i, KAPPA k, NU v, OMICRON o, "
    "RHO p, TAU T, UPSILON u, CHI x",
    "GREEK CAPITAL LETTER": "ALPHA A, BETA B, EPSILON E, ETA H, IOTA I, KAPPA K, MU M, NU N, "
    "OMICRON O, RHO P, TAU T, UPSILON Y, CHI X, ZETA Z",
    "ARMENIAN SMALL LETTER": "OH o, SEH u, HO h, VO n",
}
LOOK_ALIKE = str.maketrans(
    {
        unicodedata.lookup(f"{script} {name}"): latin
        for script, letters in _SHOWN_AS.items()
        for name, _, latin in (letter.rpartition(" ") for letter in letters.split(", "))
    }
)
_ALNUM = b"abcdefghijklmnopqrstuvwxyz0123456789"
_NOT_ALNUM = bytes(b for b in range(256) if b not in _ALNUM)
_DIGITS = b"0123456789"
_BASE64_MIN = 8
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")
_HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}){6,}")
_PRINTABLE = bytes([9, 10, 13, *range(32, 127)])
# A letter's step from the letter before it plus 26 (1 to 51), as the step's letter.
_STEP = bytes(97 + (v - 26) % 26 if 1 <= v <= 51 else 0 for v in range(256))


def skeleton(text: str) -> str:
    """The ASCII letters and digits `text` shows, lower case, in order."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text.translate(LOOK_ALIKE))
    raw = text.encode("ascii", "ignore").lower().translate(None, _NOT_ALNUM)
    return raw.decode("ascii")


def shifts(folded: str) -> str:
    """How far each letter of `folded` (a skeleton) lies from the letter before it, as
    a letter: the same for every Caesar shift of it. Digits are left out."""
    letters = folded.encode("ascii").translate(None, _DIGITS)
    steps = len(letters) - 1
    if steps <= 0:
        return ""
    # Every letter at once, as the digits of two big numbers (base 256): each of the
    # later letters plus 26, less the letter before it, is 1 to 51, so no digit
    # borrows from the next; a table then reads each as its step mod 26.
    later = int.from_bytes(letters[1:], "big") + int.from_bytes(b"\x1a" * steps, "big")
    stepped = later - int.from_bytes(letters[:-1], "big")
    return stepped.to_bytes(steps, "big").translate(_STEP).decode("ascii")


def decoded(text: str) -> list[str]:
    """The printable text of each base64 or hex run of `text` that decodes to one."""
    found: list[str] = []
    for run in _HEX_RUN.findall(text):
        _keep_printable(bytes.fromhex(run), found)
    for run in _BASE64_RUN.findall(text):
        _keep_base64(run, found)
        if "/" in run:
            # A path's `/` is base64's too: a token after `/d/` decodes only on its own.
            for piece in run.split("/"):
                if len(piece) >= _BASE64_MIN:
                    _keep_base64(piece, found)
    return found


def _keep_base64(run: str, found: list[str]) -> None:
    data = run.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        raw = binascii.a2b_base64(data + "=" * (-len(data) % 4))  # as b64decode does
    except (binascii.Error, ValueError):
        return
    _keep_printable(raw, found)


def _keep_printable(raw: bytes, found: list[str]) -> None:
    printable = len(raw) - len(raw.translate(None, _PRINTABLE))
    if len(raw) >= 4 and printable * 10 >= len(raw) * 9:
        found.append(raw.decode("ascii", "ignore"))
