"""rendersafe never touches the network: not to load the suffix list, not to judge a URL."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# Run in a fresh interpreter, so tldextract's suffix list is loaded under the guard.
# Every attempt is also remembered: a caller that swallows the guard's error (a
# library falling back to a bundled list) is still caught.
_CHILD = textwrap.dedent(
    """
    import socket

    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise AssertionError("network access attempted")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    for attempt in (
        lambda: socket.create_connection(("127.0.0.1", 9)),
        lambda: socket.socket().connect(("127.0.0.1", 9)),
        lambda: socket.getaddrinfo("example.com", 443),
    ):
        try:
            attempt()
        except AssertionError:
            pass
        else:
            raise SystemExit("the guard did not fire")
    assert len(attempts) == 3, attempts
    attempts.clear()
    print("guarded")

    from rendersafe import Policy, Sanitizer
    policy = Policy(allowed_image_hosts=["cdn.example.com", "me.github.io"])
    result = Sanitizer(policy).run(
        "![a](https://cdn.example.com/a.png) ![b](https://evil.example/b.png) "
        "https://x.y.z.evil.example/?d=aGVsbG8gd29ybGQgdGhpcyBpcyBhIHNlY3JldCBtZXNzYWdl"
    )
    assert len(result.findings) == 2, result.findings
    assert not attempts, attempts
    print("ok")
    """
)


def test_no_socket_is_opened_while_building_and_sanitising() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["guarded", "ok"]
