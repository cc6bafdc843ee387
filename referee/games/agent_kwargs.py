"""The keyword arguments the referee itself passes to every agent call.

Kept apart from the hosting code so that agents (``agents/common``) and the
tournament config can import the list without the referee's process machinery.
:func:`referee.match.call_kwargs` builds exactly these (plus the game's own
and the agent's options); an agent option may not take one of these names.
"""
from __future__ import annotations

#: The names, in the order :func:`referee.match.call_kwargs` sends them.  ``wall_remaining`` is the battleground
#: server's wall clock (seconds left, docs/battleground.md); a local game has none and sends None.
REFEREE_KWARGS: tuple[str, ...] = (
    "game", "game_options", "seed", "time_remaining", "wall_remaining", "space_limit", "space_remaining",
)
