"""Infinitron's commands as fixed integers, its chaos rolls as chance outcomes, its position as planes.

A turn is many commands, each one action here (``END_TURN`` ends it), so the action space is the
commands'.  A command's raw parameters would make millions of integers; only the parts the rules can
make legal get one:

* a ``DEFINE`` is one of the 2,744 valid unarmoured templates (cost 3..12, a template without attack
  written MELEE), in the engine's order;
* a unit is named by the cell it stands on (a cell holds one unit; unit numbers grow all game), and a
  unit command by the pair (its cell, the target cell) among the pairs at a distance the command can
  reach: a ``MOVE`` is a step (distance 1: 480 pairs), an ``ATTACK`` reaches 1..5 (4,770 pairs), an
  ``ABILITY`` heals within 1 or blasts within 2 (distance 0..2: 1,405 pairs);
* ``BUILD`` is (template 0..3, cell), ``TERRAIN`` (kind, cell) and ``CLAIM`` (city, cell) over all 91
  cells, so the integers mean the same on every map.

The ``armour`` option is not encoded: each of 2,744 templates with each of 140 armour layouts is 384,160
DEFINEs, an action mask a hundred times the size of all the rest.  The tables are in docs/learning.md.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from referee.games.base import CHANCE, Game, GameOptionError, GameState
from referee.games.infinitron.engine import (
    ABILITY,
    ABILITY_AMOUNTS,
    ALL_DEFINES,
    ASTEROID,
    ATTACK,
    BLAST1,
    BUILD,
    CELL_COUNT,
    CELLS,
    CLAIM,
    DESTROYED,
    DISTANCE,
    END_TURN_ACTION,
    FISH_MARKET,
    HEAL1,
    HEAL2,
    MAX_COMMANDS,
    MAX_TEMPLATES,
    MOVE,
    NO_EVENT,
    NO_EVENT_ACTION,
    RUBBLE_TURNS,
    SWIFT,
    TERRAIN,
    TERRAIN_KINDS,
    InfinitronState,
)
from referee.games.infinitron.geometry import RADIUS

from .base import Action, Encoding, planes

#: The board drawn on a square grid for the observation: cell ``(r, q)`` at row ``r + 5``, column ``q + 5``.
SIDE = 2 * RADIUS + 1
GRID = SIDE * SIDE
GRID_CELL: tuple[int, ...] = tuple((r + RADIUS) * SIDE + q + RADIUS for r, q in CELLS)


def _pairs(nearest: int, farthest: int) -> tuple[tuple[tuple[int, int], ...], dict[int, int]]:
    """The (from, to) cell pairs at a distance ``nearest..farthest`` in ascending order, and each pair's
    position in that order keyed by ``from * 91 + to``."""
    pairs = tuple(
        (a, b) for a in range(CELL_COUNT) for b in range(CELL_COUNT)
        if nearest <= DISTANCE[a * CELL_COUNT + b] <= farthest
    )
    return pairs, {a * CELL_COUNT + b: k for k, (a, b) in enumerate(pairs)}


MOVE_PAIRS, MOVE_PAIR = _pairs(1, 1)
ATTACK_PAIRS, ATTACK_PAIR = _pairs(1, 5)
ABILITY_PAIRS, ABILITY_PAIR = _pairs(0, 2)

#: Where each command's integers start.  CLAIM comes last: its size depends on the number of cities.
END_INDEX = 0
DEFINE_BASE = 1
BUILD_BASE = DEFINE_BASE + len(ALL_DEFINES)
MOVE_BASE = BUILD_BASE + MAX_TEMPLATES * CELL_COUNT
ATTACK_BASE = MOVE_BASE + len(MOVE_PAIRS)
ABILITY_BASE = ATTACK_BASE + len(ATTACK_PAIRS)
TERRAIN_BASE = ABILITY_BASE + len(ABILITY_PAIRS)
CLAIM_BASE = TERRAIN_BASE + len(TERRAIN_KINDS) * CELL_COUNT
#: Each unit command's kind, start and pair tables.
UNIT_COMMANDS = (
    (MOVE, MOVE_BASE, MOVE_PAIRS, MOVE_PAIR),
    (ATTACK, ATTACK_BASE, ATTACK_PAIRS, ATTACK_PAIR),
    (ABILITY, ABILITY_BASE, ABILITY_PAIRS, ABILITY_PAIR),
)

#: Chance outcomes: 0 no event, 1 + cell an asteroid, FISH_INDEX a fish market, FISH_CELL_BASE + cell one
#: of a market's cells (drawn one at a time when there are more free cells than tokens).
NO_EVENT_INDEX = 0
ASTEROID_BASE = 1
FISH_INDEX = ASTEROID_BASE + CELL_COUNT
FISH_CELL_BASE = FISH_INDEX + 1
CHANCE_OUTCOMES = FISH_CELL_BASE + CELL_COUNT

#: Observation planes (see :meth:`InfinitronEncoding.observation` and docs/learning.md).
UNIT_PLANES = 18
SCALAR_PLANES = 33
TEMPLATE_PLANES = 42
TEMPLATE_FEATURES = 7
PLANES = TEMPLATE_PLANES + 2 * MAX_TEMPLATES * TEMPLATE_FEATURES


def _plain_command(index: int) -> tuple[int, ...]:
    """The command of an integer outside the unit commands' blocks (it names no unit, so needs no position)."""
    if index == END_INDEX:
        return END_TURN_ACTION
    if index < BUILD_BASE:
        return ALL_DEFINES[index - DEFINE_BASE]
    if index < MOVE_BASE:
        return (BUILD, *divmod(index - BUILD_BASE, CELL_COUNT))
    if index >= CLAIM_BASE:
        return (CLAIM, *divmod(index - CLAIM_BASE, CELL_COUNT))
    kind, cell = divmod(index - TERRAIN_BASE, CELL_COUNT)
    return (TERRAIN, TERRAIN_KINDS[kind], cell)


