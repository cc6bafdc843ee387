"""The lobby: who waits, on which channel, and who plays whom.  Pure: no connection, no task, no clock but
the players' arrival times; the server sends and starts what it decides (:mod:`.server`)."""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from .seats import Player, RecentCount, pair_key


class Lobby:
    """The players waiting for a game, in order of arrival, and the pairing rule.

    * On a channel, in order of arrival; on the public channel (``""``), the waiting player with the nearest
      rating (``rating_of``), then the longest waiting.
    * A house channel (a name in ``house``) pairs its students only with the house agent started for each of
      them (:attr:`Player.for_player`); a house agent waits for no one else.
    * Two students may start at most ``pair_games_per_hour`` games together in an hour (0: no cap), counted
      by :meth:`started`.
    """

    def __init__(self, house: Mapping[str, str], pair_games_per_hour: int, rating_of: Callable[[str], float]):
        self.house = house
        self.cap = pair_games_per_hour
        self.rating_of = rating_of
        self.waiting: list[Player] = []
        #: Games started by each pair of students in the last hour.
        self.pair_games = RecentCount()

    def __contains__(self, player: Player) -> bool:
        return player in self.waiting

    def __len__(self) -> int:
        return len(self.waiting)

    def enter(self, player: Player) -> None:
        player.waiting_since = time.monotonic()
        self.waiting.append(player)

    def leave(self, player: Player) -> None:
        if player in self.waiting:
            self.waiting.remove(player)

    def house_agents_for(self, name: str) -> list[Player]:
        """The house agents waiting for the student ``name``."""
        return [p for p in self.waiting if p.house and p.for_player == name]

    def pairs(self) -> list[tuple[Player, Player]]:
        """Take every pair that can play now out of the lobby (the first-come of each pair first)."""
        found = []
        while (pair := self._pairing()) is not None:
            for player in pair:
                self.waiting.remove(player)
            found.append(pair)
        return found

    def started(self, first: Player, second: Player) -> None:
        """A game between the two started (counted against their cap, unless one is a house agent)."""
        if not (first.house or second.house):
            self.pair_games.add(pair_key(first, second))

    def _pairing(self) -> tuple[Player, Player] | None:
        for index, first in enumerate(self.waiting):
            if first.house:
                continue
            candidates = [p for p in self.waiting[index + 1:] + self.waiting[:index]
                          if p is not first and p.channel == first.channel and p.name != first.name
                          and (not p.house or p.for_player == first.name)
                          and (p.house or not self.cap or self.pair_games(pair_key(first, p)) < self.cap)]
            if first.channel in self.house:
                candidates = [p for p in candidates if p.house]
            if not candidates:
                continue
            if first.channel == "":
                mine = self.rating_of(first.name)
                candidates.sort(key=lambda p: (abs(self.rating_of(p.name) - mine), p.waiting_since))
            else:
                candidates.sort(key=lambda p: p.waiting_since)
            return first, candidates[0]
        return None
