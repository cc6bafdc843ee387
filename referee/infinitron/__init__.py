"""The Infinitron commands agents exchange with the referee.

An agent's ``action()`` returns one command object (or its canonical text);
``turn(color, action)`` receives every command as an object, and every chaos
event with ``color`` None.  Each object's ``str()`` is its canonical text::

    from referee.infinitron import Define, Build, Move, EndTurn

    Define(1, 2, 3, "MEDIUM", "NONE")   # DEFINE(1, 2, 3, MEDIUM, NONE)
    Define(2, 1, 2, "MELEE", "NONE", "+00-00")  # DEFINE(2, 1, 2, MELEE, NONE, +00-00): option armour
    Build(0, (3, -1))                   # BUILD(0, 3, -1)
    Move(4, (2, 0))                     # MOVE(4, 2, 0): one step
    Claim(2, (1, 1))                    # CLAIM(2, 1, 1): city 2's territory gets (1, 1)
    EndTurn()                           # END_TURN

Cells are ``(r, q)`` pairs (a :class:`Cell` or any pair of ints).  Numbers
may be of any integer type (numpy's, anything with ``__index__``), not bool.
:func:`to_engine_action` and :func:`from_engine_action` convert to and from
the engine's actions (``referee.games.infinitron``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple, cast

from ..game.player import PlayerColor
from ..games.base import NotationError, whole_number
from ..games.infinitron import engine as _engine
from ..games.infinitron.geometry import CELLS, INDEX

RANGES = _engine.RANGE_NAMES
ABILITIES = _engine.ABILITY_NAMES
TERRAIN_KINDS = tuple(_engine.TERRAIN_NAMES[k] for k in _engine.TERRAIN_KINDS)


class Cell(NamedTuple):
    """A cell ``(r, q)`` of the hexagon: ``max(|r|, |q|, |r+q|) <= 5``."""

    r: int
    q: int

    def __str__(self) -> str:
        return f"{self.r}, {self.q}"


@dataclass(frozen=True, slots=True)
class Define:
    """``DEFINE(hp, move, dmg, range, ability[, armour])``: a new unit template (2 RP).

    ``armour`` is six characters of ``+ 0 -`` (game option ``armour``);
    ``"000000"`` (the default) is no armour and is not written.  Its ``str()``
    is the canonical text: a template with dmg 0 writes its range MELEE.
    """

    hp: int
    move: int
    dmg: int
    range: str
    ability: str
    armour: str = "000000"

    def __str__(self) -> str:
        range_ = self.range if self.dmg else "MELEE"
        armour = "" if self.armour == "000000" else f", {self.armour}"
        return f"DEFINE({self.hp}, {self.move}, {self.dmg}, {range_}, {self.ability}{armour})"


@dataclass(frozen=True, slots=True)
class Build:
    """``BUILD(t, r, q)``: a unit of template ``template`` on ``cell``."""

    template: int
    cell: Cell

    def __str__(self) -> str:
        return f"BUILD({self.template}, {Cell(*self.cell)})"


@dataclass(frozen=True, slots=True)
class _UnitCommand:
    """A command to one of the player's units: ``WORD(u, r, q)``."""

    unit: int
    cell: Cell
    word: ClassVar[str] = ""

    def __str__(self) -> str:
        return f"{self.word}({self.unit}, {Cell(*self.cell)})"


class Move(_UnitCommand):
    """``MOVE(u, r, q)``: unit ``unit`` goes to ``cell``."""

    __slots__ = ()
    word = "MOVE"


class Attack(_UnitCommand):
    """``ATTACK(u, r, q)``: unit ``unit`` attacks the enemy unit on ``cell``."""

    __slots__ = ()
    word = "ATTACK"


class Ability(_UnitCommand):
    """``ABILITY(u, r, q)``: unit ``unit`` uses its HEAL or BLAST on ``cell``."""

    __slots__ = ()
    word = "ABILITY"


@dataclass(frozen=True, slots=True)
class Claim:
    """``CLAIM(c, r, q)``: add ``cell`` to city ``city``'s territory (cities numbered as in the setup)."""

    city: int
    cell: Cell

    def __str__(self) -> str:
        return f"CLAIM({self.city}, {Cell(*self.cell)})"


@dataclass(frozen=True, slots=True)
class Terrain:
    """``TERRAIN(kind, r, q)``: spend a terrain point on ``cell``."""

    kind: str
    cell: Cell

    def __str__(self) -> str:
        return f"TERRAIN({self.kind}, {Cell(*self.cell)})"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """``END_TURN``."""

    def __str__(self) -> str:
        return "END_TURN"


@dataclass(frozen=True, slots=True)
class NoEvent:
    """Chance: the chaos roll brought no event (``NO_EVENT``)."""

    def __str__(self) -> str:
        return "NO_EVENT"


@dataclass(frozen=True, slots=True)
class Asteroid:
    """Chance: ``ASTEROID(r, q)`` destroyed the units within distance 1 of ``cell``, leaving rubble."""

    cell: Cell

    def __str__(self) -> str:
        return f"ASTEROID({Cell(*self.cell)})"


@dataclass(frozen=True, slots=True)
class FishMarket:
    """Chance: ``FISH_MARKET((r, q), ...)`` put fish tokens on ``cells`` (ascending)."""

    cells: tuple[Cell, ...]

    def __str__(self) -> str:
        return "FISH_MARKET(" + ", ".join(f"({Cell(*c)})" for c in self.cells) + ")"


