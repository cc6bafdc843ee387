"""Regenerate ``data/perft.tsv`` from the simple reference implementation.

    python -m tests.games.infexion.make_tables

The expected numbers come from ``reference.py`` only, never from the engine
under test.  Positions: hand-made edge cases plus positions reached by seeded
random play (early, middle and late game, a full board at total power 49).
"""
from __future__ import annotations

import random
from pathlib import Path

from .reference import N, RefGame, perft

OUT = Path(__file__).parent / "data" / "perft.tsv"


def to_text(game: RefGame) -> str:
    rows = []
    for r in range(N):
        row = ""
        for q in range(N):
            cell = game.cells.get((r, q))
            row += "." if cell is None else f"{cell[0]}{cell[1]}"
        rows.append(row)
    return "/".join(rows) + f" {game.actions_played}"


def hand_made() -> list[tuple[str, RefGame]]:
    out = []
    g = RefGame()
    out.append(("empty board, Red to move", g))
    g = RefGame({(3, 3): ("r", 1)}, 1)
    out.append(("one red token, Blue's first move", g))
    # Total power 48: SPAWN still legal for the mover.
    cells = {}
    for i in range(8):
        cells[(i // N, i % N)] = ("r" if i % 2 == 0 else "b", 6)
    g = RefGame(cells, 10)
    out.append(("total power 48: spawns legal", g))
    cells = dict(cells)
    cells[(6, 6)] = ("r", 1)
    g = RefGame(cells, 11)
    out.append(("total power 49: no spawn", g))
    # Stacks of 6 on a wrapping line.
    g = RefGame({(0, 6): ("r", 6), (0, 0): ("b", 6), (6, 0): ("b", 3), (5, 1): ("r", 2)}, 20)
    out.append(("six-stacks across the wrap", g))
    # Game already over (elimination): no legal actions.
    g = RefGame({(2, 2): ("r", 3)}, 5)
    out.append(("game over by elimination", g))
    g = RefGame({(2, 2): ("r", 3), (4, 4): ("b", 2)}, 343)
    out.append(("game over at the action limit", g))
    g = RefGame({(2, 2): ("r", 3), (4, 4): ("b", 2)}, 342)
    out.append(("last action before the limit", g))
    return out


def random_positions(seed: int, count: int) -> list[tuple[str, RefGame]]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        g = RefGame()
        stop = rng.choice([3, 6, 12, 25, 40, 60, 90, 140, 200, 300])
        while g.result() is None and g.actions_played < stop:
            g.play(rng.choice(g.legal()))
        out.append((f"random play, seed {seed}, {g.actions_played} actions", g))
    return out


def main() -> None:
    positions = hand_made() + random_positions(2023, 40)
    lines = ["# position\tdepth1\tdepth2\tdepth3\tnote  (depth 3 is '-' where the reference would take too long)"]
    for note, g in positions:
        d1 = perft(g, 1)
        d2 = perft(g, 2)
        d3 = perft(g, 3) if d1 <= 75 else "-"
        lines.append(f"{to_text(g)}\t{d1}\t{d2}\t{d3}\t{note}")
        print(lines[-1], flush=True)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
