"""A link's verdict shared across replies and conversations (`ReplyJudge._conversation_free`)
judges as one made afresh: generated chats, each reply sanitised turn by turn by a
`Sanitizer` that judged every earlier example (its shared verdicts warm, made under other
conversations), and by one that shares nothing; text and findings must be the same."""

from __future__ import annotations

from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rendersafe import Policy, Sanitizer
from rendersafe.judging.reply import ReplyJudge

_SECRETS = ["sk-3f9a2b1c4d5e6f7a8b9c0d1e", "alice.smith@corp.example", "a8Fk2mQ9xZ3vL7pW", "4821"]
_URLS = [
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",  # sealed
    "https://www.youtube.com/watch?v=a8Fk2mQ9xZ3vL7pW",  # sealed, a piece of the chat
    "https://www.youtube.com/redirect?q=https://evil.example/x",  # sealed, a URL inside
    "https://docs.python.org/3/library/asyncio-task.html",
    "https://trusted.example/a/sk-3f9a2b1c4d5e6f7a8b9c0d1e",  # trusted in one policy
    "https://alice.github.io/p?d=a8Fk2mQ9xZ3vL7pW",  # a tenant
    "https://evil.example/px/1.png?n=1",
    "https://evil.example/px/2.png?n=2",
    "https://evil.example/?q=c2stM2Y5YTJiMWM0ZDVl",  # a key, base64
    "https://bit.ly/3xYz",  # observable
    "https://example.com/?canary=CANARY-7f3e",
    "mailto:alice.smith@corp.example?subject=hi",
    "",
    "/relative/page",
]
_POLICIES = [
    Policy(),
    Policy(trusted_link_hosts=["trusted.example"], link_hosts="conversation"),
    Policy(links="strict", canaries=["CANARY-7f3e"]),
]
_SHARED = [Sanitizer(policy) for policy in _POLICIES]

_link = st.sampled_from(_URLS).flatmap(
    lambda url: st.sampled_from([f"[see]({url})", f"<{url}>", url, f"![i]({url})"])
)
_reply = st.lists(st.one_of(_link, st.sampled_from(["Hello.", "\n\n", "- item", "x"])), max_size=8)
_message = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["system", "user", "assistant", "tool"]),
        "content": st.lists(
            st.sampled_from([*_SECRETS, *_URLS, "see", "the docs"]), max_size=6
        ).map(" ".join),
    }
)


def _outcome(sanitizer: Sanitizer, chat: list[dict[str, str]], replies: list[str]) -> list[object]:
    """Each reply sanitised with the chat before it, the chat growing turn by turn."""
    history, found = list(chat), list[object]()
    for text in replies:
        result = sanitizer.run(text, conversation=history)
        found.append(
            (result.text, [(f.reasons, f.detail, f.start, f.end) for f in result.findings])
        )
        history += [
            {"role": "assistant", "content": result.text},
            {"role": "user", "content": "ok"},
        ]
    return found


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.integers(0, len(_POLICIES) - 1),
    chat=st.lists(_message, max_size=5),
    replies=st.lists(_reply.map(" ".join), min_size=1, max_size=3),
)
def test_shared_verdicts_judge_as_unshared_ones(
    which: int, chat: list[dict[str, str]], replies: list[str]
) -> None:
    shared = _outcome(_SHARED[which], chat, replies)
    with mock.patch.object(ReplyJudge, "_conversation_free", return_value=False):
        alone = _outcome(Sanitizer(_POLICIES[which]), chat, replies)
    assert shared == alone


def test_a_sealed_link_is_judged_once_a_tenant_link_each_reply() -> None:
    sanitizer = Sanitizer()
    reply = f"[v]({_URLS[0]}) and [t]({_URLS[5]})"
    judged = mock.patch.object(ReplyJudge, "_judged", autospec=True, side_effect=ReplyJudge._judged)
    with judged as calls:
        for chat in ("my key is a8Fk2mQ9xZ3vL7pW", "nothing here", "see the docs"):
            sanitizer.run(reply, conversation=[{"role": "user", "content": chat}])
    links = [call.args[1] for call in calls.call_args_list]
    assert links.count(_URLS[0]) == 1
    assert links.count(_URLS[5]) == 3
