"""Playing the gauntlet: the submission against every opponent of the scheme, both colours, each game sealed."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...agent_text import inert_line
from ...games import game_class
from ...match import AgentEntry, MatchSettings, check_agent, play_match
from ...records import GameRecord, points
from ...tournament.executor import LocalExecutor
from ...tournament.schedule import Job, game_seed
from .. import gradescope
from .scheme import SUBMISSION_NAME, Opponent, Scheme


@dataclass(frozen=True)
class Game:
    """One game of the gauntlet and, once played, its record."""

    index: int
    opponent: Opponent
    color: str  # the submission's: RED or BLUE
    seed: int
    record: GameRecord | None = None
    failure: str | None = None  # the referee's own failure (no record)

    @property
    def points(self) -> float:
        """The submission's points (:func:`referee.records.points`: a win 1, a game without a winner ½); 0 for a
        game the referee could not play (no record)."""
        return 0.0 if self.record is None else points(self.record.winner, self.color)

    @property
    def lost_by(self) -> str | None:
        """The verdict reason if the submission lost (or both agents failed), else None."""
        record = self.record
        if record is None or record.winner == self.color:
            return None
        if record.winner is None:
            return record.reason if record.error.get(self.color) else None
        return record.reason


def gauntlet(scheme: Scheme) -> list[Game]:
    """Every game of the scheme, not yet played: each opponent ``games_per_opponent`` times, each with its seed."""
    games: list[Game] = []
    for opponent in scheme.opponents:
        for number in range(scheme.games_per_opponent):
            index = len(games)
            # Alternate colours so the games against each opponent are half as Red, half as Blue.
            color = "RED" if number % 2 == 0 else "BLUE"
            games.append(Game(index, opponent, color, game_seed(scheme.seed, index)))
    return games


def match_settings(scheme: Scheme, folder: Path, seed: int | None, extra: Mapping[str, Any]) -> MatchSettings:
    """How one game of the scheme is played, its agents started in ``folder``."""
    # The game's seed goes into its options where the game draws its setup from it (Infinitron's
    # cities), as in a tournament and as `python -m referee --seed` does: the printed command replays it.
    options = game_class(scheme.game).seeded_options(scheme.game_options, seed)
    return MatchSettings(
        game=scheme.game, game_options=options, limits=scheme.limits, seed=seed, extra=dict(extra),
        agent_dir=str(folder), sandbox=scheme.sandbox,
    )


def _jobs(scheme: Scheme, folder: Path, games: list[Game]) -> Iterator[Job]:
    mine = AgentEntry(scheme.agent, SUBMISSION_NAME)
    for game in games:
        theirs = AgentEntry(game.opponent.spec, game.opponent.name, game.opponent.options,
                            game.opponent.limits(scheme.limits))
        red, blue = (mine, theirs) if game.color == "RED" else (theirs, mine)
        extra = {"game_index": game.index, "opponent": game.opponent.name}
        yield Job(game.index, red, blue, match_settings(scheme, folder, game.seed, extra))


def play_games(scheme: Scheme, folder: Path, workers: int = 1) -> list[Game]:
    """Play the whole gauntlet from ``folder``; every game comes back with its record (or the referee's failure)."""
    games = gauntlet(scheme)
    with LocalExecutor(workers) as executor:
        for finished in executor.run(play_match, _jobs(scheme, folder, games)):
            index = finished.job.index
            games[index] = Game(
                index, games[index].opponent, games[index].color, games[index].seed, finished.record, finished.error
            )
    return games


def write_games(games: list[Game], games_file: Path) -> None:
    """Every game's record, one JSON line each, readable by staff whoever runs the grader."""
    records = [game.record.to_json() for game in games if game.record is not None]
    games_file.parent.mkdir(parents=True, exist_ok=True)
    games_file.write_text("".join(line + "\n" for line in records), encoding="utf-8")
    games_file.chmod(gradescope.RESULTS_MODE)


def opponent_problems(scheme: Scheme, submission: Path) -> list[str]:
    """Why any opponent cannot be loaded where the games start (a misspelt option...): the scheme's fault.

    Checked before marking, because an opponent that fails to load forfeits
    every game, which would hand the submission marks it did not earn.
    """
    problems = []
    for index, opponent in enumerate(scheme.opponents):
        entry = AgentEntry(opponent.spec, opponent.name, opponent.options, opponent.limits(scheme.limits))
        problem = check_agent(entry, match_settings(scheme, submission, scheme.seed, {}))
        if problem:
            problems.append(
                f"{opponent.where or f'{scheme.path}: opponents[{index}]'}: {opponent.name} cannot be loaded: "
                f"{inert_line(problem)}"
            )
    return problems
