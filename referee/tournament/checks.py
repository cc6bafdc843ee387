"""Checking games.jsonl against the plan before its records are trusted.

Anything that could write to the output folder once (a hostile agent, a bad
merge) could flip results by editing or adding lines.  A line's own claims
(its ``config_hash``, its ``game_index``) cost nothing to forge, so every
record is compared with what the schedule says about its game: the index
must be one of the plan's, the agents and the seed those of that index, and
two records of the same index must agree on the result (an identical
duplicate, e.g. from merging two folders' files, counts once).  The first
problems are reported by line, with a command that deletes exactly those
lines; their games are then played again.

In a format paired from results (Swiss, ladder, knockout) the agents of game
``k`` depend on the results of lower game indices, so records are checked in
game order and each game's pairing is drawn from the records already
accepted; a record of a game that cannot be paired yet (an earlier round has
a game missing) is refused like any other.
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass
from collections.abc import Iterable
from typing import Any

from ..agent_text import inert_line
from ..records import GameRecord
from .aggregate import GameSummary
from .journal import GamesFile, JournalError
from .formats.base import Draw
from .schedule import TournamentPlan, job

#: Problems listed in one message; after a repair, the next run lists the rest.
SHOWN = 20


@dataclass(frozen=True)
class BadLine:
    line: int
    problem: str


class RecordsRefused(JournalError):
    """Lines of games.jsonl that do not fit the plan (``bad``), and how to repair them."""

    def __init__(self, message: str, bad: tuple[BadLine, ...]):
        super().__init__(message)
        self.bad = bad


def _result(record: GameRecord) -> tuple[str | None, str, str | None]:
    """What two records of one game must agree on (with the winner's name, for messages)."""
    return record.winner, record.reason, record.name_of(record.winner) if record.winner else None


def _describe(result: tuple[str | None, str, str | None]) -> str:
    winner, reason, name = result
    return f"{winner} ({name}) wins by {reason}" if winner else f"a draw by {reason}"


def _mismatch(plan: TournamentPlan, fingerprint: str, record: GameRecord, draw: Draw) -> str | None:
    """Why ``record`` is not a game of this plan's schedule; None if it is (``draw``: what the records so far
    pair)."""
    index = record.game_index
    config_hash = (record.extra or {}).get("config_hash")
    if config_hash != fingerprint or index is None:
        return f"this game belongs to another tournament (config hash {config_hash}, this one is {fingerprint})"
    if not 0 <= index < plan.total_games:
        return f"game index {index} is outside the schedule (games 0 to {plan.total_games - 1})"
    try:
        expected = job(plan, index, fingerprint, draw)
    except LookupError as exc:  # the format says why
        return str(exc)
    scheduled = (expected.red.spec, expected.red.display_name, expected.blue.spec, expected.blue.display_name)
    found = (record.red, record.name_of("RED"), record.blue, record.name_of("BLUE"))
    if found != scheduled:
        return (
            f"game {index} is {scheduled[1]} ({scheduled[0]}) as Red against {scheduled[3]} ({scheduled[2]}) as Blue "
            f"in the schedule, but this record has {found[1]} ({found[0]}) against {found[3]} ({found[2]})"
        )
    if record.game != plan.game:
        return f"game {index} is a game of {plan.game}, but this record is of {record.game}"
    if record.seed != expected.settings.seed:
        return f"game {index} has seed {expected.settings.seed} in the schedule, but this record has {record.seed}"
    scheduled_round = expected.settings.extra.get("round")
    if (record.extra or {}).get("round") != scheduled_round:
        # The round pairs games for the pentanomial figures: a forged one would re-pair them.
        return (
            f"game {index} is in round {scheduled_round} of the schedule, "
            f"but this record says {record.extra.get('round')}"
        )
    return None


def check_records(plan: TournamentPlan, games: GamesFile, repair_hint: str) -> list[GameSummary]:
    """A summary of every record, in file order (game order for a format paired from results), once all are known
    to be games of the plan.

    Records of the same game that agree on its result are all returned (the
    caller counts a game once; :func:`aggregate` picks one whatever the order).

    Raises :class:`RecordsRefused` instead, naming each line that is not a record, not
    a game of this plan's schedule, or a second record of a game with another
    result; ``repair_hint`` follows the command that deletes those lines.
    """
    fingerprint = plan.fingerprint
    bad: list[BadLine] = []
    first: dict[int, tuple[int, tuple]] = {}  # game index -> its first line and result
    conflicting: set[int] = set()  # first lines already reported as conflicting
    conflicted: set[int] = set()  # game indices with conflicting records
    summaries: list[GameSummary] = []
    entries: Iterable[tuple[int, GameRecord | None, str | None]] = games.entries()
    adaptive = plan.format.adaptive
    if adaptive:
        # Game order (file order within a game): a round is paired from the rounds before it.
        entries = sorted(entries, key=lambda e: (e[1].game_index if e[1] and e[1].game_index is not None else -1, e[0]))
    winners: dict[int, str | None] = {}  # accepted games
    memo: dict[str, Any] = {}
    draw = plan.format.draw(plan, winners, memo)
    for number, record, problem in entries:
        if record is None:
            bad.append(BadLine(number, problem or "not a game record"))
            continue
        if adaptive and record.game_index is not None and 0 <= record.game_index < plan.total_games:
            if not draw.covers(record.game_index):
                accepted = {i: w for i, w in winners.items() if i not in conflicted}
                draw = plan.format.draw(plan, accepted, memo)
        problem = _mismatch(plan, fingerprint, record, draw)
        if problem:
            bad.append(BadLine(number, problem))
            continue
        index = record.game_index
        assert index is not None  # _mismatch refuses a record without one
        summaries.append(GameSummary.of(record))
        result = _result(record)
        if index not in first:
            first[index] = (number, result)
            winners[index] = record.winner
            continue
        line, earlier = first[index]
        if earlier[:2] != result[:2]:
            conflicted.add(index)
            # Which of the two is genuine cannot be told: both go, and the game is played again.
            if line not in conflicting:
                conflicting.add(line)
                bad.append(BadLine(line, f"game {index} is recorded again on line {number} with another result"))
            bad.append(
                BadLine(number, f"game {index} is recorded on line {line} too, with another result "
                                f"({_describe(earlier)} there, {_describe(result)} here)")
            )
    if bad:
        raise refusal(games, bad, repair_hint)
    return summaries


def refusal(games: GamesFile, bad: Iterable[BadLine], repair_hint: str) -> RecordsRefused:
    """The error listing the first :data:`SHOWN` bad lines and the command that deletes them."""
    bad = tuple(sorted(bad, key=lambda b: b.line))
    shown = bad[:SHOWN]
    # A problem quotes the line's record (names, reason), which whatever wrote the line controls: one inert line.
    lines = [f"{games.path}:{b.line}: {inert_line(b.problem)}" for b in shown]
    if len(bad) > len(shown):
        lines.append(f"... and {len(bad) - len(shown)} more lines (the next run lists them)")
    script = ";".join(f"{b.line}d" for b in shown)
    noun = "this line" if len(shown) == 1 else "these lines"
    lines.append(
        f"{games.path}: {len(bad)} line{'s' if len(bad) != 1 else ''} cannot be trusted as this tournament's games. "
        f"To repair, delete {noun} (their games are then played again), keeping the old file as games.jsonl.bak:\n"
        f"  sed -i.bak {shlex.quote(script)} {shlex.quote(str(games.path))}\n"
        f"{repair_hint}"
    )
    return RecordsRefused("\n".join(lines), bad)
