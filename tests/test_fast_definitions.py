"""The fast path for a block of reference definitions (`units.definitions`): certified
only where the pass would change nothing, and then adding to the carry exactly what the
pass adds (markdown-it's reference table, the labels defined, the lenient pass's
definitions, the reply's link channels), so every unit after it reads the same."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rendersafe import Conversation, Policy, Sanitizer
from rendersafe.engine.carry import Carry, Delta
from rendersafe.judging import ReplyJudge
from rendersafe.units.definitions import certified_definitions
from rendersafe.units.segment import Unit
from rendersafe.units.settle import _Reading
from rendersafe.urls import Role
from test_fast_path import CONVERSATION, certified_units, same

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)

CERTIFIED = (
    "[1]: https://docs.python.org/3/library/asyncio.html\n[2]: https://en.wikipedia.org/wiki/Markdown\n",
    "[docs-3]: https://go.dev/doc/effective_go\n\n[spec_4]: https://spec.commonmark.org/0.31.2/",
    "[a]: https://e.example/c/a\n[b]: https://e.example/c/b\n",  # two uses of a link channel
    "[R]: https://developer.mozilla.org/en-US/docs/Web/HTTP?x=1#y\n\n",
)
TO_THE_PASS = (
    '[r]: https://docs.python.org/3/ "a title"',
    "[r]: <https://docs.python.org/3/>",
    "[a b]: https://docs.python.org/3/",
    "[^1]: https://docs.python.org/3/",
    "[r]: https://docs.python.org/3/\n[R]: https://docs.python.org/3/x",  # defined twice
    "[r]: https://docs.python.org/3/?a=1&b=2",
    "[r]: https://docs.python.org/3/.",  # a linkifier's reading drops the `.`
    " [r]: https://docs.python.org/3/",
    "[r]: https://docs.python.org/3/\nText after it.",
    "[r]:https://docs.python.org/3/",
    "[r]: javascript:alert(1)",
    "[r]: https://evil.example/?k=sk-live-9f8e7d6c5b4a3f2e1d0c",
    "[r]: https://docs.python.org/3/\r\n",
)
# More of one link channel than a reply may use: judged by the pass, in its order.
CHANNEL_FLOOD = "".join(f"[{c}]: https://e.example/c/{c}\n" for c in "abcdefghij")


def judge(policy: Policy | None = None, conversation: Conversation | None = None) -> ReplyJudge:
    """A new reply's judge under `policy`."""
    rules = Sanitizer(policy).units.for_reply(conversation).rules.judge
    assert isinstance(rules, ReplyJudge)
    return rules


def pass_delta(
    text: str, policy: Policy | None, earlier: Sequence[str] = ()
) -> tuple[Delta, ReplyJudge]:
    """The pass's own reading of `text` as a first unit: what it adds to the carry,
    and its judge after (`earlier` links judged before it)."""
    units = Sanitizer(policy).units.for_reply(None)
    for url in earlier:
        units.rules.judge.judge(url, Role.LINK)
    outcome = units._read(Unit(0, text), Carry(), _Reading({}))
    assert outcome.text == text
    assert not outcome.findings
    reply_judge = units.rules.judge
    assert isinstance(reply_judge, ReplyJudge)
    return outcome.delta, reply_judge


def channels(reply_judge: ReplyJudge) -> dict[str, set[str]]:
    """The links each link channel of a reply has counted."""
    return {shape: set(urls) for shape, urls in reply_judge._links._seen.items() if urls}


def assert_as_the_pass(
    text: str, policy: Policy | None = None, earlier: Sequence[str] = ()
) -> bool:
    """Certify `text` (False when not), and assert what it adds and what the reply
    remembers are the pass's; a text left to the pass must leave the reply as it was."""
    fast = judge(policy)
    for url in earlier:
        fast.judge(url, Role.LINK)
    before = channels(fast)
    delta = certified_definitions(text, Carry(), fast)
    if delta is None:
        assert channels(fast) == before
        return False
    expected, by_pass = pass_delta(text, policy, earlier)
    assert list(delta.references.items()) == list(expected.references.items())
    assert list(delta.definitions.items()) == list(expected.definitions.items())
    assert delta.lenient == expected.lenient
    assert delta.image_labels == expected.image_labels
    assert delta.images_kept == expected.images_kept
    assert delta.healer == expected.healer
    assert channels(fast) == channels(by_pass)
    return True


