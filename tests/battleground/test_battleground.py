"""The battleground end to end: a real server and real clients in subprocesses, over localhost.

Every test waits on an event (a line in a log file, a row in the server's
SQLite database, a process's exit), never on a fixed sleep.  The database is
read directly: it is what survives the server, and the record of truth.

* A colour-swapped pair between two students' sealed agents; a house channel.
* A client killed mid-game: lost on ``disconnected`` after the grace period,
  or resumed by a new client process within it (also while the opponent is
  the one thinking).
* Garbage, oversized and out-of-place messages: refused, never the server's end.
* A roster's tokens (and ``serve tokens`` on a database made for a game's options,
  run on the real files without a server); a server killed with SIGKILL and
  restarted on its database.
"""
from __future__ import annotations

import itertools
import json
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.battleground.cli import serve_parser, tokens_main
from referee.battleground.store import Store, StoreError
from referee.core import utc_now
from referee.games import command_line_options
from referee.records import GameRecord
from tests.battleground.sides import (
    Client, RawSide, Server, closed_after, finished_row, hello, raw_connect, receive, replay, running,
)
from tests.helpers import ROOT, run_referee, wait_until

pytest.importorskip("websockets.sync.client")

SLOW = "tests/battleground/fixture_agents/slow"


# -- the servers ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the tests that each use channels of their own: a house agent, a 2 s grace period."""
    server = Server(tmp_path_factory.mktemp("shared"), "-t", "30", "--grace", "2",
                    "--house", "greedy=agents.greedy", "--sandbox", "off",
                    "--house", "looper=tests.hosting.fixture_agents.misbehave:CpuLoop,t=0.5,s=100")
    yield server
    server.kill()
    # Whatever the tests threw at it, the server never failed inside (a task's or a page's internal error).
    assert "Traceback" not in server.text() and "internal error" not in server.text(), server.text()


# -- 1. a colour-swapped pair between two students' sealed agents ----------------------------------------------


def test_a_colour_swapped_pair_between_two_sealed_agents(shared: Server, tmp_path: Path):
    alice = Client(tmp_path, shared, "agents/random_agent", "alice", "--channel", "pair", "-v", "0", sandbox=None)
    bob = Client(tmp_path, shared, "agents/greedy", "bob", "--channel", "pair", "-v", "0", sandbox=None)
    with running(alice, bob):
        assert alice.wait() == 0, alice.text()
        assert bob.wait() == 0, bob.text()
    for client in (alice, bob):
        assert "no more games" in client.text()
    rows = shared.rows("channel = 'pair'")
    assert [row["status"] for row in rows] == ["finished", "finished"]
    served = [GameRecord.from_json(row["record"]) for row in rows]
    assert {(r.red, r.blue) for r in served} == {("alice", "bob"), ("bob", "alice")}  # each Red once
    for client in (alice, bob):
        assert [r.to_dict() for r in client.game_records()] == [r.to_dict() for r in served]
    for record, row in zip(served, rows):
        state = replay(record)
        assert state.is_over and record.turns == len(record.actions) == row["turns"]
        assert (record.winner, record.reason) == (state.outcome.winner_name, state.outcome.reason)
        assert (row["winner"], row["reason"]) == (record.winner, record.reason)
        assert record.extra["battleground"]["clock"] == "reported by the client"


# -- 2. a house channel -----------------------------------------------------------------------------------------


def test_a_house_channel_plays_the_house_agent(shared: Server, tmp_path: Path):
    carol = Client(tmp_path, shared, "agents/random_agent", "carol", "--channel", "greedy", "--games", "1",
                   "-v", "0")
    with running(carol):
        assert carol.wait() == 0, carol.text() + shared.text()
    [row] = shared.rows("red = 'carol' OR blue = 'carol'")
    assert row["status"] == "finished" and {row["red"], row["blue"]} == {"carol", "greedy"}
    assert row["channel"] == "greedy"
    [record] = carol.game_records()
    assert record.to_dict() == GameRecord.from_json(row["record"]).to_dict()
    replay(record)


