"""The course's Part A board format, read strictly, and its action format.

A board is text with one cell per non-empty line, ``r, q, p, k``: the cell's
coordinates (0..6), its colour (``r`` or ``b``) and its power (1..6).  The
answer is one ``SPREAD r q dr dq`` line per action.
"""
from __future__ import annotations

import re

from ..games.base import BLUE, RED
from ..games.infexion.engine import (
    BOARD_N,
    DIRECTIONS,
    MAX_CELL_POWER,
    SPREAD_BASE,
    cell_coords,
    cell_index,
    cell_value,
    spread_action,
)

Cells = dict[tuple[int, int], tuple[int, int]]  # (r, q) -> (player, power)

COLOURS = {"r": RED, "b": BLUE}


class BoardError(ValueError):
    """A board that is not in the Part A format; the message names the line."""


def parse_board(text: str, source: str = "<stdin>", last_wins: bool = False, notes: list[str] | None = None) -> Cells:
    """Read a Part A board; raises :class:`BoardError` naming ``source`` and the line.

    A cell given again with the same colour and power is harmless: the
    repeat is ignored, with a note.  A cell given again with another colour
    or power is an error unless ``last_wins``, which keeps the last line for
    that cell as the course's own reader did (also with a note).  Notes, one
    line each naming ``source`` and the line, are appended to ``notes``.
    """
    cells: Cells = {}
    first_line: dict[tuple[int, int], int] = {}
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        where = f"{source}:{number}"
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 4:
            raise BoardError(f"{where}: expected 4 comma-separated fields 'r, q, p, k', got {len(fields)}: {line!r}")
        r_text, q_text, colour_text, power_text = fields
        r = _integer(r_text, "r", where)
        q = _integer(q_text, "q", where)
        power = _integer(power_text, "k (power)", where)
        for name, value in (("r", r), ("q", q)):
            if not 0 <= value < BOARD_N:
                raise BoardError(f"{where}: coordinate {name} = {value} is outside 0..{BOARD_N - 1}")
        if not 1 <= power <= MAX_CELL_POWER:
            raise BoardError(f"{where}: power {power} is outside 1..{MAX_CELL_POWER}")
        player = COLOURS.get(colour_text.lower())
        if player is None:
            raise BoardError(f"{where}: unknown colour {colour_text!r} (expected 'r' for red or 'b' for blue)")
        earlier = cells.get((r, q))
        if earlier is not None:
            first = first_line[(r, q)]
            if earlier == (player, power):
                _note(notes, f"{where}: cell ({r}, {q}) repeats line {first} exactly; the repeat is ignored")
                continue
            if not last_wins:
                raise BoardError(
                    f"{where}: cell ({r}, {q}) is already given on line {first} with another colour or power "
                    "(use --last-wins to let the last line win, as the course's reader did)"
                )
            _note(notes, f"{where}: cell ({r}, {q}) was given on line {first}; this line wins (--last-wins)")
        first_line.setdefault((r, q), number)
        cells[(r, q)] = (player, power)
    players = {player for player, _ in cells.values()}
    if RED not in players:
        raise BoardError(f"{source}: no red cell (Red needs a stack to SPREAD)")
    if BLUE not in players:
        raise BoardError(f"{source}: no blue cell (there is nothing to take)")
    return cells


def _note(notes: list[str] | None, text: str) -> None:
    if notes is not None:
        notes.append(text)


def _integer(text: str, name: str, where: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise BoardError(f"{where}: {name} must be a whole number, got {text!r}") from None


def board_bytes(cells: Cells) -> bytes:
    """The engine's 49-byte encoding of the cells."""
    board = bytearray(BOARD_N * BOARD_N)
    for (r, q), (player, power) in cells.items():
        board[cell_index(r, q)] = cell_value(player, power)
    return bytes(board)


def format_spread(action: int) -> str:
    """``SPREAD r q dr dq``, the course's Part A output line for an engine action."""
    r, q = cell_coords((action - SPREAD_BASE) // 6)
    dr, dq = DIRECTIONS[(action - SPREAD_BASE) % 6]
    return f"SPREAD {r} {q} {dr} {dq}"


_SPREAD_LINE = re.compile(
    r"^\s*SPREAD\s*(?:\(\s*)?([+-]?\d+)\s*[,\s]\s*([+-]?\d+)\s*[,\s]\s*([+-]?\d+)\s*[,\s]\s*([+-]?\d+)\s*\)?\s*$"
)


class ActionLineError(ValueError):
    """A ``SPREAD`` line that does not name a SPREAD on this board."""


def parse_spread_line(line: str) -> int:
    """Read ``SPREAD r q dr dq`` (or ``SPREAD(r, q, dr, dq)``) into an engine action."""
    m = _SPREAD_LINE.match(line)
    if m is None:
        raise ActionLineError(f"not 'SPREAD r q dr dq': {line.strip()[:60]!r}")
    r, q, dr, dq = (int(x) for x in m.groups())
    if not (0 <= r < BOARD_N and 0 <= q < BOARD_N):
        raise ActionLineError(f"cell ({r}, {q}) is off the board in {line.strip()!r}")
    try:
        direction = DIRECTIONS.index((dr, dq))
    except ValueError:
        raise ActionLineError(f"({dr}, {dq}) is not one of the six directions in {line.strip()!r}") from None
    return spread_action(r, q, direction)
