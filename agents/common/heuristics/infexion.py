"""Infexion knowledge: material, what each side can take next, safe spawns.

Everything is measured in the rules' own currency, power.  A SPREAD of a
stack of power ``k`` changes the difference (mover's power − opponent's) by
``-k`` for the emptied source plus, per cell reached: +1 for an empty or own
cell below 6, ``2p + 1`` for an opponent's stack of power ``p < 6`` (it
changes hands and grows), +6 for an opponent's 6 and −6 for an own 6 (both
vanish).  That sum is the action's *gain*; a SPAWN gains 1.

The evaluation, for the player to move::

    100·(my power − theirs) + my_take·best gain I can make now
                            − their_take·best gain they could make next
                            + spread·(my stacks − theirs)

with weights fitted to game outcomes, Texel-style: a logistic regression of
who won on these four terms, over the 18,170 positions of 120 games of MCTS
self-play at 50 ms a move (``python -m benchmarks.infexion_tuning``, whose
``fit`` prints them): ``my_take`` 29, ``their_take`` −9 and ``spread`` −64.
The mover's own capture counts for less than a third of a power, and at
equal power fewer, bigger stacks are better (small stacks are cheap
targets).  The fit also gives the opponent's best capture a slight weight
*for* the mover; in play its sign made no difference (+9 scored 39.5/80
against −9), so the fitted value stays.  One power is worth 0.32 logits of
the winning chance, so MCTS squashes values with ``tanh(value / 620)``
(``value_scale``).  Against the hand-set weights of before (70, 35, 10,
scale 400) the fitted ones scored 76/80 in MCTS self-play and minimax with
them 37/40 against the old MCTS (see the agents' READMEs).
Near the 343-action limit the threats fade (there may be no time
to make them) and the lead-by-2 rule is what matters: the game's last
action is valued exactly (the mover's best gain gives the final power
difference).  A term that made power count for more over the last 40
actions (the fit gave it +73 to +113) lost in play: from the positions at
action 260 of 42 self-play games it scored 34.5/84 against the evaluation
without it, so it is not here.
"""
from __future__ import annotations

import math
import random
from operator import itemgetter
from typing import Any
from collections.abc import Sequence

from referee.games.infexion.engine import (
    ACTION_COUNT,
    BLUE_FLAG,
    CELLS,
    MAX_CELL_POWER,
    MAX_TOTAL_POWER,
    MAX_TURNS,
    SPREAD_BASE,
    WIN_POWER_DIFF,
    SPREAD_TARGETS,
    InfexionState,
)

from .base import Heuristics

#: Per cell value, ``6 +`` the gain of one token placed there by Red / Blue.
_OFFSET = 6


def _gain_table(mover: int) -> bytes:
    table = bytearray(256)
    for v in range(16):
        p, owner = v & 7, v >> 3
        if v == 0:
            gain = 1
        elif p > MAX_CELL_POWER:
            continue
        elif p == MAX_CELL_POWER:
            gain = -MAX_CELL_POWER if owner == mover else MAX_CELL_POWER
        elif owner == mover:
            gain = 1
        else:
            gain = 2 * p + 1
        table[v] = gain + _OFFSET
    return bytes(table)


GAIN_BYTES = (_gain_table(0), _gain_table(1))

#: ``TAKE[a * 8 + k]`` returns the gain-table bytes of the ``k`` cells a SPREAD
#: of power ``k`` reaches, plus a zero byte for k = 1 (index 49, appended to
#: the translated board) so the result is always a tuple to ``sum``.
_PAD = CELLS


def _take_getters() -> list:
    getters: list = [None] * (ACTION_COUNT * 8)
    for a in range(SPREAD_BASE, ACTION_COUNT):
        for k in range(1, MAX_CELL_POWER + 1):
            cells = SPREAD_TARGETS[a * 8 + k]
            getters[a * 8 + k] = itemgetter(*cells) if k > 1 else itemgetter(cells[0], _PAD)
    return getters


TAKE = _take_getters()

#: ``REACH[cell * 8 + k]``: bit mask of every cell a stack of power ``k`` on
#: ``cell`` can reach in one SPREAD (all six directions).
REACH: list[int] = [0] * (CELLS * 8)
for _cell in range(CELLS):
    for _k in range(1, MAX_CELL_POWER + 1):
        _mask = 0
        for _d in range(6):
            for _t in SPREAD_TARGETS[(SPREAD_BASE + _cell * 6 + _d) * 8 + _k]:
                _mask |= 1 << _t
        REACH[_cell * 8 + _k] = _mask
del _cell, _k, _mask, _d, _t

_ZERO = b"\0"

#: Below this many stacks of its own, a side's SPAWNs are never pruned.
PRUNE_FROM_STACKS = 4