def test_a_house_agent_with_its_own_limits_plays_at_odds_and_is_held_to_them(shared: Server, tmp_path: Path):
    # The house agent spins: with its own 0.5 s (not the server's 30 s) it loses on time at once.
    fred = Client(tmp_path, shared, "agents/random_agent", "fred", "--channel", "looper", "--games", "1",
                  "-v", "0")
    with running(fred):
        assert fred.wait() == 0, fred.text() + shared.text()
    [row] = shared.rows("red = 'fred' OR blue = 'fred'")
    record = GameRecord.from_json(row["record"])
    looper = "RED" if record.red == "looper" else "BLUE"
    student = "BLUE" if looper == "RED" else "RED"
    assert (record.winner, record.reason) == (student, "time_limit"), record.message
    # Either clock may stop it first: the client's CPU check or the server's wall clock (1.25 x 0.5 s).
    message = record.error[looper]["message"]
    assert "over its limit of 0.5 s" in message or "(0.625 s for a 0.5 s CPU limit)" in message, message
    assert record.at_odds
    assert (record.limit_of(looper, "time_limit"), record.limit_of(looper, "space_limit")) == (0.5, 100.0)
    assert record.limit_of(student, "time_limit") == 30.0
    assert record.extra["battleground"]["wall_limits"] == {looper: 0.625, student: 37.5}


# -- 3. a client killed mid-game ------------------------------------------------------------------------------------


def test_a_client_killed_mid_game_loses_on_disconnected_after_the_grace_period(shared: Server, tmp_path: Path):
    # Sealed (the default sandbox): the kill takes its process group, the sealed agent's processes with it.
    dora = Client(tmp_path, shared, SLOW, "dora", "--channel", "drop", "--games", "1", sandbox=None)
    eve = Client(tmp_path, shared, "agents/random_agent", "eve", "--channel", "drop", "--games", "1", "-v", "0")
    with running(dora, eve):
        wait_until(lambda: dora.turns_seen() >= 6 or dora.proc.poll() is not None, 30, "dora mid-game")
        assert dora.proc.poll() is None, dora.text()
        [row] = shared.rows("channel = 'drop'")
        assert row["status"] == "running"
        dora.kill()
        killed = time.monotonic()
        row = wait_until(lambda: finished_row(shared, row["id"]), 30, "the game's end")
        waited = time.monotonic() - killed
        assert eve.wait() == 0, eve.text()
    dora_color = "RED" if row["red"] == "dora" else "BLUE"
    assert row["reason"] == "disconnected" and row["winner"] != dora_color and row["winner"] is not None
    assert waited >= 2.0  # the grace period
    record = GameRecord.from_json(row["record"])
    assert record.error[dora_color]["kind"] == "disconnected"
    replay(record)
    # A forfeit, so the replay does not take its actions' not ending the game for a record cut short or edited.
    from referee.render.frames import build_frames, record_mismatch

    assert record.forfeit and record_mismatch(record, replay(record)) is None
    assert build_frames(record)
    assert [r.to_dict() for r in eve.game_records()] == [record.to_dict()]


@pytest.fixture
def patient(tmp_path: Path) -> Iterator[Server]:
    """A server with a 15 s grace period (the resumption tests end well within it)."""
    server = Server(tmp_path, "-t", "30", "--grace", "15")
    yield server
    server.kill()