def _cell_text(cell: int) -> str:
    return "({}, {})".format(*CELLS[cell])


class InfinitronEncoding(Encoding):
    """Infinitron Skirmish's commands as ``0..num_actions - 1`` (10,674 with the default six cities).

    Chance (option ``chaos``): ``0`` NO_EVENT, ``1 + cell`` ASTEROID, ``92`` the fish market, ``93 + cell``
    a market's cell; a market on a board with more than six free cells is drawn as ``92`` then its six
    cells one at a time, each uniform among the cells left (the engine's own draw).
    """

    num_chance_outcomes = CHANCE_OUTCOMES
    observation_shape = (PLANES, SIDE, SIDE)

    def __init__(self, game: Game):
        if game.options.get("armour"):
            raise GameOptionError(
                "infinitron: the armour option has no learning encoding (384,160 armoured DEFINEs); play without it"
            )
        super().__init__(game)
        self.setup = cast(InfinitronState, game.new_state()).setup
        self.num_cities = len(self.setup.cities)
        self.num_actions = CLAIM_BASE + self.num_cities * CELL_COUNT
        self.max_game_length = self.setup.max_turns * (MAX_COMMANDS + 1)
        if not self.setup.chaos:
            self.num_chance_outcomes = 0
        #: The integer of every command that names no unit (END_TURN, DEFINE, BUILD, TERRAIN, CLAIM): one lookup
        #: each, where thousands of DEFINEs are legal at once.
        self._fixed: dict[tuple[int, ...], int] = {}
        for i in [*range(MOVE_BASE), *range(TERRAIN_BASE, self.num_actions)]:
            self._fixed[_plain_command(i)] = i

    # -- players' actions -----------------------------------------------------

    def index(self, state: GameState, action: Action) -> int:
        a = cast(tuple[int, ...], action)
        found = self._fixed.get(a)
        if found is not None:
            return found
        s = cast(InfinitronState, state)
        kind = a[0]
        for command, base, _, pair in UNIT_COMMANDS:
            if kind == command:
                return base + pair[s.units[s.turn & 1][a[1]][0] * CELL_COUNT + a[2]]
        raise ValueError(f"{state.action_to_str(a)} has no integer (armoured, or not a player's command)")

    def legal_indices(self, state: GameState) -> list[int]:
        fixed, index = self._fixed, self.index
        return sorted([fixed[a] if a in fixed else index(state, a) for a in state.legal_actions()])

    def decode(self, state: GameState, index: int) -> Action | None:
        if not 0 <= index < self.num_actions:
            return None
        if not MOVE_BASE <= index < TERRAIN_BASE:
            return _plain_command(index)
        s = cast(InfinitronState, state)
        for command, base, pairs, _ in reversed(UNIT_COMMANDS):
            if index >= base:
                source, target = pairs[index - base]
                occupant = s.occ[source]
                # Only the mover's unit: another unit number could be the mover's elsewhere.
                if occupant < 0 or occupant & 1 != s.turn & 1:
                    return None
                return (command, occupant >> 1, target)
        return None

    def action_string(self, state: GameState, index: int) -> str:
        found = self.decode(state, index)
        if found is not None:
            return state.action_to_str(found)
        for command, base, pairs, _ in reversed(UNIT_COMMANDS):
            if base <= index < base + len(pairs):
                source, target = pairs[index - base]
                word = {MOVE: "MOVE", ATTACK: "ATTACK", ABILITY: "ABILITY"}[command]
                return f"{word} from {_cell_text(source)} to {_cell_text(target)} (no unit of the mover there)"
        return super().action_string(state, index)

    # -- chance -----------------------------------------------------------------

    @staticmethod
    def _roll(drawn: Sequence[int]) -> tuple[int, ...]:
        """The engine's roll so far for the indices ``drawn`` at this chance node."""
        if not drawn:
            return ()
        if drawn[0] != FISH_INDEX or not all(FISH_CELL_BASE <= i < CHANCE_OUTCOMES for i in drawn[1:]):
            raise ValueError(f"infinitron: {list(drawn)} is not a fish market's draws so far")
        return (FISH_MARKET, *sorted(i - FISH_CELL_BASE for i in drawn[1:]))

    @staticmethod
    def _outcome_index(roll: tuple[int, ...], outcome: tuple[int, ...]) -> int:
        if roll:  # the next cell of a market
            (cell,) = set(outcome[1:]) - set(roll[1:])
            return FISH_CELL_BASE + cell
        kind = outcome[0]
        return NO_EVENT_INDEX if kind == NO_EVENT else ASTEROID_BASE + outcome[1] if kind == ASTEROID else FISH_INDEX

    def _outcomes(self, state: GameState, drawn: Sequence[int]) -> list[tuple[int, tuple[int, ...], float]]:
        if state.current_player != CHANCE:
            raise ValueError("infinitron: not a chance node")
        roll = self._roll(drawn)
        outcomes = cast(InfinitronState, state).chance_outcomes(roll)
        return sorted((self._outcome_index(roll, o), o, p) for o, p in outcomes)

    def chance_outcomes(self, state: GameState, drawn: Sequence[int] = ()) -> list[tuple[int, float]]:
        return [(i, p) for i, _, p in self._outcomes(state, drawn)]

    def chance_action(self, state: GameState, index: int, drawn: Sequence[int] = ()) -> Action | None:
        for i, outcome, _ in self._outcomes(state, drawn):
            if i == index:
                return outcome if cast(InfinitronState, state).chance_complete(outcome) else None
        raise ValueError(f"infinitron: chance outcome {index!r} cannot be drawn here")

    def chance_string(self, state: GameState, index: int, drawn: Sequence[int] = ()) -> str:
        try:
            whole = self.chance_action(state, index, drawn)
        except ValueError:
            whole = None
        if whole is not None:
            return state.action_to_str(whole)
        if index == NO_EVENT_INDEX:
            return state.action_to_str(NO_EVENT_ACTION)
        if ASTEROID_BASE <= index < FISH_INDEX:
            return state.action_to_str((ASTEROID, index - ASTEROID_BASE))
        if index == FISH_INDEX:
            return "FISH_MARKET (its cells drawn next)"
        if FISH_CELL_BASE <= index < CHANCE_OUTCOMES:
            return f"fish token on {_cell_text(index - FISH_CELL_BASE)}"
        return f"<infinitron chance outcome {index}>"

    # -- observation ----------------------------------------------------------------

    def observation(self, state: GameState, player: int) -> list[float]:
        """Planes on the 11 x 11 grid (``(r, q)`` at row ``r + 5``, column ``q + 5``), from ``player``'s side.

        0 on the board; 1-6 BLOCK, LAVA, REPAIR, LABEL, a fish token, RUBBLE; 7 rubble's turns left / 24;
        8 a standing city, 9 a destroyed one, 10/11 the observer's/opponent's cities, 12/13 their capitals,
        14/15/16 the territory of the observer's/opponent's/no one's cities, 17 a city taking claims now;
        18/19 the observer's/opponent's units, then of any unit: 20 HP / 100, 21 max HP / 100, 22 Move / 3,
        23 damage / 50, 24/25 its range's nearest/farthest / 5, 26 HEAL amount / 40, 27 BLAST amount / 40,
        28 SWIFT, 29 cost / 12; of the mover's units: 30 can still be commanded, 31 the unit commanded
        now, 32 movement points left / 3.  Constant planes: 33/34 the observer's/opponent's RP / 20, 35/36
        their terrain points / 6, 37 turns played / the limit, 38 commands this turn / 64, 39 the observer
        is to move, 40 a chaos roll is due, 41 the observer is Red; 42.. the observer's four templates then
        the opponent's, seven planes each: defined, hp / 4, move / 3, dmg / 5, range / 4, ability / 5,
        cost / 12.
        """
        s = cast(InfinitronState, state)
        setup = s.setup
        out = planes(PLANES, GRID)

        def put(plane: int, cell: int, value: float = 1.0) -> None:
            out[plane * GRID + GRID_CELL[cell]] = value

        def fill(plane: int, value: float) -> None:
            if value:
                out[plane * GRID : (plane + 1) * GRID] = [float(value)] * GRID

        opponent = 1 - player
        for cell, g in enumerate(s.ground):
            put(0, cell)
            if g:  # BLOCK, LAVA, REPAIR, LABEL, a fish token, RUBBLE: codes 1..6, planes 1..6
                put(g, cell)
        for cell, clears in s.rubble.items():
            put(7, cell, (clears - s.turn) / RUBBLE_TURNS)
        for i, cell in enumerate(setup.cities):
            owner, flags = s.city_owner[i], s.city_flags[i]
            put(9 if flags & DESTROYED else 8, cell)
            if owner >= 0:
                put(10 if owner == player else 11, cell)
            if i < 2:
                put(12 if i == player else 13, cell)
            if s.claiming >> i & 1:
                put(17, cell)
            for t in s.territories[i]:
                put(14 if owner == player else 15 if owner == opponent else 16, t)
        mover = s.turn & 1
        for p in (player, opponent):
            templates = s.templates[p]
            for uid, (cell, hp, t) in s.units[p].items():
                tm = templates[t]
                put(UNIT_PLANES + (p != player), cell)
                features = (
                    hp / 100, tm.max_hp / 100, tm.move / 3, tm.damage / 50,
                    tm.min_range / 5 if tm.damage else 0.0, tm.max_range / 5 if tm.damage else 0.0,
                    ABILITY_AMOUNTS[tm.ability] / 40 if HEAL1 <= tm.ability <= HEAL2 else 0.0,
                    ABILITY_AMOUNTS[tm.ability] / 40 if BLAST1 <= tm.ability < SWIFT else 0.0,
                    1.0 if tm.swift else 0.0, tm.cost / 12,
                )
                for k, value in enumerate(features):
                    if value:
                        put(UNIT_PLANES + 2 + k, cell, value)
                if p == mover and uid not in s.done and not s.is_over:
                    put(30, cell)
                    put(32, cell, s.movement_points(p, uid) / 3)
                    if uid == s.active:
                        put(31, cell)
            for k, tm in enumerate(templates):
                base = TEMPLATE_PLANES + (MAX_TEMPLATES * TEMPLATE_FEATURES if p != player else 0)
                values = (1.0, tm.hp / 4, tm.move / 3, tm.dmg / 5, tm.range / 4, tm.ability / 5, tm.cost / 12)
                for f, value in enumerate(values):
                    fill(base + k * TEMPLATE_FEATURES + f, value)
        points = sum(s.terrain_points)  # held by the player to move: they lapse at its END_TURN
        fill(SCALAR_PLANES, s.rp[player] / 20)
        fill(SCALAR_PLANES + 1, s.rp[opponent] / 20)
        fill(SCALAR_PLANES + 2 + (mover != player), points / 6)
        fill(SCALAR_PLANES + 4, min(s.turn, setup.max_turns) / setup.max_turns)
        fill(SCALAR_PLANES + 5, s.commands / MAX_COMMANDS)
        fill(SCALAR_PLANES + 6, float(not s.is_over and s.current_player == player))
        fill(SCALAR_PLANES + 7, float(s.chance_pending))
        fill(SCALAR_PLANES + 8, float(player == 0))
        return out

