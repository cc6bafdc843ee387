"""The worked example of docs/adding-a-format.md: king of the hill, a format from outside the package
(``REFEREE_FORMATS``), played through the real command with real agents."""
from __future__ import annotations

import csv
import os
import subprocess
from pathlib import Path

from referee.records import GameRecord

from tests.helpers import run_referee
PLUGIN = "king_of_the_hill=tests.tournament.fixtures.formats.king_of_the_hill:KingOfTheHill"
ENV = dict(os.environ, REFEREE_FORMATS=PLUGIN)

HILL = """\
name: hill
format: king_of_the_hill
agents:
  - {name: a, spec: agents.random_agent}
  - {name: b, spec: agents.greedy}
  - {name: c, spec: agents.random_agent}
  - {name: d, spec: agents.greedy}
games_per_pair: 2
time_limit: 20
seed: 5
"""


def tournament(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess:
    config = tmp_path / "config.yaml"
    config.write_text(text)
    return run_referee("tournament", str(config), "-o", str(tmp_path / "out"), "-q", *args, env=ENV, timeout=300)


def test_king_of_the_hill_is_played_through_the_command(tmp_path):
    done = tournament(tmp_path, HILL, "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert "hill: 4 agents, 6 games (king_of_the_hill)" in done.stderr
    out = tmp_path / "out"
    records = sorted(
        (GameRecord.from_json(line) for line in (out / "games.jsonl").read_text().splitlines()),
        key=lambda r: r.game_index or 0,
    )
    assert [r.game_index for r in records] == list(range(6))
    # The winner stays on: challenge c is the holder against the (c + 2)-th agent, the holder Red first;
    # the holder keeps the hill unless the challenger scores more (a level challenge keeps the holder).
    king, won = "a", dict.fromkeys("abcd", 0)
    for number, challenger in enumerate("bcd"):
        first, second = records[2 * number: 2 * number + 2]
        assert first.extra["pairing"] == second.extra["pairing"] == (king, challenger)
        assert (first.name_of("RED"), second.name_of("RED")) == (king, challenger)
        points = sum(0.5 if r.winner is None else float(r.name_of(r.winner) == king) for r in (first, second))
        if points != 1:
            won[king if points > 1 else challenger] += 1
        king = challenger if points < 1 else king
    with open(out / "standings.csv", newline="") as file:
        header, *rows = list(csv.reader(file))
    assert header[:3] == ["rank", "agent", "challenges won"] and "Elo" in header and "Elo rank" not in header
    assert rows[0][:2] == ["1", king]
    assert {row[1]: int(row[2]) for row in rows} == won
    results = (out / "results.md").read_text()
    assert "Official ranking: the agent holding the hill at the end, then by challenges won" in results
    assert "king of the hill: each of the 3 challengers in turn plays 2 games against the holder" in results
    # Run again: the six records are checked against the format's pairings and nothing is played.
    again = tournament(tmp_path, HILL)
    assert again.returncode == 0, again.stderr
    assert "6 already recorded" in again.stderr and "games in" not in again.stdout


def test_its_own_field_is_checked_and_named_to_other_formats(tmp_path):
    bad = tournament(tmp_path, HILL + "on_level: maybe\n")
    assert bad.returncode == 2
    assert "config.yaml:11: on_level: must be one of king, challenger, not 'maybe'" in bad.stderr
    stray = tournament(tmp_path, HILL.replace("format: king_of_the_hill", "format: swiss") + "on_level: king\n")
    assert stray.returncode == 2
    assert (
        "config.yaml:11: on_level: on_level is only used by format: king_of_the_hill "
        "(who holds the hill after a level challenge)"
    ) in stray.stderr
    usage = run_referee("tournament", "-h", env=ENV).stdout
    assert "Swiss, ladder, knockout or king of the hill)" in " ".join(usage.split())
