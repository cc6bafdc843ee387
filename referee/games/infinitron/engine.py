"""Infinitron Skirmish rules engine (pure: no I/O, no clocks, no randomness of its own).

The rules are ``shared/specs/infinitron.md``; the readings this engine takes
where that text leaves room are listed in ``docs/infinitron.md``.

Representation, chosen for plain-Python speed:

* cells are numbers 0..90 (:mod:`.geometry`); ``ground`` is a ``bytearray`` of
  cell codes (plain, the four terrains, a fish token) and ``occ`` a list
  holding ``-1`` for an empty cell or ``uid * 2 + player`` for a unit;
* a player's units are a dict ``uid -> (cell, hp, template index)`` in
  building order; templates are shared immutable :class:`Template` values;
* an action is a small tuple whose first item is the command kind
  (``END_TURN`` is ``(0,)``, ``MOVE(u, r, q)`` is ``(3, u, cell)``...); see
  the constructors below and :func:`action_to_str` for the text;
* undo keeps one snapshot of every mutable part per action: a few small
  copies, cheaper in Python than journaling each change, and exact.

Chance: with the ``chaos`` option, before each of Red's turns the state waits
for chance (``current_player == CHANCE``); :meth:`InfinitronState.sample_chance`
draws ``NO_EVENT``, ``ASTEROID(r, q)`` or ``FISH_MARKET(...)`` from the RNG it
is given and applying that action runs Red's turn start.
"""
from __future__ import annotations

import random
import re
from typing import Any, NamedTuple
from collections.abc import Hashable, Iterable, Mapping, Sequence

from ..base import (
    BLUE,
    CHANCE,
    PLAYER_NAMES,
    RED,
    Game,
    GameOptionError,
    GameState,
    NotationError,
    Outcome,
    check_options,
)
from .geometry import (
    BLOCKERS,
    CELL_COUNT,
    CELLS,
    DISTANCE,
    INDEX,
    STEPS,
    WITHIN_1,
    WITHIN_2,
    hex_distance,
    on_board,
)

# ---------------------------------------------------------------------------
# Rules constants

MAX_TURNS = 343
WIN_SCORE_LEAD = 2
MAX_COMMANDS = 64  # per turn, END_TURN not counted: the 65th command must be END_TURN
MAX_TEMPLATES = 4
MAX_UNITS = 12
DEFINE_PRICE = 2
MIN_TEMPLATE_COST = 3
MAX_TEMPLATE_COST = 12
LAVA_DAMAGE = 20
REPAIR_HEAL = 20
REPAIR_PRICE = 1
HP_PER_POINT = 20
BASE_HP = 20
CHAOS_ODDS = 12  # an event with probability 1/12
FISH_TOKENS = 6
ASTEROID_RADIUS = 2
TERRITORY_RADIUS = 2
BUILD_RADIUS = 1

CAPITALS = (INDEX[(4, -2)], INDEX[(-4, 2)])  # Red's, Blue's
CAPITAL_RESOURCES, CAPITAL_TERRAIN = 3, 6
CITY_RESOURCES, CITY_TERRAIN = 2, 4
NEUTRAL_CITY_PAIRS = 2
CITY_MIN_DISTANCE_FROM_CAPITALS = 3
CITY_MIN_SPACING = 2

# Ground codes (one byte a cell).  TERRAIN kinds are 1..4.
PLAIN, BLOCK, LAVA, REPAIR, LABEL, FISH = 0, 1, 2, 3, 4, 5
TERRAIN_NAMES = ("PLAIN", "BLOCK", "LAVA", "REPAIR", "LABEL")
TERRAIN_KINDS = (BLOCK, LAVA, REPAIR, LABEL)

RANGE_NAMES = ("MELEE", "MEDIUM", "LONG", "ARTILLERY", "SUPER")
MELEE, MEDIUM, LONG, ARTILLERY, SUPER = range(5)
#: (points, min distance, max distance) per range.
RANGE_RULES = ((0, 1, 1), (1, 1, 2), (2, 1, 3), (2, 4, 5), (4, 1, 5))

ABILITY_NAMES = ("NONE", "HEAL1", "HEAL2", "BLAST1", "BLAST2", "SWIFT")
NONE, HEAL1, HEAL2, BLAST1, BLAST2, SWIFT = range(6)
ABILITY_PRICES = (0, 1, 2, 2, 3, 1)  # template points; also the RP per use of an active one
ABILITY_AMOUNTS = (0, 20, 40, 20, 40, 0)  # HP healed or blast damage
HEAL_REACH, BLAST_REACH = 1, 2

HP_POINTS = range(5)
MOVE_VALUES = range(4)
DAMAGE_TENS = range(6)


def move_points(move: int) -> int:
    """Template points of a Move value: Move 1 free, +1 per point above, Move 0 gives -2."""
    return -2 if move == 0 else move - 1


# Command kinds: the first item of every action tuple.
END, DEFINE, BUILD, MOVE, ATTACK, ABILITY, TERRAIN, NO_EVENT, ASTEROID, FISH_MARKET = range(10)
PLAYER_KINDS = frozenset((END, DEFINE, BUILD, MOVE, ATTACK, ABILITY, TERRAIN))
CHANCE_KINDS = frozenset((NO_EVENT, ASTEROID, FISH_MARKET))

END_TURN_ACTION = (END,)
NO_EVENT_ACTION = (NO_EVENT,)

# Why a unit is done for the turn (for error messages).
DONE_BUILT, DONE_ACTED, DONE_SUPERSEDED = 1, 2, 3
_DONE_TEXT = {
    DONE_BUILT: "was built this turn and can do nothing else this turn",
    DONE_ACTED: "has already attacked or used its ability this turn",
    DONE_SUPERSEDED: "is done for this turn: another unit was commanded after it",
}

# City flags.
CLAIMED, DESTROYED = 1, 2


class Template(NamedTuple):
    """A unit template: the five DEFINE numbers and what they give."""

    hp: int  # HP points bought, 0..4
    move: int  # Move value 0..3
    dmg: int  # damage in tens, 0..5 (0: no attack)
    range: int  # index into RANGE_NAMES
    ability: int  # index into ABILITY_NAMES
    cost: int
    max_hp: int
    budget: int  # movement allowance in half points (SWIFT pays 1 half point onto LABEL)
    damage: int
    min_range: int
    max_range: int
    swift: bool


def template_cost(hp: int, move: int, dmg: int, range_: int, ability: int) -> int:
    attack = dmg + RANGE_RULES[range_][0] if dmg else 0
    return hp + move_points(move) + attack + ABILITY_PRICES[ability]


def make_template(hp: int, move: int, dmg: int, range_: int, ability: int) -> Template:
    _, lo, hi = RANGE_RULES[range_]
    return Template(
        hp,
        move,
        dmg,
        range_,
        ability,
        template_cost(hp, move, dmg, range_, ability),
        BASE_HP + HP_PER_POINT * hp,
        2 * move,
        10 * dmg,
        lo,
        hi,
        ability == SWIFT,
    )