@pytest.mark.parametrize("text", CERTIFIED)
def test_a_block_of_plain_definitions_is_certified_as_the_pass_reads_it(text: str) -> None:
    assert assert_as_the_pass(text)
    assert same(text).text == text
    assert same(text, size=3).text == text


@pytest.mark.parametrize("text", TO_THE_PASS)
def test_any_other_definition_is_left_to_the_pass(text: str) -> None:
    assert not assert_as_the_pass(text)
    same(text)
    same(text, size=3)


def test_a_flood_of_one_link_channel_is_left_to_the_pass_which_judges_it() -> None:
    assert not assert_as_the_pass(CHANNEL_FLOOD)
    assert same(CHANNEL_FLOOD).text != CHANNEL_FLOOD


def test_links_a_reply_judged_before_count_in_its_channels() -> None:
    earlier = [f"https://e.example/c/{c}" for c in "vwxyz"]
    assert not assert_as_the_pass("[a]: https://e.example/c/a\n", earlier=earlier)


def test_a_label_defined_before_is_left_to_the_pass() -> None:
    text = "[r]: https://docs.python.org/3/\n\nWords.\n\n[R]: https://docs.python.org/3/x\n"
    assert same(text).text == text


def test_a_label_an_image_used_before_is_left_to_the_pass() -> None:
    text = "![a][r] and more.\n\n[r]: https://docs.python.org/3/x.png\n"
    same(text)
    same(text, size=4)


def test_with_a_conversation_every_url_is_judged_by_the_pass() -> None:
    conversation = Conversation.from_messages(CONVERSATION)
    assert certified_definitions(CERTIFIED[0], Carry(), judge(None, conversation)) is None
    same(CERTIFIED[0], conversation=CONVERSATION)


_LABELS = st.sampled_from(["1", "2", "a", "B", "docs-3", "x_y", "r", "R", "Q9"])
_HOSTS = st.sampled_from(
    [
        "https://docs.python.org",
        "https://en.wikipedia.org",
        "https://e.example",
        "http://x.y",
        "https://evil.example",
        "https://example.com:8080",
        "https://bit.ly",
        "https://raw.githubusercontent.com",
    ]
)
_PATHS = st.sampled_from(
    [
        "",
        "/",
        "/a/b",
        "/p?q=1#f",
        "/x.png",
        "/t.",
        "/a,b",
        "/c/a",
        "/c/b",
        "/c/q",
        "?q=z",
        "/k/a8Fk2mQ9xZ3vL7pW",
    ]
)
_LINES = st.one_of(
    st.builds(lambda label, host, path: f"[{label}]: {host}{path}", _LABELS, _HOSTS, _PATHS),
    st.sampled_from(["", "Text.", "[r]", '[t]: https://e.example "t"', "![i][r]"]),
)
_BLOCKS = st.lists(_LINES, min_size=1, max_size=8).map("\n".join)
_POLICIES = st.sampled_from(
    [None, Policy(allowed_image_hosts=["e.example"]), Policy(max_beacon_images=2)]
)


@FUZZ
@given(_BLOCKS, _POLICIES, st.lists(st.builds("{}{}".format, _HOSTS, _PATHS), max_size=4))
def test_what_is_certified_adds_what_the_pass_adds(
    text: str, policy: Policy | None, earlier: list[str]
) -> None:
    assert_as_the_pass(text, policy, earlier)


@FUZZ
@given(st.lists(_BLOCKS, min_size=1, max_size=4).map("\n\n".join), _POLICIES, st.integers(0, 7))
def test_blocks_after_blocks_are_the_same_with_and_without_the_fast_path(
    text: str, policy: Policy | None, size: int
) -> None:
    same(text, policy=policy, size=size)


def test_a_label_no_image_used_is_certified_after_an_image_used_another() -> None:
    text = "![a][img] here.\n\n[img]: https://e.example/i.png\n\n[r]: https://docs.python.org/3/\n"
    assert certified_units(text) == {"[r]: https://docs.python.org/3/\n"}
