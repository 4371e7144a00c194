"""Judging one reply's URLs with what the reply and its conversation say.

    reply     `ReplyJudge`: the policy's `UrlJudge` (`urls/`), the conversation, and what
              the reply's URLs add up to
    beacons   many URLs of one shape are one channel

`urls/` judges one URL under the policy alone; here a URL is judged in its reply.
"""

from .reply import Judge, ReplyJudge

__all__ = ["Judge", "ReplyJudge"]
