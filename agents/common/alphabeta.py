"""Negamax with alpha-beta, written once for every game.

Iterative deepening under a CPU deadline, principal-variation search, a
transposition table keyed by the engine's ``state.key()``, the table's move
and two killer moves per ply tried first, and a short quiescence search over
the heuristics' tactical actions at the horizon.

Nothing here assumes the players alternate: a child's value is negated only
when the child is seen from the other player's side (:func:`perspective`), so
games whose turns hold several actions work as they are.  At a chance node
the search averages over the events the heuristics sample.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from collections.abc import Hashable

from referee.games.base import CHANCE, GameState

from .clock import Deadline
from .heuristics.base import WIN, WIN_ZONE, Heuristics, perspective

EXACT, LOWER, UPPER = 0, 1, 2
INFINITY = WIN * 2


class SearchTimeout(Exception):
    """Raised inside the search when the deadline passes; caught at the root."""


@dataclass
class SearchResult:
    action: Hashable
    value: int  # for the player to move at the root
    depth: int  # deepest iteration completed
    nodes: int
    seconds: float


def _to_table(value: int, ply: int) -> int:
    # Proven results are stored as distance from this node, not from the root,
    # so a table hit at another ply still counts the moves correctly.
    if value > WIN - WIN_ZONE:
        return value + ply
    if value < -WIN + WIN_ZONE:
        return value - ply
    return value


def _from_table(value: int, ply: int) -> int:
    if value > WIN - WIN_ZONE:
        return value - ply
    if value < -WIN + WIN_ZONE:
        return value + ply
    return value


class AlphaBeta:
    """An iterative-deepening alpha-beta searcher; keep one per game played."""

    def __init__(
        self,
        heuristics: Heuristics,
        *,
        max_depth: int = 64,
        quiescence_depth: int = 2,
        table_entries: int = 400_000,
        prune: bool = True,
        reduce_after: int = 0,
        breadth: int = 0,
        rng: random.Random | None = None,
    ):
        self.h = heuristics
        #: Late move reductions: at nodes 3 or more plies from the horizon, the
        #: actions after the first ``reduce_after`` are searched a ply shallower
        #: with a null window first, and again at full depth only if they beat
        #: alpha (0: none).
        self.reduce_after = reduce_after
        #: Below the root, search only this many actions (the table's move and
        #: the killers first, then the heuristics' order); 0: all it offers.
        self.breadth = breadth
        #: Whether nodes below the root search the heuristics' pruned list (else every legal action).
        self.prune = prune
        self.max_depth = max_depth
        self.quiescence_depth = quiescence_depth
        self.table_entries = table_entries
        self.rng = rng or random.Random()
        self.table: dict[Hashable, tuple[int, int, int, Hashable]] = {}
        self.killers: list[list[Hashable]] = [[None, None] for _ in range(256)]
        self.nodes = 0
        self._deadline: Deadline | None = None

    # -- the root ---------------------------------------------------------------

    def choose(self, state: GameState, deadline: Deadline, max_depth: int | None = None) -> SearchResult:
        """The best action found before ``deadline``.

        When even depth 1 cannot finish in time, the best of the actions it
        did search is played; the first of them is the heuristics' favourite.
        """
        limit = min(self.max_depth, max_depth or self.max_depth)
        root = state.copy()
        self.nodes = 0
        if len(self.table) > self.table_entries:
            self.table.clear()
        for pair in self.killers:
            pair[0] = pair[1] = None
        actions = self.h.ordered_actions(root, self.rng, prune=self.h.prune_everywhere)
        if not actions:
            raise ValueError("no legal action: the game is over")
        best, value, depth_done = actions[0], 0, 0
        if len(actions) == 1:
            return SearchResult(best, 0, 0, 0, deadline.elapsed())
        self._deadline = deadline
        for depth in range(1, limit + 1):
            start = deadline.elapsed()
            try:
                value, best, actions = self._root(root, depth, actions)
            except SearchTimeout:
                if self._partial is not None:
                    best = self._partial
                break
            depth_done = depth
            if abs(value) > WIN - WIN_ZONE:
                break  # a proven result: deeper search cannot change it
            spent = deadline.elapsed() - start
            # The budget is when no iteration starts; the extended limit, when one is abandoned (with the
            # best move so far). Start the next iteration (a few times this one) only if it can finish.
            if deadline.expired() or deadline.left_extended() < 2.0 * spent:
                break
        self._deadline = None
        return SearchResult(best, value, depth_done, self.nodes, deadline.elapsed())

    def _root(self, state: GameState, depth: int, actions: list[Hashable]) -> tuple[int, Hashable, list[Hashable]]:
        me = perspective(state)
        alpha, beta = -INFINITY, INFINITY
        best_action = actions[0]
        self._partial = None
        for i, action in enumerate(actions):
            state.apply(action)
            try:
                if i == 0:
                    v = self._child(state, me, depth - 1, alpha, beta, 1)
                else:
                    v = self._child(state, me, depth - 1, alpha, alpha + 1, 1)
                    if v > alpha:
                        v = self._child(state, me, depth - 1, alpha, beta, 1)
            finally:
                state.undo()
            if v > alpha:
                alpha, best_action = v, action
                self._partial = action
        self._store(state.key(), depth, EXACT, alpha, best_action, 0)
        reordered = [best_action] + [a for a in actions if a != best_action]
        return alpha, best_action, reordered

    # -- the tree ---------------------------------------------------------------

    def _child(self, state: GameState, me: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The value of the position just reached, for ``me`` (the parent's mover)."""
        if perspective(state) == me:
            return self._negamax(state, depth, alpha, beta, ply)
        return -self._negamax(state, depth, -beta, -alpha, ply)

    def _negamax(self, state: GameState, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._count_node()
        outcome = state.outcome
        if outcome is not None:
            return self._terminal(state, outcome.winner, ply)
        if state.current_player == CHANCE:
            return self._chance(state, depth, ply)
        if depth <= 0:
            return self._quiesce(state, alpha, beta, ply, self.quiescence_depth)

        key = state.key()
        entry = self.table.get(key)
        table_move = None
        if entry is not None:
            e_depth, e_flag, e_value, table_move = entry
            if e_depth >= depth:
                v = _from_table(e_value, ply)
                if e_flag == EXACT or (e_flag == LOWER and v >= beta) or (e_flag == UPPER and v <= alpha):
                    return v

        actions = self._ordered(state, table_move, ply)
        me = perspective(state)
        original_alpha = alpha
        best_value, best_action = -INFINITY, actions[0]
        late = self.reduce_after if self.reduce_after and depth >= 3 else len(actions)
        for i, action in enumerate(actions):
            state.apply(action)
            try:
                if i == 0:
                    v = self._child(state, me, depth - 1, alpha, beta, ply + 1)
                else:
                    if i >= late:
                        v = self._child(state, me, depth - 2, alpha, alpha + 1, ply + 1)
                        if v > alpha:  # not refuted shallow: search it as any other
                            v = self._child(state, me, depth - 1, alpha, alpha + 1, ply + 1)
                    else:
                        v = self._child(state, me, depth - 1, alpha, alpha + 1, ply + 1)
                    if alpha < v < beta:
                        v = self._child(state, me, depth - 1, alpha, beta, ply + 1)
            finally:
                state.undo()
            if v > best_value:
                best_value, best_action = v, action
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        self._killer(action, ply)
                        break
        flag = EXACT
        if best_value <= original_alpha:
            flag = UPPER
        elif best_value >= beta:
            flag = LOWER
        self._store(key, depth, flag, best_value, best_action, ply)
        return best_value

    def _count_node(self) -> None:
        self.nodes += 1
        # Checked often: a node costs tens of microseconds and budgets near
        # the end of a long game are a few milliseconds.
        if not self.nodes & 15 and self._deadline is not None and self._deadline.overdue():
            raise SearchTimeout

    def _ordered(self, state: GameState, table_move: Hashable, ply: int) -> list[Hashable]:
        actions = self.h.ordered_actions(state, prune=self.prune)
        front = []
        if table_move is not None and table_move in actions:
            front.append(table_move)
        if ply < len(self.killers):
            for killer in self.killers[ply]:
                if killer is not None and killer != table_move and killer in actions:
                    front.append(killer)
        if front:
            actions = front + [a for a in actions if a not in front]
        if self.breadth and len(actions) > self.breadth:
            del actions[self.breadth:]
        return actions

    def _killer(self, action: Hashable, ply: int) -> None:
        if ply < len(self.killers):
            pair = self.killers[ply]
            if pair[0] != action:
                pair[1] = pair[0]
                pair[0] = action

    def _store(self, key: Hashable, depth: int, flag: int, value: int, action: Hashable, ply: int) -> None:
        old = self.table.get(key)
        if old is None or old[0] <= depth:
            self.table[key] = (depth, flag, _to_table(value, ply), action)

    def _terminal(self, state: GameState, winner: int | None, ply: int) -> int:
        if winner is None:
            return 0
        # Sooner wins and later losses score better.
        return WIN - ply if winner == perspective(state) else -WIN + ply

    def _chance(self, state: GameState, depth: int, ply: int) -> int:
        me = perspective(state)
        total = 0
        samples = self.h.chance_samples(state, self.rng)
        for event in samples:
            state.apply(event)
            try:
                total += self._child(state, me, depth, -INFINITY, INFINITY, ply + 1)
            finally:
                state.undo()
        return total // len(samples)

    def _quiesce(self, state: GameState, alpha: int, beta: int, ply: int, depth: int) -> int:
        stand = self.h.evaluate(state)
        if depth <= 0 or stand >= beta:
            return stand
        tactical = self.h.tactical_actions(state)
        if not tactical:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        me = perspective(state)
        for action in tactical:
            state.apply(action)
            try:
                self._count_node()
                outcome = state.outcome
                if outcome is not None:
                    v = self._terminal(state, outcome.winner, ply + 1)
                    if perspective(state) != me:
                        v = -v
                elif state.current_player == CHANCE:
                    v = self.h.evaluate(state)
                    if perspective(state) != me:
                        v = -v
                elif perspective(state) == me:
                    v = self._quiesce(state, alpha, beta, ply + 1, depth - 1)
                else:
                    v = -self._quiesce(state, -beta, -alpha, ply + 1, depth - 1)
            finally:
                state.undo()
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best
