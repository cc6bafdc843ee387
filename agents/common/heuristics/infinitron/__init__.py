"""Infinitron Skirmish knowledge: material, cities, threats, and a short list of commands.

A position is valued in hundredths of a template point (one RP buys one point),
for the player whose turn it is (Red while a chaos roll is due)::

    units    100 · cost · (1 + hp / max_hp) / 2 per unit: whole at full HP,
             half when nearly dead, so damage and kills both count
    RP       ``rp`` per resource point (less than a built point, so RP is
             spent; half beyond 24, none beyond 48), with the income to come: the other
             side's next in full, the mover's 3/4 (so END_TURN alone never
             looks like a gain when the incomes are equal)
    cities   ``city`` per neutral city held; ``template`` per template defined
    advance  ``advance`` per step closer than 10 between each mobile unit and
             the nearest city its side does not hold (the enemy capital counts
             from its neighbours: standing on it would only block one's own
             capture); a bonus, not a penalty, so building is never a loss
    guard    ``guard`` per unit (up to two) in the side's capital territory
             or within distance 2 of the capital
    threats  the mover's units still able to act: ``my_threat`` × the best
             damage each can deal this turn; the other side's units (all
             fresh next turn): −``their_threat`` × the same
    capital  ``capture`` × ``my_capture`` when the mover looks able to take
             the enemy capital this turn, −``capture`` × ``their_capture``
             when the other side looks able to take the mover's next turn

The mover's chances weigh more than the other side's, so ending the turn never
looks better than an equally good command, and a threat to one's capital
looks worse once the turn is over and nothing can be done about it.

The full command list is huge (2,744 DEFINEs while templates can be bought,
every step and claim), so :meth:`ordered_actions` with ``prune`` proposes a
handful: the next template (picked for the position, or a fixed plan),
BUILDs of the template the army needs on the best cells (and
a defender next to an open capital rather than saving up), per unit its best
attacks, heals and blasts and the two best steps (captures, attack
positions, progress towards its objective, lava avoided; the unit under way
first, since commanding another ends its movement: rules 1.1), the claims
open this turn, terrain on the enemy's approach and REPAIR pads, END_TURN.
``prune_everywhere`` makes the searches use that list at their roots too.

Option ``army``: ``varied`` (the default) plays all of this; ``fixed`` is
the agents before issue 22 (1.0's four ability-free templates, REPAIR the
only terrain, no abilities), kept to measure against.

The class is built in layers, each a module that uses the ones before it:
:mod:`.territory` (path maps, territory, claims and terrain), :mod:`.evaluation`
(the value above), :mod:`.army` (templates and builds), :mod:`.candidates`
(the scored command list); this module adds the options and MCTS's policy.
"""
from __future__ import annotations

import math
import random
from typing import Any
from collections.abc import Sequence

from referee.games.infinitron.engine import (
    DEFINE,
    END_TURN_ACTION,
    MAX_TEMPLATES,
    NO_EVENT_ACTION,
    InfinitronState,
    parse_action,
)

from .army import ARMIES, BLASTER, CHAMPION, DEFAULT_PLAN, FORT, MEDIC, RAIDER
from .candidates import Candidates

#: Own turns ahead that the clock is shared over (see ``moves_left``).
HORIZON_TURNS = 60


