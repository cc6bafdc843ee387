"""The battleground's pieces without a subprocess: the lobby's pairing, a seat's wall clock, and whole games
played through :class:`Battleground` by fake connections (as python-chess tests its engine protocol with a
mock transport), a drop and a return among them.  The end-to-end tests beside these play real clients."""
from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets")

from websockets.exceptions import ConnectionClosed  # noqa: E402

from referee.battleground.lobby import Lobby  # noqa: E402
from referee.battleground.protocol import PROTOCOL_VERSION  # noqa: E402
from referee.battleground.seats import Player, Seat, ServerSettings  # noqa: E402
from referee.battleground.server import Battleground  # noqa: E402
from referee.battleground.store import Store  # noqa: E402
from referee.records import GameRecord  # noqa: E402
from referee.render.frames import build_frames, record_mismatch  # noqa: E402
from referee.games import game_class, load_game  # noqa: E402


def waiting(name: str, channel: str = "", house: bool = False, for_player: str | None = None) -> Player:
    player = Player(name, house)
    player.channel, player.for_player = channel, for_player
    return player


# -- the lobby ---------------------------------------------------------------------------------------------------


def test_a_channel_pairs_in_order_of_arrival_and_never_a_name_with_itself():
    lobby = Lobby({}, 0, lambda name: 0.0)
    ann, ann_again, bob, cat = waiting("ann", "c"), waiting("ann", "c"), waiting("bob", "c"), waiting("cat", "c")
    for player in (ann, ann_again, bob, cat):
        lobby.enter(player)
    assert lobby.pairs() == [(ann, bob), (ann_again, cat)]
    assert len(lobby) == 0


def test_the_public_channel_pairs_the_nearest_rating_and_other_channels_wait_apart():
    ratings = {"ann": 0.0, "bob": 900.0, "cat": 40.0}
    lobby = Lobby({}, 0, ratings.__getitem__)
    ann, bob, cat, dan = waiting("ann"), waiting("bob"), waiting("cat"), waiting("dan", "elsewhere")
    for player in (ann, bob, dan, cat):
        lobby.enter(player)
    assert lobby.pairs() == [(ann, cat)]
    assert lobby.waiting == [bob, dan]


def test_a_house_channel_pairs_a_student_only_with_the_house_agent_started_for_it():
    lobby = Lobby({"house_mcts": "agents.mcts"}, 0, lambda name: 0.0)
    ann, bob = waiting("ann", "house_mcts"), waiting("bob", "house_mcts")
    for_bob = waiting("house_mcts", "house_mcts", house=True, for_player="bob")
    for player in (ann, for_bob):
        lobby.enter(player)
    assert lobby.pairs() == []  # ann and the house agent started for bob do not play
    lobby.enter(bob)
    assert lobby.pairs() == [(bob, for_bob)] and lobby.waiting == [ann]


def test_two_students_play_at_most_the_cap_of_games_an_hour():
    lobby = Lobby({}, 2, lambda name: 0.0)
    for _ in range(2):
        ann, bob = waiting("ann", "c"), waiting("bob", "c")
        lobby.enter(ann)
        lobby.enter(bob)
        [(first, second)] = lobby.pairs()
        lobby.started(first, second)
    lobby.enter(waiting("ann", "c"))
    lobby.enter(waiting("bob", "c"))
    assert lobby.pairs() == [] and len(lobby) == 2


# -- a seat's wall clock ------------------------------------------------------------------------------------------


def test_a_seat_is_charged_what_it_took_and_shows_what_is_left():
    seat = Seat(Player("ann", False), 0, wall_limit=2.5)
    assert seat.wall_left() == 2.5 and seat.wall_remaining() == 2.5
    assert not seat.charge(1.0) and not seat.charge(-3.0)  # a negative time (the lag credit) charges nothing
    assert seat.wall_left() == 1.5 and seat.wall_remaining(running=0.25) == 1.25
    assert seat.wall_remaining(running=9) == 0.0
    assert seat.charge(1.6)  # over its limit now
    unlimited = Seat(Player("bob", False), 1)
    assert unlimited.wall_left() == float("inf") and unlimited.wall_remaining() is None
    assert not unlimited.charge(1e9)


# -- whole games through fake connections --------------------------------------------------------------------------


class FakeConnection:
    """What the server uses of a WebSocket connection: what it sends is kept, what the client says is queued."""

    def __init__(self, address: str = "10.0.0.7"):
        self.remote_address = (address, 40000)
        self.latency = 0.0
        self.transport = None
        self.incoming: asyncio.Queue[str | None] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        self.closed = False

    def say(self, **message: Any) -> None:
        self.incoming.put_nowait(json.dumps(message))

    def drop(self) -> None:
        """The client's side goes away."""
        self.closed = True
        self.incoming.put_nowait(None)

    async def recv(self) -> str:
        item = await self.incoming.get()
        if item is None:
            raise ConnectionClosed(None, None)
        return item

    def __aiter__(self) -> FakeConnection:
        return self

    async def __anext__(self) -> str:
        item = await self.incoming.get()
        if item is None:
            raise StopAsyncIteration
        return item

    async def send(self, text: str) -> None:
        if self.closed:
            raise ConnectionClosed(None, None)
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if not self.closed:
            self.drop()


