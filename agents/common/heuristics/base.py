"""What a search needs to know about a game beyond its rules.

The searches (:mod:`agents.common.alphabeta`, :mod:`agents.common.mcts`) see
a game only through :class:`referee.games.base.GameState` and one of these
objects; each game supplies its own in this package.

Values are integers from the point of view of :func:`perspective`: the
player to move, or Red at a chance node.  ``WIN`` is far beyond any
evaluation, so a proven result always outweighs material.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Generic
from collections.abc import Hashable, Sequence

from referee.games.base import CHANCE, RED, GameState

if TYPE_CHECKING:
    # Defaults (PEP 696): a bare ``Heuristics`` is any game's, as the searches take it.
    from typing_extensions import TypeVar

    StateT = TypeVar("StateT", bound=GameState, default=Any)
    ActionT = TypeVar("ActionT", bound=Hashable, default=Any)
else:
    from typing import TypeVar

    StateT = TypeVar("StateT", bound=GameState)
    ActionT = TypeVar("ActionT", bound=Hashable)

WIN = 1_000_000
#: Scores within this distance of ``WIN`` are proven results (win in N).
WIN_ZONE = 10_000


def perspective(state: GameState) -> int:
    """Whose point of view a value at ``state`` is from: the mover, or Red at chance."""
    player = state.current_player
    return RED if player == CHANCE else player


class Heuristics(Generic[StateT, ActionT]):
    """Evaluation, move ordering and playout policy for one game, whose states are ``StateT``, actions ``ActionT``.

    The defaults know nothing about any game (material 0, legal actions in
    the engine's order, uniform priors and random playouts), so a new game is
    playable at once and gets stronger as its heuristics are written.
    """

    #: Evaluation units worth about a 75% chance of winning (MCTS squashes
    #: evaluations into win probabilities with it).
    value_scale: float = 100.0

    #: MCTS's exploration constant: how it should weigh priors against values
    #: depends on the game's ``value_scale`` and branching, so it is the game's.
    c_puct: float = 1.5

    #: Whether the searches ask for the pruned list even where they would
    #: otherwise list every legal action (the alpha-beta root, every MCTS
    #: node).  For games whose legal lists are too long to search whole.
    prune_everywhere: bool = False

    #: Bytes one transposition-table entry takes for this game's state keys
    #: (key, tuple, dict slot), measured; minimax sizes its table by it.
    table_entry_bytes: int = 300

    def __init__(self, game: Any, **options: Any):
        if options:
            # The neutral defaults have no weights to set.
            raise TypeError(f"unexpected keyword argument(s) {', '.join(sorted(options))}")
        self.game = game

    def evaluate(self, state: StateT) -> int:
        """Static value of a position that is not over, for :func:`perspective`."""
        return 0

    def ordered_actions(
        self, state: StateT, rng: random.Random | None = None, prune: bool = True
    ) -> list[ActionT]:
        """The legal actions, most promising first.

        With ``prune`` it may leave out actions it judges not worth searching
        (the search never plays an action it was not offered); without, it
        lists every legal action.  With ``rng``, equally good actions come in
        a random order, so seeded games differ.
        """
        actions = state.legal_actions()
        if rng is not None:
            rng.shuffle(actions)
        return actions

    def tactical_actions(self, state: StateT) -> list[ActionT]:
        """Forcing actions for the quiescence search (captures); none by default."""
        return []

    def priors(self, state: StateT, actions: Sequence[ActionT]) -> list[float]:
        """MCTS prior probabilities of ``actions`` (they sum to 1)."""
        return [1.0 / len(actions)] * len(actions)

    def expand(
        self, state: StateT, rng: random.Random | None = None, prune: bool = True
    ) -> tuple[list[ActionT], list[float]]:
        """:meth:`ordered_actions` and their :meth:`priors` at once (an MCTS expansion).

        A game whose ordering and priors come from the same scores overrides
        it to score the actions once.
        """
        actions = self.ordered_actions(state, rng, prune=prune)
        return actions, self.priors(state, actions) if actions else []

    def rollout_action(self, state: StateT, rng: random.Random) -> ActionT:
        """One action of an MCTS playout."""
        actions = state.legal_actions()
        return actions[int(rng.random() * len(actions))]

    def chance_samples(self, state: StateT, rng: random.Random) -> list[ActionT]:
        """Chance actions a minimax search averages over at a chance node."""
        return [state.sample_chance(rng)]

    def plies_to_exact(self, state: StateT) -> int | None:
        """Plies after which every position the game can reach is valued exactly, or None (unknown).

        A game that ends by a fixed number of actions knows: a complete search
        that deep is exact (:mod:`agents.common.endgame`).
        """
        return None

    def moves_left(self, state: StateT) -> float:
        """Rough number of this player's own decisions still to come (time budgeting)."""
        return 30.0

    def hurry_action(self, state: StateT) -> ActionT | None:
        """What to play, unsearched, once the clock is into the agent's safety margin; None: search on.

        A game whose turns hold many actions offers the one that ends the turn:
        there every call has costs no budget covers (following the game,
        ordering), and a side that keeps acting runs out of time.
        """
        return None
