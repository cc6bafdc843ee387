"""Tournaments more than one test file runs: a Swiss and a ladder configuration, and a folder of agents to ship.

- :data:`SWISS` (:data:`SWISS_GAMES` games) and :data:`LADDER` (:data:`LADDER_GAMES` games): five random agents,
  unsealed, at Cachex n = 4 (a game of a few actions: the pairing is under test, not the game); in
  test_swiss_runs.py, test_ladder_runs.py, and on Dask in test_dask_executor.py.
- :func:`make_project`: a package of agents as a class's submissions folder would hold it (test_shipping.py,
  test_dask_cli.py).
"""
from __future__ import annotations

from pathlib import Path

SWISS = """\
name: swiss5
format: swiss
rounds: 3
agents:
  - {name: a, spec: agents.random_agent}
  - {name: b, spec: agents.random_agent}
  - {name: c, spec: agents.random_agent}
  - {name: d, spec: agents.random_agent}
  - {name: e, spec: agents.random_agent}
games_per_pair: 2
time_limit: 20
space_limit: 0
wall_grace: 3
workers: 2
seed: 5
sandbox: off
game: cachex
game_options: {n: 4}
"""

#: 5 agents: 2 pairs a round (one bye), 2 games a pair, 3 rounds.
SWISS_GAMES = 3 * 2 * 2


LADDER = """\
name: ladder5
format: ladder
games: 5
batch: 2
agents:
  - {name: a, spec: agents.random_agent}
  - {name: b, spec: agents.random_agent}
  - {name: c, spec: agents.random_agent}
  - {name: d, spec: agents.random_agent}
  - {name: e, spec: agents.random_agent}
time_limit: 20
space_limit: 0
wall_grace: 3
workers: 2
seed: 3
sandbox: off
game: cachex
game_options: {n: 4}
"""

#: The budget: batches of 2, 2 and 1 games.
LADDER_GAMES = 5


#: A random agent whose code lives in its own folder, and reads a data file next to it.
RANDOM_AGENT = '''\
import random
from pathlib import Path

from referee.game import PlayerColor, SpawnAction, SpreadAction, HexPos, HexDir, Board

NAME = (Path(__file__).parent / "name.txt").read_text().strip()


class Agent:
    def __init__(self, color: PlayerColor, **referee):
        self.color, self.board = color, Board()
        self.rng = random.Random(referee.get("seed"))

    def action(self, **referee):
        mine = [pos for pos, cell in self.board._state.items() if cell.player == self.color]
        empty = [HexPos(r, q) for r in range(7) for q in range(7)
                 if self.board._state[HexPos(r, q)].player is None]
        choices = [SpreadAction(pos, d) for pos in mine for d in HexDir]
        if self.board._total_power < 49:
            choices += [SpawnAction(pos) for pos in empty]
        return self.rng.choice(choices)

    def turn(self, color, action, **referee):
        self.board.apply_action(action)
'''


def make_project(root: Path, package: str = "players", agents: tuple[str, ...] = ("alpha", "beta")) -> Path:
    """A folder holding a package of agents, as a class's submissions folder would."""
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    for name in agents:
        folder = root / package / name
        folder.mkdir()
        (folder / "__init__.py").write_text(RANDOM_AGENT)
        (folder / "name.txt").write_text(name + "\n")
        (folder / "__pycache__").mkdir()
        (folder / "__pycache__" / "stale.cpython-311.pyc").write_bytes(b"not shipped")
    return root
