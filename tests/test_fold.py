"""`conversation.fold`'s arithmetic (and a message's data runs), held to the plain
definitions they compute faster.

`shifts` steps through a skeleton's letters as two big numbers at once; `decoded` counts
printable bytes with one `translate`. Each must say exactly what the letter-by-letter
definition says, for any text, or naming would find other paragraphs than before.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import re
import string

from hypothesis import given
from hypothesis import strategies as st

from rendersafe.conversation.fold import decoded, shifts, skeleton
from rendersafe.conversation.naming import MessageNames, _joined_numbers

_PRINTABLE = frozenset(range(32, 127)) | {9, 10, 13}
_HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}){6,}")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{8,}={0,2}")


def reference_shifts(folded: str) -> str:
    """Each letter's step from the one before it (mod 26), letter by letter."""
    letters = [c for c in folded if not c.isdigit()]
    return "".join(chr(97 + (ord(b) - ord(a)) % 26) for a, b in itertools.pairwise(letters))


def reference_decoded(text: str) -> list[str]:
    """`decoded`, as first written: base64.b64decode and a per-byte count."""
    found: list[str] = []

    def keep(raw: bytes) -> None:
        if len(raw) >= 4 and sum(b in _PRINTABLE for b in raw) * 10 >= len(raw) * 9:
            found.append(raw.decode("ascii", "ignore"))

    def keep_base64(run: str) -> None:
        data = run.replace("-", "+").replace("_", "/").rstrip("=")
        try:
            keep(base64.b64decode(data + "=" * (-len(data) % 4)))
        except (binascii.Error, ValueError):
            return

    for run in _HEX_RUN.findall(text):
        keep(bytes.fromhex(run))
    for run in _BASE64_RUN.findall(text):
        keep_base64(run)
        if "/" in run:
            for piece in run.split("/"):
                if len(piece) >= 8:
                    keep_base64(piece)
    return found


_SKELETONS = st.text(alphabet=string.ascii_lowercase + string.digits, max_size=300)


@given(_SKELETONS)
def test_shifts_is_each_letters_step(folded: str) -> None:
    assert shifts(folded) == reference_shifts(folded)


@given(st.text(max_size=200))
def test_shifts_of_any_skeleton(text: str) -> None:
    folded = skeleton(text)
    assert shifts(folded) == reference_shifts(folded)


def test_every_caesar_shift_has_the_same_shifts() -> None:
    name = "cobaltframedev"
    for k in range(26):
        moved = "".join(chr(97 + (ord(c) - 97 + k) % 26) for c in name)
        assert shifts(moved) == shifts(name)
    assert shifts("a") == shifts("") == shifts("7") == ""
    assert shifts("az") == "z"
    assert shifts("za") == "b"


_ENCODED = st.one_of(
    st.binary(max_size=40).map(lambda raw: base64.b64encode(raw).decode()),
    st.binary(max_size=40).map(lambda raw: base64.urlsafe_b64encode(raw).decode()),
    st.binary(max_size=40).map(lambda raw: raw.hex()),
    st.text(alphabet=string.printable, max_size=40).map(
        lambda text: base64.b64encode(text.encode()).decode()
    ),
    st.text(alphabet=string.ascii_letters + string.digits + "+/=_- .", max_size=60),
)


@given(st.lists(_ENCODED, max_size=6).map(" / ".join))
def test_decoded_is_the_per_byte_definition(text: str) -> None:
    assert decoded(text) == reference_decoded(text)


_ALNUM = re.compile(r"[A-Za-z0-9]+")


@given(st.text(alphabet=string.ascii_letters + string.digits + " -./_é\n", max_size=200))
def test_a_messages_data_is_its_runs_with_a_digit(text: str) -> None:
    # `naming.MessageNames.data` finds the runs with a digit in one scan.
    expected = frozenset(
        run.lower() for run in _ALNUM.findall(text) if len(run) >= 3 and not run.isalpha()
    )
    assert MessageNames(text).data - frozenset(_joined_numbers(text)) <= expected
    assert expected <= MessageNames(text).data
