"""An agent's win rate in a tournament's games, with its 95 % confidence interval, overall and by colour.

    python examples/learning/win_rate.py results/learned_cachex4/games.jsonl learned

Reads the records the referee wrote (one JSON object a line, ``red_name``/``blue_name`` naming the agents) and
prints the share of the agent's games it won, with Wilson's score interval: unlike the textbook p ± 1.96 σ, it
stays inside 0..100 % and is honest near 100 %, where a strong agent's rate lies.
"""
from __future__ import annotations

import json
import math
import sys


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval of a binomial proportion (95 % for z = 1.96)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def line(label: str, wins: int, games: int) -> str:
    low, high = wilson(wins, games)
    rate = wins / games if games else 0.0
    return f"{label:<9}{wins:4d} / {games:<4d} won  {rate:6.1%}  (95 % CI {low:.1%} to {high:.1%})"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python examples/learning/win_rate.py GAMES.jsonl AGENT", file=sys.stderr)
        return 2
    path, agent = argv
    counts = {"RED": [0, 0], "BLUE": [0, 0]}  # colour -> [wins, games]
    with open(path, encoding="utf-8") as f:
        for text in f:
            if not text.strip():
                continue
            record = json.loads(text)
            for colour in ("RED", "BLUE"):
                if record.get(f"{colour.lower()}_name") == agent:
                    counts[colour][1] += 1
                    counts[colour][0] += record.get("winner") == colour
    wins = counts["RED"][0] + counts["BLUE"][0]
    games = counts["RED"][1] + counts["BLUE"][1]
    if not games:
        print(f"{path}: no game of an agent named {agent!r}", file=sys.stderr)
        return 2
    print(line("overall", wins, games))
    for colour in ("RED", "BLUE"):
        print(line(f"as {colour.capitalize()}", *counts[colour]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
