"""The learned agent of docs/learning.md on the battleground (issue 50, item 3): ``python -m referee connect`` hosts
the folder the adaptor made, sealed, as it hosts any student's agent, and it plays the server's random house agent.
"""
from __future__ import annotations

import numpy  # noqa: F401  the agent's, and the battleground extra's client: both in the dev extra
import websockets.sync.client  # noqa: F401

from tests.battleground.sides import Client, Server, running
from tests.sandboxing import require_sandbox


def test_the_learned_agent_plays_a_colour_swapped_pair_sealed_on_the_battleground(tmp_path):
    require_sandbox()
    server = Server(tmp_path, "--game", "cachex", "-n", "4", "-t", "60", "--sandbox", "off",
                    "--house", "random=agents.random_agent")
    learned = Client(tmp_path, server, "agents/learned_cachex4", "learned", "--channel", "random", "--games", "2",
                     "-v", "0", sandbox="required")
    with running(server, learned):
        assert learned.wait(120) == 0, learned.text() + server.text()
    records = learned.game_records()
    assert sorted((r.red, r.blue) for r in records) == [("learned", "random"), ("random", "learned")]
    for record in records:
        assert record.error["RED"] is None and record.error["BLUE"] is None, record.error
        assert record.reason == "connection", record.message
    # It wins about 97 games in 100 against random play (the page's measure): at least one of two here.
    assert any((record.winner == "RED") == (record.red == "learned") for record in records)