#: Every well-formed DEFINE's template, by ``(hp, move, dmg, range, ability)``.
TEMPLATES: dict[tuple[int, int, int, int, int], Template] = {
    (h, m, d, r, a): make_template(h, m, d, r, a)
    for h in HP_POINTS
    for m in MOVE_VALUES
    for d in DAMAGE_TENS
    for r in range(len(RANGE_NAMES))
    for a in range(len(ABILITY_NAMES))
}


def _define_problem(hp: int, move: int, dmg: int, range_: int, ability: int) -> str | None:
    """Why a DEFINE's template is not allowed, whoever defines it."""
    if dmg == 0 and range_ != MELEE:
        return "a template with dmg 0 has no attack, so its range must be written MELEE"
    cost = TEMPLATES[(hp, move, dmg, range_, ability)].cost
    if not MIN_TEMPLATE_COST <= cost <= MAX_TEMPLATE_COST:
        return f"the template costs {cost} points; a template must cost {MIN_TEMPLATE_COST}..{MAX_TEMPLATE_COST}"
    return None


#: Every valid DEFINE action, in a fixed order (what legal_actions lists).
ALL_DEFINES: tuple[tuple[int, ...], ...] = tuple(
    (DEFINE, *spec) for spec in TEMPLATES if _define_problem(*spec) is None
)


# ---------------------------------------------------------------------------
# Action constructors and text


def cell_of(r: int, q: int) -> int:
    """Cell number of ``(r, q)``; raises ValueError off the board."""
    try:
        return INDEX[(r, q)]
    except KeyError:
        raise ValueError(f"({r}, {q}) is not on the board (max(|r|, |q|, |r+q|) <= 5)") from None


def define(hp: int, move: int, dmg: int, range_: str | int, ability: str | int) -> tuple[int, ...]:
    r = RANGE_NAMES.index(range_) if isinstance(range_, str) else range_
    a = ABILITY_NAMES.index(ability) if isinstance(ability, str) else ability
    return (DEFINE, hp, move, dmg, r, a)


def build(template: int, r: int, q: int) -> tuple[int, int, int]:
    return (BUILD, template, cell_of(r, q))


def move(unit: int, r: int, q: int) -> tuple[int, int, int]:
    return (MOVE, unit, cell_of(r, q))


def attack(unit: int, r: int, q: int) -> tuple[int, int, int]:
    return (ATTACK, unit, cell_of(r, q))


def ability(unit: int, r: int, q: int) -> tuple[int, int, int]:
    return (ABILITY, unit, cell_of(r, q))


def terrain(kind: str | int, r: int, q: int) -> tuple[int, int, int]:
    k = TERRAIN_NAMES.index(kind) if isinstance(kind, str) else kind
    return (TERRAIN, k, cell_of(r, q))


def asteroid(r: int, q: int) -> tuple[int, int]:
    return (ASTEROID, cell_of(r, q))


