"""`rendersafe demo`'s servers: the demo app and its fake attacker, each on its own
loopback port, in one process until Ctrl-C."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from contextlib import suppress
from typing import TextIO

from ..policy import Policy
from .app import build_demo
from .attacker import Attacker

__all__ = ["serve"]


def serve(
    policy: Policy,
    *,
    hosts: Iterable[str],
    port: int,
    attacker_port: int,
    out: TextIO,
    bind: str = "127.0.0.1",
) -> None:
    """Serve the demo on `bind`:`port` and the attacker on 127.0.0.1:`attacker_port`
    (0: a free port); say where on `out`. Returns when the demo is stopped."""
    import uvicorn  # noqa: PLC0415  (optional: the demo extra)

    hosts = tuple(hosts)
    # The demo's port is taken first, so the attacker's free port cannot be the same.
    address = bind.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    with sock:
        sock.bind((address, port))
        sock.listen(2048)  # connections wait from now on, before uvicorn starts
        attacker = Attacker(hosts=hosts, port=attacker_port)
        with attacker.running():
            app = build_demo(policy, hosts=hosts, port=port, attacker=attacker)
            shown = f"[{address}]" if family == socket.AF_INET6 else address
            out.write(
                f"rendersafe demo on http://{shown}:{port} (Ctrl-C to stop); "
                f"its fake attacker on {attacker.origin}\n"
            )
            if not _loopback(address):
                out.write(
                    f"rendersafe demo: warning: bound to {address}, not loopback: anyone who "
                    "can reach it reads its audit log; it answers only to Host "
                    f"{', '.join(hosts)} (add names with --allow-host)\n"
                )
            out.flush()
            server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
            with suppress(KeyboardInterrupt):
                server.run(sockets=[sock])


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address.lower() == "localhost"