class InfinitronHeuristics(Candidates):
    """Evaluation, candidate commands and playout policy for Infinitron Skirmish."""

    value_scale = 1500.0
    prune_everywhere = True
    # A key holds the whole position (ground, units, cities: 8.8-9.9 KB
    # measured in games), so a table sized for Infexion's 300-byte entries
    # took minimax to 220 MB of a 250 MB limit.
    table_entry_bytes = 12_000

    def __init__(
        self,
        game: Any = None,
        *,
        rp: int = 60,
        city: int = 600,
        template: int = 250,
        advance: int = 20,
        guard: int = 150,
        my_threat: float = 0.6,
        their_threat: float = 0.4,
        capture: int = 4000,
        my_capture: float = 1.0,
        their_capture: float = 0.6,
        candidates: int = 14,
        unit_moves: int = 6,
        temperature: float = 300.0,
        value_scale: float = 1500.0,
        plan: Sequence[str] | None = None,
        army: str = "varied",
    ):
        super().__init__(game)
        self.rp = rp
        self.city = city
        self.template = template
        self.advance = advance
        self.guard = guard
        self.my_threat = my_threat
        self.their_threat = their_threat
        self.capture = capture
        self.my_capture = my_capture
        self.their_capture = their_capture
        #: Most commands offered at a node (END_TURN always among them).
        self.candidates = candidates
        #: Units offered MOVEs at a node (those fighting first, then the farthest from their objectives).
        self.unit_moves = unit_moves
        #: Softmax temperature of the MCTS priors, in evaluation units.
        self.temperature = temperature
        #: MCTS squashes evaluations with tanh(value / value_scale).
        self.value_scale = value_scale
        if army not in ARMIES:
            raise ValueError(f"army: one of {', '.join(ARMIES)}, not {army!r}")
        #: The whole game (army design, terrain, abilities), or 1.0's fixed army ("fixed").
        self.varied = army == "varied"
        #: A plan given outright is followed as it is; the varied army without one picks its templates.
        self.adaptive = self.varied and plan is None
        plan_actions = [parse_action(text) for text in (DEFAULT_PLAN if plan is None else plan)]
        if not plan_actions or any(a[0] != DEFINE for a in plan_actions) or len(plan_actions) > MAX_TEMPLATES:
            raise ValueError(f"plan: 1..{MAX_TEMPLATES} DEFINE commands, not {list(plan or ())!r}")
        self.plan: tuple[tuple[int, ...], ...] = tuple(plan_actions)
        # Cached per map (BLOCK cells) and city ownership: they change rarely.
        self._maps: dict[tuple, tuple[list[int], list[int]]] = {}
        self._capital_maps: dict[tuple, list[int]] = {}
        # The scores of the last list ordered_actions returned (for priors).
        self._last_list: list | None = None
        self._last_scores: dict | None = None

    def priors(self, state: InfinitronState, actions: Sequence[tuple[int, ...]]) -> list[float]:
        """A softmax of the candidates' scores (every other command gets the lowest).

        (Priors from the evaluation after each command were tried: no
        stronger against greedy over 24 games, and five times the cost.)
        """
        if actions is self._last_list and self._last_scores is not None:
            scores = self._last_scores
        else:
            scores = dict((a, sc) for sc, a in self.scored_actions(state))
        t = self.temperature
        # Commands outside the candidates (prune=False lists) get the lowest weight.
        weights = [math.exp(min(max(scores.get(a, -3.0 * t) / t, -3.0), 20.0)) for a in actions]
        total = sum(weights)
        return [w / total for w in weights]

    def rollout_action(self, state: InfinitronState, rng: random.Random) -> tuple[int, ...]:
        """Mostly the best candidate, sometimes another."""
        scored = self.scored_actions(state)
        if not scored:
            return state.legal_actions()[0]
        if len(scored) > 1 and rng.random() < 0.25:
            return scored[int(rng.random() * len(scored))][1]
        return scored[0][1]

    def chance_samples(self, state: InfinitronState, rng: random.Random) -> list[tuple[int, ...]]:
        """No event: it comes 11 times in 12, and events cannot be planned for."""
        return [NO_EVENT_ACTION]

    def hurry_action(self, state: InfinitronState) -> tuple[int, ...] | None:
        # Each command costs its call's overheads, ~1.5 ms: a long turn at the end of a long game (armour
        # games run to 2,000+ commands) took the clock through its margin; END_TURN stops that.
        return END_TURN_ACTION

    def moves_left(self, state: InfinitronState) -> float:
        """This player's ``action()`` calls still to come, this turn's included.

        Each turn: 2 + 1.5 a unit, at least four units' worth (armies grow);
        games between the bundled agents took about 3 + 0.7 a unit.  Turns
        are counted up to :data:`HORIZON_TURNS` ahead, not to the turn limit:
        capitals fall within 15 to 60 turns, and counting all 343 left 90% of
        the clock unused.  The budget still decays geometrically, so a longer
        game stays inside the limit (simulated with 1.5 ms a call whatever
        the budget: 16 commands on each of 172 turns at ``-t 10``).
        """
        s = state
        turns = min((s.setup.max_turns - s.turn + 1) // 2, HORIZON_TURNS)
        units = len(s.units[s.turn & 1])
        per_turn = 2.0 + 1.5 * max(units, 4)
        this_turn = max(1.0, 1.0 + 1.5 * units - s.commands)
        return this_turn + max(0, turns - 1) * per_turn


__all__ = [
    "ARMIES",
    "BLASTER",
    "CHAMPION",
    "DEFAULT_PLAN",
    "FORT",
    "HORIZON_TURNS",
    "InfinitronHeuristics",
    "MEDIC",
    "RAIDER",
]