def fish_market(cells: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    return (FISH_MARKET, *sorted(cell_of(r, q) for r, q in cells))


def _check_form(action: tuple[int, ...]) -> bool:
    """Whether a non-empty tuple of ints is an action of this game (legal or not)."""
    kind = action[0]
    n = len(action)
    if kind in (END, NO_EVENT):
        return n == 1
    if kind == DEFINE:
        return (
            n == 6
            and action[1] in HP_POINTS
            and action[2] in MOVE_VALUES
            and action[3] in DAMAGE_TENS
            and 0 <= action[4] < len(RANGE_NAMES)
            and 0 <= action[5] < len(ABILITY_NAMES)
        )
    if kind in (BUILD, MOVE, ATTACK, ABILITY):
        return n == 3 and action[1] >= 0 and 0 <= action[2] < CELL_COUNT
    if kind == TERRAIN:
        return n == 3 and action[1] in TERRAIN_KINDS and 0 <= action[2] < CELL_COUNT
    if kind == ASTEROID:
        return n == 2 and 0 <= action[1] < CELL_COUNT
    if kind == FISH_MARKET:
        # Distinct cells in ascending order (the canonical form).
        cells = action[1:]
        return (
            n <= 1 + FISH_TOKENS
            and all(0 <= c < CELL_COUNT for c in cells)
            and all(a < b for a, b in zip(cells, cells[1:]))
        )
    return False


_CELL_TEXT = tuple("{}, {}".format(*rq) for rq in CELLS)


def _cell_text(cell: int) -> str:
    return _CELL_TEXT[cell]


#: The commands written ``WORD(number, r, q)``: a template or unit number and a cell.
_NUMBERED_WORDS = {BUILD: "BUILD", MOVE: "MOVE", ATTACK: "ATTACK", ABILITY: "ABILITY"}
_NUMBERED_KINDS = {word: kind for kind, word in _NUMBERED_WORDS.items()}


def _format(a: tuple[int, ...]) -> str:
    kind = a[0]
    if kind == END:
        return "END_TURN"
    if kind == DEFINE:
        return f"DEFINE({a[1]}, {a[2]}, {a[3]}, {RANGE_NAMES[a[4]]}, {ABILITY_NAMES[a[5]]})"
    if kind in _NUMBERED_WORDS:
        return f"{_NUMBERED_WORDS[kind]}({a[1]}, {_CELL_TEXT[a[2]]})"
    if kind == TERRAIN:
        return f"TERRAIN({TERRAIN_NAMES[a[1]]}, {_CELL_TEXT[a[2]]})"
    if kind == NO_EVENT:
        return "NO_EVENT"
    if kind == ASTEROID:
        return f"ASTEROID({_CELL_TEXT[a[1]]})"
    return "FISH_MARKET(" + ", ".join(f"({_CELL_TEXT[c]})" for c in a[1:]) + ")"


# The actions without a unit or template number or a list of cells are few:
# their texts are tabled both ways, which makes DEFINE (thousands of them in
# legal_actions) cheap to print, parse and check.
_FIXED_TEXT: dict[tuple[int, ...], str] = {
    a: _format(a)
    for a in (
        [END_TURN_ACTION, NO_EVENT_ACTION]
        + [(DEFINE, *spec) for spec in TEMPLATES]
        + [(TERRAIN, k, c) for k in TERRAIN_KINDS for c in range(CELL_COUNT)]
        + [(ASTEROID, c) for c in range(CELL_COUNT)]
    )
}
_FIXED_ACTION: dict[str, tuple[int, ...]] = {text: a for a, text in _FIXED_TEXT.items()}


def is_well_formed(action: object) -> bool:
    """Whether ``action`` is an action tuple of this game (legal or not)."""
    if type(action) is not tuple or not action:
        return False
    for x in action:
        if type(x) is not int:  # bool is excluded on purpose: True is not a number here
            return False
    return action in _FIXED_TEXT or _check_form(action)


def action_to_str(action: object) -> str:
    """The canonical text of an action (see the module's docs for the forms)."""
    if not is_well_formed(action):
        return repr(action)
    return _FIXED_TEXT.get(action) or _format(action)  # type: ignore[arg-type]


_COMMAND_RE = re.compile(r"^\s*([A-Z_]+)\s*(?:\((.*)\))?\s*$", re.S)
_INT = r"\s*([+-]?\d+)\s*"
_PAIR_RE = re.compile(r"\s*\(" + _INT + "," + _INT + r"\)\s*")
_ARITY = {"DEFINE": 5, "BUILD": 3, "MOVE": 3, "ATTACK": 3, "ABILITY": 3, "TERRAIN": 3, "ASTEROID": 2}
_FORMS = (
    "DEFINE(hp, move, dmg, range, ability), BUILD(t, r, q), MOVE(u, r, q), ATTACK(u, r, q), "
    "ABILITY(u, r, q), TERRAIN(kind, r, q), END_TURN, NO_EVENT, ASTEROID(r, q), FISH_MARKET((r, q), ...)"
)


def _int(text: str, what: str, command: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise NotationError(f"{command}: {what} must be a whole number, not {text.strip()!r}") from None


def _cell(r_text: str, q_text: str, command: str) -> int:
    r, q = _int(r_text, "r", command), _int(q_text, "q", command)
    if not on_board(r, q):
        raise NotationError(f"{command}: cell ({r}, {q}) is off the board (max(|r|, |q|, |r+q|) <= 5)")
    return INDEX[(r, q)]


def _name(text: str, names: Sequence[str], what: str, command: str, first: int = 0) -> int:
    word = text.strip()
    if word in names[first:]:
        return names.index(word)
    raise NotationError(f"{command}: {what} must be one of {', '.join(names[first:])}, not {word!r}")


def _bounded(text: str, allowed: range, what: str, command: str) -> int:
    value = _int(text, what, command)
    if value not in allowed:
        raise NotationError(f"{command}: {what} must be {allowed.start}..{allowed.stop - 1}, not {value}")
    return value


def parse_action(text: str) -> tuple[int, ...]:
    """Read a command's text; raises :class:`NotationError` saying what is wrong."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be text, not {type(text).__name__}")
    fixed = _FIXED_ACTION.get(text)
    if fixed is not None:
        return fixed
    m = _COMMAND_RE.match(text)
    if m is None:
        raise NotationError(f"not an Infinitron command: {text[:80]!r} (expected one of {_FORMS})")
    word, inside = m.groups()
    if word in ("END_TURN", "NO_EVENT"):
        if inside is not None:
            raise NotationError(f"{word} takes no arguments: {text[:80]!r}")
        return END_TURN_ACTION if word == "END_TURN" else NO_EVENT_ACTION
    if inside is None:
        raise NotationError(f"not an Infinitron command: {text[:80]!r} (expected one of {_FORMS})")
    if word == "FISH_MARKET":
        cells: list[int] = []
        rest = inside.strip()
        while rest:
            pm = _PAIR_RE.match(rest)
            if pm is None:
                raise NotationError(f"FISH_MARKET: expected cells written (r, q) separated by commas in {text[:80]!r}")
            cells.append(_cell(pm.group(1), pm.group(2), word))
            rest = rest[pm.end():]
            if rest.startswith(","):
                rest = rest[1:].lstrip()
                if not rest:
                    raise NotationError(f"FISH_MARKET: a cell is missing after the last comma in {text[:80]!r}")
        if len(set(cells)) != len(cells):
            raise NotationError(f"FISH_MARKET: a cell is listed twice in {text[:80]!r}")
        if len(cells) > FISH_TOKENS:
            raise NotationError(f"FISH_MARKET: at most {FISH_TOKENS} cells, got {len(cells)}")
        return (FISH_MARKET, *sorted(cells))
    arity = _ARITY.get(word)
    if arity is None:
        raise NotationError(f"unknown command {word!r} in {text[:80]!r} (expected one of {_FORMS})")
    args = inside.split(",")
    if len(args) != arity:
        raise NotationError(f"{word} takes {arity} arguments, got {len(args)}: {text[:80]!r}")
    if word == "DEFINE":
        return (
            DEFINE,
            _bounded(args[0], HP_POINTS, "hp", word),
            _bounded(args[1], MOVE_VALUES, "move", word),
            _bounded(args[2], DAMAGE_TENS, "dmg", word),
            _name(args[3], RANGE_NAMES, "range", word),
            _name(args[4], ABILITY_NAMES, "ability", word),
        )
    if word == "ASTEROID":
        return (ASTEROID, _cell(args[0], args[1], word))
    if word == "TERRAIN":
        return (TERRAIN, _name(args[0], TERRAIN_NAMES, "kind", word, first=1), _cell(args[1], args[2], word))
    number = _int(args[0], "the template number" if word == "BUILD" else "the unit number", word)
    if number < 0:
        raise NotationError(f"{word}: numbers are 0 or more, not {number}")
    return (_NUMBERED_KINDS[word], number, _cell(args[1], args[2], word))


# ---------------------------------------------------------------------------
# The map


class Setup:
    """What stays fixed during a game: cities, chaos, the turn limit.

    City 0 is Red's capital, city 1 Blue's, then the neutral cities in
    ascending cell order.
    """

    __slots__ = (
        "chaos",
        "max_turns",
        "cities",
        "resources",
        "terrain_values",
        "city_at",
        "territory",
        "build_zone",
        "asteroid_cells",
        "no_points",
    )

    def __init__(self, neutral_cities: Iterable[int], chaos: bool = False, max_turns: int = MAX_TURNS):
        self.chaos = chaos
        self.max_turns = max_turns
        self.cities: tuple[int, ...] = CAPITALS + tuple(sorted(neutral_cities))
        n = len(self.cities)
        self.resources = (CAPITAL_RESOURCES,) * 2 + (CITY_RESOURCES,) * (n - 2)
        self.terrain_values = (CAPITAL_TERRAIN,) * 2 + (CITY_TERRAIN,) * (n - 2)
        city_at = [-1] * CELL_COUNT
        for i, c in enumerate(self.cities):
            city_at[c] = i
        self.city_at = tuple(city_at)
        self.territory = tuple(frozenset(WITHIN_2[c]) for c in self.cities)
        self.build_zone = tuple(WITHIN_1[c] for c in self.cities)
        self.asteroid_cells = tuple(
            c
            for c in range(CELL_COUNT)
            if all(DISTANCE[c * CELL_COUNT + cap] >= CITY_MIN_DISTANCE_FROM_CAPITALS for cap in CAPITALS)
        )
        self.no_points = (0,) * n


def _uniform_index(rng: random.Random, n: int) -> int:
    # random() is the one Random method whose sequence Python keeps the same
    # across versions, so a seed gives the same draws everywhere.
    return int(rng.random() * n)


def neutral_cities_from_seed(seed: int) -> tuple[tuple[int, int], ...]:
    """The four neutral cities the rules choose with ``seed``, in ascending order.

    Two mirrored pairs ``(r, q)`` / ``(-r, -q)`` drawn uniformly, in turn, among
    the cells at distance >= 3 from both capitals and >= 2 from every city
    already placed (and from the cell's own mirror).
    """
    rng = random.Random(seed)
    capitals = [CELLS[c] for c in CAPITALS]
    placed: list[tuple[int, int]] = []
    for _ in range(NEUTRAL_CITY_PAIRS):
        candidates = [
            (r, q)
            for r, q in CELLS
            if all(hex_distance((r, q), cap) >= CITY_MIN_DISTANCE_FROM_CAPITALS for cap in capitals)
            and all(hex_distance((r, q), city) >= CITY_MIN_SPACING for city in placed)
            and hex_distance((r, q), (-r, -q)) >= CITY_MIN_SPACING
        ]
        r, q = candidates[_uniform_index(rng, len(candidates))]
        placed += [(r, q), (-r, -q)]
    return tuple(sorted(placed))


# ---------------------------------------------------------------------------
# Outcomes

RED_CAPTURES = Outcome(RED, "capital")
BLUE_CAPTURES = Outcome(BLUE, "capital")
RED_ON_SCORE = Outcome(RED, "turn_limit")
BLUE_ON_SCORE = Outcome(BLUE, "turn_limit")
DRAW_ON_SCORE = Outcome(None, "turn_limit")


# ---------------------------------------------------------------------------
# The state


class InfinitronState(GameState):
    """An Infinitron position, with the undo history of the actions that led to it."""

    __slots__ = (
        "setup",
        "ground",
        "occ",
        "units",
        "templates",
        "city_owner",
        "city_flags",
        "rp",
        "terrain_points",
        "turn",
        "commands",
        "active",
        "active_moved",
        "done",
        "chance_pending",
        "next_uid",
        "winner",
        "count",
        "_history",
        "_keep_history",
        "_reach",
    )

    def __init__(self, setup: Setup | None = None):
        """The starting position (chaos roll pending, or Red's first turn begun)."""
        self.setup = setup if setup is not None else Setup(_default_cities())
        self.ground = bytearray(CELL_COUNT)
        self.occ: list[int] = [-1] * CELL_COUNT
        self.units: list[dict[int, tuple[int, int, int]]] = [{}, {}]
        self.templates: list[tuple[Template, ...]] = [(), ()]
        n = len(self.setup.cities)
        self.city_owner: list[int] = [RED, BLUE] + [-1] * (n - 2)
        self.city_flags = bytearray(n)
        self.rp = [0, 0]
        self.terrain_points: tuple[int, ...] = self.setup.no_points
        self.turn = 0  # player turns completed; Red plays the even ones
        self.commands = 0  # commands in this turn so far, END_TURN not counted
        self.active = -1  # the unit last commanded this turn
        self.active_moved = False
        self.done: dict[int, int] = {}  # uid -> why it can do nothing more this turn
        self.chance_pending = False
        self.next_uid = [0, 0]
        self.winner: int | None = None  # set when a capital is captured
        self.count = 0
        self._history: list[tuple] = []
        self._keep_history = True
        self._reach: dict[int, tuple[list[int], frozenset[int]]] = {}
        if self.setup.chaos:
            self.chance_pending = True
        else:
            self._start_turn(RED)

    # -- queries ------------------------------------------------------------

    @property
    def current_player(self) -> int:
        return CHANCE if self.chance_pending else self.turn & 1

    @property
    def player(self) -> int:
        """Whose turn it is (RED or BLUE), also while a chaos roll is pending."""
        return self.turn & 1

    @property
    def move_count(self) -> int:
        return self.count

    @property
    def outcome(self) -> Outcome | None:
        if self.winner is not None:
            return RED_CAPTURES if self.winner == RED else BLUE_CAPTURES
        if self.turn >= self.setup.max_turns:
            red, blue = self.score(RED), self.score(BLUE)
            if red - blue >= WIN_SCORE_LEAD:
                return RED_ON_SCORE
            if blue - red >= WIN_SCORE_LEAD:
                return BLUE_ON_SCORE
            return DRAW_ON_SCORE
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None or self.turn >= self.setup.max_turns

    def score(self, player: int) -> int:
        """Resource values of the cities ``player`` controls plus the costs of its living units."""
        templates = self.templates[player]
        cities = sum(v for v, o in zip(self.setup.resources, self.city_owner) if o == player)
        return cities + sum(templates[t].cost for _, _, t in self.units[player].values())

    def income(self, player: int) -> int:
        return sum(v for v, o in zip(self.setup.resources, self.city_owner) if o == player)

    def unit_at(self, r: int, q: int) -> tuple[int, int] | None:
        """``(player, uid)`` of the unit on a cell, or None."""
        o = self.occ[cell_of(r, q)]
        return None if o < 0 else (o & 1, o >> 1)

    def unit(self, player: int, uid: int) -> tuple[tuple[int, int], int, Template] | None:
        """``((r, q), hp, template)`` of a living unit, or None."""
        u = self.units[player].get(uid)
        if u is None:
            return None
        return CELLS[u[0]], u[1], self.templates[player][u[2]]

    def terrain_at(self, r: int, q: int) -> str:
        """``PLAIN``, ``BLOCK``, ``LAVA``, ``REPAIR``, ``LABEL`` or ``FISH`` (a fish token on plain ground)."""
        g = self.ground[cell_of(r, q)]
        return "FISH" if g == FISH else TERRAIN_NAMES[g]

    def city_cells(self) -> list[tuple[int, int]]:
        """Every city's cell: Red's capital, Blue's, then the neutral ones."""
        return [CELLS[c] for c in self.setup.cities]

    def legal_actions(self) -> list[tuple[int, ...]]:
        """Every legal command of the player to move ([] while chance acts or once over)."""
        if self.chance_pending or self.is_over:
            return []
        if self.commands >= MAX_COMMANDS:
            return [END_TURN_ACTION]
        p = self.turn & 1
        rp = self.rp[p]
        templates = self.templates[p]
        units = self.units[p]
        occ = self.occ
        acts: list[tuple[int, ...]] = []
        if len(templates) < MAX_TEMPLATES and rp >= DEFINE_PRICE:
            acts.extend(ALL_DEFINES)
        if len(units) < MAX_UNITS:
            affordable = [t for t, tm in enumerate(templates) if tm.cost <= rp]
            if affordable:
                cells = self._build_cells(p)
                for t in affordable:
                    acts.extend([(BUILD, t, c) for c in cells])
        enemy = self.units[1 - p]
        done = self.done
        for uid, (cell, _, t) in units.items():
            if uid in done:
                continue
            tm = templates[t]
            if tm.budget and not (uid == self.active and self.active_moved):
                acts.extend([(MOVE, uid, c) for c in self._destinations(uid, cell, tm)[0]])
            if tm.damage:
                lo, hi = tm.min_range, tm.max_range
                base = cell * CELL_COUNT
                for ecell, _, _ in enemy.values():
                    d = DISTANCE[base + ecell]
                    if lo <= d <= hi and (d < 2 or all(occ[b] < 0 for b in BLOCKERS[base + ecell])):
                        acts.append((ATTACK, uid, ecell))
            ab = tm.ability
            if ab and ab != SWIFT and rp >= ABILITY_PRICES[ab]:
                if ab <= HEAL2:
                    acts.extend([(ABILITY, uid, c) for c in WITHIN_1[cell] if occ[c] >= 0 and occ[c] & 1 == p])
                else:
                    acts.extend([(ABILITY, uid, c) for c in WITHIN_2[cell]])
        if any(self.terrain_points):
            cells = self._terrain_cells()
            for kind in TERRAIN_KINDS:
                acts.extend([(TERRAIN, kind, c) for c in cells])
        acts.append(END_TURN_ACTION)
        return acts

    def _build_cells(self, p: int) -> list[int]:
        setup, occ, ground = self.setup, self.occ, self.ground
        zone: set[int] = set()
        for i, owner in enumerate(self.city_owner):
            if owner == p:
                zone.update(setup.build_zone[i])
        return [c for c in sorted(zone) if occ[c] < 0 and ground[c] != BLOCK]

    def _terrain_cells(self) -> list[int]:
        setup, occ, ground = self.setup, self.occ, self.ground
        zone: set[int] = set()
        for i, points in enumerate(self.terrain_points):
            if points:
                zone |= setup.territory[i]
        city_at = setup.city_at
        return [c for c in sorted(zone) if ground[c] == PLAIN and occ[c] < 0 and city_at[c] < 0]

    def _destinations(self, uid: int, start: int, tm: Template) -> tuple[list[int], frozenset[int]]:
        """A unit's MOVE destinations as a sorted list and a set, cached until the next change."""
        found = self._reach.get(uid)
        if found is None:
            cells = self._reachable(start, tm)
            found = self._reach[uid] = (cells, frozenset(cells))
        return found

    def _reachable(self, start: int, tm: Template) -> list[int]:
        """Cells a unit on ``start`` can MOVE to: cheapest paths over empty passable cells."""
        occ, ground = self.occ, self.ground
        budget = tm.budget
        if not tm.swift:
            seen = {start}
            frontier = [start]
            for _ in range(tm.move):
                nxt = []
                for c in frontier:
                    for _, n in STEPS[c]:
                        if n not in seen and occ[n] < 0 and ground[n] != BLOCK:
                            seen.add(n)
                            nxt.append(n)
                frontier = nxt
            seen.discard(start)
            return sorted(seen)
        best = {start: 0}
        buckets: list[list[int]] = [[] for _ in range(budget + 1)]
        buckets[0].append(start)
        for cost in range(budget + 1):
            for c in buckets[cost]:
                if best[c] != cost:
                    continue
                for _, n in STEPS[c]:
                    g = ground[n]
                    if occ[n] >= 0 or g == BLOCK:
                        continue
                    nc = cost + (1 if g == LABEL else 2)
                    if nc <= budget and nc < best.get(n, budget + 1):
                        best[n] = nc
                        buckets[nc].append(n)
        del best[start]
        return sorted(best)

    def move_path(self, start: int, target: int, tm: Template) -> list[int] | None:
        """The cells a MOVE from ``start`` to ``target`` enters, in order, or None.

        Among paths within the unit's movement allowance: fewest steps, then
        fewest LAVA cells entered, then the earliest directions (compared
        step by step in direction order).  Keeping the best partial path per
        (cell, points used) is exact, because extending two partial paths by
        the same steps keeps their order.
        """
        occ, ground = self.occ, self.ground
        budget, swift = tm.budget, tm.swift
        layer: dict[tuple[int, int], tuple[int, tuple[int, ...], tuple[int, ...]]] = {(start, 0): (0, (), ())}
        for _ in range(budget):
            nxt: dict[tuple[int, int], tuple[int, tuple[int, ...], tuple[int, ...]]] = {}
            for (cell, used), (lava, dirs, path) in layer.items():
                for d, n in STEPS[cell]:
                    g = ground[n]
                    if occ[n] >= 0 or g == BLOCK:
                        continue
                    nu = used + (1 if swift and g == LABEL else 2)
                    if nu > budget:
                        continue
                    value = (lava + (g == LAVA), dirs + (d,), path + (n,))
                    key = (n, nu)
                    old = nxt.get(key)
                    if old is None or value[:2] < old[:2]:
                        nxt[key] = value
            arrivals = [v for (c, _), v in nxt.items() if c == target]
            if arrivals:
                return list(min(arrivals)[2])
            if not nxt:
                return None
            layer = nxt
        return None

    def is_legal(self, action: object) -> bool:
        return self.illegal_reason(action) is None

    def illegal_reason(self, action: object) -> str | None:
        if not is_well_formed(action):
            return f"not an Infinitron action: {action!r}"
        a: Any = action
        kind = a[0]
        if self.is_over:
            return "the game is over"
        if kind in CHANCE_KINDS:
            if not self.chance_pending:
                return "chaos events are chance's actions: none is due now (they come before RED's turns, with chaos on)"
            return self._chance_problem(a)
        if self.chance_pending:
            return "a chaos roll is due before RED's turn: chance acts now, not a player"
        p = self.turn & 1
        me = PLAYER_NAMES[p]
        if kind == END:
            return None
        if self.commands >= MAX_COMMANDS:
            return f"{me} has given the {MAX_COMMANDS} commands a turn allows; the next must be END_TURN"
        rp = self.rp[p]
        templates = self.templates[p]
        if kind == DEFINE:
            if len(templates) >= MAX_TEMPLATES:
                return f"{me} already has {MAX_TEMPLATES} templates, the most allowed"
            problem = _define_problem(*a[1:])
            if problem:
                return problem
            if rp < DEFINE_PRICE:
                return f"DEFINE costs {DEFINE_PRICE} RP and {me} has {rp}"
            return None
        cell = a[2]
        where = f"({_cell_text(cell)})"
        occupant = self.occ[cell]
        if kind == BUILD:
            t = a[1]
            if t >= len(templates):
                return f"{me} has no template {t} (it has {len(templates)})"
            if len(self.units[p]) >= MAX_UNITS:
                return f"{me} already has {MAX_UNITS} living units, the most allowed"
            cost = templates[t].cost
            if rp < cost:
                return f"template {t} costs {cost} RP and {me} has {rp}"
            if occupant >= 0:
                return f"cell {where} holds {PLAYER_NAMES[occupant & 1]} unit {occupant >> 1}"
            if self.ground[cell] == BLOCK:
                return f"cell {where} is BLOCK (impassable)"
            if cell not in self._build_cells(p):
                return f"cell {where} is not within distance {BUILD_RADIUS} of a city {me} controls"
            return None
        if kind == TERRAIN:
            if not any(self.terrain_points):
                return f"{me} holds no terrain points"
            g = self.ground[cell]
            if self._terrain_pool(cell) < 0:
                holders = ", ".join(
                    f"({_cell_text(self.setup.cities[i])})" for i, pts in enumerate(self.terrain_points) if pts
                )
                return f"cell {where} is not in the territory of a city that gave {me} terrain points ({holders})"
            if self.setup.city_at[cell] >= 0:
                return f"cell {where} is a city"
            if g != PLAIN:
                return f"cell {where} is not plain: it holds " + ("a fish token" if g == FISH else TERRAIN_NAMES[g])
            if occupant >= 0:
                return f"cell {where} holds {PLAYER_NAMES[occupant & 1]} unit {occupant >> 1}"
            return None
        # MOVE, ATTACK, ABILITY: commands to a unit.
        uid = a[1]
        unit = self.units[p].get(uid)
        if unit is None:
            return f"{me} has no living unit {uid}"
        if uid in self.done:
            return f"{me} unit {uid} {_DONE_TEXT[self.done[uid]]}"
        ucell, _, t = unit
        tm = templates[t]
        distance = DISTANCE[ucell * CELL_COUNT + cell]
        if kind == MOVE:
            if uid == self.active and self.active_moved:
                return f"{me} unit {uid} has already moved this turn"
            if tm.budget == 0:
                return f"{me} unit {uid} has Move 0"
            if cell == ucell:
                return f"{me} unit {uid} is already on {where}"
            if occupant >= 0:
                return f"cell {where} holds {PLAYER_NAMES[occupant & 1]} unit {occupant >> 1}"
            if self.ground[cell] == BLOCK:
                return f"cell {where} is BLOCK (impassable)"
            if cell not in self._destinations(uid, ucell, tm)[1]:
                swift = " (SWIFT: 1/2 point onto LABEL)" if tm.swift else ""
                return (
                    f"no path of steps over empty passable cells from ({_cell_text(ucell)}) to {where} "
                    f"fits {me} unit {uid}'s Move {tm.move}{swift}"
                )
            return None
        if kind == ATTACK:
            if not tm.damage:
                return f"{me} unit {uid}'s template has no attack (dmg 0)"
            if occupant < 0:
                return f"no unit on {where} to attack"
            if occupant & 1 == p:
                return f"cell {where} holds {me}'s own unit {occupant >> 1}"
            if not tm.min_range <= distance <= tm.max_range:
                reach = f"<= {tm.max_range}" if tm.min_range == 1 else f"{tm.min_range} or {tm.max_range}"
                return (
                    f"the target is at distance {distance}; {me} unit {uid}'s {RANGE_NAMES[tm.range]} attack "
                    f"reaches distance {reach}"
                )
            if distance >= 2:
                for b in BLOCKERS[ucell * CELL_COUNT + cell]:
                    o = self.occ[b]
                    if o >= 0:
                        return (
                            f"the line from ({_cell_text(ucell)}) to {where} is blocked by "
                            f"{PLAYER_NAMES[o & 1]} unit {o >> 1} on ({_cell_text(b)})"
                        )
            return None
        # ABILITY
        ab = tm.ability
        if ab == NONE:
            return f"{me} unit {uid}'s template has no ability"
        if ab == SWIFT:
            return "SWIFT is passive: it is never used with ABILITY"
        price = ABILITY_PRICES[ab]
        if ab <= HEAL2:
            if distance > HEAL_REACH:
                return f"{ABILITY_NAMES[ab]} reaches distance <= {HEAL_REACH}; {where} is at distance {distance}"
            if occupant < 0 or occupant & 1 != p:
                return f"no {me} unit on {where} to heal"
        elif distance > BLAST_REACH:
            return f"{ABILITY_NAMES[ab]} targets a cell at distance <= {BLAST_REACH}; {where} is at distance {distance}"
        if rp < price:
            return f"{ABILITY_NAMES[ab]} costs {price} RP and {me} has {rp}"
        return None

    def _terrain_pool(self, cell: int) -> int:
        """The city whose terrain points pay for terrain on ``cell``: the lowest-numbered with points."""
        territory = self.setup.territory
        for i, points in enumerate(self.terrain_points):
            if points and cell in territory[i]:
                return i
        return -1

    # -- chance ---------------------------------------------------------------

    def _fish_cells(self) -> list[int]:
        """Cells a fish token may be put on: plain, empty, not a city."""
        occ, ground, city_at = self.occ, self.ground, self.setup.city_at
        return [c for c in range(CELL_COUNT) if ground[c] == PLAIN and occ[c] < 0 and city_at[c] < 0]

    def _chance_problem(self, a: tuple[int, ...]) -> str | None:
        kind = a[0]
        if kind == NO_EVENT:
            return None
        if kind == ASTEROID:
            if a[1] not in self.setup.asteroid_cells:
                return f"an asteroid falls at distance >= 3 from both capitals; ({_cell_text(a[1])}) is not"
            return None
        free = self._fish_cells()
        wanted = min(FISH_TOKENS, len(free))
        if len(a) - 1 != wanted:
            return f"FISH_MARKET puts {wanted} fish tokens (one per cell), not {len(a) - 1}"
        allowed = set(free)
        for c in a[1:]:
            if c not in allowed:
                return f"a fish token goes on an empty plain cell that is not a city; ({_cell_text(c)}) is not one"
        return None

    def sample_chance(self, rng: random.Random) -> tuple[int, ...]:
        """Draw the chaos roll: ``NO_EVENT`` (11 in 12), else ``ASTEROID`` or ``FISH_MARKET`` evenly.

        Uses only ``rng.random()``, whose sequence Python keeps the same across
        versions, so a seeded game replays identically.
        """
        if not self.chance_pending:
            raise ValueError("no chaos roll is due: current_player is not CHANCE")
        if _uniform_index(rng, CHAOS_ODDS) != 0:
            return NO_EVENT_ACTION
        if _uniform_index(rng, 2) == 0:
            cells = self.setup.asteroid_cells
            return (ASTEROID, cells[_uniform_index(rng, len(cells))])
        free = self._fish_cells()
        chosen = []
        for _ in range(min(FISH_TOKENS, len(free))):
            chosen.append(free.pop(_uniform_index(rng, len(free))))
        return (FISH_MARKET, *sorted(chosen))

    # -- changes ------------------------------------------------------------

    def _snapshot(self) -> tuple:
        return (
            bytes(self.ground),
            self.occ.copy(),
            self.units[0].copy(),
            self.units[1].copy(),
            self.templates[0],
            self.templates[1],
            self.city_owner.copy(),
            bytes(self.city_flags),
            self.rp[0],
            self.rp[1],
            self.terrain_points,
            self.turn,
            self.commands,
            self.active,
            self.active_moved,
            self.done.copy(),
            self.chance_pending,
            self.next_uid[0],
            self.next_uid[1],
            self.winner,
            self.count,
        )

    def undo(self) -> None:
        if not self._history:
            raise IndexError("no action to undo")
        self._reach = {}
        (
            ground,
            occ,
            units0,
            units1,
            t0,
            t1,
            owner,
            flags,
            rp0,
            rp1,
            self.terrain_points,
            self.turn,
            self.commands,
            self.active,
            self.active_moved,
            done,
            self.chance_pending,
            n0,
            n1,
            self.winner,
            self.count,
        ) = self._history.pop()
        # Containers are copied back, so snapshots shared with copies of this
        # state are never mutated.
        self.ground[:] = ground
        self.occ = occ.copy()
        self.units = [units0.copy(), units1.copy()]
        self.templates = [t0, t1]
        self.city_owner = owner.copy()
        self.city_flags[:] = flags
        self.rp = [rp0, rp1]
        self.done = done.copy()
        self.next_uid = [n0, n1]

    def apply(self, action: tuple[int, ...]) -> None:  # type: ignore[override]
        self._reach = {}
        if self._keep_history:
            self._history.append(self._snapshot())
        self.count += 1
        kind = action[0]
        if kind == END:
            self._end_turn()
            return
        if kind >= NO_EVENT:
            self._chaos(action)
            return
        self.commands += 1
        p = self.turn & 1
        if kind == MOVE:
            self._command(action[1])
            self._move(p, action[1], action[2])
        elif kind == ATTACK:
            uid = action[1]
            self._command(uid)
            self.done[uid] = DONE_ACTED
            self.active = -1
            cell, _, t = self.units[p][uid]
            self._damage(action[2], self.templates[p][t].damage)
        elif kind == ABILITY:
            uid = action[1]
            self._command(uid)
            self.done[uid] = DONE_ACTED
            self.active = -1
            cell, _, t = self.units[p][uid]
            ab = self.templates[p][t].ability
            self.rp[p] -= ABILITY_PRICES[ab]
            target = action[2]
            if ab <= HEAL2:
                self._heal(p, self.occ[target] >> 1, ABILITY_AMOUNTS[ab])
            else:
                for c in WITHIN_1[target]:
                    self._damage(c, ABILITY_AMOUNTS[ab])
                if uid not in self.units[p]:
                    del self.done[uid]
        elif kind == BUILD:
            tm = self.templates[p][action[1]]
            self.rp[p] -= tm.cost
            uid = self.next_uid[p]
            self.next_uid[p] = uid + 1
            self.units[p][uid] = (action[2], tm.max_hp, action[1])
            self.occ[action[2]] = uid * 2 + p
            self.done[uid] = DONE_BUILT
        elif kind == DEFINE:
            self.rp[p] -= DEFINE_PRICE
            self.templates[p] = self.templates[p] + (TEMPLATES[action[1:]],)
        else:  # TERRAIN
            pool = self._terrain_pool(action[2])
            points = list(self.terrain_points)
            points[pool] -= 1
            self.terrain_points = tuple(points)
            self.ground[action[2]] = action[1]

    def _command(self, uid: int) -> None:
        """Commanding another unit ends the previously commanded one's turn."""
        active = self.active
        if active != uid:
            if active >= 0 and active not in self.done and active in self.units[self.turn & 1]:
                self.done[active] = DONE_SUPERSEDED
            self.active = uid
            self.active_moved = False

    def _move(self, p: int, uid: int, target: int) -> None:
        units = self.units[p]
        start, hp, t = units[uid]
        path = self.move_path(start, target, self.templates[p][t])
        if path is None:  # unchecked apply of an illegal MOVE: refuse rather than corrupt
            raise ValueError(f"MOVE({uid}, {_cell_text(target)}): no path")
        ground = self.ground
        self.occ[start] = -1
        self.active_moved = True
        for c in path:
            g = ground[c]
            if g == FISH:
                ground[c] = PLAIN
                self.rp[p] += 1
            elif g == LAVA:
                hp -= LAVA_DAMAGE
                if hp <= 0:  # killed on the way: it stops (and is removed) there
                    del units[uid]
                    return
        units[uid] = (target, hp, t)
        self.occ[target] = uid * 2 + p
        self._capture(p, target)

    def _capture(self, p: int, cell: int) -> None:
        setup = self.setup
        i = setup.city_at[cell]
        if i < 0 or self.city_owner[i] == p or self.city_flags[i] & DESTROYED:
            return
        territory = setup.territory[i]
        for ecell, _, _ in self.units[1 - p].values():
            if ecell in territory:
                return
        self.city_owner[i] = p
        if i == 1 - p:  # the opponent's capital
            self.winner = p
        elif i >= 2 and not self.city_flags[i] & CLAIMED:
            self.city_flags[i] |= CLAIMED
            points = list(self.terrain_points)
            points[i] += setup.terrain_values[i]
            self.terrain_points = tuple(points)

    def _damage(self, cell: int, amount: int) -> None:
        o = self.occ[cell]
        if o < 0:
            return
        owner, uid = o & 1, o >> 1
        units = self.units[owner]
        ucell, hp, t = units[uid]
        hp -= amount
        if hp <= 0:
            del units[uid]
            self.occ[cell] = -1
        else:
            units[uid] = (ucell, hp, t)

    def _heal(self, p: int, uid: int, amount: int) -> None:
        cell, hp, t = self.units[p][uid]
        self.units[p][uid] = (cell, min(hp + amount, self.templates[p][t].max_hp), t)

    def _end_turn(self) -> None:
        self.terrain_points = self.setup.no_points  # unspent points lapse
        self.turn += 1
        self.commands = 0
        self.active = -1
        self.active_moved = False
        self.done = {}
        if self.turn >= self.setup.max_turns:
            return
        p = self.turn & 1
        if p == RED and self.setup.chaos:
            self.chance_pending = True
        else:
            self._start_turn(p)

    def _start_turn(self, p: int) -> None:
        """Income, then repair pads (lowest unit first, while RP lasts), then first-turn terrain points."""
        self.rp[p] += self.income(p)
        units = self.units[p]
        templates = self.templates[p]
        ground = self.ground
        for uid, (cell, hp, t) in units.items():
            if ground[cell] == REPAIR and self.rp[p] >= REPAIR_PRICE:
                max_hp = templates[t].max_hp
                if hp < max_hp:
                    units[uid] = (cell, min(hp + REPAIR_HEAL, max_hp), t)
                    self.rp[p] -= REPAIR_PRICE
        if self.turn == p:  # the player's first turn: its capital's terrain value
            points = list(self.terrain_points)
            points[p] += self.setup.terrain_values[p]
            self.terrain_points = tuple(points)

    def _chaos(self, action: tuple[int, ...]) -> None:
        self.chance_pending = False
        kind = action[0]
        if kind == ASTEROID:
            setup = self.setup
            for c in WITHIN_2[action[1]]:
                o = self.occ[c]
                if o >= 0:
                    del self.units[o & 1][o >> 1]
                    self.occ[c] = -1
                self.ground[c] = BLOCK
                i = setup.city_at[c]
                if i >= 0:
                    self.city_flags[i] |= DESTROYED
                    self.city_owner[i] = -1
        elif kind == FISH_MARKET:
            for c in action[1:]:
                self.ground[c] = FISH
        self._start_turn(RED)

    # -- copies, keys, text ----------------------------------------------------

    def copy(self) -> InfinitronState:
        other = self._bare_copy()
        other._history = self._history.copy()
        return other

    def copy_without_history(self) -> InfinitronState:
        """A copy that cannot undo past this point and keeps no history (for playouts)."""
        other = self._bare_copy()
        other._history = []
        other._keep_history = False
        return other

    def _bare_copy(self) -> InfinitronState:
        other = InfinitronState.__new__(InfinitronState)
        other.setup = self.setup
        other.ground = bytearray(self.ground)
        other.occ = self.occ.copy()
        other.units = [self.units[0].copy(), self.units[1].copy()]
        other.templates = list(self.templates)
        other.city_owner = self.city_owner.copy()
        other.city_flags = bytearray(self.city_flags)
        other.rp = self.rp.copy()
        other.terrain_points = self.terrain_points
        other.turn = self.turn
        other.commands = self.commands
        other.active = self.active
        other.active_moved = self.active_moved
        other.done = self.done.copy()
        other.chance_pending = self.chance_pending
        other.next_uid = self.next_uid.copy()
        other.winner = self.winner
        other.count = self.count
        other._keep_history = self._keep_history
        other._reach = {}
        return other

    def key(self) -> Hashable:
        """Everything that decides the rest of the game, so never a collision.

        Unit dicts are in building order, which is uid order, so their items
        are already canonical.
        """
        return (
            self.turn,
            self.chance_pending,
            self.commands,
            self.active,
            self.active_moved,
            tuple(sorted(self.done.items())),
            tuple(self.rp),
            tuple(tuple(t[:5] for t in ts) for ts in self.templates),
            tuple(self.units[0].items()),
            tuple(self.units[1].items()),
            tuple(self.next_uid),
            bytes(self.ground),
            tuple(self.city_owner),
            bytes(self.city_flags),
            self.terrain_points,
            self.winner,
            self.setup.cities,
            self.setup.chaos,
            self.setup.max_turns,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InfinitronState):
            return NotImplemented
        return self.count == other.count and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable: use key()

    def action_to_str(self, action: object) -> str:
        return action_to_str(action)

    def parse_action(self, text: str) -> tuple[int, ...]:
        return parse_action(text)

    def __repr__(self) -> str:
        return f"InfinitronState({self.summary()})"

    def render(self, use_color: bool = False, use_unicode: bool = False) -> str:
        from .render import render_state

        return render_state(self, use_color=use_color, use_unicode=use_unicode)

    def summary(self) -> str:
        parts = []
        for p in (RED, BLUE):
            cities = sum(1 for o in self.city_owner if o == p)
            parts.append(
                f"{PLAYER_NAMES[p]} RP {self.rp[p]}, {cities} {'city' if cities == 1 else 'cities'}, "
                f"{len(self.units[p])} units, score {self.score(p)}"
            )
        return f"turn {min(self.turn + 1, self.setup.max_turns)} of {self.setup.max_turns}; " + "; ".join(parts)

    # -- random play (benchmarks and MCTS) --------------------------------------

    def random_playout(self, rng: random.Random, max_actions: int | None = None) -> Outcome | None:
        """Play uniformly random commands (chance from ``rng`` too) to the end.

        Returns the outcome, or None if ``max_actions`` ran out first.  Keeps
        no undo records while it plays.
        """
        keep, self._keep_history = self._keep_history, False
        try:
            played = 0
            while not self.is_over:
                if max_actions is not None and played >= max_actions:
                    return None
                if self.chance_pending:
                    self.apply(self.sample_chance(rng))
                else:
                    legal = self.legal_actions()
                    self.apply(legal[int(rng.random() * len(legal))])
                played += 1
            return self.outcome
        finally:
            self._keep_history = keep

    # -- setting up positions (tests, puzzles) ----------------------------------

    def setup_template(self, player: int, hp: int, move: int, dmg: int, range_: str, ability: str) -> int:
        """Give ``player`` a template without paying for it; returns its number.

        Position set-up only: it clears the undo history.
        """
        spec = define(hp, move, dmg, range_, ability)[1:]
        problem = _define_problem(*spec)
        if problem:
            raise ValueError(problem)
        self.templates[player] = self.templates[player] + (TEMPLATES[spec],)
        self._history.clear()
        self._reach = {}
        return len(self.templates[player]) - 1

    def setup_unit(self, player: int, template: int, r: int, q: int, hp: int | None = None) -> int:
        """Put a unit of ``player``'s template on an empty cell; returns its number."""
        cell = cell_of(r, q)
        if self.occ[cell] >= 0:
            raise ValueError(f"({r}, {q}) is occupied")
        tm = self.templates[player][template]
        uid = self.next_uid[player]
        self.next_uid[player] = uid + 1
        self.units[player][uid] = (cell, tm.max_hp if hp is None else hp, template)
        self.occ[cell] = uid * 2 + player
        self._history.clear()
        self._reach = {}
        return uid

    def setup_ground(self, kind: str, r: int, q: int) -> None:
        """Set a cell's ground: PLAIN, BLOCK, LAVA, REPAIR, LABEL or FISH."""
        self.ground[cell_of(r, q)] = FISH if kind == "FISH" else TERRAIN_NAMES.index(kind)
        self._history.clear()
        self._reach = {}

    def setup_city_owner(self, r: int, q: int, player: int | None) -> None:
        """Give a city to a player (or make it neutral with None)."""
        i = self.setup.city_at[cell_of(r, q)]
        if i < 0:
            raise ValueError(f"({r}, {q}) is not a city")
        self.city_owner[i] = -1 if player is None else player
        self._history.clear()
        self._reach = {}


def _default_cities() -> Iterable[int]:
    return (INDEX[rq] for rq in neutral_cities_from_seed(0))


# ---------------------------------------------------------------------------
# The game


class Infinitron(Game):
    """Infinitron Skirmish.

    Options: ``chaos`` (bool, default False); ``seed`` (int, default 0): chooses
    the neutral cities; ``cities`` (a list of ``[r, q]`` cells): the neutral
    cities given outright, taking precedence over ``seed``; ``max_turns``
    (default 343): the turn limit, for short games in tests.
    """

    name = "infinitron"
    reasons = ("capital", "turn_limit")
    one_action_per_turn = False

    def __init__(self, **options: Any):
        check_options(self.name, options, ("chaos", "seed", "cities", "max_turns"))
        super().__init__(**options)
        chaos = options.get("chaos", False)
        if type(chaos) is not bool:
            raise GameOptionError(f"infinitron: option chaos must be true or false, not {chaos!r}")
        max_turns = options.get("max_turns", MAX_TURNS)
        if type(max_turns) is not int or not 1 <= max_turns <= 100_000:
            raise GameOptionError(f"infinitron: option max_turns must be a whole number 1..100000, not {max_turns!r}")
        if options.get("cities") is not None:
            neutral = _cities_option(options["cities"])
        else:
            seed = options.get("seed")
            if seed is None:
                seed = 0
            if type(seed) is not int:
                raise GameOptionError(f"infinitron: option seed must be a whole number, not {seed!r}")
            neutral = neutral_cities_from_seed(seed)
        self.neutral_cities: tuple[tuple[int, int], ...] = tuple(sorted(neutral))
        self.setup = Setup((INDEX[rq] for rq in self.neutral_cities), chaos=chaos, max_turns=max_turns)

    def new_state(self) -> InfinitronState:
        return InfinitronState(self.setup)

    @property
    def agent_kwargs(self) -> dict[str, Any]:
        return {"neutral_cities": [list(rq) for rq in self.neutral_cities]}

    @classmethod
    def seeded_options(cls, options: Mapping[str, Any], seed: int | None) -> dict[str, Any]:
        """The game seed places the cities, unless the options fix them (``seed`` or ``cities``)."""
        out = dict(options)
        if seed is not None and "seed" not in out and "cities" not in out:
            out["seed"] = seed
        return out


def _cities_option(value: object) -> list[tuple[int, int]]:
    if not isinstance(value, (list, tuple)):
        raise GameOptionError(f"infinitron: option cities must be a list of [r, q] cells, not {value!r}")
    cells: list[tuple[int, int]] = []
    for i, item in enumerate(value):
        if (
            not isinstance(item, (list, tuple))
            or len(item) != 2
            or not all(type(x) is int for x in item)
        ):
            raise GameOptionError(f"infinitron: option cities, item {i}: expected [r, q] with whole numbers, not {item!r}")
        r, q = item
        if not on_board(r, q):
            raise GameOptionError(f"infinitron: option cities, item {i}: ({r}, {q}) is off the board")
        if INDEX[(r, q)] in CAPITALS:
            raise GameOptionError(f"infinitron: option cities, item {i}: ({r}, {q}) is a capital")
        if (r, q) in cells:
            raise GameOptionError(f"infinitron: option cities, item {i}: ({r}, {q}) is listed twice")
        cells.append((r, q))
    return cells
