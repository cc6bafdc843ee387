"""The course's 2022 Cachex board module, ``referee.board``, for agents written for it.

2022 agents did ``from referee.board import Board`` and kept their own
``Board(n)``, updated with ``place`` and ``swap`` as actions came in.  This
module gives them the same interface and behaviour:

* ``Board(n)``; ``board[r, q]`` / ``board[(r, q)]`` is ``None``, ``"red"`` or
  ``"blue"``, and ``board[r, q] = token`` sets it (``KeyError`` for anything
  else, as before);
* ``place(token, coord)`` sets a cell, applies the diamond captures around
  it and returns the captured coordinates; ``swap()`` mirrors the board along
  its long diagonal and swaps the colours (the steal); ``digest()`` is the
  bytes of ``_data``; ``connected_coords(coord)``, ``inside_bounds(coord)``,
  ``is_occupied(coord)``, ``_apply_captures(coord)``, ``_coord_neighbours(coord)``;
* the module's ``_HEX_STEPS``, ``_CAPTURE_PATTERNS``, ``_TOKEN_MAP_OUT``,
  ``_TOKEN_MAP_IN``, ``_SWAP_PLAYER`` and ``_ADD``.

Nothing checks the rules here, as before: ``place`` puts a token on any
cell.  The neighbour steps and the diamond shapes are the Cachex engine's
(:mod:`referee.games.cachex.engine`), listed in the order the 2022 module
listed them, so ``connected_coords`` and ``place`` return their lists in the
same order as it did (both are built from sets the same way).

``_data`` holds 0 (empty), 1 (red) or 2 (blue) per cell.  The 2022 module
made it a numpy array; here it is one when numpy can be imported (numpy is
imported at the first ``Board()``, not by importing this module), so agents
that work on ``_data`` with numpy run unchanged.  Without numpy it is a
:class:`Grid`, which indexes, copies and gives bytes as the array did.
The referee itself never uses this module.
"""
from __future__ import annotations

from array import array
from collections import deque
from typing import Any
from collections.abc import Iterator

from .games.cachex.engine import DIRECTIONS

#: Maps between the player strings and the values of ``_data``.
_TOKEN_MAP_OUT: dict[int, str | None] = {0: None, 1: "red", 2: "blue"}
_TOKEN_MAP_IN: dict[str | None, int] = {v: k for k, v in _TOKEN_MAP_OUT.items()}
#: A token value with the colours swapped.
_SWAP_PLAYER: dict[int, int] = {0: 0, 1: 2, 2: 1}

#: The six neighbour steps ``(dr, dq)``, in the engine's (and the 2022 module's) order.
_HEX_STEPS: tuple[tuple[int, int], ...] = DIRECTIONS


def _ADD(a: Any, b: Any) -> tuple:  # noqa: N802 (the 2022 module's name)
    """Two coordinates added: ``(a[0] + b[0], a[1] + b[1])``."""
    return (a[0] + b[0], a[1] + b[1])


def _capture_patterns() -> list[list[tuple[int, int]]]:
    """Each diamond with the placed stone at a corner: ``[far corner, mid 1, mid 2]`` offsets.

    The engine's twelve diamonds (:func:`diamond_offsets`, a test checks
    they are the same shapes), in the 2022 module's order: each step with the
    step before it (the placed stone is a tip), then each step with the step
    two before it (the placed stone is on the short diagonal).
    """
    patterns = []
    for gap in (1, 2):
        for i, first in enumerate(_HEX_STEPS):
            second = _HEX_STEPS[(i - gap) % len(_HEX_STEPS)]
            patterns.append([_ADD(first, second), first, second])
    return patterns


_CAPTURE_PATTERNS: list[list[tuple[int, int]]] = _capture_patterns()


class Grid:
    """``_data`` without numpy: an ``n x n`` grid of ints that indexes like the array did.

    ``grid[r, q]`` and ``grid[r][q]`` (negative indices from the end, as
    numpy's), ``len``, iteration over rows, ``shape``, ``copy()``,
    ``tolist()``, ``transpose()`` / ``T``, and ``tobytes()``, which gives the
    bytes of numpy's 64-bit integer array (so ``digest()`` is the same with
    or without numpy).  Element-wise arithmetic and comparisons need numpy.
    """

    __slots__ = ("rows",)

    def __init__(self, rows: list[list[int]]):
        self.rows = rows

    @classmethod
    def zeros(cls, n: int) -> Grid:
        return cls([[0] * n for _ in range(n)])

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple):
            r, q = key
            return self.rows[r][q]
        return self.rows[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(key, tuple):
            r, q = key
            self.rows[r][q] = value
        else:
            self.rows[key] = list(value)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[list[int]]:
        return iter(self.rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Grid):
            return self.rows == other.rows
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like the array

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.rows), len(self.rows[0]) if self.rows else 0)

    def copy(self) -> Grid:
        return Grid([list(row) for row in self.rows])

    def tolist(self) -> list[list[int]]:
        return [list(row) for row in self.rows]

    def transpose(self) -> Grid:
        return Grid([list(column) for column in zip(*self.rows)])

    @property
    def T(self) -> Grid:  # noqa: N802 (numpy's name)
        return self.transpose()

    def tobytes(self) -> bytes:
        return array("q", [value for row in self.rows for value in row]).tobytes()

    def __repr__(self) -> str:
        return f"Grid({self.rows!r})"