def test_a_client_killed_mid_game_is_resumed_by_a_new_client_within_the_grace(patient: Server, tmp_path: Path):
    first = Client(tmp_path, patient, SLOW, "fred", "--channel", "resume", "--games", "1", log_name="fred-1.log")
    gina = Client(tmp_path, patient, "agents/random_agent", "gina", "--channel", "resume", "--games", "1", "-v", "0")
    with running(first, gina):
        wait_until(lambda: first.turns_seen() >= 6 or first.proc.poll() is not None, 30, "fred mid-game")
        assert first.proc.poll() is None, first.text()
        first.kill()
        # The same name and the same token file: the same player, back within the grace period.
        second = Client(tmp_path, patient, SLOW, "fred", "--channel", "resume", "--games", "1",
                        config=first.config, log_name="fred-2.log")
        with running(second):
            assert second.wait() == 0, second.text() + patient.text()
            assert gina.wait() == 0, gina.text()
    [row] = patient.rows()
    assert f"resuming game {row['id']}" in second.text(), second.text()
    assert row["status"] == "finished" and row["reason"] != "disconnected", dict(row)
    record = GameRecord.from_json(row["record"])
    state = replay(record)
    assert state.is_over and (record.winner, record.reason) == (state.outcome.winner_name, state.outcome.reason)
    assert [r.to_dict() for r in second.game_records()] == [record.to_dict()]
    assert first.game_records() == []


def test_a_client_resumed_while_its_opponent_is_thinking(patient: Server, tmp_path: Path):
    """The new client arrives while the server waits on the other side: it must still get the game back."""
    with raw_connect(patient) as ws:
        first = Client(tmp_path, patient, SLOW, "hana", "--channel", "think", "--games", "1", log_name="hana-1.log")
        with running(first):
            me = RawSide(ws, "ivan", "think")
            for _ in range(4):
                assert me.until_play()["type"] == "play"
                me.send_action(me.action())
            assert me.until_play()["type"] == "play"  # the server now waits on this side
            first.kill()
            second = Client(tmp_path, patient, SLOW, "hana", "--channel", "think", "--games", "1",
                            config=first.config, log_name="hana-2.log")
            with running(second):
                wait_until(lambda: "connected to" in second.text(), 30, "hana's new client connected")
                me.send_action(me.action())
                end = me.play_out()
                assert second.wait() == 0, second.text() + patient.text()
    record = GameRecord.from_dict(end["record"])
    assert record.reason not in ("disconnected", "time_limit", "protocol_error"), record.message
    state = replay(record)
    assert (record.winner, record.reason) == (state.outcome.winner_name, state.outcome.reason)
    assert [r.to_dict() for r in second.game_records()] == [record.to_dict()]


