"""The client's count of its games and the records it keeps: each game's end said from its side, counted (or
owed, if the server aborted it), and its record appended to the local record file as it came."""
from __future__ import annotations

import urllib.request
from dataclasses import dataclass
from collections.abc import Callable, Mapping

from ..games.base import PLAYER_NAMES
from ..records import UNFINISHED, GameRecord, RecordError


#: Seconds to wait for the server's record of a game that ended while the client was away.
RECORD_FETCH_TIMEOUT = 10.0


def verdict(record: GameRecord, color: str | None) -> str | None:
    """``you won``, ``you lost`` or ``draw`` from side ``color``'s (RED/BLUE) point of view; ``no result`` for a
    game that was stopped unfinished; None when ``color`` is not known."""
    if color not in PLAYER_NAMES:
        return None
    if record.winner is None:
        return "no result" if record.reason == UNFINISHED else "draw"
    return "you won" if record.winner == color else "you lost"


def result(record: GameRecord, color: str | None) -> str:
    """``you won (you were BLUE): BLUE wins (...)``: the game's end for this side, then the record's message."""
    said = verdict(record, color)
    return f"{said} (you were {color}): {record.message}" if said else record.message


def aborted(record: GameRecord) -> bool:
    """Whether the server aborted the game (``extra.battleground.status``): it counts for nobody."""
    battleground = record.extra.get("battleground") if isinstance(record.extra, Mapping) else None
    return isinstance(battleground, Mapping) and battleground.get("status") == "aborted"


def server_record(server: str, game_id: int) -> GameRecord | None:
    """Game ``game_id``'s record from the server's ``GET /api/games/ID``; None if it cannot be had."""
    url = f"http://{server}/api/games/{game_id}"
    try:
        with urllib.request.urlopen(url, timeout=RECORD_FETCH_TIMEOUT) as response:
            return GameRecord.from_json(response.read().decode("utf-8"))
    except (OSError, ValueError, RecordError):  # unreachable, not JSON, not a record: the server keeps it
        return None


@dataclass
class ClientOptions:
    """What ``python -m referee connect`` was asked: the agent, the name, the server, the games and how to play them."""

    spec: str
    name: str
    server: str = "127.0.0.1:7030"
    channel: str = ""
    games: int = 2
    token: str | None = None
    sandbox: str = "auto"
    record_file: str | None = "battleground-games.jsonl"
    verbosity: int = 1
    keep_token: bool = True
    house_for: str | None = None


class Scorebook:
    """The games the client was asked for (``options.games``), those that counted, those the server owes, and
    the record file; each game's end said in one line (``say``)."""

    def __init__(self, options: ClientOptions, say: Callable[[str], None]):
        self.options = options
        self.say = say
        #: Games that ended and count, each one of ``options.games`` (a game that ended while away too).
        self.finished = 0
        #: Games the server aborted (in a crash, or on its own error): never counted, so asked for again.
        self.owed = 0

    def left(self, in_play: bool) -> int:
        """The games to ask for in a hello (``in_play``: the client is back with a game in play)."""
        # Back with a game in play, that game is one of ours whatever became of it: the server resumes it (and
        # ignores the count) or, if it ended meanwhile, takes the count as the games still to play (0: none).
        return max(0, self.options.games - self.finished - (1 if in_play else 0))

    def ask_again(self) -> bool:
        """After the server's ``done``: whether to come back for the games it aborted (they count for nothing,
        but the server took them off the count the client asked for). Said in one line."""
        left = self.options.games - self.finished
        # A house agent's client plays what the server asks of it: the student asks again, not the house.
        if not self.owed or left <= 0 or self.options.house_for:
            return False
        self.say(f"asking for {left} more game{'s' if left > 1 else ''}: the aborted game"
                 f"{'s' if self.owed > 1 else ''} did not count")
        self.owed = 0
        return True

    def aborted_at_restart(self, aborted: object, in_play: int | None) -> bool:
        """The games a welcome says the server aborted when it stopped, said in one line; whether the game in play
        (``in_play``: its id) is one of them."""
        if not isinstance(aborted, list) or not aborted:
            return False
        games = ", ".join(str(game_id) for game_id in aborted)
        self.say(f"game{'s' if len(aborted) > 1 else ''} {games} aborted when the server stopped (not counted)")
        if in_play is None or in_play not in aborted:
            return False
        # Not one of the client's games: the hello just sent counted it, so it is asked for again after the
        # server's ``done`` (:meth:`ask_again`).
        self.owed += 1
        return True

    def side_in(self, record: GameRecord) -> str | None:
        """The side the record names the client's (None: neither, or both)."""
        sides = [color for color in PLAYER_NAMES if record.name_of(color) == self.options.name]
        return sides[0] if len(sides) == 1 else None

    def ended(self, game_id: int, record: GameRecord, color: str | None) -> None:
        """A game's ``end`` came (``color``: the client's side if it was its game in play): said, counted or owed,
        and its record kept."""
        if aborted(record):
            # The server failed during the game: no result, and not one of the client's games.
            self.owed += 1
            self.say(f"game {game_id}: aborted by the server, not counted: {record.message}")
        else:
            self.finished += 1
            self.say(f"game {game_id}: {result(record, color or self.side_in(record))}")
        self.keep(record)

    def ended_while_away(self, game_id: int, color: str) -> None:
        """The game in play (the client's side: ``color``) ended while the client was away: its result and record,
        from the server's site (kept as any game's), and one of its ``--games``, as the count in its hello on
        coming back assumed (a game the server aborted is not: it is owed)."""
        record = server_record(self.options.server, game_id)
        if record is None:
            self.say(f"game {game_id} ended while this client was away (its record is on the server)")
        elif aborted(record):
            self.say(f"game {game_id} was aborted by the server while this client was away, not counted: "
                     f"{record.message}")
            self.keep(record)
            self.owed += 1
            return
        else:
            self.say(f"game {game_id} ended while this client was away: {result(record, color)}")
            self.keep(record)
        self.finished += 1

    def keep(self, record: GameRecord) -> None:
        """Append a game's record to the record file (if any)."""
        if self.options.record_file:
            with open(self.options.record_file, "a", encoding="utf-8") as file:
                file.write(record.to_json() + "\n")