Command = Define | Build | Move | Attack | Ability | Terrain | Claim | EndTurn
ChaosEvent = NoEvent | Asteroid | FishMarket

_UNIT_KINDS: dict[type[Build | Move | Attack | Ability | Claim], int] = {
    Build: _engine.BUILD,
    Claim: _engine.CLAIM,
    Move: _engine.MOVE,
    Attack: _engine.ATTACK,
    Ability: _engine.ABILITY,
}
_UNIT_CLASSES = {kind: cls for cls, kind in _UNIT_KINDS.items()}


def _cell_index(cell: object) -> int | None:
    if not isinstance(cell, tuple) or len(cell) != 2:
        return None
    r, q = whole_number(cell[0]), whole_number(cell[1])
    if r is None or q is None:
        return None
    return INDEX.get((r, q))


def to_engine_action(obj: object) -> tuple[int, ...] | None:
    """The engine action for a command object or its canonical text, or None.

    None means the object is not an Infinitron command at all (unknown type,
    a number that is not an int, a cell off the board, an unknown range,
    ability or terrain name).  A well-formed command that the rules forbid
    (a template costing 13, say) converts; the referee then rejects it with
    the reason.
    """
    # Exact types, not isinstance: an agent's subclass of a command is not one.
    # (``type(obj) is X`` rather than ``kind is X`` where mypy must narrow obj.)
    kind = type(obj)
    if type(obj) is str:
        try:
            return _engine.parse_action(obj)
        except NotationError:
            return None
    if kind is EndTurn:
        return _engine.END_TURN_ACTION
    if kind is NoEvent:
        return _engine.NO_EVENT_ACTION
    if kind in _UNIT_KINDS:
        unit = cast("Build | Move | Attack | Ability | Claim", obj)  # its exact type is one of the keys
        number = whole_number(
            unit.template if isinstance(unit, Build) else unit.city if isinstance(unit, Claim) else unit.unit
        )
        cell = _cell_index(unit.cell)
        if number is None or number < 0 or cell is None:
            return None
        return (_UNIT_KINDS[type(unit)], number, cell)
    if type(obj) is Define:
        hp, move, dmg = whole_number(obj.hp), whole_number(obj.move), whole_number(obj.dmg)
        if hp is None or move is None or dmg is None:
            return None
        if obj.range not in RANGES or obj.ability not in ABILITIES or not isinstance(obj.armour, str):
            return None
        try:
            code = _engine.armour_code(obj.armour)
        except ValueError:
            return None
        action = _engine.define(hp, move, dmg, obj.range, obj.ability, code)
        return action if _engine.is_well_formed(action) else None
    if type(obj) is Terrain:
        cell = _cell_index(obj.cell)
        name = obj.kind
        if cell is None or name not in TERRAIN_KINDS:
            return None
        return (_engine.TERRAIN, _engine.TERRAIN_NAMES.index(name), cell)
    if type(obj) is Asteroid:
        cell = _cell_index(obj.cell)
        return None if cell is None else (_engine.ASTEROID, cell)
    if type(obj) is FishMarket:
        cells_obj = obj.cells
        if not isinstance(cells_obj, tuple):
            return None
        indices = [_cell_index(c) for c in cells_obj]
        cells = [c for c in indices if c is not None]
        if len(cells) != len(indices) or len(set(cells)) != len(cells) or len(cells) > _engine.FISH_TOKENS:
            return None
        return (_engine.FISH_MARKET, *sorted(cells))
    return None


def _cell(index: int) -> Cell:
    return Cell(*CELLS[index])


def from_engine_action(action: tuple[int, ...]) -> Command | ChaosEvent:
    """The command object for an engine action."""
    kind = action[0]
    if kind == _engine.END:
        return EndTurn()
    if kind == _engine.NO_EVENT:
        return NoEvent()
    if kind == _engine.DEFINE:
        hp, move, dmg, range_, ability = action[1:6]
        armour = _engine.armour_text(action[6]) if len(action) == 7 else "000000"
        return Define(hp, move, dmg, RANGES[range_ if dmg else _engine.MELEE], ABILITIES[ability], armour)
    if kind in _UNIT_CLASSES:
        return _UNIT_CLASSES[kind](action[1], _cell(action[2]))
    if kind == _engine.TERRAIN:
        return Terrain(_engine.TERRAIN_NAMES[action[1]], _cell(action[2]))
    if kind == _engine.ASTEROID:
        return Asteroid(_cell(action[1]))
    if kind == _engine.FISH_MARKET:
        return FishMarket(tuple(_cell(c) for c in action[1:]))
    raise ValueError(f"not an Infinitron engine action: {action!r}")


def parse_command(text: str) -> Command | ChaosEvent:
    """Read a command's canonical text; raises NotationError (a ValueError) if malformed."""
    return from_engine_action(_engine.parse_action(text))


__all__ = [
    "ABILITIES",
    "RANGES",
    "TERRAIN_KINDS",
    "Ability",
    "Asteroid",
    "Attack",
    "Build",
    "Cell",
    "ChaosEvent",
    "Claim",
    "Command",
    "Define",
    "EndTurn",
    "FishMarket",
    "Move",
    "NoEvent",
    "PlayerColor",
    "Terrain",
    "from_engine_action",
    "parse_command",
    "to_engine_action",
]