def _stacks(board: bytes | bytearray, player: int) -> int:
    flag = BLUE_FLAG if player else 0
    return sum(1 for v in board if v and (v & BLUE_FLAG) == flag)


def spread_gains(board: bytes | bytearray, player: int) -> list[tuple[int, int]]:
    """``(gain, action)`` of every SPREAD ``player`` can make on ``board``."""
    g = board.translate(GAIN_BYTES[player]) + _ZERO
    take = TAKE
    out = []
    flag = BLUE_FLAG if player else 0
    for cell, v in enumerate(board):
        if v and (v & BLUE_FLAG) == flag:
            k = v & 7
            base = (SPREAD_BASE + cell * 6) * 8 + k
            cost = (1 + _OFFSET) * k
            for d in range(6):
                a = base + d * 8
                out.append((sum(take[a](g)) - cost, (a - k) >> 3))
    return out


def best_gain(board: bytes | bytearray, player: int) -> tuple[int, int]:
    """``player``'s best SPREAD gain on ``board``, and the number of its stacks."""
    g = board.translate(GAIN_BYTES[player]) + _ZERO
    take = TAKE
    flag = BLUE_FLAG if player else 0
    best = -99
    stacks = 0
    for cell, v in enumerate(board):
        if v and (v & BLUE_FLAG) == flag:
            stacks += 1
            k = v & 7
            base = (SPREAD_BASE + cell * 6) * 8 + k
            top = max(sum(take[base](g)), sum(take[base + 8](g)), sum(take[base + 16](g)),
                      sum(take[base + 24](g)), sum(take[base + 32](g)), sum(take[base + 40](g)))
            top -= (1 + _OFFSET) * k
            if top > best:
                best = top
    return best, stacks


def reach(board: bytes | bytearray, player: int) -> int:
    """Bit mask of the cells ``player``'s stacks can reach with one SPREAD."""
    mask = 0
    flag = BLUE_FLAG if player else 0
    for cell, v in enumerate(board):
        if v and (v & BLUE_FLAG) == flag:
            mask |= REACH[cell * 8 + (v & 7)]
    return mask


#: The value of a position whose result is certain without a search (far above
#: any material, far below ``WIN``'s proven results, which count the plies).
DECIDED = 200 * MAX_TOTAL_POWER


def evaluation_terms(
    board: bytes | bytearray, turn: int, red_power: int, blue_power: int, movers: tuple[int, int] | None = None
) -> tuple[int, int, int, int]:
    """The evaluation's four terms for the player to move (see the module's docstring).

    Power difference, the best gain the mover can make now (a SPAWN's 1 at
    least; 0 when the game ends before it moves), the best gain the opponent
    could make next (0 when it will not move again), and the difference in
    stacks.  The evaluation weighs them; the weights were fitted to them.
    ``movers`` is ``best_gain(board, mover)`` when the caller has it already.
    """
    me = turn & 1
    mine, theirs = (blue_power, red_power) if me else (red_power, blue_power)
    my_gain, my_stacks = movers or best_gain(board, me)
    their_gain, their_stacks = best_gain(board, 1 - me)
    if my_gain < 1 and mine + theirs < MAX_TOTAL_POWER:
        my_gain = 1  # a SPAWN
    if their_gain < 0:
        their_gain = 0
    left = MAX_TURNS - turn
    if left < 2:
        their_gain = 0  # the opponent will not move again
    if left < 1:
        my_gain = 0
    return mine - theirs, my_gain, their_gain, my_stacks - their_stacks


