"""Marking the games: one test per opponent, the three checks, the Elo, each told in Markdown for the student."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...limits import limits_text
from ...records import memory_text
from ...tournament.ratings import bradley_terry
from ..feedback import (
    Side, code_block, code_span, counted, error_text, moves_text, paragraphs, plain, play_command, replay,
)
from ..gradescope import TestResult
from .games import Game
from .scheme import CHECKS, SUBMISSION_NAME, Opponent, Scheme
from .submission import Found, Unplayed, nested_note

#: The verdicts that fail "loads and plays legally" when the submission gets them.
UNLAWFUL = ("load_error", "agent_error", "illegal_action", "protocol_error", "agent_crashed")
#: The verdicts that are the submission's own fault: a game lost so is told before games lost by the rules.
#: (``output_limit``, printing more than the referee reads in a game, loses the game but fails no check.)
UNLAWFUL_OR_LIMIT = (*UNLAWFUL, "time_limit", "space_limit", "output_limit")
#: How each verdict reads in a sentence about the submission.
VERDICT_WORDS = {
    "load_error": "your agent could not be loaded",
    "agent_error": "your agent raised an exception",
    "illegal_action": "your agent played an illegal action",
    "protocol_error": "your agent broke the referee's protocol",
    "agent_crashed": "your agent's process died",
    "time_limit": "your agent ran out of time",
    "space_limit": "your agent used too much memory",
    "output_limit": "your agent printed too much",
    "disconnected": "your agent's connection dropped and did not come back",
}
#: At most this many games are described in one test's output; the first few with their moves.
SHOWN_GAMES = 5
DETAILED_GAMES = 3


def marks_text(value: float) -> str:
    """A number of marks (or seconds, or MB) as a person writes it: 2, 0.5."""
    return f"{value:g}"


def seconds_text(seconds: float) -> str:
    """CPU seconds an agent used, as shown to a student: ``2.5``, ``0.043``, ``< 0.01``.

    One decimal showed a quick agent's 0.04 s as "0.0", which reads as "not
    measured"; below a second two significant digits are shown, and below a
    hundredth (the clocks' noise) only that it was less.
    """
    if seconds < 0.01:
        return "< 0.01"
    return f"{seconds:.2g}" if seconds < 1 else f"{seconds:.1f}"


@dataclass(frozen=True)
class Marking:
    """What the feedback is written from: the scheme, where the games started, the games."""

    scheme: Scheme
    found: Found
    games: list[Game]
    unplayed: Unplayed | None = None
    #: A paragraph on the turning point of each analysed lost game, by game index (:mod:`.turning`).
    turning: Mapping[int, str] = field(default_factory=dict)

    @property
    def run_from(self) -> str:
        """Where a student runs the printed command from."""
        if self.found.nested:
            return f"the folder {code_span(self.found.nested + '/')} of your submission (it holds {self.found.top}/)"
        return "your submission folder"


def play_again(marking: Marking, game: Game) -> str:
    """The command that plays ``game`` again, as Markdown, and what it cannot repeat."""
    scheme = marking.scheme
    mine = Side(scheme.agent, {})
    theirs = Side(game.opponent.spec, game.opponent.options, game.opponent.limits(scheme.limits))
    red, blue = (mine, theirs) if game.color == "RED" else (theirs, mine)
    chance = game.record.chance_seed if game.record is not None else None
    command, missing = play_command(red, blue, scheme.game, scheme.game_options, scheme.limits, game.seed, chance)
    text = f"Play it again, from {marking.run_from}:\n\n" + code_block(command, "sh")
    # Said because a student may drop a flag they do not know, and then run the template's referee/ instead.
    text += (f"\n\n{code_span('-I')} makes Python run the referee you installed, never a "
             f"{code_span('referee/')} folder in your submission.")
    if missing:
        text += (
            "\n\nThe command line cannot give " + ", ".join(code_span(option) for option in missing)
            + ", so the game it plays may differ from this one."
        )
    return text


def headline(marking: Marking, game: Game) -> str:
    """One line on a game that was not won."""
    record = game.record
    if record is None:
        # The grader's own failure (a traceback): its last line says enough, and it does not count.
        failed = (game.failure or "unknown").strip().splitlines() or ["unknown"]
        return f"Game {game.index} was not played: the referee failed ({plain(failed[-1])}); it does not count."
    reason = game.lost_by or record.reason
    outcome = "Drew" if record.winner is None else "Lost"
    words = f": {VERDICT_WORDS[reason]}" if game.lost_by in VERDICT_WORDS else ""
    return (
        f"**{outcome} game {game.index}** as {game.color} against {plain(game.opponent.name)} after "
        f"{counted(marking.scheme.game, record.turns)}, by {code_span(reason)}{words}."
    )


def story(marking: Marking, game: Game, moves: bool) -> str:
    """A game that was not won: what happened, the agent's error, the final position (and the moves), the command."""
    record = game.record
    if record is None:
        return headline(marking, game)
    parts = [headline(marking, game), error_text(record.error.get(game.color)), marking.turning.get(game.index)]
    replayed = replay(record)
    if moves:
        parts.append(f"The moves (you are {game.color}):\n\n" + code_block(moves_text(replayed.turns)))
    if replayed.board is not None:
        parts.append(f"The final position, after {counted(marking.scheme.game, record.turns)}:\n\n"
                     + code_block(replayed.board))
    parts.append(play_again(marking, game))
    return paragraphs(*parts)


def stories(marking: Marking, games: list[Game], detailed: int = DETAILED_GAMES) -> str:
    """The first ``detailed`` games in full (moves and all), a few more without their moves, then how many more."""
    told = [story(marking, game, moves=n < detailed) for n, game in enumerate(games[:SHOWN_GAMES])]
    rest = games[SHOWN_GAMES:]
    if rest:
        told.append(f"... and {len(rest)} more: game{'s' if len(rest) > 1 else ''} "
                    + ", ".join(str(game.index) for game in rest) + ".")
    return paragraphs(*told)


def not_won(games: list[Game], opponent: Opponent) -> list[Game]:
    """The games against ``opponent`` that were not won, in the order they are told: those the agent lost by a
    fault of its own first (they are the ones to fix), then by index."""
    mine = [game for game in games if game.opponent is opponent and game.points < 1]
    return sorted(mine, key=lambda game: (game.lost_by not in UNLAWFUL_OR_LIMIT, game.index))


def opponent_test(marking: Marking, opponent: Opponent) -> TestResult:
    """Marks for the games against one opponent, by the band the score reaches."""
    scheme = marking.scheme

    def result(marks: float, output: str) -> TestResult:
        return TestResult(f"Against {opponent.name}", marks, opponent.marks, output, scheme.visibility, "md")

    if marking.unplayed is not None:
        see = " (see Loads and plays legally)" if not marking.unplayed.why.startswith("your submission has") else ""
        return result(0, f"Not played: {marking.unplayed.why}{see}.")
    mine = [game for game in marking.games if game.opponent is opponent]
    # A game the grader itself failed to play is left out rather than counted against the student.
    played = [game for game in mine if game.record is not None]
    points = sum(game.points for game in played)
    score = points / len(played) if played else 0.0
    fraction = opponent.fraction(score)
    if fraction >= 1:
        verdict = "full marks"
    elif fraction <= 0:
        verdict = "no marks"
    else:
        verdict = f"{fraction:.0%} of the marks"
    lines = [f"Against {opponent.name} you scored {marks_text(points)}/{len(played)} ({score:.0%}): {verdict}."]
    own = opponent.limits(scheme.limits)
    if own is not None:
        lines.append(f"A game at odds: {opponent.name} played under {limits_text(own.time_limit, own.space_limit)}, "
                     f"your agent under {limits_text(scheme.limits.time_limit, scheme.limits.space_limit)}.")
    if opponent.bands:
        lines.append("Bands: " + ", ".join(f"{band.min_score:.0%} or more: {band.fraction:.0%} of the marks"
                                           for band in opponent.bands) + ".")
    else:
        lines.append("The marks are in proportion to the score (a win 1, a draw 1/2).")
    lines.append(stories(marking, not_won(marking.games, opponent)))
    return result(opponent.marks * fraction, paragraphs(*lines))


def check_tests(marking: Marking) -> list[TestResult]:
    """The three checks: loads and plays legally, never out of time, never out of memory."""
    scheme, games = marking.scheme, marking.games
    results = []
    note = nested_note(marking.found)
    for check, title in CHECKS.items():
        worth = scheme.checks[check]

        def result(marks: float, output: str, title: str = title, worth: float = worth) -> TestResult:
            return TestResult(title, marks, worth, output, scheme.visibility, "md")

        if marking.unplayed is not None:
            why = marking.unplayed.why
            if check == "plays_legally":
                output = paragraphs(f"{why[0].upper()}{why[1:]}, so no game was played.", marking.unplayed.details)
            else:
                output = f"Not tested: {why}."
            results.append(result(0, output))
            continue
        reasons = UNLAWFUL if check == "plays_legally" else (check,)
        broke = [game for game in games if game.lost_by in reasons]
        # An agent that never got an action out has shown nothing, so a check it "passes" earns nothing.
        played = sum(game.record.moves.get(game.color, 0) for game in games if game.record is not None)
        if broke:
            words = ", ".join(sorted({VERDICT_WORDS[game.lost_by or ""] for game in broke}))
            output = paragraphs(f"In {len(broke)} of {len(games)} games {words}.",
                                # The moves of the first few are under their opponent's test.
                                note if check == "plays_legally" else None, stories(marking, broke, detailed=0))
            results.append(result(0, output))
        elif not played:
            # "Not tested", as for a submission that played no game: the limit was never put to the test.
            results.append(result(0, "Not tested: your agent did not play a single action in any game."))
        else:
            limit = {
                "plays_legally": "your agent loaded and played only legal actions",
                "time_limit": f"your agent stayed within {marks_text(scheme.limits.time_limit or 0)} CPU seconds a game"
                if scheme.limits.time_limit else "there was no time limit",
                "space_limit": f"your agent stayed within {marks_text(scheme.limits.space_limit or 0)} MB"
                if scheme.limits.space_limit else "there was no memory limit",
            }[check]
            output = f"In all {len(games)} games {limit}{_most_used(check, games)}."
            results.append(result(worth, paragraphs(output, note if check == "plays_legally" else None)))
    return results


def _most_used(check: str, games: list[Game]) -> str:
    """The most time or memory the submission used in a game (the margin it had)."""
    if check == "plays_legally":
        return ""
    used = [
        (game.record.time_used if check == "time_limit" else game.record.peak_memory_mb).get(game.color, 0.0)
        for game in games if game.record is not None
    ]
    if not used:
        return ""
    shown, unit = (seconds_text(max(used)), "CPU seconds") if check == "time_limit" else (memory_text(max(used)), "MB")
    if shown.startswith("< "):  # not "at most < 0.01"
        return f" (less than {shown[2:]} {unit} in every game)"
    return f" (at most {shown} {unit} in one game)"


def submission_elo(games: list[Game]) -> float | None:
    """The submission's Elo relative to the reference agents' mean (None: no games to rate)."""
    pairs: dict[tuple[str, str], tuple[int, int, int]] = {}
    names = {SUBMISSION_NAME}
    for game in games:
        if game.record is None:
            continue
        key = (SUBMISSION_NAME, game.opponent.name)
        wins, draws, losses = pairs.get(key, (0, 0, 0))
        pairs[key] = (wins + (game.points == 1), draws + (game.points == 0.5), losses + (game.points == 0))
        names.add(game.opponent.name)
    fit = bradley_terry(sorted(names), pairs)
    if SUBMISSION_NAME not in fit.ratings:
        return None
    others = [rating.elo for name, rating in fit.ratings.items() if name != SUBMISSION_NAME]
    return fit.ratings[SUBMISSION_NAME].elo - sum(others) / len(others)