class Proxy:
    """A TCP relay to the server that the test can cut (the client's connection drops, and no new one gets
    through: refused) and open again on the same port: a client away while its process lives on."""

    def __init__(self, server: Server):
        self.target = ("127.0.0.1", server.port)
        self.listener: socket.socket | None = None
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.port = 0
        self.open()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def open(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen()
        self.port = listener.getsockname()[1]
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        listener, self.listener = self.listener, None
        if listener is not None:
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
            listener.close()
        for pair in self.pairs:
            for sock in pair:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()
        self.pairs = []

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                inner, _ = listener.accept()
            except OSError:
                return
            outer = socket.create_connection(self.target)
            self.pairs.append((inner, outer))
            for source, sink in ((inner, outer), (outer, inner)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def test_a_game_that_ended_while_its_client_was_away_counts_as_one_of_its_games(patient: Server, tmp_path: Path):
    """The client's connection drops (its process lives on), its game ends meanwhile, it comes back: that game
    was one of its --games, so a client of one game has nothing more to play."""
    proxy = Proxy(patient)
    away = Client(tmp_path, proxy.address, SLOW, "xena", "--channel", "away", "--games", "1")
    try:
        with running(away), raw_connect(patient) as ws:
            me = RawSide(ws, "yuri", "away")
            for _ in range(3):
                assert me.until_play()["type"] == "play"
                me.send_action(me.action())
            proxy.cut()
            wait_until(lambda: "reconnecting" in away.text() and patient.get("/api/stats")["connections"] == 1, 30,
                       "xena away (the server sees one connection)")
            ws.send("{not json")  # this side forfeits: the game ends while xena is away
            row = wait_until(lambda: finished_row(patient, me.id), 20, "the game's end")
            proxy.open()
            assert away.wait() == 0, away.text() + patient.text()
    finally:
        proxy.cut()
    assert row["reason"] == "protocol_error" and row["winner"] != me.color
    text = away.text()
    assert f"game {me.id} ended while this client was away: " in text, text
    assert "waiting for an opponent" not in text.split("ended while this client was away")[1], text
    assert [r["id"] for r in patient.rows()] == [me.id]
    # Its result is told and its record kept, fetched from the server's site, as a game seen to its end is.
    server_record = GameRecord.from_dict(patient.get(f"/api/games/{me.id}"))
    assert server_record.message in text.split("ended while this client was away: ")[1].splitlines()[0]
    [kept] = away.records.read_text().splitlines()
    assert GameRecord.from_json(kept).to_dict() == server_record.to_dict()


# -- 4. garbage and oversized messages ------------------------------------------------------------------------


_fresh = itertools.count()


@pytest.mark.parametrize("garbage", [
    "this is not JSON",
    json.dumps({"type": "shout", "protocol": 1}),
    json.dumps({"type": "hello", "protocol": 1, "name": "bad name!", "token": None, "channel": "", "games": 1,
                "client": "test"}),
    json.dumps({"type": "hello", "protocol": 1, "name": "x" * 33, "token": None, "channel": "", "games": 1,
                "client": "test"}),
    json.dumps({"type": "ready", "id": 1}),
    b"\x00binary",
])
def test_a_bad_first_message_is_refused_and_the_server_keeps_serving(shared: Server, garbage: str | bytes):
    with raw_connect(shared) as ws:
        ws.send(garbage)
        messages = closed_after(ws)
    assert [m["type"] for m in messages] == ["refused"], messages
    with raw_connect(shared) as ws:
        ws.send(hello(f"served-{next(_fresh)}", channel="nobody-else"))
        assert receive(ws)["type"] == "welcome"
    assert shared.proc.poll() is None


def test_an_oversized_message_closes_the_connection_and_the_server_keeps_serving(shared: Server):
    with raw_connect(shared) as ws:
        ws.send(hello("huge", channel="nobody-else"))
        assert receive(ws)["type"] == "welcome"
        ws.send(json.dumps({"type": "ready", "id": 1, "padding": "x" * 100_000}))
        closed_after(ws)
        assert ws.close_code == 1009
    with raw_connect(shared) as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 1, "name": "huge2" + "x" * 100_000}))
        closed_after(ws)
        assert ws.close_code == 1009
    with raw_connect(shared) as ws:
        ws.send(hello(f"served-{next(_fresh)}", channel="nobody-else"))
        assert receive(ws)["type"] == "welcome"
    assert shared.proc.poll() is None


@pytest.mark.parametrize(("when", "garbage"), [
    ("on its move", "{not json"),
    ("on the opponent's move", "{not json"),
    # Refused by the WebSocket library (close 1009) before the server reads it: a forfeit all the same, at once.
    ("oversized on its move", json.dumps({"type": "action", "padding": "x" * 100_000})),
])
def test_garbage_mid_game_forfeits_on_protocol_error(shared: Server, tmp_path: Path, when: str, garbage: str):
    channel = "junk-" + when.split()[1][:3]
    name = {"on its move": "kim", "on the opponent's move": "lee"}.get(when, "max")
    # An opponent that only spawns in its first moves: its reply cannot end the game (by capturing all of
    # this side's tokens) before the server reads the garbage.
    opponent = Client(tmp_path, shared, "tests/battleground/fixture_agents/slow", f"{name}-o", "--channel", channel,
                      "--games", "1", "-v", "0")
    with running(opponent), raw_connect(shared) as ws:
        me = RawSide(ws, name, channel)
        for _ in range(3):
            assert me.until_play()["type"] == "play"
            me.send_action(me.action())
        if when != "on the opponent's move":
            assert me.until_play()["type"] == "play"
        ws.send(garbage)
        sent = time.monotonic()
        messages = closed_after(ws)
        if len(garbage) > 65536:
            assert ws.close_code == 1009
        else:
            assert messages and messages[-1]["type"] == "error", messages
        row = wait_until(lambda: finished_row(shared, me.id), 20, "the game's end")
        assert time.monotonic() - sent < 2  # at once, not after the 2 s grace period of a dropped connection
        assert opponent.wait() == 0, opponent.text()
    assert row["reason"] == "protocol_error"
    assert row["winner"] == ("BLUE" if me.color == "RED" else "RED")
    record = GameRecord.from_json(row["record"])
    assert record.error[me.color]["kind"] == "protocol_error"
    replay(record)


