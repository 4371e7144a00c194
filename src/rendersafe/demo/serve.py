"""`rendersafe demo`'s servers: the demo app and its fake attacker, each on its own
loopback port, in one process until Ctrl-C."""

from __future__ import annotations

import socket
from collections.abc import Iterable
from contextlib import suppress
from typing import TextIO

from ..policy import Policy
from .app import build_demo
from .attacker import Attacker

__all__ = ["serve"]


def serve(
    policy: Policy, *, hosts: Iterable[str], port: int, attacker_port: int, out: TextIO
) -> None:
    """Serve the demo on 127.0.0.1:`port` and the attacker on `attacker_port` (0: a
    free port); say where on `out`. Returns when the demo is stopped."""
    import uvicorn  # noqa: PLC0415  (optional: the demo extra)

    hosts = tuple(hosts)
    # The demo's port is taken first, so the attacker's free port cannot be the same.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    with sock:
        sock.bind(("127.0.0.1", port))
        sock.listen(2048)  # connections wait from now on, before uvicorn starts
        attacker = Attacker(hosts=hosts, port=attacker_port)
        with attacker.running():
            app = build_demo(policy, hosts=hosts, port=port, attacker=attacker)
            out.write(
                f"rendersafe demo on http://127.0.0.1:{port} (Ctrl-C to stop); "
                f"its fake attacker on {attacker.origin}\n"
            )
            out.flush()
            server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
            with suppress(KeyboardInterrupt):
                server.run(sockets=[sock])
