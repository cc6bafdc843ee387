"""Who may play: a hello's name and token checked against the roster, the database and the house agents, and
the per-address limits on connections and new names (docs/battleground.md, "Identity")."""
from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any
from collections.abc import Callable, Awaitable

from .. import __version__
from ..core import utc_now
from .seats import RecentCount, ServerSettings
from .store import Store


class Refused(Exception):
    """A hello the server refuses, with the sentence the client is told."""


class Admission:
    """The checks of a hello, and the connections each address holds."""

    def __init__(self, settings: ServerSettings, store: Store, house_token: Callable[[str], str],
                 write: Callable[..., Awaitable[Any]]):
        self.settings, self.store, self.house_token, self.write = settings, store, house_token, write
        #: Students' connections per address (house agents are not counted).
        self.addresses: dict[str, int] = {}
        #: New names taken by each address in the last hour.
        self.new_names = RecentCount()
        #: Names being added to the database right now: a second hello for one waits for no write of its own.
        self._naming: set[str] = set()

    @property
    def server_id(self) -> str:
        """This server's identity, the same across restarts on one database: what clients keep tokens under."""
        return hmac.new(self.store.secret.encode(), b"server-id", hashlib.sha256).hexdigest()[:24]

    async def admit(self, hello: dict[str, Any], address: str, house_wanted: Callable[[dict[str, Any]], bool]) -> (
            str | None):
        """Check a (well-formed) hello from ``address``: the new token of a name taken now, else None;
        :class:`Refused` with the reason otherwise.  A new name is stored before this returns."""
        name, token = hello["name"], hello.get("token")
        settings = self.settings
        house = name in settings.house
        if not house and settings.per_address and self.addresses.get(address, 0) >= settings.per_address:
            # Before a name is taken: a refused connection would take it and never hear its token.
            raise Refused(f"at most {settings.per_address} connections from one address")
        if house:
            if not (isinstance(token, str) and hmac.compare_digest(token, self.house_token(name))):
                raise Refused(f"{name!r} is a house agent's name")
            if not house_wanted(hello):
                # Its student left while it was starting: it would wait for no one and keep a slot.
                raise Refused("the student this house agent was started for is not waiting for it")
            return None
        if settings.roster is not None and name not in settings.roster:
            raise Refused(f"{name!r} is not on this server's roster")
        if name in self._naming:
            raise Refused(f"{name!r} is being taken by another connection: try again in a moment")
        if self.store.player(name) is not None:
            if not self.store.token_matches(name, token):
                raise Refused(f"wrong token for {name!r}" if token else
                              f"{name!r} is taken: its token is needed (docs/battleground.md, 'Identity')")
            return None
        like = self.store.name_like(name)
        if like is not None:
            raise Refused(f"{name!r} reads as {like!r}, a name already taken: choose another")
        if settings.names_per_hour and self.new_names(address) >= settings.names_per_hour:
            raise Refused(f"at most {settings.names_per_hour} new names an hour from one address: "
                          "play under a name you have")
        self.new_names.add(address)
        new_token = secrets.token_hex(16)
        self._naming.add(name)
        try:
            # Stored before the client hears its token: a token it is given always works.
            await self.write(self.store.add_player, name, new_token, utc_now())
        finally:
            self._naming.discard(name)
        return new_token

    def welcome(self, name: str, new_token: str | None, aborted: list[int] | None) -> dict[str, Any]:
        """The ``welcome`` of an admitted hello: the server's game and limits; a new name's token; the ids of
        the player's games the last stop interrupted."""
        settings = self.settings
        welcome: dict[str, Any] = {
            "type": "welcome", "name": name, "game": settings.game, "game_options": dict(settings.game_options),
            "time_limit": settings.time_limit, "space_limit": settings.space_limit,
            "wall_limit": settings.wall_limit, "grace": settings.grace, "server": f"referee {__version__}",
            "server_id": self.server_id,
        }
        if new_token:
            welcome["token"] = new_token
        if aborted:
            welcome["aborted"] = aborted
        return welcome

    def connected(self, address: str) -> None:
        self.addresses[address] = self.addresses.get(address, 0) + 1

    def disconnected(self, address: str) -> None:
        self.addresses[address] = max(0, self.addresses.get(address, 1) - 1)
