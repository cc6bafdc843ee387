"""Who may play under which name, and how often: real servers and clients over localhost.

* a name that reads as another's is refused, and an address takes a few new
  names an hour;
* switching a server to a roster retires the tokens its names were first used
  with;
* two players start only so many games together in an hour;
* a student whose agent does not play gives the house agent's slot back.
"""
from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.battleground.sides import Client, Server, closed_after, hello, raw_connect, receive, running
from tests.helpers import ROOT, wait_until

pytest.importorskip("websockets.sync.client")


def _command_lines() -> list[list[str]]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            found.append((proc / "cmdline").read_bytes().decode(errors="replace").split("\0"))
        except OSError:
            continue
    return found


def _hello(server: Server, name: str, token: str | None = None) -> dict:
    with raw_connect(server) as ws:
        ws.send(hello(name, channel="nobody", token=token))
        return receive(ws)


def test_names_that_read_alike_are_one_name_and_an_address_takes_a_few_new_ones_an_hour(tmp_path: Path):
    """Before: 'Alice', 'ALICE', 'a1ice', '.' and '..' were five players, and names were free to take: a flood of
    200,000 names made each leaderboard page block the server for 600 ms."""
    server = Server(tmp_path, "-t", "30", "--sandbox", "off", "--names-per-hour", "3")
    with running(server):
        alice = _hello(server, "alice")
        assert alice["type"] == "welcome"
        for like in ("Alice", "ALICE", "a1ice", "a.lice", "al-ice"):
            refused = _hello(server, like)
            assert refused == {"type": "refused", "reason": f"{like!r} reads as 'alice', a name already taken: "
                                                            "choose another"}, like
        for dots in (".", "..", "-alice", "_x"):
            assert _hello(server, dots)["type"] == "refused", dots
        assert _hello(server, "bob")["type"] == "welcome"
        assert _hello(server, "carl")["type"] == "welcome"
        # A fourth new name from this address within the hour is refused; known names still log in.
        refused = _hello(server, "dora")
        assert refused["type"] == "refused" and "at most 3 new names an hour" in refused["reason"], refused
        assert _hello(server, "alice", alice["token"])["type"] == "welcome"
        assert server.player_names() == {"alice", "bob", "carl"}


def test_a_connection_refused_for_its_address_takes_no_name(tmp_path: Path):
    """Before: the name was taken (and its token never sent) before the address's cap refused the connection."""
    server = Server(tmp_path, "-t", "30", "--sandbox", "off", "--per-address", "1")
    with running(server), raw_connect(server) as first:
        first.send(hello("holder", channel="nobody"))
        assert receive(first)["type"] == "welcome"
        refused = _hello(server, "newcomer")
        assert refused == {"type": "refused", "reason": "at most 1 connections from one address"}
        first.close()
        assert wait_until(lambda: (w := _hello(server, "newcomer"))["type"] == "welcome" and w, 20,
                          "the newcomer's welcome")["token"]


def test_a_roster_given_later_retires_the_tokens_its_names_were_first_used_with(tmp_path: Path):
    """Before: a name someone took on an open server kept that first-use token after the switch to a roster, so
    the squatter, not the student, held it."""
    db = tmp_path / "bg.sqlite"
    db.write_bytes(b"")
    db.chmod(0o644)  # made by someone else, readable by all: the server makes it its owner's alone
    open_server = Server(tmp_path, "-t", "30", "--sandbox", "off", db=db, log_name="open.log")
    with running(open_server):
        squatted = _hello(open_server, "mia")
        assert squatted["type"] == "welcome"
        # It holds the secret every roster and house token is derived from: no other user may read it.
        modes = {f.name: stat.S_IMODE(f.stat().st_mode) for f in tmp_path.glob("bg.sqlite*")}
        assert set(modes) >= {"bg.sqlite", "bg.sqlite-wal"} and set(modes.values()) == {0o600}, modes
    roster = tmp_path / "roster.csv"
    roster.write_text("name,student_id\nmia,1001\n")
    printed = subprocess.run([sys.executable, "-m", "referee", "serve", "tokens", str(roster), "--db", str(db)],
                             cwd=ROOT, capture_output=True, text=True, timeout=30)
    token = printed.stdout.splitlines()[1].split(",")[2]
    server = Server(tmp_path, "-t", "30", "--sandbox", "off", "--roster", str(roster), db=db, log_name="roster.log")
    with running(server):
        assert _hello(server, "mia", squatted["token"]) == {"type": "refused", "reason": "wrong token for 'mia'"}
        assert _hello(server, "mia", token)["type"] == "welcome"