class InfexionHeuristics(Heuristics[InfexionState, int]):
    """Evaluation and ordering for Infexion (options: weights, ``spawns``)."""

    #: Measured with the fitted weights (paired MCTS self-play, 50 ms a move):
    #: 2.5 scored 53/60 against 1.5, and 1.0 scored 4/60.
    c_puct = 2.5

    def __init__(
        self,
        game: Any = None,
        *,
        my_take: int = 29,
        their_take: int = -9,
        spread: int = -64,
        spawns: int = 8,
        temperature: float = 2.0,
        value_scale: float = 620.0,
        exact_last: bool = True,
    ):
        super().__init__(game)
        #: Value the game's last action exactly (off: as any other position, to measure it).
        self.exact_last = exact_last
        self.value_scale = value_scale
        self.my_take = my_take
        self.their_take = their_take
        self.spread = spread
        #: Searched SPAWNs per node (the safest first); the root gets all.
        self.spawns = spawns
        #: Softmax temperature of the MCTS priors, in units of gain.
        self.temperature = temperature
        self._weights: dict[int, float] = {}
        #: The board, the mover's (best SPREAD gain, stacks) and the mover, of the last scored_actions.
        self._scored: tuple[bytes, tuple[int, int], int] = (b"", (0, 0), 0)

    # -- evaluation -------------------------------------------------------------

    def evaluate(self, state: InfexionState) -> int:
        board = state.board
        # An MCTS leaf was just expanded: the mover's SPREADs were scored then.
        scored = self._scored
        movers = scored[1] if scored[0] == board and not (state.turn - scored[2]) & 1 else None
        power, my_gain, their_gain, stacks = evaluation_terms(
            board, state.turn, state.red_power, state.blue_power, movers
        )
        if state.turn == MAX_TURNS - 1 and self.exact_last:
            # The game's last action: the mover's best gain is the final power
            # difference (an elimination that wins with a lead of 1 aside).
            final = power + my_gain
            return DECIDED if final >= WIN_POWER_DIFF else -DECIDED if final <= -WIN_POWER_DIFF else 0
        return 100 * power + self.my_take * my_gain - self.their_take * their_gain + self.spread * stacks

    # -- ordering ---------------------------------------------------------------

    def scored_actions(self, state: InfexionState) -> list[tuple[int, int]]:
        """``(score, action)`` for the legal actions: gains, spawns by safety."""
        me = state.turn & 1
        board = state.board
        scored = spread_gains(board, me)
        # What best_gain(board, me) would say, kept for evaluate().
        self._scored = (bytes(board), (max(scored)[0] if scored else -99, len(scored) // 6), me)
        if state.red_power + state.blue_power < MAX_TOTAL_POWER:
            danger = reach(board, 1 - me)
            # A new stack where the opponent reaches is lost next move (they gain 3).
            scored.extend((-2 if danger >> cell & 1 else 1, cell) for cell in range(CELLS) if not board[cell])
        return scored

    def ordered_actions(
        self, state: InfexionState, rng: random.Random | None = None, prune: bool = True
    ) -> list[int]:
        if state.is_over:
            return []
        scored = self.scored_actions(state)
        if rng is not None:
            rng.shuffle(scored)
        scored.sort(key=itemgetter(0), reverse=True)
        if not prune or _stacks(state.board, state.turn & 1) < PRUNE_FROM_STACKS:
            return [a for _, a in scored]
        # SPAWNs far from the action are much alike: search the best few.  A
        # side with few stacks keeps them all, since a new stack can be its
        # only escape from elimination and a proof must not overlook it.
        return [a for _, a in self._pruned(scored)]

    def tactical_actions(self, state: InfexionState) -> list[int]:
        if state.is_over:
            return []
        # Captures of at least a whole stack of power 1 (gain 3 or more).
        caps = [sa for sa in spread_gains(state.board, state.turn & 1) if sa[0] >= 3]
        caps.sort(key=itemgetter(0), reverse=True)
        return [a for _, a in caps[:4]]

    # -- MCTS -------------------------------------------------------------------

    def priors(self, state: InfexionState, actions: Sequence[int]) -> list[float]:
        # A softmax of the ordering scores: captures stand out, safe spawns and
        # quiet spreads share the rest.
        score = dict((a, s) for s, a in self.scored_actions(state))
        weight = self._weight
        weights = [weight(score.get(a, 0)) for a in actions]
        total = sum(weights)
        return [w / total for w in weights]

    def _weight(self, score: int) -> float:
        # The softmax's numerator, remembered per score (scores are small whole numbers).
        w = self._weights.get(score)
        if w is None:
            w = self._weights[score] = math.exp(min(score, 20) / self.temperature)
        return w

    def expand(
        self, state: InfexionState, rng: random.Random | None = None, prune: bool = True
    ) -> tuple[list[int], list[float]]:
        # ordered_actions and priors from one scoring (MCTS spends most of its time expanding).
        if state.is_over:
            return [], []
        scored = self.scored_actions(state)
        if rng is not None:
            rng.shuffle(scored)
        scored.sort(key=itemgetter(0), reverse=True)
        if prune and self._scored[1][1] >= PRUNE_FROM_STACKS:  # the mover's stacks, as _stacks counts them
            scored = self._pruned(scored)
        known, weight = self._weights, self._weight
        weights = [known[sc] if sc in known else weight(sc) for sc, _ in scored]
        total = sum(weights)
        return [a for _, a in scored], [w / total for w in weights]

    def _pruned(self, scored: list[tuple[int, int]]) -> list[tuple[int, int]]:
        # The best ``spawns`` SPAWNs and every SPREAD, in order.
        out = []
        spawns = 0
        limit = self.spawns
        for sa in scored:
            if sa[1] < SPREAD_BASE:
                spawns += 1
                if spawns > limit:
                    continue
            out.append(sa)
        return out

    def plies_to_exact(self, state: InfexionState) -> int | None:
        # Past the 343rd action every game is over; one before it the
        # evaluation is exact already (``exact_last``).
        left = MAX_TURNS - state.turn
        return left - 1 if self.exact_last else left

    def moves_left(self, state: InfexionState) -> float:
        return min(40.0, (MAX_TURNS - state.turn) / 2)
