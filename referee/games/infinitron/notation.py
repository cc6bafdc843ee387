"""Infinitron actions as tuples and as text: constructors, the canonical text, the parser.

An action is a small tuple whose first item is the command kind
(``END_TURN`` is ``(0,)``, ``MOVE(u, r, q)`` is ``(3, u, cell)``...);
:func:`action_to_str` writes the text the rules give and
:func:`parse_action` reads it back, saying what is wrong with bad text.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import cast

from ..base import NotationError
from .geometry import CELL_COUNT, CELLS, INDEX, on_board
from .rules import (
    ABILITY,
    ABILITY_NAMES,
    ARMOUR_CHARS,
    ARMOUR_CODES,
    ASTEROID,
    ATTACK,
    BUILD,
    CLAIM,
    DAMAGE_TENS,
    DEFINE,
    END,
    END_TURN_ACTION,
    FISH_MARKET,
    FISH_TOKENS,
    HP_POINTS,
    MELEE,
    MOVE,
    MOVE_VALUES,
    NO_EVENT,
    NO_EVENT_ACTION,
    RANGE_NAMES,
    TEMPLATES,
    TERRAIN,
    TERRAIN_KINDS,
    TERRAIN_NAMES,
    armour_code,
    armour_text,
    is_canonical_define,
)


def cell_of(r: int, q: int) -> int:
    """Cell number of ``(r, q)``; raises ValueError off the board."""
    try:
        return INDEX[(r, q)]
    except KeyError:
        raise ValueError(f"({r}, {q}) is not on the board (max(|r|, |q|, |r+q|) <= 5)") from None


def define(
    hp: int, move: int, dmg: int, range_: str | int, ability: str | int, armour: str | int = 0
) -> tuple[int, ...]:
    """A DEFINE in canonical form (dmg 0: MELEE; no armour: five numbers)."""
    r = RANGE_NAMES.index(range_) if isinstance(range_, str) else range_
    a = ABILITY_NAMES.index(ability) if isinstance(ability, str) else ability
    code = armour_code(armour) if isinstance(armour, str) else armour
    spec = (DEFINE, hp, move, dmg, r if dmg else MELEE, a)
    return spec + (code,) if code else spec


def claim(city: int, r: int, q: int) -> tuple[int, int, int]:
    return (CLAIM, city, cell_of(r, q))


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
        # A seventh number is an armour layout's code (0, no armour, is written with six).
        return (
            (n == 6 or (n == 7 and 0 < action[6] < ARMOUR_CODES))
            and action[1] in HP_POINTS
            and action[2] in MOVE_VALUES
            and action[3] in DAMAGE_TENS
            and 0 <= action[4] < len(RANGE_NAMES)
            and 0 <= action[5] < len(ABILITY_NAMES)
        )
    if kind in (BUILD, MOVE, ATTACK, ABILITY, CLAIM):
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


def cell_text(cell: int) -> str:
    return _CELL_TEXT[cell]


#: The commands written ``WORD(number, r, q)``: a template or unit number and a cell.
_NUMBERED_WORDS = {BUILD: "BUILD", MOVE: "MOVE", ATTACK: "ATTACK", ABILITY: "ABILITY", CLAIM: "CLAIM"}
#: Each kind's command word, by its number (an action's first item).
KIND_WORDS: dict[int, str] = {
    END: "END_TURN", DEFINE: "DEFINE", TERRAIN: "TERRAIN", NO_EVENT: "NO_EVENT", ASTEROID: "ASTEROID",
    FISH_MARKET: "FISH_MARKET", **_NUMBERED_WORDS,
}
_NUMBERED_KINDS = {word: kind for kind, word in _NUMBERED_WORDS.items()}


def _format(a: tuple[int, ...]) -> str:
    kind = a[0]
    if kind == END:
        return "END_TURN"
    if kind == DEFINE:
        range_ = RANGE_NAMES[a[4] if a[3] else MELEE]  # no attack: the canonical text writes MELEE
        armour = f", {armour_text(a[6])}" if len(a) == 7 else ""
        return f"DEFINE({a[1]}, {a[2]}, {a[3]}, {range_}, {ABILITY_NAMES[a[5]]}{armour})"
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
# Only canonical actions are read back from their text (a no-attack DEFINE's
# other range words format as MELEE too).
_FIXED_ACTION: dict[str, tuple[int, ...]] = {
    text: a for a, text in _FIXED_TEXT.items() if a[0] != DEFINE or is_canonical_define(a[1:])
}


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
    a = cast(tuple[int, ...], action)
    return _FIXED_TEXT.get(a) or _format(a)


# Matched against the stripped text: a ``\s*`` on each side of the optional brackets took quadratic time
# on a command word followed by a long run of spaces (20 s for 64 KiB).
_COMMAND_RE = re.compile(r"([A-Z_]+)\s*(?:\((.*)\))?", re.S)
_INT = r"\s*([+-]?\d+)\s*"
#: A number as an argument is written in digits, with a sign if any (not int()'s ``1_000``).
_NUMBER_RE = re.compile(r"[+-]?\d+")
#: The most digits a number in a command may have: unit numbers count the units built, far fewer. The bound
#: keeps a number of thousands of digits (sent by a hostile client) away from int(), which refuses over
#: 4300 digits with a ValueError, and out of the actions, records and messages.
MAX_DIGITS = 9
#: How much of a bad text an error message quotes (the text may be 64 KiB long).
_QUOTED_CHARS = 80
_PAIR_RE = re.compile(r"\s*\(" + _INT + "," + _INT + r"\)\s*")
_ARITY = {"DEFINE": 5, "CLAIM": 3, "BUILD": 3, "MOVE": 3, "ATTACK": 3, "ABILITY": 3, "TERRAIN": 3, "ASTEROID": 2}
_FORMS = (
    "DEFINE(hp, move, dmg, range, ability[, armour]), CLAIM(c, r, q), BUILD(t, r, q), MOVE(u, r, q), ATTACK(u, r, q), "
    "ABILITY(u, r, q), TERRAIN(kind, r, q), END_TURN, NO_EVENT, ASTEROID(r, q), FISH_MARKET((r, q), ...)"
)


def _quoted(text: str) -> str:
    """``text`` quoted for an error message, cut short if it is long."""
    return repr(text[:_QUOTED_CHARS]) + ("..." if len(text) > _QUOTED_CHARS else "")


def _int(text: str, what: str, command: str) -> int:
    number = text.strip()
    if not _NUMBER_RE.fullmatch(number):
        raise NotationError(f"{command}: {what} must be a whole number, not {_quoted(number)}")
    if len(number.lstrip("+-")) > MAX_DIGITS:
        raise NotationError(f"{command}: {what} has at most {MAX_DIGITS} digits, not {_quoted(number)}")
    return int(number)


def _cell(r_text: str, q_text: str, command: str) -> int:
    r, q = _int(r_text, "r", command), _int(q_text, "q", command)
    if not on_board(r, q):
        raise NotationError(f"{command}: cell ({r}, {q}) is off the board (max(|r|, |q|, |r+q|) <= 5)")
    return INDEX[(r, q)]


def _name(text: str, names: Sequence[str], what: str, command: str, first: int = 0) -> int:
    word = text.strip()
    if word in names[first:]:
        return names.index(word)
    raise NotationError(f"{command}: {what} must be one of {', '.join(names[first:])}, not {_quoted(word)}")


def _bounded(text: str, allowed: range, what: str, command: str) -> int:
    value = _int(text, what, command)
    if value not in allowed:
        raise NotationError(f"{command}: {what} must be {allowed.start}..{allowed.stop - 1}, not {value}")
    return value


def _fish_cells(inside: str, text: str) -> list[int]:
    """The cells of a FISH_MARKET's ``(r, q), ...``, read in one pass (the text may be long)."""
    cells: list[int] = []
    pos, end = 0, len(inside)
    while pos < end and inside[pos].isspace():
        pos += 1
    while pos < end:
        pm = _PAIR_RE.match(inside, pos)
        if pm is None:
            raise NotationError(f"FISH_MARKET: expected cells written (r, q) separated by commas in {_quoted(text)}")
        cell = _cell(pm.group(1), pm.group(2), "FISH_MARKET")
        if cell in cells:
            raise NotationError(f"FISH_MARKET: a cell is listed twice in {_quoted(text)}")
        cells.append(cell)
        # Refused as soon as there is one too many: a long list is not read to its end.
        if len(cells) > FISH_TOKENS:
            raise NotationError(f"FISH_MARKET: at most {FISH_TOKENS} cells: {_quoted(text)}")
        pos = pm.end()
        if pos < end and inside[pos] == ",":
            pos += 1
            while pos < end and inside[pos].isspace():
                pos += 1
            if pos == end:
                raise NotationError(f"FISH_MARKET: a cell is missing after the last comma in {_quoted(text)}")
    return cells


