"""Monte Carlo tree search (PUCT), written once for every game.

* Selection: ``Q + c·P·sqrt(N)/(1 + n)`` with the heuristics' priors ``P``,
  over a widening window of the children (best prior first): a node visited
  ``N`` times considers its first ``2 + widen·sqrt(N)`` actions, so a wide
  game is searched where it matters.
* Leaves: a short playout by the heuristics' policy (``rollout_depth``
  actions, 0 for none), then the evaluation, squashed into a win expectation
  with ``tanh(value / value_scale)``; finished games score exactly.
* Proven results: a move that ends the game in the mover's favour makes its
  node a proven win; a node whose every child is a proven loss is a proven
  loss (only where nodes list every legal action: not for games whose
  heuristics prune everywhere).  Proofs propagate up, so short forced wins
  are found and played.
* The tree survives between moves: :meth:`MCTS.advance` follows every action
  of the real game (the agent's own and the opponent's) into the subtree.

Values are kept per node from its chooser's side (:func:`perspective`);
nothing assumes the players alternate, and at a chance node the event is
drawn afresh on each visit (open loop).
"""
from __future__ import annotations

import math
import random
from array import array
from dataclasses import dataclass
from collections.abc import Hashable

from referee.games.base import CHANCE, GameState

from .clock import Deadline
from .heuristics.base import Heuristics, perspective


def _tree_size(root: Node) -> int:
    size, stack = 0, [root]
    while stack:
        node = stack.pop()
        size += 1
        stack.extend(c for c in node.children if c is not None)
        if node.events:
            stack.extend(node.events.values())
    return size


def _proven_for(player: int, child: Node | None) -> int | None:
    """A child's proven result seen from ``player``'s side, or None."""
    if child is None or child.proven is None:
        return None
    return child.proven if child.player == player else -child.proven


#: A move is in doubt (and its search may go on past its budget, see
#: :meth:`Deadline.overdue`) while another action with at least this many
#: visits, and this share of the most visited one's, has the better value.
DOUBT_VISITS, DOUBT_SHARE = 20, 0.1

_NO_FLOATS = array("d")
_NO_COUNTS = array("l")


class Node:
    """Statistics of one position; children are created when first visited."""

    __slots__ = (
        "player", "actions", "priors", "visits", "values", "children", "total", "value_sum", "proven", "events"
    )

    def __init__(self, player: int):
        self.player = player  # RED, BLUE or CHANCE
        # Per action; the numbers in typed arrays, a third of the memory of
        # lists of float objects (a tree holds tens of thousands of nodes).
        self.actions: list[Hashable] | array = []
        self.priors: array = _NO_FLOATS
        self.visits: array = _NO_COUNTS
        self.values: array = _NO_FLOATS  # per child, from this node's chooser's side
        self.children: list[Node | None] = []
        self.total = 0
        self.value_sum = 0.0
        #: +1 / -1 when proven won / lost for ``player``, 0 proven drawn, None open.
        self.proven: int | None = None
        self.events: dict[Hashable, Node] | None = None  # chance nodes only


@dataclass
class MctsResult:
    action: Hashable
    simulations: int
    seconds: float
    value: float  # expected result for the mover, -1..1
    proven: int | None


