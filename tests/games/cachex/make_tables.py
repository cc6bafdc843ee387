"""Regenerate ``data/perft.tsv`` from the simple reference implementation.

    python -m tests.games.cachex.make_tables

The expected numbers come from ``reference.py`` only, never from the engine
under test.  Positions: hand-made edge cases (first moves, the steal, the
centre, captures waiting to happen, wins one move away, the action limit)
and positions reached by seeded random play on every board size.
"""
from __future__ import annotations

import csv
import random
from pathlib import Path

from .reference import RefGame, perft, to_text

OUT = Path(__file__).parent / "data" / "perft.tsv"
COLUMNS = ("position", "legal", "perft2", "perft3", "note")


def position(n: int, red: list, blue: list, turn: int) -> RefGame:
    cells = {cell: "r" for cell in red}
    cells.update({cell: "b" for cell in blue})
    return RefGame(n, cells, turn)


def hand_made() -> list[tuple[str, RefGame]]:
    out = []
    for n in (3, 4, 5, 6, 7, 8, 11, 15):
        out.append((f"empty {n}x{n} board, Red to move", RefGame(n)))
    out.append(("n=5, Red took a corner: Blue may STEAL", position(5, [(0, 0)], [], 1)))
    out.append(("n=5, Red off the diagonal: STEAL mirrors it", position(5, [(1, 3)], [], 1)))
    out.append(("n=7, Red next to the centre: Blue may take the centre", position(7, [(3, 2)], [], 1)))
    out.append(("n=4, Red on the diagonal: STEAL keeps the cell", position(4, [(1, 1)], [], 1)))
    out.append(("n=6, even board, Red on the centre block", position(6, [(3, 3)], [], 1)))
    # Captures ready for the mover: Red to move at (2, 2) completes diamonds.
    out.append((
        "n=5, Red can capture in two diamonds sharing a stone",
        position(5, [(4, 1), (3, 3)], [(3, 1), (3, 2), (2, 3)], 6),
    ))
    out.append((
        "n=5, Red at (2,2) would take all six neighbours",
        position(
            5,
            [(4, 1), (3, 3), (1, 4), (0, 3), (1, 1), (3, 0)],
            [(3, 1), (3, 2), (2, 3), (1, 3), (1, 2), (2, 1)],
            12,
        ),
    ))
    out.append((
        "n=5, short-diagonal captures for Blue",
        position(5, [(3, 1), (2, 3), (1, 3), (4, 4)], [(3, 2), (0, 0), (4, 0)], 7),
    ))
    out.append((
        "n=4, capture at a corner",
        position(4, [(1, 1), (3, 3)], [(1, 0), (0, 1), (2, 2)], 4),
    ))
    # Wins one move away, through corners too.
    out.append((
        "n=5, Red one stone from joining r=0 to r=4",
        position(5, [(0, 2), (1, 2), (3, 2), (4, 2)], [(0, 0), (4, 4), (2, 0), (1, 4)], 8),
    ))
    out.append((
        "n=4, Blue along the corner row r=0, one stone short",
        position(4, [(1, 1), (2, 2), (3, 3), (3, 1)], [(0, 0), (0, 1), (0, 2)], 7),
    ))
    out.append((
        "n=4, Red along the corner column q=0, one stone short",
        position(4, [(0, 0), (1, 0), (2, 0)], [(1, 1), (2, 2), (3, 3)], 6),
    ))
    # Already over: a connection; the action limit.
    out.append(("n=3, Red has connected: game over", position(3, [(0, 1), (1, 1), (2, 1)], [(0, 0), (2, 2)], 5)))
    out.append(("n=3, at the action limit: game over", position(3, [(0, 0)], [(2, 2)], 343)))
    out.append(("n=5, one action before the limit", position(5, [(0, 0), (2, 2)], [(4, 4), (1, 3)], 342)))
    out.append(("n=5, two actions before the limit", position(5, [(0, 0), (2, 2)], [(4, 4), (1, 3)], 341)))
    return out


def random_positions(seed: int, count: int) -> list[tuple[str, RefGame]]:
    """Positions from seeded random play, most of them with the game still on."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        n = rng.choice([3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
        stop = rng.randint(2, n * n)
        actions = []
        g = RefGame(n)
        while g.result is None and g.actions_played < stop:
            actions.append(rng.choice(g.legal()))
            g.play(actions[-1])
        if g.result is not None and len(out) % 8:
            # Step back from the end: a live position close to it.
            g = RefGame(n)
            for action in actions[: -rng.randint(1, 3)]:
                g.play(action)
        out.append((f"random play, seed {seed}, n={n}, {g.actions_played} actions", g))
    return out


def main() -> None:
    #: Perft 3 only where the position has few legal actions (the reference is slow).
    deepest = 60
    OUT.parent.mkdir(exist_ok=True)
    with OUT.open("w", newline="") as out:
        table = csv.writer(out, delimiter="\t", lineterminator="\n")
        table.writerow(COLUMNS)
        for note, game in hand_made() + random_positions(2022, 40):
            legal = perft(game, 1)
            row = [to_text(game), legal, perft(game, 2), perft(game, 3) if legal <= deepest else "-", note]
            table.writerow(row)
            print(*row, sep="\t", flush=True)


if __name__ == "__main__":
    main()
