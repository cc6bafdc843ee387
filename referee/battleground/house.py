"""House agents: for each student on a house channel, the server starts ``python -m referee connect`` of that
agent in a process of its own on this machine (sealed as any local game), at most ``house_workers`` at once."""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import os
import signal
import sys
from typing import Any, Protocol

from .lobby import Lobby
from .protocol import TOKEN_VARIABLE
from .seats import Player, ServerSettings

log = logging.getLogger("referee.battleground")

#: Games a student plays the house agent per visit; with more to play it waits for a slot again.
HOUSE_GAMES_PER_VISIT = 10


class Host(Protocol):
    settings: ServerSettings
    players: dict[str, Player]
    lobby: Lobby
    port: int

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]: ...


class HouseAgents:
    """The house agents' processes: one visit per student at a time, at most ``house_workers`` running."""

    def __init__(self, host: Host, secret: str):
        self.host = host
        self._secret = secret
        self.slots = asyncio.Semaphore(max(1, host.settings.house_workers))
        self.procs: set[asyncio.subprocess.Process] = set()
        #: Each student's house agent (its start and its games): one at a time.
        self.visits: dict[str, asyncio.Task[None]] = {}

    def token(self, name: str) -> str:
        """The house agent ``name``'s token (an HMAC of the database's secret: the same across restarts)."""
        return hmac.new(self._secret.encode(), f"house:{name}".encode(), hashlib.sha256).hexdigest()[:32]

    def wanted(self, hello: dict[str, Any]) -> bool:
        """Whether the student a house agent's client was started for waits for it on its channel."""
        student = self.host.players.get(hello.get("opponent") or "")
        return student is not None and student.conn is not None and student.channel == hello["name"] and (
            student in self.host.lobby or student.in_pair)

    def call(self, student: Player) -> None:
        """``student`` waits on a house channel: start its house agent, unless one is on its way already."""
        visit = self.visits.get(student.name)
        if visit is None or visit.done():  # one house agent per student at a time
            self.visits[student.name] = self.host.spawn(self.start(student.channel, student))

    async def start(self, name: str, student: Player) -> None:
        """Start the house agent ``name`` for ``student``: a client process on this machine, sealed as any.

        A visit is at most :data:`HOUSE_GAMES_PER_VISIT` games; a student with more to play then waits for a
        slot again, behind whoever waited meanwhile (so two students asking for 1000 games each do not keep
        every slot for hours).
        """
        if await self._visit(name, student):
            student = self.host.players.get(student.name, student)
            if student in self.host.lobby and student.channel == name and student.games_left > 0:
                self.visits[student.name] = self.host.spawn(self.start(name, student))

    async def _visit(self, name: str, student: Player) -> bool:
        """One visit of the house agent; whether it went as it should (its process ended well)."""
        settings = self.host.settings
        async with self.slots:
            # The student as it is now: it may have left and come back (another Player) while this waited.
            student = self.host.players.get(student.name, student)
            if student.conn is None and student.seat is None:
                return False
            games = min(student.games_left, HOUSE_GAMES_PER_VISIT)
            command = [sys.executable, "-m", "referee", "connect", settings.house[name], name,
                       "--server", f"127.0.0.1:{self.host.port}", "--channel", name, "--games", str(games),
                       "--house-for", student.name,
                       "--sandbox", settings.house_sandbox, "--no-token-file", "-v", "0"]
            # Its token in its environment, not on its command line (which every user of the machine can read).
            env = dict(os.environ, **{TOKEN_VARIABLE: self.token(name)})
            proc = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, start_new_session=True, env=env,
            )
            self.procs.add(proc)
            try:
                _, err = await proc.communicate()
            finally:
                self.procs.discard(proc)
            if proc.returncode not in (0, None):
                log.warning("house agent %s for %s ended with %s: %s", name, student.name, proc.returncode,
                            err.decode(errors="replace")[-400:])
                if student in self.host.lobby:
                    await student.send({"type": "error", "message": f"the house agent {name} could not start"})
                return False
            return True

    def kill(self) -> None:
        """Kill every house agent's process group (the server is stopping)."""
        for proc in list(self.procs):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