class MCTS:
    """A PUCT searcher that keeps its tree from move to move."""

    def __init__(
        self,
        heuristics: Heuristics,
        *,
        c_puct: float = 1.5,
        widen: float = 1.5,
        rollout_depth: int = 0,
        max_nodes: int = 200_000,
        stop_early: bool = True,
        rng: random.Random | None = None,
    ):
        self.h = heuristics
        self.c_puct = c_puct
        self.widen = widen
        self.rollout_depth = rollout_depth
        self.max_nodes = max_nodes
        #: On the clock, stop once the rest of the budget could not change the move.
        self.stop_early = stop_early
        self.rng = rng or random.Random()
        self.root: Node | None = None
        self.root_key: Hashable = None
        self.nodes = 0

    # -- the tree across moves ----------------------------------------------------

    def advance(self, action: Hashable, state_after: GameState) -> None:
        """Follow an action of the real game into the subtree (or drop the tree)."""
        node = self.root
        child = None
        if node is not None:
            if node.events is not None:
                child = node.events.get(action)
            elif action in node.actions:
                child = node.children[node.actions.index(action)]
        self.root = child
        self.root_key = state_after.key() if child is not None else None

    # -- searching ----------------------------------------------------------------

    def choose(self, state: GameState, deadline: Deadline, iterations: int | None = None) -> MctsResult:
        """Search until ``deadline`` (or ``iterations`` simulations) and pick the move."""
        if state.current_player == CHANCE:
            raise ValueError("chance acts here, not a player")
        key = state.key()
        if self.root is not None and self.nodes > self.max_nodes // 2:
            # The count includes subtrees dropped since; count what is kept,
            # and keep it only if it leaves the tree room to grow.
            self.nodes = _tree_size(self.root)
        if self.root is None or self.root_key != key or self.nodes > self.max_nodes // 2:
            self.root, self.root_key, self.nodes = None, key, 0
            root = self._new_node(state, root=True)
            self.root = root
        root = self.root
        copy = state.copy_without_history
        done = 0
        clocked = iterations is None
        if len(root.actions) > 1 and root.proven is None:
            # With no time at all the root's best prior is played unsearched.
            while not clocked or not deadline.expired() or self._in_doubt(root) and not deadline.overdue():
                self._simulate(copy(), root)
                done += 1
                if root.proven is not None:
                    break
                if not clocked:
                    if done >= iterations:  # type: ignore[operator]
                        break
                elif self.stop_early and not done & 63 and self._decided(root, done, deadline):
                    break
        best = self._best_index(root)
        n = root.visits[best]
        value = root.values[best] / n if n else 0.0
        return MctsResult(root.actions[best], done, deadline.elapsed(), value, root.proven)

    def _top_two(self, root: Node) -> tuple[int, int]:
        """The root's most and second most visited actions (proven losses aside)."""
        first = second = -1
        visits, children, me = root.visits, root.children, root.player
        for i in range(len(visits)):
            if _proven_for(me, children[i]) == -1:
                continue
            if first < 0 or visits[i] > visits[first]:
                first, second = i, first
            elif second < 0 or visits[i] > visits[second]:
                second = i
        return first, second

    def _decided(self, root: Node, done: int, deadline: Deadline) -> bool:
        """Whether the simulations the budget has left could not change the most visited action."""
        first, second = self._top_two(root)
        if first < 0 or second < 0:
            return first >= 0
        elapsed, left = deadline.elapsed(), deadline.left()
        if elapsed <= 0.0 or left <= 0.0:
            return False  # past the budget, only doubt keeps the search going (see choose)
        still = done / elapsed * left
        return root.visits[first] - root.visits[second] > still

    def _in_doubt(self, root: Node) -> bool:
        """Whether the most visited action is not also the best valued (among those searched enough to tell)."""
        first, _ = self._top_two(root)
        if first < 0:
            return False
        visits, values = root.visits, root.values
        n = visits[first]
        if n == 0:
            return False
        q = values[first] / n
        enough = max(DOUBT_VISITS, DOUBT_SHARE * n)
        for i in range(len(visits)):
            m = visits[i]
            if i != first and m >= enough and values[i] / m > q and _proven_for(root.player, root.children[i]) != -1:
                return True
        return False

    def _best_index(self, root: Node) -> int:
        best, best_rank = 0, None
        for i, child in enumerate(root.children):
            proven = _proven_for(root.player, child)
            n = root.visits[i]
            q = root.values[i] / n if n else -2.0
            # Proven wins first and proven losses last; otherwise the most visited.
            rank = (2 * proven if proven is not None else 0, n, q)
            if best_rank is None or rank > best_rank:
                best, best_rank = i, rank
        return best

    def _new_node(self, state: GameState, root: bool = False) -> Node:
        node = Node(state.current_player)
        self.nodes += 1
        outcome = state.outcome
        if outcome is not None:
            mover = perspective(state)
            node.proven = 0 if outcome.winner is None else (1 if outcome.winner == mover else -1)
            node.player = mover
            return node
        if node.player == CHANCE:
            node.events = {}
            return node
        actions, priors = self.h.expand(state, self.rng if root else None, prune=self.h.prune_everywhere)
        self._fill(node, actions, priors)
        return node

    def _fill(self, node: Node, actions: list[Hashable], priors: list[float]) -> None:
        # Whole-number actions (Infexion, Cachex) go in an array: a list would
        # hold an int object per action above 256.
        try:
            node.actions = array("l", actions)
        except TypeError:  # actions that are not whole numbers (Infinitron's tuples)
            node.actions = actions
        node.priors = array("f", priors)
        node.visits = array("l", bytes(8 * len(actions)))
        node.values = array("d", bytes(8 * len(actions)))
        node.children = [None] * len(actions)

    def _simulate(self, state: GameState, root: Node) -> None:
        node = root
        path: list[tuple[Node, int]] = []
        while True:
            if node.proven is not None:
                value, side = float(node.proven), node.player
                break
            if node.player == CHANCE:
                event = self.h.chance_samples(state, self.rng)[0]
                state.apply(event)
                child = node.events.get(event)  # type: ignore[union-attr]
                if child is None:
                    child = self._new_node(state)
                    if self.nodes <= self.max_nodes:
                        node.events[event] = child  # type: ignore[index]
                    value, side = self._leaf_value(child, state)
                    path.append((node, -1))
                    node = child
                    break
                path.append((node, -1))
                node = child
                continue
            i = self._select(node)
            path.append((node, i))
            state.apply(node.actions[i])
            child = node.children[i]
            if child is None:
                child = self._new_node(state)
                if self.nodes <= self.max_nodes:
                    node.children[i] = child  # when the tree is full, evaluate but do not keep
                value, side = self._leaf_value(child, state)
                node = child
                break
            node = child
        self._backup(path, value, side, node)

    def _leaf_value(self, node: Node, state: GameState) -> tuple[float, int]:
        if node.proven is not None:
            return float(node.proven), node.player
        h = self.h
        rng = self.rng
        for _ in range(self.rollout_depth):
            if state.current_player == CHANCE:
                state.apply(h.chance_samples(state, rng)[0])
            else:
                state.apply(h.rollout_action(state, rng))
            outcome = state.outcome
            if outcome is not None:
                side = perspective(state)
                return (0.0 if outcome.winner is None else 1.0 if outcome.winner == side else -1.0), side
        return math.tanh(h.evaluate(state) / h.value_scale), perspective(state)

    def _select(self, node: Node) -> int:
        total = node.total
        width = 2 + int(self.widen * math.sqrt(total))
        n_actions = len(node.actions)
        if width > n_actions:
            width = n_actions
        scale = self.c_puct * math.sqrt(total + 1)
        # First-play urgency: an untried action is assumed a little worse
        # than this node's average.
        fpu = (node.value_sum / total if total else 0.0) - 0.2
        visits, values, priors, children = node.visits, node.values, node.priors, node.children
        me = node.player
        best, best_score = 0, -1e9
        for i in range(width):
            child = children[i]
            if child is not None and child.proven is not None:  # _proven_for, inlined: this loop is the hottest
                proven = child.proven if child.player == me else -child.proven
                if proven == 1:
                    return i
                if proven == -1:
                    continue
            n = visits[i]
            q = values[i] / n if n else fpu
            score = q + scale * priors[i] / (1 + n)
            if score > best_score:
                best, best_score = i, score
        if best_score == -1e9:
            # Every action in the window is a proven loss: look beyond it.
            for i in range(width, n_actions):
                if _proven_for(me, children[i]) != -1:
                    return i
        return best

    def _backup(self, path: list[tuple[Node, int]], value: float, side: int, leaf: Node) -> None:
        child = leaf
        for node, i in reversed(path):
            node.total += 1
            if i < 0:  # a chance node: its value is its child's, from the same side
                child = node
                continue
            v = value if node.player == side else -value
            node.visits[i] += 1
            node.values[i] += v
            node.value_sum += v
            if child.proven is not None and node.proven is None:
                self._prove(node, child)
            child = node

    def _prove(self, node: Node, child: Node) -> None:
        me = node.player
        if _proven_for(me, child) == 1:
            node.proven = 1
            return
        # Lost (or drawn) only when every action is proven: then the best of
        # them.  A pruned list is not every action: the heuristics may have
        # left out the one that saves the game, so no such proof is made.
        if self.h.prune_everywhere:
            return
        best = -1
        for c in node.children:
            proven = _proven_for(me, c)
            if proven is None:
                return
            best = max(best, proven)
        node.proven = best
