"""The course referee's ``Board``, running on the fast Infexion engine.

The rules live in one place, :mod:`referee.games.infexion.engine`; this class
only translates between the course's value types and the engine's bytes.
One deliberate difference from the course's 2023 referee: an elimination that
leaves the winner with total power 1 is a win, as the rules text says (the
course referee called it a draw).

Agents written for the course also use the course ``Board``'s private
members, so those behave as the course's did (docs/referee.md, "Agents
written for the course"):

* ``_state`` is a ``defaultdict`` holding only the cells the board has
  *touched*, in the order first touched: the initial state's cells, every
  cell read through ``board[cell]`` or ``_state[cell]``, the cell a SPAWN
  goes on, and a SPREAD's cell then the cells it reaches, nearest first.
  A cell emptied stays in it (as an empty ``CellState``).  Writing it
  changes the board, as it did in the course.
* ``_history`` (one ``BoardMutation`` per action), ``_turn_color``,
  ``_total_power``, ``_player_cells``, ``_color_power``, ``_within_bounds``,
  the ``_validate_*`` checks and ``_resolve_spawn_action`` /
  ``_resolve_spread_action`` (what an action would change, not applied).

The engine stays the truth for the rules; ``_state`` mirrors it for the
touched cells and writes through to it.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterable, Iterator, Mapping

from ..games.base import whole_number
from ..games.infexion.engine import (
    ACTION_CELL,
    BLUE_FLAG,
    BOARD_N,
    CELLS,
    MAX_CELL_POWER,
    MAX_TOTAL_POWER,
    MAX_TURNS,
    SPREAD_BASE,
    SPREAD_TARGETS,
    InfexionState,
    cell_value,
)
from .actions import Action, SpawnAction, SpreadAction, to_engine_action
from .exceptions import IllegalActionException
from .hex import HexDir, HexPos, hex_pos
from .player import PlayerColor


@dataclass(frozen=True, slots=True)
class CellState:
    """What a cell holds: ``(player, power)``; ``(None, 0)`` when empty."""

    player: PlayerColor | None = None
    power: int = 0

    def __post_init__(self) -> None:
        if type(self.power) is not int:
            number = whole_number(self.power, allow_bool=True)  # numpy's integers, say
            if number is not None:
                object.__setattr__(self, "power", number)
        # A stack with no owner, no power or more than the maximum is no stack.
        if self.player is None or not 0 < self.power <= MAX_CELL_POWER:
            object.__setattr__(self, "player", None)
            object.__setattr__(self, "power", 0)

    def __iter__(self) -> Iterator:
        yield self.player
        yield self.power

    def __str__(self) -> str:
        return f"CellState({self.player}, {self.power})"


# CELL_STATES[engine cell value] -> the shared CellState for it.
_CELL_STATES: list[CellState] = [CellState()] * 16
for _power in range(1, MAX_CELL_POWER + 1):
    _CELL_STATES[_power] = CellState(PlayerColor.RED, _power)
    _CELL_STATES[BLUE_FLAG | _power] = CellState(PlayerColor.BLUE, _power)

_POSITIONS: tuple[HexPos, ...] = tuple(hex_pos(i) for i in range(CELLS))


def _engine_value(state: object) -> int:
    """The engine's cell value for what an agent wrote into ``_state``.

    A ``CellState``, or any ``(player, power)`` pair; anything else counts as
    an empty cell (the course's rules would have found no stack there).
    """
    if type(state) is not CellState:
        try:
            state = CellState(*state)  # type: ignore[misc]
        except (TypeError, ValueError):
            return 0
    player = state.player
    if not isinstance(player, PlayerColor):
        return 0
    return cell_value(player.value, state.power)


@dataclass(frozen=True, slots=True)
class CellMutation:
    cell: HexPos
    prev: CellState
    next: CellState

    def __str__(self) -> str:
        return f"CellMutation({self.cell}, {self.prev}, {self.next})"


class BoardMutation:
    """What one action changed; the cell list is worked out only if read."""

    __slots__ = ("action", "_before", "_after", "_touched")

    def __init__(self, action: Action, before: bytes, after: bytes, touched: tuple[int, ...] = ()):
        self.action = action
        self._before = before
        self._after = after
        self._touched = touched  # engine cells the action touched, in the course's order

    @property
    def cell_mutations(self) -> set[CellMutation]:
        return {
            CellMutation(hex_pos(i), _CELL_STATES[b], _CELL_STATES[a])
            for i, (b, a) in enumerate(zip(self._before, self._after))
            if a != b
        }

    def __repr__(self) -> str:
        return f"BoardMutation({self.action}, {len(self.cell_mutations)} cells)"


class _TouchedCells(defaultdict):
    """The course ``Board._state``: the touched cells, writing through to the board.

    Every way of changing a ``dict`` is routed to the board, so an agent that
    edits ``_state`` edits the position, as with the course's ``Board``.
    Keys other than ``HexPos`` are kept but mean nothing to the rules (the
    course's board never looked them up either).  A copy is a plain
    ``defaultdict``, detached from the board.
    """

    __slots__ = ("_board",)

    def __init__(self, board: Board):
        super().__init__(CellState)
        self._board = board

    # -- reads: values are brought up to date first ---------------------------------
    # The board fills in values lazily (applying an action only records which
    # cells it touched), so every read of values asks the board to catch up;
    # a reference kept to _state then stays live, as the course's dict was.

    def __getitem__(self, key: Any) -> Any:
        self._board._refresh()
        return dict.__getitem__(self, key)  # __missing__ for a cell not touched yet

    def get(self, key: Any, default: Any = None) -> Any:
        self._board._refresh()
        return dict.get(self, key, default)

    def items(self):
        self._board._refresh()
        return dict.items(self)

    def values(self):
        self._board._refresh()
        return dict.values(self)

    def __eq__(self, other: object) -> bool:
        self._board._refresh()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        self._board._refresh()
        return dict.__ne__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._board._refresh()
        return f"defaultdict({CellState.__name__}, {dict.__repr__(self)})"

    def __missing__(self, key: Any) -> CellState:
        if type(key) is HexPos:
            index = key.r * BOARD_N + key.q
            value = _CELL_STATES[self._board._engine.board[index]]
            self._board._seen[index] = 1
        else:
            value = CellState()
        dict.__setitem__(self, key, value)
        return value

    # -- writes: the board changes with them ----------------------------------------

    def __setitem__(self, key: Any, value: Any) -> None:
        board = self._board
        board._refresh()  # first, so catching up cannot overwrite what is written now
        dict.__setitem__(self, key, value)
        if type(key) is HexPos:
            index = key.r * BOARD_N + key.q
            board._seen[index] = 1
            board._write_cell(index, _engine_value(value))

    def __delitem__(self, key: Any) -> None:
        self._board._refresh()
        dict.__delitem__(self, key)
        self._forget(key)

    def _forget(self, key: Any) -> None:
        # A cell no longer in _state reads as empty, as a defaultdict's would.
        if type(key) is HexPos:
            index = key.r * BOARD_N + key.q
            self._board._seen[index] = 0
            self._board._write_cell(index, 0)

    def pop(self, key: Any, *default: Any) -> Any:
        self._board._refresh()
        if key in self:
            value = dict.pop(self, key)
            self._forget(key)
            return value
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[Any, Any]:
        self._board._refresh()
        key, value = dict.popitem(self)
        self._forget(key)
        return key, value

    def clear(self) -> None:
        for key in list(self):
            del self[key]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key in self:
            return dict.__getitem__(self, key)
        self[key] = default
        return default

    def __ior__(self, other: Any) -> _TouchedCells:
        self.update(other)
        return self

    def __or__(self, other: Any) -> defaultdict:  # type: ignore[override]
        merged = self.copy()
        merged.update(other)
        return merged

    # -- copies are plain ---------------------------------------------------------

    def copy(self) -> defaultdict:  # type: ignore[override]
        self._board._refresh()
        return defaultdict(CellState, self)

    # Copies are plain by design (above), not the Self the base class promises.
    __copy__ = copy  # type: ignore[assignment]

    def __reduce__(self) -> tuple:
        self._board._refresh()
        return (defaultdict, (CellState,), None, None, iter(dict(self).items()))


_COLORS = (PlayerColor.RED, PlayerColor.BLUE)


class Board:
    """An Infexion board with the course referee's interface."""

    def __init__(self, initial_state: Mapping[HexPos, CellState] | Iterable = {}):  # noqa: B006 (course signature)
        self._engine = InfexionState()
        self._history: list[BoardMutation] = []
        self._seen = bytearray(CELLS)  # 1 for each cell that is a key of _state
        self._edited = False  # whether _state was ever written by hand (undo then takes care)
        self._synced = bytes(self._engine.board)  # the board _state's values were last checked against
        self._cells = _TouchedCells(self)
        # As the course's board did: every given cell is touched, in order.
        self._cells.update(initial_state)

    # -- reading ------------------------------------------------------------

    def __getitem__(self, cell: HexPos) -> CellState:
        if type(cell) is HexPos:
            index = cell.r * BOARD_N + cell.q
            value = _CELL_STATES[self._engine.board[index]]
            if not self._seen[index]:
                # Reading a cell touched it in the course's defaultdict.  Its
                # value there is as of the last look (_synced), like every
                # value in _state, and is caught up when _state is read.
                self._seen[index] = 1
                dict.__setitem__(self._cells, cell, _CELL_STATES[self._synced[index]])
            return value
        # Anything else, as the course's board did: checked, then looked up.
        if not self._within_bounds(cell):
            raise IndexError(f"Cell position '{cell}' is invalid.")
        return self._state[cell]

    def __contains__(self, cell: object) -> bool:
        return isinstance(cell, HexPos)

    @property
    def engine(self) -> InfexionState:
        """The fast engine state underneath (shared, not a copy).

        Changes made to it directly show in ``board[cell]`` at once and in
        ``_state`` the next time it is read.
        """
        return self._engine

    @property
    def turn_count(self) -> int:
        return self._engine.turn

    @property
    def turn_limit_reached(self) -> bool:
        return self._engine.turn >= MAX_TURNS

    @property
    def turn_color(self) -> PlayerColor:
        return _COLORS[self._engine.turn & 1]

    @property
    def game_over(self) -> bool:
        return self._engine.is_over

    @property
    def winner_color(self) -> PlayerColor | None:
        outcome = self._engine.outcome
        if outcome is None or outcome.winner is None:
            return None
        return _COLORS[outcome.winner]

    # -- the course Board's private members ---------------------------------

    @property
    def _state(self) -> _TouchedCells:
        """The touched cells, as the course's ``defaultdict`` held them (writable)."""
        self._refresh()
        return self._cells

    @_state.setter
    def _state(self, cells: Mapping[Any, Any]) -> None:
        # The course's _state was a plain attribute: replacing it replaced the board.
        for index in range(CELLS):
            if self._engine.board[index]:
                self._engine.set_cell(index, 0)
        self._seen = bytearray(CELLS)
        self._synced = bytes(self._engine.board)
        self._cells = _TouchedCells(self)
        self._cells.update(cells)

    @property
    def _turn_color(self) -> PlayerColor:
        return self.turn_color

    @property
    def _total_power(self) -> int:
        return self._engine.total_power

    def _player_cells(self, color: PlayerColor) -> list[CellState]:
        return [cell for cell in self._state.values() if cell.player == color]

    def _color_power(self, color: PlayerColor) -> int:
        return self._engine.power(color.value)

    def _within_bounds(self, coord: Any) -> bool:
        r, q = coord
        return 0 <= r < BOARD_N and 0 <= q < BOARD_N

    def _validate_action_pos_input(self, pos: Any) -> None:
        if type(pos) is not HexPos or not self._within_bounds(pos):
            raise IllegalActionException(f"'{pos}' is not a valid position.", self.turn_color)

    def _validate_action_dir_input(self, direction: Any) -> None:
        if type(direction) is not HexDir:
            raise IllegalActionException(f"'{direction}' is not a valid direction.", self.turn_color)

    def _validate_spawn_action_input(self, action: Any) -> None:
        if type(action) is not SpawnAction:
            raise IllegalActionException(f"Action '{action}' is not a SPAWN action.", self.turn_color)
        self._validate_action_pos_input(action.cell)

    def _validate_spread_action_input(self, action: Any) -> None:
        if type(action) is not SpreadAction:
            raise IllegalActionException(f"Action '{action}' is not a SPREAD action.", self.turn_color)
        self._validate_action_pos_input(action.cell)
        self._validate_action_dir_input(action.direction)

    def _resolve_spawn_action(self, action: SpawnAction) -> BoardMutation:
        """What ``action`` would change, without applying it (raises if illegal)."""
        self._validate_spawn_action_input(action)
        return self._resolve(action)

    def _resolve_spread_action(self, action: SpreadAction) -> BoardMutation:
        """What ``action`` would change, without applying it (raises if illegal)."""
        self._validate_spread_action_input(action)
        return self._resolve(action)

    def _resolve(self, action: Action) -> BoardMutation:
        engine = self._engine
        a, touched = self._checked(action)
        engine.apply(a)
        after = bytes(engine.board)
        before = engine.last_snapshot()
        engine.undo()
        return BoardMutation(action, before, after, touched)

    # -- keeping _state in step with the engine --------------------------------

    def _refresh(self) -> None:
        """Bring ``_state``'s values up to date with the board, if it changed."""
        if self._engine.board != self._synced:
            self._resync()

    def _write_cell(self, index: int, value: int) -> None:
        """An agent wrote ``_state``: put ``value`` on engine cell ``index``.

        The caller has brought ``_state`` up to date first.
        """
        engine = self._engine
        if engine.board[index] != value:
            engine.set_cell(index, value)
            self._edited = True
            self._synced = bytes(engine.board)

    def _resync(self) -> None:
        """Set the values of the cells that changed since the last look.

        Every value in ``_state`` is the cell's value in ``_synced``; actions
        only record which cells they touch (cheap, in search loops), and the
        values that changed are set here when ``_state`` is read.  A cell
        changed through the engine directly that was never touched comes in
        too.
        """
        board, synced, cells = self._engine.board, self._synced, self._cells
        for index in range(CELLS):
            value = board[index]
            if value != synced[index] and (value or self._seen[index]):
                self._seen[index] = 1
                dict.__setitem__(cells, _POSITIONS[index], _CELL_STATES[value])
        self._synced = bytes(board)

    def _checked(self, action: Action) -> tuple[int, tuple[int, ...]]:
        """The engine action and the cells it touches, or ``IllegalActionException``.

        Touches cells as the course's board did while checking: a SPAWN's
        cell once the total power allows a SPAWN, a SPREAD's cell always.
        """
        engine = self._engine
        a = to_engine_action(action)
        if a is None:
            raise IllegalActionException(f"{action!r} is not a SpawnAction or SpreadAction", self.turn_color)
        cell = ACTION_CELL[a]
        if not self._seen[cell] and (a >= SPREAD_BASE or engine.total_power < MAX_TOTAL_POWER):
            self[_POSITIONS[cell]]
        # Like the course's Board, this checks the action, not whether the
        # game is already over: agents simulate past the end with it.
        reason = engine.action_problem(a)
        if reason is not None:
            raise IllegalActionException(f"illegal action {action}: {reason}", self.turn_color)
        if a < SPREAD_BASE:
            return a, (cell,)
        return a, (cell, *SPREAD_TARGETS[a * 8 + (engine.board[cell] & 7)])

    # -- changing -----------------------------------------------------------

    def apply_action(self, action: Action) -> BoardMutation:
        """Apply an action for the player to move, or raise ``IllegalActionException``."""
        a, touched = self._checked(action)
        engine = self._engine
        engine.apply(a)
        seen, synced = self._seen, self._synced
        for index in touched:
            if not seen[index]:
                # A new key goes in now, in the course's order, with its value
                # as of the last look; values catch up when _state is read.
                seen[index] = 1
                dict.__setitem__(self._cells, _POSITIONS[index], _CELL_STATES[synced[index]])
        mutation = BoardMutation(action, engine.last_snapshot(), bytes(engine.board), touched)
        self._history.append(mutation)
        return mutation

    def undo_action(self) -> BoardMutation:
        """Take back the last action; returns what it had changed."""
        if not self._history:
            raise IndexError("no action to undo")
        engine = self._engine
        mutation = self._history.pop()
        touched = mutation._touched
        if self._edited:
            # The course put back only the action's own cells; cells written
            # through _state since then keep what was written.
            now = bytes(engine.board)
            engine.undo()
            for index in range(CELLS):
                if index not in touched and engine.board[index] != now[index]:
                    engine.set_cell(index, now[index])
        else:
            engine.undo()
        return mutation

    # -- copying and display --------------------------------------------------

    def __copy__(self) -> Board:
        cells = self._state  # brought up to date first
        other = Board.__new__(Board)
        other._engine = self._engine.copy()
        other._history = list(self._history)
        other._seen = bytearray(self._seen)
        other._edited = self._edited
        other._cells = _TouchedCells(other)
        dict.update(other._cells, cells)
        other._synced = self._synced
        return other

    def __deepcopy__(self, memo: dict) -> Board:
        return self.__copy__()

    def __getstate__(self) -> dict[str, Any]:
        # _state's link back to the board is rebuilt, not pickled.
        return {
            "engine": self._engine,
            "history": self._history,
            "cells": list(self._state.items()),
            "seen": bytes(self._seen),
            "edited": self._edited,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._engine = state["engine"]
        self._history = state["history"]
        self._seen = bytearray(state["seen"])
        self._edited = state["edited"]
        self._cells = _TouchedCells(self)
        dict.update(self._cells, state["cells"])
        self._synced = bytes(self._engine.board)

    def render(self, use_color: bool = False, use_unicode: bool = False) -> str:
        return self._engine.render(use_color=use_color, use_unicode=use_unicode)

    def __str__(self) -> str:
        return self.render()


__all__ = ["Board", "BoardMutation", "CellMutation", "CellState", "SpawnAction", "SpreadAction"]
