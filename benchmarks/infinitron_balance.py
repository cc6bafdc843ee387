"""Infinitron: Red's share of the points, per configuration, from tournament records (issue 39).

``python -m benchmarks.infinitron_balance results/infinitron_balance_*/games.jsonl``

Reads every record of the ``games.jsonl`` files given (a folder stands for its
``games.jsonl``) and prints one row per configuration (the rules version,
chaos, armour: the game options but the seed), and with ``--pairings`` one row
per pairing of agent specs within it too (self-play included; a tournament's
colour-swapped pairs give both agents both colours equally):

* games, and Red's wins, draws and Blue's wins;
* Red's share: (Red's wins + half the draws) / games, with its Wilson 95 %
  score interval (a draw counts half: the interval is Wilson's for that
  proportion over the games, as if each game were one trial);
* mean turns: each player's turn counts one (the ``END_TURN`` actions, plus
  the turn in which a capital fell);
* by score: the share of games ended by the turn limit (decided by score, or
  drawn) rather than by a capital's capture;
* forfeits (time, memory, illegal, crash, error): counted apart and left out
  of the share and the turns, since they say nothing about the rules.
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .game_records import read_records

#: Two-sided 95 %.
Z95 = 1.959963984540054
RULE_ENDINGS = ("capital", "turn_limit")


def wilson(points: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``points / n`` (``points`` may be a half: draws count half)."""
    if n <= 0:
        return (0.0, 1.0)
    p = points / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def player_turns(actions: Iterable[str], reason: str) -> int:
    """Turns played (each player's turn counts one): the END_TURNs, plus the turn a capture ended."""
    ends = sum(1 for a in actions if a == "END_TURN")
    return ends + (1 if reason == "capital" else 0)


@dataclass
class Tally:
    """Counts of one configuration (or one pairing within it)."""

    red: int = 0
    draws: int = 0
    blue: int = 0
    by_score: int = 0
    turns: list[int] = field(default_factory=list)
    forfeits: int = 0

    @property
    def games(self) -> int:
        return self.red + self.draws + self.blue

    def add(self, record: Mapping[str, Any]) -> None:
        if record["reason"] not in RULE_ENDINGS:
            self.forfeits += 1
            return
        winner = record["winner"]
        if winner == "RED":
            self.red += 1
        elif winner == "BLUE":
            self.blue += 1
        else:
            self.draws += 1
        if record["reason"] == "turn_limit":
            self.by_score += 1
        self.turns.append(player_turns(record["actions"], record["reason"]))

    def row(self) -> list[str]:
        n = self.games
        if not n:
            return ["0", "", "", "", "", str(self.forfeits)]
        points = self.red + self.draws / 2
        lo, hi = wilson(points, n)
        return [
            str(n),
            f"{self.red}-{self.draws}-{self.blue}",
            f"{100 * points / n:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]",
            f"{sum(self.turns) / n:.1f}",
            f"{100 * self.by_score / n:.1f} %",
            str(self.forfeits),
        ]


def configuration(record: Mapping[str, Any]) -> str:
    """The rules version, chaos and armour of a record's game (a record without ``rules`` is 1.1's: before 1.2)."""
    options = record.get("game_options") or {}
    rules = options.get("rules", "1.1")
    chaos = "chaos" if options.get("chaos") else "no chaos"
    armour = "armour" if options.get("armour") else "no armour"
    return f"{rules}, {chaos}, {armour}"


def pairing(record: Mapping[str, Any]) -> str:
    """The two agents' specs, in a fixed order (so both colours of a pairing fall together)."""
    a, b = sorted((record["red"], record["blue"]))
    return f"{a.removeprefix('agents.')} v {b.removeprefix('agents.')}"


def tally(records: Iterable[Mapping[str, Any]], by_pairing: bool = False) -> dict[tuple[str, str], Tally]:
    """Per (configuration, pairing or ``"all"``), the tally; pure in the records."""
    out: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for record in records:
        if record.get("game") != "infinitron":
            continue
        config = configuration(record)
        out[(config, "all")].add(record)
        if by_pairing:
            out[(config, pairing(record))].add(record)
    return dict(sorted(out.items(), key=lambda item: (item[0][0], item[0][1] != "all", item[0][1])))


HEADER = ["configuration", "agents", "games", "Red-draw-Blue", "Red's share [Wilson 95 %]", "mean turns",
          "by score", "forfeits"]


def markdown(rows: dict[tuple[str, str], Tally]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for (config, agents), t in rows.items():
        lines.append("| " + " | ".join([config, agents, *t.row()]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="games.jsonl files or tournament folders")
    parser.add_argument("--pairings", action="store_true", help="a row per pairing too")
    args = parser.parse_args(argv)
    print(markdown(tally(read_records(args.paths), by_pairing=args.pairings)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
