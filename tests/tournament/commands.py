"""``python -m referee tournament`` as the tests run it, and the files a run writes (test_cli.py and others).

- :data:`TINY`: three random agents, two games a pair.
- :func:`run` (to its end), :func:`start` (in the background), :func:`command` (its argv).
- :func:`records`, :func:`table`, :func:`same_tables`: what a run wrote in its output folder.
- :func:`wait_for_lines`: until a file of the run (games.jsonl) holds so many lines.
"""
from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from referee.records import GameRecord
from tests.helpers import ROOT, run_referee, wait_until

#: Three random agents, two games a pair, sealed, at Cachex n = 4: a game of a few actions (the tournament is under
#: test, not the game).
TINY = """\
name: tiny
agents:
  - {name: r1, spec: agents.random_agent}
  - {name: r2, spec: agents.random_agent}
  - {name: r3, spec: agents/random_agent}
games_per_pair: 2
time_limit: 20
space_limit: 200
seed: 3
game: cachex
game_options: {n: 4}
"""

#: TINY at the default game, Infexion (random games of hundreds of actions): for the tests that must catch a
#: worker in the middle of a game.
TINY_INFEXION = TINY.replace("game: cachex\ngame_options: {n: 4}\n", "")

def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "referee", "tournament", *args]


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_referee("tournament", *args, timeout=120, env=env)


def write_config(tmp_path: Path, text: str, name: str = "config.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def records(folder: Path) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def table(folder: Path, name: str, drop_last: int = 0) -> list[list[str]]:
    with open(folder / f"{name}.csv", newline="") as file:
        rows = list(csv.reader(file))
    return [row[: len(row) - drop_last] for row in rows]


def same_tables(one: Path, other: Path) -> None:
    for name in ("standings", "crosstable", "pairs"):
        assert table(one, name) == table(other, name), name
    # CPU time and memory are measurements, different in every run; the endings are not.
    assert table(one, "endings", drop_last=2) == table(other, "endings", drop_last=2)


def start(config: Path, out: Path, **options) -> subprocess.Popen:
    """The tournament command on ``config`` with two workers, quiet, in the background (text pipes by default)."""
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, **options}
    return subprocess.Popen(command(config, "-o", str(out), "--workers", "2", "-q"), cwd=ROOT, **options)


def wait_for_lines(path: Path, count: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    """Until ``path`` holds ``count`` lines; fails at once, with its output, if ``proc`` ends first."""
    def reached() -> bool:
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return True
        assert proc.poll() is None, proc.communicate()
        return False

    wait_until(reached, seconds, f"{path} to reach {count} lines", interval=0.02)
