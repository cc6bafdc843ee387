"""The course referee's ``Board``, running on the fast Infexion engine.

The rules live in one place, :mod:`referee.games.infexion.engine`; this class
only translates between the course's value types and the engine's bytes.
One deliberate difference from the course's 2023 referee: an elimination that
leaves the winner with total power 1 is a win, as the rules text says (the
course referee called it a draw).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping

from ..games.infexion.engine import (
    BLUE_FLAG,
    BOARD_N,
    CELLS,
    MAX_CELL_POWER,
    MAX_TURNS,
    InfexionState,
)
from .actions import Action, SpawnAction, SpreadAction, to_engine_action
from .exceptions import IllegalActionException
from .hex import HexPos, hex_pos
from .player import PlayerColor


@dataclass(frozen=True, slots=True)
class CellState:
    """What a cell holds: ``(player, power)``; ``(None, 0)`` when empty."""

    player: PlayerColor | None = None
    power: int = 0

    def __post_init__(self) -> None:
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


@dataclass(frozen=True, slots=True)
class CellMutation:
    cell: HexPos
    prev: CellState
    next: CellState


class BoardMutation:
    """What one action changed; the cell list is worked out only if read."""

    __slots__ = ("action", "_before", "_after")

    def __init__(self, action: Action, before: bytes, after: bytes):
        self.action = action
        self._before = before
        self._after = after

    @property
    def cell_mutations(self) -> set[CellMutation]:
        return {
            CellMutation(hex_pos(i), _CELL_STATES[b], _CELL_STATES[a])
            for i, (b, a) in enumerate(zip(self._before, self._after))
            if a != b
        }

    def __repr__(self) -> str:
        return f"BoardMutation({self.action}, {len(self.cell_mutations)} cells)"


_COLORS = (PlayerColor.RED, PlayerColor.BLUE)


class Board:
    """An Infexion board with the course referee's interface."""

    def __init__(self, initial_state: Mapping[HexPos, CellState] = {}):  # noqa: B006 (course signature)
        cells = {
            (pos.r, pos.q): (state.player.value, state.power)
            for pos, state in initial_state.items()
            if state.player is not None
        }
        self._engine = InfexionState(cells)
        self._actions: list[Action] = []

    # -- reading ------------------------------------------------------------

    def __getitem__(self, cell: HexPos) -> CellState:
        return _CELL_STATES[self._engine.board[cell.r * BOARD_N + cell.q]]

    def __contains__(self, cell: object) -> bool:
        return isinstance(cell, HexPos)

    @property
    def engine(self) -> InfexionState:
        """The fast engine state underneath (shared, not a copy)."""
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

    # Private helpers the course's Board had and some agents call.
    @property
    def _state(self) -> dict[HexPos, CellState]:
        """A snapshot of every cell (changing it does not change the board)."""
        board = self._engine.board
        return {hex_pos(i): _CELL_STATES[board[i]] for i in range(CELLS)}

    @property
    def _total_power(self) -> int:
        return self._engine.total_power

    def _color_power(self, color: PlayerColor) -> int:
        return self._engine.power(color.value)

    # -- changing -----------------------------------------------------------

    def apply_action(self, action: Action) -> BoardMutation:
        """Apply an action for the player to move, or raise ``IllegalActionException``."""
        engine = self._engine
        a = to_engine_action(action)
        if a is None:
            raise IllegalActionException(f"{action!r} is not a SpawnAction or SpreadAction", self.turn_color)
        # Like the course's Board, this checks the action, not whether the
        # game is already over: agents simulate past the end with it.
        reason = engine.action_problem(a)
        if reason is not None:
            raise IllegalActionException(f"illegal action {action}: {reason}", self.turn_color)
        engine.apply(a)
        self._actions.append(action)
        return BoardMutation(action, engine.last_snapshot(), bytes(engine.board))

    def undo_action(self) -> BoardMutation:
        """Take back the last action; returns what it had changed."""
        if not self._actions:
            raise IndexError("no action to undo")
        after = bytes(self._engine.board)
        self._engine.undo()
        return BoardMutation(self._actions.pop(), bytes(self._engine.board), after)

    # -- copying and display --------------------------------------------------

    def __copy__(self) -> "Board":
        other = Board.__new__(Board)
        other._engine = self._engine.copy()
        other._actions = list(self._actions)
        return other

    def __deepcopy__(self, memo: dict) -> "Board":
        return self.__copy__()

    def render(self, use_color: bool = False, use_unicode: bool = False) -> str:
        return self._engine.render(use_color=use_color, use_unicode=use_unicode)

    def __str__(self) -> str:
        return self.render()


__all__ = ["Board", "BoardMutation", "CellMutation", "CellState", "SpawnAction", "SpreadAction"]