def test_a_second_login_while_waiting_takes_the_place_over_and_plays_one_game(tmp_path: Path):
    """Before: a second login with the right token while waiting put the player in the lobby twice (one connection
    in two games: an honest player lost one on time)."""
    server = Server(tmp_path, "-t", "30", "--sandbox", "off")
    with running(server), raw_connect(server) as first:
        first.send(hello("twin", channel="twins", games=2))
        token = receive(first)["token"]
        with raw_connect(server) as second:
            second.send(hello("twin", channel="twins", games=2, token=token))
            assert receive(second)["type"] == "welcome"
            assert receive(second) == {"type": "waiting", "channel": "twins"}
            stats = wait_until(lambda: (s := server.get("/api/stats"))["connections"] == 1 and s, 20, "one login")
            assert stats["waiting"] == 1
            partner = Client(tmp_path, server, "agents/random_agent", "partner", "--channel", "twins", "--games", "1",
                             "-v", "0")
            with running(partner):
                start = wait_until(lambda: (m := receive(second))["type"] == "start" and m, 30, "the start")
                assert start["opponent"] == "partner"
                running_games = server.get("/api/games")["running"]
                assert [(g["id"]) for g in running_games] == [start["id"]]


def test_two_players_start_only_so_many_games_together_in_an_hour(tmp_path: Path):
    """Before: two names of one student could play each other without end (8 GB of records an hour)."""
    server = Server(tmp_path, "-t", "30", "--sandbox", "off", "--pair-games-per-hour", "2")
    with running(server):
        clients = [Client(tmp_path, server, "agents/random_agent", name, "--channel", "cap", "--games", "3",
                          "-v", "0") for name in ("ping", "pong")]
        with running(*clients):
            # Their first pair of games is played; then both wait in the lobby, and no third game starts.
            wait_until(lambda: len(server.rows("status = 'finished'")) == 2, 60, "two games played")
            stats = wait_until(lambda: (s := server.get("/api/stats"))["waiting"] == 2 and s, 30, "both waiting")
            assert stats["games_running"] == 0
            assert len(server.rows()) == 2
            # Someone else on the channel is paired with either at once.
            third = Client(tmp_path, server, "agents/random_agent", "third", "--channel", "cap", "--games", "1",
                           "-v", "0")
            with running(third):
                assert third.wait(60) == 0, third.text()
        assert len(server.rows("status = 'finished'")) == 3


def test_a_student_whose_agent_does_not_move_gives_the_house_slot_back(tmp_path: Path):
    """Before: two clients that asked the house for 1000 games and never moved held every house slot for
    1000 games each (each lost on time, and was queued for the next)."""
    server = Server(tmp_path, "-t", "1", "--sandbox", "off", "--grace", "2", "--house", "greedy=agents.greedy",
                    "--house-workers", "1")
    with running(server), raw_connect(server) as ws:
        ws.send(hello("idler", channel="greedy", games=1000))
        assert receive(ws)["type"] == "welcome"
        start = wait_until(lambda: (m := receive(ws))["type"] == "start" and m, 60, "the house game's start")
        # The house agent's client got its token through its environment: its command line (which any user of
        # the machine can read) has none.
        house = [cmd for cmd in _command_lines() if "--house-for" in cmd]
        assert house and all("--token" not in cmd for cmd in house), house
        ws.send(f'{{"type": "ready", "id": {start["id"]}}}')
        messages = closed_after(ws)  # it never moves: its game is lost on time, and its visit ends
        done = messages[-1]
        assert done["type"] == "done" and "the house agent plays agents that move" in done["message"], messages
        [row] = server.rows()
        assert row["reason"] == "time_limit" and row["winner"] == ("BLUE" if start["color"] == "RED" else "RED")
        # The one house slot is free: the next student plays the house at once.
        student = Client(tmp_path, server, "agents/random_agent", "student", "--channel", "greedy", "--games", "1",
                         "-v", "0")
        with running(student):
            assert student.wait(90) == 0, student.text()
        assert len(server.rows("status = 'finished'")) == 2
