"""Knowing too much: the opponent's code, the referee's files, its own past games.

Each looks in the places of :func:`places_to_look` (its working directory,
its parent's and grandparent's, the root of its own tree) and reports what
it could read.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..common import Plays, Report, failure, guarded_append, places_to_look, report

#: The victim's code (the bundled agents are a library every agent may read).
OPPONENT_SOURCE = Path("tests", "hosting", "hostile", "victim", "__init__.py")


def try_read(path: Path) -> str:
    try:
        return f"read {len(path.read_bytes())} bytes"
    except OSError as exc:
        return failure(exc)


class ReadsOpponentsSource(Plays):
    """Reads ``tests/hosting/hostile/victim/__init__.py``, its opponent's code (play against the victim)."""

    def attack(self, **referee):
        tries = {str(place / OPPONENT_SOURCE): try_read(place / OPPONENT_SOURCE) for place in places_to_look()}
        report(attack="read the opponent's source", tries=tries, read=sum(v.startswith("read") for v in tries.values()))


def counter_places() -> list[Path]:
    return [Path(os.getcwd()), Path("/tmp"), Path("/dev/shm"), Path(__file__).resolve().parent]


class KeepsACounterOnDisk(Plays):
    """Looks for a file it left in an earlier game (same seed), then leaves one
    in its working directory, /tmp, /dev/shm and its own folder."""

    def attack(self, **referee):
        name = f"hostile-counter-{self.seed}"
        found = [str(place / name) for place in counter_places() if (place / name).exists()]
        wrote = {str(place / name): guarded_append(place / name, b"1\n") for place in counter_places()}
        report(attack="a counter on disk", found=found, wrote=wrote)


class ReadsTournamentJson(Plays):
    """Reads the running tournament's ``results/*/tournament.json`` (the plan: agents, seeds, limits).

    In a tournament nothing shows an agent's output, so it reports by raising
    (and loses each game by ``agent_error``).
    """

    def attack(self, **referee):
        tries = {}
        for place in places_to_look():
            try:
                found = sorted(place.glob("results/*/tournament.json"))
            except OSError as exc:
                tries[str(place)] = failure(exc)
                continue
            for path in found:
                try:
                    tries[str(path)] = "read: name " + str(json.loads(path.read_text()).get("name"))
                except (OSError, ValueError, AttributeError) as exc:
                    tries[str(path)] = failure(exc)
        readable = sorted({v for v in tries.values() if v.startswith("read")})
        raise Report(attack="read tournament.json", looked=len(tries), readable=readable)
