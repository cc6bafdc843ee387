"""The course's 2022 protocol: actions as tuples, players as ``"red"``/``"blue"``.

2022 agents return ``("PLACE", r, q)`` or ``("STEAL",)`` from ``action()``
and receive the same tuples in ``turn(player, action)``.  These pure
conversions are what the referee uses to talk to them.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..games.cachex.engine import ACTION_COUNT, STEAL, cell_coords
from .actions import cell_action

#: ``player`` strings of the 2022 protocol, indexed by RED (0) and BLUE (1).
LEGACY_PLAYER_NAMES = ("red", "blue")


def to_legacy(action: int) -> tuple:
    """The 2022 tuple of an engine action: ``("PLACE", r, q)`` or ``("STEAL",)``."""
    if type(action) is not int or not 0 <= action < ACTION_COUNT:
        raise ValueError(f"not a Cachex engine action: {action!r}")
    if action == STEAL:
        return ("STEAL",)
    return ("PLACE", *cell_coords(action))


def from_legacy(obj: object) -> int | None:
    """The engine action of a 2022 action tuple, or ``None`` if it is not one.

    Accepted, exactly: a ``tuple`` ``("STEAL",)``, or ``("PLACE", r, q)`` with
    whole-number coordinates 0..14 (``int`` or numpy-style integers, not
    ``bool``); and the bare string ``"STEAL"``, which the 2022 referee took
    as ``("STEAL",)`` (it wrapped any action that was not a tuple in one, and
    agents relied on it).  Lists, lower-case names, extra or missing items,
    floats and text coordinates are refused.
    """
    if isinstance(obj, str) and obj == "STEAL":
        return STEAL
    if not isinstance(obj, tuple) or not obj:
        return None
    kind = obj[0]
    if type(kind) is not str:
        return None
    if kind == "STEAL":
        return STEAL if len(obj) == 1 else None
    if kind == "PLACE" and len(obj) == 3:
        return cell_action(obj[1], obj[2])
    return None


def describe_legacy(obj: object) -> str:
    """Why ``from_legacy`` refuses ``obj``, for the referee's error message."""
    if from_legacy(obj) is not None:
        return "a valid Cachex action"
    if not isinstance(obj, tuple):
        return (
            f"expected a tuple such as ('PLACE', r, q) or ('STEAL',) (or the text 'STEAL'), "
            f"got {type(obj).__name__} {obj!r:.80}"
        )
    if not obj or type(obj[0]) is not str or obj[0] not in ("PLACE", "STEAL"):
        return f"the first item must be 'PLACE' or 'STEAL': {obj!r:.80}"
    if obj[0] == "STEAL":
        return f"('STEAL',) takes nothing else: {obj!r:.80}"
    if len(obj) != 3:
        return f"('PLACE', r, q) needs exactly two coordinates: {obj!r:.80}"
    return f"coordinates must be whole numbers from 0 to 14: {obj!r:.80}"


class Cachex2022Protocol:
    """The 2022 protocol as the agent host plays it (a :class:`referee.games.registration.LegacyAdapter`).

    A 2022 agent's class is ``Player``, built as ``Player(player, n)``.
    """

    class_name = "Player"

    def constructor_args(self, color: int, agent_kwargs: Mapping[str, Any]) -> tuple[Any, ...]:
        return (LEGACY_PLAYER_NAMES[color], agent_kwargs["n"])

    def player(self, color: int) -> str:
        return LEGACY_PLAYER_NAMES[color]

    from_legacy = staticmethod(from_legacy)
    describe_legacy = staticmethod(describe_legacy)
    to_legacy = staticmethod(to_legacy)


#: What Cachex's registration names as its legacy adapter.
ADAPTER = Cachex2022Protocol()
