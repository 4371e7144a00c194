"""The conversation a reply answers: what the model saw, and what a reply URL carries of it.

    messages  read the chat APIs' shapes into `Message`s (bounded, the newest kept)
    pieces    the sensitive pieces of its text: e-mail addresses, numbers, keys, canaries
    readings  every way a URL can carry a piece: decoded, joined, reduced to a key
    index     the pieces by key, and the URLs they came in (provenance)
    prose     runs of its prose words in a URL (and why the rule is what it is)
    seen      the URLs and hosts it holds: copied URLs, seen hosts
    core      `Conversation` and `Taint`
    tracker   `ReplyTaint`: pieces split across the URLs of one reply
    canary    `mint_canary`, `find_canary`

    conversation = Conversation.from_messages(messages)
    conversation.taint(parse_url(href))   # Taint(message=1, role="user", kind="email") or None

Nothing here judges a URL: it answers questions the URL judge asks. It imports only
`urls` (parsing, hosts, credential formats), below it.
"""

from .canary import find_canary, mint_canary
from .core import Conversation, ConversationLike, Taint
from .messages import Message
from .tracker import ReplyTaint

__all__ = [
    "Conversation",
    "ConversationLike",
    "Message",
    "ReplyTaint",
    "Taint",
    "find_canary",
    "mint_canary",
]