_NUMPY: Any = None
_NUMPY_LOOKED_FOR = False


def _numpy() -> Any:
    """The numpy module if it can be imported, else None (looked for once)."""
    global _NUMPY, _NUMPY_LOOKED_FOR
    if not _NUMPY_LOOKED_FOR:
        _NUMPY_LOOKED_FOR = True
        try:
            import numpy  # noqa: PLC0415  (only where an agent's environment has it)
        except ImportError:
            _NUMPY = None
        else:
            _NUMPY = numpy
    return _NUMPY


def _grid_like(data: Any, rows: list[list[int]]) -> Any:
    """``rows`` as the same kind of grid as ``data`` (numpy array, Grid or nested list)."""
    if isinstance(data, Grid):
        return Grid(rows)
    if isinstance(data, list):
        return rows
    numpy = _numpy()
    if numpy is not None and isinstance(data, numpy.ndarray):
        return numpy.array(rows, dtype=data.dtype)
    return Grid(rows)


class Board:
    """A Cachex board as the 2022 referee's ``referee.board.Board`` kept it."""

    def __init__(self, n: int):
        """An empty ``n x n`` board."""
        self.n = n
        numpy = _numpy()
        self._data: Any = numpy.zeros((n, n), dtype=int) if numpy is not None else Grid.zeros(n)

    def __getitem__(self, coord: Any) -> str | None:
        """The token on ``coord`` ``(r, q)``: ``None``, ``"red"`` or ``"blue"``."""
        r, q = coord
        return _TOKEN_MAP_OUT[self._data[r][q]]

    def __setitem__(self, coord: Any, token: str | None) -> None:
        """Put ``token`` (``None``, ``"red"`` or ``"blue"``) on ``coord``; no captures."""
        try:
            value = _TOKEN_MAP_IN[token]
        except (KeyError, TypeError):
            raise KeyError(f"{token!r} is not a token: use None, 'red' or 'blue'") from None
        r, q = coord
        self._data[r][q] = value

    def digest(self) -> bytes:
        """The board's bytes (to count repeated states), as ``_data.tobytes()`` gave them."""
        data = self._data
        if hasattr(data, "tobytes"):
            return data.tobytes()
        return array("q", [value for row in data for value in row]).tobytes()

    def swap(self) -> None:
        """The steal: mirror along the long diagonal (``(r, q)`` to ``(q, r)``) and swap colours."""
        data = self._data
        rows = [[_SWAP_PLAYER[int(data[r][q])] for r in range(self.n)] for q in range(self.n)]
        self._data = _grid_like(data, rows)

    def place(self, token: str | None, coord: Any) -> list[tuple]:
        """Put ``token`` on ``coord``, apply the captures it makes; returns the captured coordinates."""
        self[coord] = token
        return self._apply_captures(coord)

    def connected_coords(self, start_coord: Any) -> list[tuple]:
        """The cells joined to ``start_coord`` through cells of its value (empty included)."""
        data = self._data
        token = data[start_coord[0]][start_coord[1]]
        # Breadth first, adding to a set in the order the 2022 module did, so
        # the list comes out in the same order.
        reachable: set = set()
        queue = deque([start_coord])
        while queue:
            current = queue.popleft()
            reachable.add(current)
            for coord in self._coord_neighbours(current):
                if coord not in reachable and data[coord[0]][coord[1]] == token:
                    queue.append(coord)
        return list(reachable)

    def inside_bounds(self, coord: Any) -> bool:
        """Whether ``coord`` ``(r, q)`` is on the board."""
        r, q = coord
        return r >= 0 and r < self.n and q >= 0 and q < self.n

    def is_occupied(self, coord: Any) -> bool:
        """Whether ``coord`` holds a token."""
        return self[coord] is not None

    def _apply_captures(self, coord: Any) -> list[tuple]:
        """Remove the stones captured by the token on ``coord``; returns their coordinates.

        A diamond captures when its far corner holds the same value as
        ``coord`` and its two middle cells the swapped value; captures are
        collected first and removed together (a stone in two diamonds goes
        once).
        """
        data = self._data
        placed = data[coord[0]][coord[1]]
        middle = _SWAP_PLAYER[int(placed)]
        captured: set = set()
        for pattern in _CAPTURE_PATTERNS:
            coords = [_ADD(coord, step) for step in pattern]
            if all(map(self.inside_bounds, coords)):
                if [data[r][q] for r, q in coords] == [placed, middle, middle]:
                    captured.update(coords[1:])
        for cell in captured:
            self[cell] = None
        return list(captured)

    def _coord_neighbours(self, coord: Any) -> list[tuple]:
        """The on-board neighbours of ``coord``, in ``_HEX_STEPS`` order."""
        return [_ADD(coord, step) for step in _HEX_STEPS if self.inside_bounds(_ADD(coord, step))]


__all__ = ["Board", "Grid"]