# -- 5. a roster ------------------------------------------------------------------------------------------------


def test_a_roster_lets_its_names_play_with_their_tokens_only(tmp_path: Path):
    roster = tmp_path / "roster.csv"
    roster.write_text("name,student_id\nmia,1001\nned,1002\n")
    db = tmp_path / "bg.sqlite"
    printed = subprocess.run([sys.executable, "-m", "referee", "serve", "tokens", str(roster), "--db", str(db)],
                             cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert printed.returncode == 0, printed.stderr
    lines = printed.stdout.splitlines()
    assert lines[0] == "name,student_id,token"
    tokens = {name: token for name, _, token in (line.split(",") for line in lines[1:])}
    assert set(tokens) == {"mia", "ned"} and all(re.fullmatch(r"[0-9a-f]{32}", t) for t in tokens.values())
    again = subprocess.run([sys.executable, "-m", "referee", "serve", "tokens", str(roster), "--db", str(db)],
                           cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert again.stdout == printed.stdout  # the same tokens every time for the same database

    server = Server(tmp_path, "-t", "30", "--roster", str(roster), db=db)
    with running(server):
        wrong = Client(tmp_path, server, "agents/random_agent", "mia", "--token", "0" * 32, "-v", "0",
                       log_name="mia-wrong.log")
        stranger = Client(tmp_path, server, "agents/random_agent", "oz", "-v", "0")
        with running(wrong, stranger):
            assert wrong.wait() != 0
            assert stranger.wait() != 0
        assert "wrong token" in wrong.text(), wrong.text()
        assert "roster" in stranger.text(), stranger.text()
        mia = Client(tmp_path, server, "agents/random_agent", "mia", "--token", tokens["mia"], "--channel", "r",
                     "--games", "1", "-v", "0")
        ned = Client(tmp_path, server, "agents/random_agent", "ned", "--token", tokens["ned"], "--channel", "r",
                     "--games", "1", "-v", "0")
        with running(mia, ned):
            assert mia.wait() == 0, mia.text()
            assert ned.wait() == 0, ned.text()
        [row] = server.rows()
        assert row["status"] == "finished" and {row["red"], row["blue"]} == {"mia", "ned"}
        assert server.player_names() == {"mia", "ned"}


def served_store(db: Path, *flags: str) -> Store:
    """The store ``serve FLAGS --db DB`` opens: its options read by serve's own parser, as serve_main reads them."""
    args = serve_parser(flags[flags.index("--game") + 1]).parse_args([*flags, "--db", str(db)])
    return Store(args.db, args.game, command_line_options(args.game, args, None))


def printed_tokens(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, str]:
    """``serve tokens ARGV``, run in this process: name -> token (it must succeed)."""
    assert tokens_main(list(argv)) == 0, capsys.readouterr().err
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "name,student_id,token"
    return {name: token for name, _, token in (line.split(",") for line in lines[1:])}


def files_of(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in ``folder`` with its bytes and mode: what a refused command must leave as it was."""
    return {f.name: (f.read_bytes(), f.stat().st_mode) for f in sorted(folder.iterdir()) if f.is_file()}


@pytest.fixture
def roster(tmp_path: Path) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text("name,student_id\nmia,1001\nned,\n")
    return path


def test_tokens_of_a_database_served_with_options_need_no_game_and_are_the_servers(tmp_path, roster, capsys):
    """Before: ``serve tokens`` opened every database as the default game's without options, so a server run with
    ``--game cachex -n 5`` could not have its tokens printed ("holds the games of ...")."""
    db = tmp_path / "bg.sqlite"
    store = served_store(db, "--game", "cachex", "-n", "5")
    served = {name: store.roster_token(name) for name in ("mia", "ned")}
    store.close()
    assert printed_tokens(capsys, str(roster), "--db", str(db)) == served
    # The same setup spelled out on the command line is the database's: accepted.
    assert printed_tokens(capsys, str(roster), "--db", str(db), "--game", "cachex", "--size", "5") == served
    infinitron = tmp_path / "infinitron.sqlite"
    store = served_store(infinitron, "--game", "infinitron", "--chaos", "--rules", "1.1")
    assert printed_tokens(capsys, str(roster), "--db", str(infinitron)) == {
        name: store.roster_token(name) for name in ("mia", "ned")}
    store.close()


def test_tokens_printed_first_make_the_database_the_server_then_accepts(tmp_path, roster, capsys):
    """Before: tokens printed before the first serve made the database the default game's, and ``serve --game
    cachex -n 5`` then refused it."""
    db = tmp_path / "bg.sqlite"
    printed = printed_tokens(capsys, str(roster), "--db", str(db), "--game", "cachex", "-n", "5")
    store = served_store(db, "--game", "cachex", "-n", "5")
    assert {name: store.roster_token(name) for name in printed} == printed
    store.close()
    with pytest.raises(StoreError, match="holds the games of"):
        served_store(db, "--game", "cachex")  # made for -n 5: another size is another database
    assert printed_tokens(capsys, str(roster), "--db", str(db)) == printed  # and the same tokens every time


def test_a_conflicting_game_or_option_is_refused_in_one_line_and_the_database_left_as_it_was(tmp_path, roster):
    db = tmp_path / "bg.sqlite"
    served_store(db, "--game", "cachex", "-n", "5").close()
    before = files_of(tmp_path)
    for conflict in (["--game", "cachex"], ["--game", "cachex", "-n", "6"], ["--game", "infexion"]):
        refused = run_referee("serve", "tokens", str(roster), "--db", str(db), *conflict, timeout=30)
        assert refused.returncode == 2 and refused.stdout == "", (conflict, refused.stdout, refused.stderr)
        assert "Traceback" not in refused.stderr, refused.stderr
        said = refused.stderr.splitlines()[-1]
        assert said.startswith("python -m referee serve tokens: error: ") and "holds the games of" in said, said
        assert '"n": 5' in said, said  # what the database was made for, so the user can give it (or nothing)
        assert files_of(tmp_path) == before, conflict


def not_a_battleground_database(folder: Path) -> tuple[Path, Path]:
    """Two files a --db may name by mistake: someone's notes, and another program's SQLite database."""
    text = folder / "notes.sqlite"
    text.write_text("not a database, but someone's notes\n" * 200)
    foreign = folder / "other.sqlite"
    with sqlite3.connect(foreign) as other:
        other.execute("CREATE TABLE marks (student TEXT, mark REAL)")
    other.close()
    return text, foreign


def test_bad_input_is_said_in_one_line_and_changes_no_file(tmp_path, roster, capsys):
    text, foreign = not_a_battleground_database(tmp_path)
    db = tmp_path / "bg.sqlite"
    served_store(db, "--game", "cachex", "-n", "5").close()
    before = files_of(tmp_path)
    for argv, error in [
        ([str(roster), "--db", str(tmp_path / "new.sqlite"), "--game", "chess"], "invalid choice: 'chess'"),
        ([str(roster), "--db", str(tmp_path / "new.sqlite"), "--game", "cachex", "-n", "99"], "not 99"),
        ([str(roster), "--db", str(tmp_path / "new.sqlite"), "--game", "cachex", "-n", "five"], "invalid int"),
        ([str(roster), "--db", str(db), "--game", "cachex", "-n", "2"], "not 2"),
        ([str(roster), "--db", str(text)], "not a battleground database"),
        ([str(roster), "--db", str(foreign), "--game", "infexion"], "not a battleground database (its tables: marks)"),
        ([str(tmp_path / "missing.csv"), "--db", str(tmp_path / "new.sqlite")], "cannot read the roster"),
        ([str(text), "--db", str(db)], "the roster needs a 'name' column"),
    ]:
        assert tokens_main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert out == "" and "Traceback" not in err, (argv, err)
        assert err.splitlines()[-1].startswith("python -m referee serve tokens: error: ") and error in err, (argv, err)
        assert files_of(tmp_path) == before, argv  # no new database made, none changed


def test_serve_refuses_a_file_that_is_not_its_database_as_it_found_it(tmp_path):
    # What serve opens (Store): someone's other SQLite file or notes named by --db are not made the server's.
    text, foreign = not_a_battleground_database(tmp_path)
    before = files_of(tmp_path)
    for path, said in [(text, "not a battleground database"), (foreign, "its tables: marks"),
                       (tmp_path / "no-such-folder" / "bg.sqlite", "does not exist")]:
        with pytest.raises(StoreError, match=re.escape(said)):
            Store(path, "infexion", {})
        assert files_of(tmp_path) == before, path
    done = run_referee("serve", "--db", str(foreign), "--port", "0", timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "its tables: marks" in done.stderr
    assert files_of(tmp_path) == before


# -- 6. the server killed mid-game ------------------------------------------------------------------------------


def test_a_server_killed_mid_game_restarts_with_every_finished_game_and_player(tmp_path: Path):
    server = Server(tmp_path, "-t", "30", "--grace", "2")
    with running(server):
        olga = Client(tmp_path, server, "agents/random_agent", "olga", "--channel", "c", "--games", "2", "-v", "0")
        pete = Client(tmp_path, server, SLOW, "pete", "--channel", "c", "--games", "2")
        with running(olga, pete):
            wait_until(lambda: pete.turns_seen(since="(2 of 2)") >= 6 or pete.proc.poll() is not None,
                       30, "the second game under way")
            assert pete.proc.poll() is None, pete.text()
            assert [row["status"] for row in server.rows()] == ["finished", "running"]
            # The server keeps the moves of a game in play as it goes (every 0.05 s): 6 of them at least.
            kept = wait_until(lambda: server.moves_kept(server.rows()[1]["id"]) >= 6 and
                              server.moves_kept(server.rows()[1]["id"]), 30, "the game's moves kept")
            server.kill()
            killed_at = utc_now()
            for client in (olga, pete):
                assert client.wait() != 0, client.text()
                assert "connection lost" in client.text() or "connection to" in client.text(), client.text()
    [finished, running_game] = server.rows()
    before = dict(finished)
    # The restart comes in a later second than the kill: the aborted game's end must be the kill's, not it.
    wait_until(lambda: utc_now() > killed_at, 5, "the next second")

    again = Server(tmp_path, "-t", "30", "--grace", "2", db=server.db, log_name="server-2.log")
    with running(again):
        assert "1 game(s) interrupted by the last stop recorded as aborted" in again.text()
        rows = again.rows()
        assert dict(rows[0]) == before
        assert rows[1]["id"] == running_game["id"] and rows[1]["status"] == "aborted"
        assert again.player_names() == {"olga", "pete"}
        # The aborted game keeps its actions so far (each legal), shown as aborted and counted nowhere.
        partial = GameRecord.from_json(rows[1]["record"])
        assert partial.extra["battleground"]["status"] == "aborted" and partial.reason == "unfinished"
        assert partial.winner is None and "aborted after" in partial.message
        # Dated by the server's last sign of life (kept every 2 s), not by the restart that found it.
        stopped = partial.extra["battleground"]["stopped_at"]
        assert rows[1]["ended_at"] == stopped <= killed_at < partial.extra["battleground"]["aborted_at"]
        assert stopped >= rows[1]["started_at"]
        assert len(partial.actions) >= kept and rows[1]["turns"] == len(partial.actions)
        assert not replay(partial).is_over
        assert len(partial.time_used_after) == len(partial.actions)
        assert {partial.red, partial.blue} == {"olga", "pete"} and partial.seed is not None
        assert GameRecord.from_dict(again.get(f"/api/games/{rows[1]['id']}")).to_dict() == partial.to_dict()
        assert "aborted (not counted)" in again.page("/players/pete")
        # The front page and the games API list it apart from the finished ones.
        front = again.page("/")
        assert "Aborted when the server stopped (not counted)" in front
        assert '<table id="aborted">' in front and f'href="/games/{rows[1]["id"]}"' in front.split('id="aborted"')[1]
        listed = again.get("/api/games")
        assert [g["id"] for g in listed["aborted"]] == [rows[1]["id"]]
        assert [g["id"] for g in listed["finished"]] == [rows[0]["id"]]
        assert f"game {rows[1]['id']}: {partial.red} vs {partial.blue}" in again.page(f"/games/{rows[1]['id']}/replay")
        assert len(again.get(f"/api/games/{rows[1]['id']}/frames")["steps"]) == len(partial.actions)
        assert {row["name"]: row["games"] for row in again.get("/api/leaderboard")} == {"olga": 1, "pete": 1}
        # pete's token still opens pete's name: the player is intact.
        stored = json.loads((pete.config / "referee" / "battleground-tokens.json").read_text())
        server_id = again.get("/api/server")["server_id"]  # the same database: the same server, whatever its port
        token = stored[f"pete@{server_id}"]
        with raw_connect(again) as ws:
            ws.send(hello("pete", channel="after", token=token))
            welcome = receive(ws)
            # Told once that its game was aborted.
            assert welcome["type"] == "welcome" and "token" not in welcome
            assert welcome["aborted"] == [running_game["id"]]
        # olga's client is told so too (her token is kept under the server's id: given here).
        kept = json.loads((olga.config / "referee" / "battleground-tokens.json").read_text())
        back = Client(tmp_path, again, "agents/random_agent", "olga", "--channel", "after", "--games", "1",
                      "--token", kept[f"olga@{server_id}"], "-v", "0", log_name="olga-2.log")
        with running(back):
            wait_until(lambda: "aborted when the server stopped" in back.text() or back.proc.poll() is not None,
                       30, "olga told her game was aborted")
            assert f"game {running_game['id']} aborted when the server stopped (not counted)" in back.text(), \
                back.text()
        with raw_connect(again) as ws:
            ws.send(hello("pete", channel="after", token=token))
            assert "aborted" not in receive(ws)
        with raw_connect(again) as ws:
            ws.send(hello("pete", channel="after", token="f" * 32))
            assert receive(ws)["type"] == "refused"
    replay(GameRecord.from_json(before["record"]))
    assert len(olga.game_records()) == 1


def test_a_name_logging_in_again_replaces_its_connection_and_frees_its_place(shared: Server):
    """A new login with the right token replaces the old connection, which no longer counts against the address."""
    with raw_connect(shared) as ws:
        ws.send(hello("rita", channel="alone"))
        token = receive(ws)["token"]
    for _ in range(10):  # more than the 8 connections an address may hold at once
        with raw_connect(shared) as old:
            old.send(hello("rita", channel="alone", token=token))
            assert receive(old)["type"] == "welcome"
            with raw_connect(shared) as new:
                new.send(hello("rita", channel="alone", token=token))
                assert receive(new)["type"] == "welcome"
                assert "waiting" in [m["type"] for m in closed_after(old)]
                assert old.close_reason == "replaced by a new connection"
