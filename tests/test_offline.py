"""rendersafe never touches the network: not to load the suffix list, not to judge a URL."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap


def test_no_socket_is_opened_while_building_and_sanitising() -> None:
    # A fresh interpreter, so tldextract's suffix list is loaded under the guard.
    code = textwrap.dedent(
        """
        import socket

        def refuse(*args, **kwargs):
            raise AssertionError("network access attempted")

        socket.socket.connect = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse

        from rendersafe import Policy, Sanitizer
        policy = Policy(allowed_image_hosts=["cdn.example.com", "me.github.io"])
        result = Sanitizer(policy).run(
            "![a](https://cdn.example.com/a.png) ![b](https://evil.example/b.png) "
            "https://x.y.z.evil.example/?d=aGVsbG8gd29ybGQgdGhpcyBpcyBhIHNlY3JldCBtZXNzYWdl"
        )
        assert len(result.findings) == 2, result.findings
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert socket.socket.connect is not None  # this process was not touched
