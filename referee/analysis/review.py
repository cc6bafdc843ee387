"""A game's decisions judged from the engine's evaluations: the marks and the turning point (pure).

A *decision* is what one side chose at once: one action in Infexion and Cachex, a whole turn in Infinitron (its
commands up to END_TURN; the chance events after it are the game's, never a side's).  Each is judged by the
mover's chance of winning after it and after the engine's decision instead: a cost of :data:`INACCURACY`,
:data:`MISTAKE` or :data:`BLUNDER` or more marks it.

Each decision is compared with the engine's own decision from the same position (both leave the opponent to
move): the mover's chance of winning after the engine's, less after the one played, is the decision's cost.

The *turning point* of a lost game is the loser's decision after which the loser never again had an even game
(see :func:`turning_point`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..games.base import CHANCE, PLAYER_NAMES, GameState
from .engine import Evaluation

#: The drops in the mover's chance of winning (0..1) that mark a decision.
INACCURACY, MISTAKE, BLUNDER = 0.10, 0.20, 0.30
#: The marks, mildest first, with their thresholds.
SEVERITIES = (("inaccuracy", INACCURACY), ("mistake", MISTAKE), ("blunder", BLUNDER))


@dataclass(frozen=True)
class Decision:
    """One side's decision: the actions it played at once, from ``start`` in the record's actions."""

    start: int
    color: int  # RED or BLUE
    actions: tuple[str, ...]

    @property
    def end(self) -> int:
        return self.start + len(self.actions)


def decisions(state: GameState, actions: Sequence[str]) -> list[Decision]:
    """Split ``actions`` (played from ``state``, which they advance to the end) into decisions: the runs of one
    side's actions, a chance event ending a run."""
    found: list[Decision] = []
    current: list[str] = []
    start, mover = 0, CHANCE
    for index, text in enumerate(actions):
        player = state.current_player
        if current and player != mover:
            found.append(Decision(start, mover, tuple(current)))
            current = []
        if player != CHANCE:
            if not current:
                start, mover = index, player
            current.append(text)
        state.apply_checked(state.parse_action(text))
    if current:
        found.append(Decision(start, mover, tuple(current)))
    return found


@dataclass(frozen=True)
class Judged:
    """A decision judged: the mover's chance of winning before it, after it, and after the engine's own
    decision from the same position (its ``line``: one action, or an Infinitron turn), and its mark."""

    decision: Decision
    before: float
    after: float
    engine_after: float
    line: tuple[str, ...]
    severity: str | None

    @property
    def color(self) -> str:
        return PLAYER_NAMES[self.decision.color]

    @property
    def drop(self) -> float:
        """How much less the decision left its side than the engine's would have."""
        return max(0.0, self.engine_after - self.after)

    @property
    def played(self) -> str:
        return "; ".join(self.decision.actions)

    @property
    def better(self) -> str | None:
        """The engine's decision where it differs from the one played (None: the engine agrees)."""
        return "; ".join(self.line) if self.line and self.line != self.decision.actions else None


def severity(drop: float) -> str | None:
    """The mark a drop in the chance of winning earns (None: none)."""
    mark = None
    for name, threshold in SEVERITIES:
        if drop >= threshold - 1e-12:
            mark = name
    return mark


def judge(found: Sequence[Decision], positions: Sequence[Evaluation], afters: Sequence[Evaluation],
          lines: Sequence[tuple[tuple[str, ...], Evaluation | None]]) -> list[Judged]:
    """Each decision judged.  ``positions[i]`` is the evaluation before decision i, ``afters[i]`` right after it
    (before any chance event: chance is the game's); ``lines[i]`` the engine's decision from there and the
    evaluation after it (None where it is the one played).

    The decision is compared with the engine's at the same point of the game, the opponent to move after both:
    the side to move's chances carry the tempo (and a search's optimism for its own side), which comparing a
    position before a decision with the one after it would count as a mistake of every decision."""
    judged = []
    for i, decision in enumerate(found):
        mover = decision.color
        after = afters[i]
        line, engine = lines[i]
        engine = after if engine is None else engine
        now, best = after.win(mover), engine.win(mover)
        # A proven result the decision kept is no mistake, however the estimates moved.
        same = engine.proven and after.proven and round(best) == round(now)
        drop = 0.0 if same else max(0.0, best - now)
        judged.append(Judged(decision, positions[i].win(mover), now, best if not same else now, line, severity(drop)))
    return judged


def turning_point(judged: Sequence[Judged], loser: str | None) -> Judged | None:
    """The loser's decision after which they never had an even game again: the last of theirs from which the
    engine's decision kept 50 % or more, when theirs left them below it; else (they were behind from the start,
    or lost it in the opponent's decisions) their decision that cost the most."""
    if loser is None:
        return None
    theirs = [j for j in judged if j.color == loser]
    if not theirs:
        return None
    even = [j for j in theirs if j.engine_after >= 0.5]
    if even and even[-1].after < 0.5:
        return even[-1]
    costly = max(theirs, key=lambda j: j.drop)
    return costly if costly.drop > 0 else None