def parse_action(text: str) -> tuple[int, ...]:
    """Read a command's text; raises :class:`NotationError` saying what is wrong."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be text, not {type(text).__name__}")
    fixed = _FIXED_ACTION.get(text)
    if fixed is not None:
        return fixed
    m = _COMMAND_RE.fullmatch(text.strip())
    if m is None:
        raise NotationError(f"not an Infinitron command: {_quoted(text)} (expected one of {_FORMS})")
    word, inside = m.groups()
    if word in ("END_TURN", "NO_EVENT"):
        if inside is not None:
            raise NotationError(f"{word} takes no arguments: {_quoted(text)}")
        return END_TURN_ACTION if word == "END_TURN" else NO_EVENT_ACTION
    if inside is None:
        raise NotationError(f"not an Infinitron command: {_quoted(text)} (expected one of {_FORMS})")
    if word == "FISH_MARKET":
        return (FISH_MARKET, *sorted(_fish_cells(inside, text)))
    arity = _ARITY.get(word)
    if arity is None:
        raise NotationError(f"unknown command {_quoted(word)} in {_quoted(text)} (expected one of {_FORMS})")
    args = inside.split(",")
    if len(args) != arity and not (word == "DEFINE" and len(args) == arity + 1):
        expected = "5 or 6" if word == "DEFINE" else str(arity)
        raise NotationError(f"{word} takes {expected} arguments, got {len(args)}: {_quoted(text)}")
    if word == "DEFINE":
        code = 0
        if len(args) == 6:
            armour = args[5].strip()
            try:
                code = armour_code(armour)
            except ValueError:
                # (rules' own message would quote the whole text, however long)
                raise NotationError(
                    f"DEFINE: an armour layout is six characters from {', '.join(ARMOUR_CHARS)}, "
                    f"not {_quoted(armour)}"
                ) from None
        return define(
            _bounded(args[0], HP_POINTS, "hp", word),
            _bounded(args[1], MOVE_VALUES, "move", word),
            _bounded(args[2], DAMAGE_TENS, "dmg", word),
            _name(args[3], RANGE_NAMES, "range", word),
            _name(args[4], ABILITY_NAMES, "ability", word),
            code,
        )
    if word == "ASTEROID":
        return (ASTEROID, _cell(args[0], args[1], word))
    if word == "TERRAIN":
        return (TERRAIN, _name(args[0], TERRAIN_NAMES, "kind", word, first=1), _cell(args[1], args[2], word))
    what = {"BUILD": "the template number", "CLAIM": "the city number"}.get(word, "the unit number")
    number = _int(args[0], what, word)
    if number < 0:
        raise NotationError(f"{word}: numbers are 0 or more, not {number}")
    return (_NUMBERED_KINDS[word], number, _cell(args[1], args[2], word))
