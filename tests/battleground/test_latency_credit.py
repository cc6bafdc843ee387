"""The latency credit: what a client's round trip takes off its move's wall time, and what it cannot make it.

Before, the credit was the connection's last ping (capped at 0.5 s), so a client that answered pings 0.8 s late
earned the cap on every move.  Measured here on real loopback TCP connections, through the
:class:`~referee.battleground.seats.Player` the server holds for each client.
"""
from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("websockets")

from referee.battleground.seats import MAX_LAG_CREDIT, Player, kernel_round_trip  # noqa: E402


class _Transport:
    def __init__(self, sock: socket.socket | None):
        self.sock = sock

    def get_extra_info(self, name: str) -> Any:
        return self.sock if name == "socket" else None


class _Connection:
    """What the credit reads of a server connection: the WebSocket library's last ping round trip, its socket."""

    def __init__(self, sock: socket.socket | None):
        self.latency = 0.0
        self.transport = _Transport(sock)


@pytest.fixture()
def loopback() -> Iterator[socket.socket]:
    """The server's end of a real TCP connection on loopback, after some traffic both ways."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        server, _ = listener.accept()
        with client, server:
            for _ in range(20):
                server.sendall(b"play" * 16)
                client.recv(64)
                client.sendall(b"action")
                server.recv(64)
            yield server


def _credit_after(player: Player, pings: list[float]) -> float:
    conn = player.conn
    assert conn is not None
    for ping in pings:
        conn.latency = ping
        credit = player.latency
    return credit


def test_pings_answered_late_earn_no_more_than_the_kernels_round_trip(loopback: socket.socket):
    player = Player("late", house=False)
    player.conn = _Connection(loopback)  # type: ignore[assignment]
    kernel = kernel_round_trip(player.conn)  # type: ignore[arg-type]
    assert kernel is not None and kernel < 0.01
    credit = _credit_after(player, [0.8] * 8)  # every pong held back 0.8 s
    assert credit <= 2 * kernel + 0.005 < 0.02


def test_the_credit_is_the_least_of_the_last_pings_and_capped():
    player = Player("any", house=False)
    player.conn = _Connection(None)  # type: ignore[assignment]  (no socket: the pings alone)
    assert player.latency == 0.0  # no ping measured yet: no credit
    assert _credit_after(player, [0.05, 0.8, 0.7]) == 0.05  # late answers after an honest one change nothing
    fresh = Player("far", house=False)
    fresh.conn = _Connection(None)  # type: ignore[assignment]
    assert _credit_after(fresh, [0.9, 1.2]) == MAX_LAG_CREDIT