async def until(predicate: Any, what: str, timeout: float = 10.0) -> Any:
    """Poll ``predicate`` on the event loop until it holds (its value), failing after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := predicate()):
        assert loop.time() < deadline, f"still waiting for {what}"
        await asyncio.sleep(0.005)
    return value


class FakeClient:
    """A client of one name: hello, then each request answered with a random legal action of the game in play."""

    def __init__(self, ground: Battleground, name: str, seed: int):
        self.ground, self.name, self.rng = ground, name, random.Random(seed)
        self.token: str | None = None
        self.conn = FakeConnection()
        self.task: asyncio.Task[None] | None = None

    def connect(self, games: int = 1) -> None:
        self.conn = FakeConnection()
        self.task = asyncio.ensure_future(self.ground.handle(self.conn))  # type: ignore[arg-type]
        self.conn.say(type="hello", protocol=PROTOCOL_VERSION, name=self.name, channel="t", games=games,
                      **({"token": self.token} if self.token else {}))

    def messages(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.conn.sent if m["type"] == kind]

    async def answer(self, until_actions: int | None = None) -> None:
        """Answer the game's start and requests until the game ends (or ``until_actions`` actions were played)."""
        handled = 0
        while True:
            sent = self.conn.sent
            await until(lambda: len(sent) > handled, f"a message to {self.name}")  # noqa: B023  awaited here
            message = sent[handled]
            handled += 1
            if message["type"] == "welcome" and "token" in message:
                self.token = message["token"]
            elif message["type"] == "start":
                self.conn.say(type="ready", id=message["id"])
            elif message["type"] == "play":
                live = self.ground.live[message["id"]]
                if until_actions is not None and len(live.actions) >= until_actions:
                    return
                state = live.state
                action = self.rng.choice(list(state.legal_actions()))
                self.conn.say(type="action", id=message["id"], action=state.action_to_str(action), cpu=0.01,
                              memory_mb=1.0)
            elif message["type"] in ("end", "done"):
                return


@pytest.fixture
def ground(tmp_path: Path):
    """A battleground of Cachex n = 3 (short games) with a short grace period, its database in ``tmp_path``."""
    settings = ServerSettings(game="cachex", game_options={"n": 3}, time_limit=30.0, grace=0.5, per_address=0,
                              names_per_hour=0, pair_games_per_hour=0)
    store = Store(tmp_path / "bg.sqlite", settings.game, settings.game_options)
    yield Battleground(settings, store)
    store.close()


def replay_state(record: GameRecord) -> Any:
    """The record's actions applied by the rules (each must be legal): the final position."""
    state = load_game(record.game, **record.game_options).new_state()
    for text in record.actions:
        state.apply_checked(state.parse_action(text))
    return state


def run(coroutine: Any) -> Any:
    """Run ``coroutine`` to its end (at most 60 s) in a thread of its own: a test before it on this worker may
    leave an event loop running in the main thread (Playwright's sync API does)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(coroutine, 60)).result()


def finished_record(ground: Battleground) -> GameRecord:
    [row] = ground.store.games("finished")
    record = ground.store.record(row.id)
    assert record is not None
    return record


def test_a_game_played_by_two_fake_clients_is_refereed_stored_and_rated(ground: Battleground):
    async def play() -> None:
        ann, bob = FakeClient(ground, "ann", 1), FakeClient(ground, "bob", 2)
        ann.connect()
        bob.connect()
        await asyncio.gather(ann.answer(), bob.answer())
        [end] = ann.messages("end")
        assert end["record"] == bob.messages("end")[0]["record"]
        await ground.close()

    run(play())
    record = finished_record(ground)
    assert record.reason in game_class("cachex").reasons and record.winner in ("RED", "BLUE")
    assert record_mismatch(record, replay_state(record)) is None
    # Each side's clock as its client reported it, once each action was played (Red moves first).
    assert record.time_used_after[0] == (0.01, 0.0) and record.time_used_after[-1] == (0.01, 0.01)
    assert ground.standings.games == 1


async def dropped_mid_game(ground: Battleground, seed: int) -> tuple[FakeClient, asyncio.Future[None]]:
    """ann and bob start a game; asked for its move after two actions, ann's connection drops instead of
    answering.  ann, and bob playing on."""
    ann, bob = FakeClient(ground, "ann", seed), FakeClient(ground, "bob", seed + 1)
    ann.connect()
    bob.connect()
    bob_plays = asyncio.ensure_future(bob.answer())
    await ann.answer(until_actions=2)
    ann.conn.drop()
    return ann, bob_plays


def test_a_client_back_within_the_grace_period_gets_the_game_so_far_and_plays_on(ground: Battleground):
    async def play() -> None:
        ann, bob_plays = await dropped_mid_game(ground, 3)
        [game_id] = ground.live
        played = list(ground.live[game_id].actions)
        await until(lambda: ground.players["ann"].conn is None, "the drop seen")
        ann.connect(games=0)  # back, only for the game in play
        await until(lambda: ann.messages("start"), "the game so far")
        assert [a for _, a in ann.messages("start")[0]["actions"]] == played
        await asyncio.gather(ann.answer(), bob_plays)
        await ground.close()

    run(play())
    record = finished_record(ground)
    assert record.reason != "disconnected" and len(record.actions) > 2


def test_a_client_not_back_within_the_grace_period_loses_on_disconnected_and_its_game_replays(ground: Battleground):
    async def play() -> None:
        ann, bob_plays = await dropped_mid_game(ground, 5)
        await bob_plays
        await ground.close()

    run(play())
    record = finished_record(ground)
    loser = "RED" if record.red == "ann" else "BLUE"
    assert (record.reason, record.winner) == ("disconnected", "BLUE" if loser == "RED" else "RED")
    assert record.error[loser]["kind"] == "disconnected"
    assert record.message.startswith(f"{loser} (ann): disconnected and not back within 0.5 s")
    assert record.forfeit and record_mismatch(record, replay_state(record)) is None
    assert build_frames(record)
