"""``python -m referee play --web``: a person against an agent through the JSON API and through real clicks.

Every test talks to a real server subprocess over HTTP, with a real agent
process (under the default sandbox where this machine has one); the page is
driven in the system's headless Chromium (``browser`` is in conftest.py).
"""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from referee.games.infexion import InfexionState
from referee.games.infinitron.rules import ALL_DEFINES, all_armoured_defines
from referee.hosting.sandbox import probe
from referee.records import GameRecord
from referee.render.frames import build_frames
from tests.helpers import ROOT, run_referee, wait_until
from tests.support.human_play import WAIT, Server, agents_with_hash_seed, cell, settled
from tests.support.pages import open_page, seconds

RANDOM = "agents.random_agent"
#: An Infinitron agent that only ends its turns.
PASSIVE = "tests.hosting.fixture_agents.infinitron_chance:Passive"
SLEEPER = "tests.hosting.fixture_agents.misbehave:Sleeps"  # thinks for ten minutes
STEAL = 'button[data-action="STEAL"]'  # an action without a cell to click is a button
NIM = "nim=tests.fixtures.nim.registration"  # docs/adding-a-game.md's game, from outside the package


@pytest.fixture(scope="module")
def server():
    """One server against the random agent under the default sandbox, shared by the module's tests."""
    started = Server("--seed", "11", RANDOM)
    yield started
    status, out, err = started.stop()
    assert status == 130 and "Traceback" not in err, err


def test_a_scripted_person_plays_a_whole_game_through_the_api(server):
    state = server.post("/api/new", {"as": "blue"})  # the agent (RED) moves first
    assert state["humans"] == ["BLUE"] and state["players"]["RED"] == RANDOM
    for _ in range(400):  # a game ends within 343 actions
        state = server.get("/api/state?wait=1")
        assert not state["thinking"]
        if state["result"]:
            break
        assert state["turn"] == "BLUE" and state["legal"] and len(state["actions"]) % 2 == 1
        if len(state["actions"]) == 1:
            # Refused with the rules' reason, the state unchanged: the agent's first SPAWN took that cell.
            status, answer = server.request("POST", "/api/action", {"action": state["actions"][0]})
            assert status == 400 and "is illegal: cell" in answer["error"] and "not empty" in answer["error"]
            assert server.get("/api/state")["actions"] == state["actions"]
        state = server.post("/api/action", {"action": state["legal"][-1]})
    assert state["result"] and state["result"]["reason"] in ("elimination", "turn_limit")
    status, answer = server.request("POST", "/api/action", {"action": "SPAWN(0, 0)"})
    assert status == 409 and "the game is over" in answer["error"]
    record = GameRecord.from_dict(server.get("/api/record"))
    assert record.red == RANDOM and record.blue == "human" and list(record.actions) == state["actions"]
    assert (record.winner, record.reason) == (state["result"]["winner"], state["result"]["reason"])
    assert build_frames(record).warning is None  # the actions lead to the recorded result
    assert bool(record.sandbox and record.sandbox["namespaces"]) == (probe().bwrap is not None)
    assert record.time_used["RED"] > 0
    # Both clocks once each action was played: they only run on, and end at most at the totals.
    assert len(record.time_used_after) == len(record.actions)
    for side, color in enumerate(("RED", "BLUE")):
        clock = [pair[side] for pair in record.time_used_after]
        assert clock == sorted(clock) and clock[-1] <= record.time_used[color]
    page = server.get("/replay")
    assert page.startswith("<!DOCTYPE html>") and "agents.random_agent" in page


@pytest.mark.parametrize(
    "method, path, body, headers, status, error",
    [
        ("GET", "/nowhere", None, {}, 404, "no such page"),
        ("POST", "/api/state", {}, {}, 405, "takes GET"),
        ("GET", "/api/action", None, {}, 405, "takes POST"),
        ("PUT", "/api/action", {}, {}, 405, "takes POST"),
        ("POST", "/api/action", b"{not json", {"Content-Type": "application/json"}, 400, "not JSON"),
        ("POST", "/api/action", b"[1, 2]", {"Content-Type": "application/json"}, 400, "a JSON object"),
        ("POST", "/api/action", b'{"action": "SPAWN(3, 3)"}', {"Content-Type": "text/plain"}, 415, "application/json"),
        ("POST", "/api/action", {"move": "SPAWN(3, 3)"}, {}, 400, '{"action": "SPAWN(3, 3)"}'),
        ("POST", "/api/action", {"action": 7}, {}, 400, '{"action": '),
        ("POST", "/api/action", {"action": "FLY(1, 2)"}, {}, 400, "not an Infexion action"),
        ("POST", "/api/action", {"action": "SPAWN(9, 9)"}, {}, 400, "off the board"),
        ("POST", "/api/new", {"as": "green"}, {}, 400, '"as" is "red" or "blue"'),
        ("GET", "/api/state", None, {"Host": "evil.example:80"}, 403, "127.0.0.1 and localhost only"),
        ("POST", "/api/undo", {}, {}, 409, "nothing to undo"),
        ("GET", "/api/record", None, {}, 409, "not over yet"),
        ("GET", "/replay", None, {}, 409, "not over yet"),
    ],
)
def test_bad_requests_get_a_4xx_json_error_and_change_nothing(server, method, path, body, headers, status, error):
    before = server.get("/api/state")
    if before["actions"] or before["result"] or before["humans"] != ["RED"]:
        before = server.post("/api/new", {"as": "red"})  # once: these requests change nothing
    raw = body if isinstance(body, bytes) else None
    got, answer = server.request(method, path, None if raw is not None else body, headers, raw)
    assert got == status and error in answer["error"], answer
    after = server.get("/api/state")
    assert (after["number"], after["actions"], after["result"]) == (before["number"], [], None)


def test_the_pages_footer_speaks_to_the_player_not_of_the_code(server):
    page = server.get("/")
    [footer] = re.findall(r"<footer[^>]*>(.*?)</footer>", page, re.S)
    said = " ".join(re.sub(r"<[^>]+>", " ", footer).split())
    # The games' own word for their plug-in tables ("when its registration says how") meant nothing to a player.
    assert not re.search(r"registration|registered|frames|kwarg|``", said, re.I), said
    assert "under the board" in said, said
    # What it points at is there: the paragraph saying how this game is played, in the board's section after it.
    area = page[page.index('<section id="board-area">'):page.index("</section>")]
    assert area.index('<svg id="board"') < area.index('<p id="how"'), area


def raw_exchange(server: Server, data: bytes) -> str:
    """Send ``data`` as it is and read the answer until the server closes the connection."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=WAIT) as raw:
        raw.sendall(data)
        raw.shutdown(socket.SHUT_WR)  # nothing more comes: a half-sent body ends here
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
    return answer.decode()


def test_garbage_and_dropped_connections_leave_the_server_serving(server):
    answer = raw_exchange(server, b"GET /api/state HTTP/1.x\r\n\r\n")
    assert re.match(r"HTTP/1.[01] 400", answer) and '"error": "Bad request version' in answer
    answer = raw_exchange(server, b"BREW /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert answer.startswith("HTTP/1.1 405") and "BREW is not a method of this API" in answer
    # A tab closed in the middle of sending its action.
    answer = raw_exchange(server, b"POST /api/action HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 40\r\n\r\n{")
    assert answer.startswith("HTTP/1.1 400") and "the body ended after 1 of its 40 bytes" in answer
    assert server.get("/api/state")["game"] == "infexion"


def test_an_agent_breaking_the_rules_forfeits_and_the_page_is_told_why():
    cheat = Server("--sandbox", "off", "--as", "blue", "-t", "5", "tests.hosting.fixture_agents.misbehave:"
                   "IllegalAction")
    try:
        state = cheat.get("/api/state?wait=1")
        assert state["result"]["winner"] == "BLUE" and state["result"]["reason"] == "illegal_action"
        assert "RED agent" in state["notice"] and state["legal"] == [] and state["turn"] is None
        assert state["clocks"]["RED"]["limit"] == 5.0 and 0 < state["clocks"]["RED"]["remaining"] <= 5.0
        assert GameRecord.from_dict(cheat.get("/api/record")).error["RED"]["kind"] == "illegal_action"
    finally:
        status, out, err = cheat.stop()
    assert status == 130, err


def test_a_person_out_of_human_time_loses_by_time_limit():
    seat = Server("--hot-seat", "--human-time", "1e-9")
    try:
        state = seat.get("/api/state")  # RED's budget ran out before anyone could click
        assert state["result"]["winner"] == "BLUE" and state["result"]["reason"] == "time_limit"
        status, answer = seat.request("POST", "/api/action", {"action": "SPAWN(3, 3)"})
        assert status == 409 and "ran out of 1e-09 s" in answer["error"]
    finally:
        seat.stop()


def board_shown(page) -> dict[tuple[int, int], tuple[str, int]]:
    cells = page.eval_on_selector_all(
        "svg#board g.cell", "gs => gs.map(g => [g.dataset.r, g.dataset.q, g.dataset.owner, g.dataset.power])")
    return {(int(r), int(q)): (owner.upper(), int(power)) for r, q, owner, power in cells if owner}


def board_of(actions: list[str]) -> dict[tuple[int, int], tuple[str, int]]:
    """The board after ``actions``, by the engine (not by the server or the page)."""
    state = InfexionState()
    for text in actions:
        state.apply_checked(state.parse_action(text))
    return {(r, q): ("RED" if o == 0 else "BLUE", p) for r, q, o, p in state.cells()}


def test_a_person_plays_by_clicks_in_a_real_browser(server, browser):
    server.post("/api/new", {"as": "red"})
    page, problems, requests = open_page(browser, server.url + "/")
    settled(page, 0)
    assert page.locator("svg#board g.cell.legal").count() == 49  # every empty cell can be spawned on
    cell(page, 3, 3).click()
    settled(page, 2)  # the person's SPAWN and the agent's reply, animated one after the other
    actions = server.get("/api/state")["actions"]
    assert actions[0] == "SPAWN(3, 3)" and board_shown(page) == board_of(actions)
    assert page.locator("#moves li").all_inner_texts() == [f"RED {actions[0]}", f"BLUE {actions[1]}"]
    # A click on the agent's cell is refused with the rules' reason, and nothing is played.
    blue = next(position for position, (owner, _) in board_of(actions).items() if owner == "BLUE")
    cell(page, *blue).click()
    page.wait_for_selector("#message.error")
    assert page.inner_text("#message") == f"SPAWN({blue[0]}, {blue[1]}) is illegal: cell {blue} is not empty"
    assert server.get("/api/state")["actions"] == actions
    # SPREAD: the stack, then the neighbour that gives the direction.
    cell(page, 3, 3).click()
    assert page.locator("svg#board g.cell.target").count() == 6
    cell(page, 3, 4).click()
    settled(page, 4)
    actions = server.get("/api/state")["actions"]
    assert actions[2] == "SPREAD(3, 3, 0, 1)" and board_shown(page) == board_of(actions)
    assert "RED" in page.inner_text("#clocks") and "(CPU)" in page.inner_text("#clocks")
    # A second client (here the API) plays: the page follows.
    legal = server.get("/api/state")["legal"]
    server.post("/api/action", {"action": legal[0]})
    server.get("/api/state?wait=1")
    settled(page, 6)
    # Resigning asks first, on the page: "no" (or Escape) plays on.
    page.click("#resign")
    assert page.is_visible("#confirm-resign") and page.is_disabled("#resign")
    assert page.inner_text("#confirm-text") == "Resign as RED? BLUE wins the game."
    page.click("#resign-no")
    assert page.is_hidden("#confirm-resign") and page.is_enabled("#resign")
    page.click("#resign")
    page.keyboard.press("Escape")
    assert page.is_hidden("#confirm-resign")
    assert server.get("/api/state")["result"] is None  # nothing was sent
    page.click("#resign")
    page.click("#resign-yes")
    page.wait_for_selector("#end:not([hidden])")
    assert "BLUE wins (resignation): RED (human) resigned after 6 actions" in page.inner_text("#status")
    assert page.is_hidden("#confirm-resign") and page.inner_text("#kept") == ""  # no --record: nothing kept
    with page.expect_download() as download:
        page.click("#download")
    record = GameRecord.from_json(Path(download.value.path()).read_text())
    assert (record.winner, record.reason) == ("BLUE", "resignation") and len(record.actions) == 6
    assert page.get_attribute("#replay", "href") == "/replay"
    replay = browser.new_page()  # the replay shows each side's figures and clock at the end
    replay.goto(server.url + "/replay")
    replay.keyboard.press("End")
    final = board_of(record.actions)
    for side, color in (("red", "RED"), ("blue", "BLUE")):
        power = sum(p for owner, p in final.values() if owner == color)
        assert replay.inner_text(f"#figures tr.{side} td.power") == str(power)
        assert replay.inner_text(f"#figures tr.{side} td.clock").startswith(seconds(record.time_used[color]))
    assert "RED: a person's wall-clock seconds" in replay.inner_text("#clock-note")
    # The message's head is said once, then what it adds.
    assert replay.inner_text("#result") == (
        "BLUE wins (resignation) after 6 actions \u2014 RED (human) resigned after 6 actions"
    )
    replay.close()
    page.click("#swap")  # a new game, the person now BLUE: the agent opens
    settled(page, 1)
    state = server.get("/api/state")
    assert state["humans"] == ["BLUE"] and len(state["actions"]) == 1 and page.is_hidden("#end")
    assert board_shown(page) == board_of(state["actions"])
    # The one refused click is the browser's only complaint.
    assert problems == ["error: Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    assert all(url.startswith(server.url) for url in requests), requests  # nothing from the network
    page.close()


def test_hot_seat_two_people_play_cachex_by_clicks_steal_and_undo(tmp_path, browser):
    record_path = tmp_path / "game.json"
    seat = Server("--hot-seat", "--game", "cachex", "-n", "3", "--record", str(record_path))
    page = browser.new_page()
    try:
        state = seat.get("/api/state")
        assert state["humans"] == ["RED", "BLUE"] and state["hot_seat"] and state["players"]["BLUE"] == "human"
        page.goto(seat.url + "/")
        settled(page, 0)
        assert page.is_hidden(STEAL) and page.is_hidden("#swap")  # no STEAL on the first move; no sides to swap
        cell(page, 1, 1).click()
        page.wait_for_selector("#message.error")
        assert "centre cell" in page.inner_text("#message") and seat.get("/api/state")["actions"] == []
        cell(page, 0, 1).click()
        settled(page, 1)
        assert page.inner_text("#status") == "BLUE to move"
        page.click(STEAL)
        settled(page, 2)
        assert seat.get("/api/state")["actions"] == ["PLACE(0, 1)", "STEAL"]
        assert page.get_attribute('svg#board g.cell[data-r="1"][data-q="0"]', "data-owner") == "blue"  # mirrored
        page.click("#undo")  # takes back the last action, whoever played it
        settled(page, 1)
        assert page.get_attribute('svg#board g.cell[data-r="1"][data-q="0"]', "data-owner") == ""
        page.click("#resign")  # BLUE, to move, gives up, once it says so
        assert page.inner_text("#confirm-text") == "Resign as BLUE? RED wins the game."
        page.click("#resign-yes")
        page.wait_for_selector("#end:not([hidden])")
        assert "RED wins (resignation): BLUE (human) resigned after 1 actions" in page.inner_text("#status")
        kept = f"kept as game 1 of {record_path} (python -m referee replay {record_path} --game-index 0)"
        assert kept in page.inner_text("#end")
        assert GameRecord.from_json(record_path.read_text()).actions == ("PLACE(0, 1)",)
        # A new game does not replace the first: each game is a line of the file, one left unfinished too.
        page.click("#new")
        settled(page, 0)
        cell(page, 0, 1).click()
        settled(page, 1)
        page.click("#new")
        settled(page, 0)
        page.click("#new")  # a game with no action is not kept
        settled(page, 0)
        first, second = (GameRecord.from_json(line) for line in record_path.read_text().splitlines())
        assert (first.winner, first.reason) == ("RED", "resignation")
        assert (second.winner, second.reason, second.actions) == (None, "unfinished", ("PLACE(0, 1)",))
        assert second.message == "unfinished: a new game was started after 1 actions"
        proc = run_referee("replay", str(record_path), "-w", "0", timeout=WAIT)
        assert proc.returncode == 2 and "holds 2 records" in proc.stderr and "--game-index N (0..1" in proc.stderr
        proc = run_referee("replay", str(record_path), "--game-index", "1", "-w", "0", timeout=WAIT)
        assert proc.returncode == 0 and "result: draw (unfinished)" in proc.stdout, proc.stdout + proc.stderr
    finally:
        page.close()
        status, out, err = seat.stop(signal.SIGTERM)
    assert status == 143 and "Traceback" not in err, err


CHAOS_EVENTS = ("ASTEROID", "FISH_MARKET")


def test_infinitron_through_the_api_several_commands_a_turn_and_chaos_events():
    # A passive agent: chance is not seeded by --seed (by design), and a random agent sometimes took the person's
    # capital before any chaos event.
    seat = Server("--game", "infinitron", "--chaos", "--seed", "5", PASSIVE)
    try:
        state = seat.get("/api/state?wait=1")
        # Chaos is rolled before Red's first turn, by the server: the person (RED) is to command.
        assert not state["typed"] and state["turn"] == "RED" and len(state["actions"]) == 1
        assert "END_TURN" in state["legal"] and state["clicks"]["END_TURN"] == []  # a button (clicks: its own tests)
        state = seat.post("/api/action", {"action": "define 3 2 1 melee none"})  # typed loosely
        assert state["actions"][-1] == "DEFINE(3, 2, 1, MELEE, NONE)" and state["turn"] == "RED"  # still Red's turn
        events: list[str] = []
        for _ in range(150):  # chaos strikes before 1 Red turn in 12
            seat.post("/api/action", {"action": "END_TURN"})
            state = seat.get("/api/state?wait=1")  # once the agent's whole turn is played
            assert state["turn"] == "RED" and not state["thinking"] and not state["result"], state["notice"]
            # The agent's turn ended as the rules end it, then chaos rolled before Red's turn.
            assert state["actions"][-2] == "END_TURN" and state["actions"][-1].startswith(("NO_EVENT", *CHAOS_EVENTS))
            if events:  # the agent played a whole turn after the event: it was told of it
                break
            events = [a for a in state["actions"] if a.startswith(CHAOS_EVENTS)]
        assert events, "no chaos event in 150 turns"
        state = seat.post("/api/resign")
        record = GameRecord.from_dict(seat.get("/api/record"))
        assert record.game == "infinitron" and list(record.actions) == state["actions"] and events[0] in record.actions
        chance = [a for a in record.actions if a == "NO_EVENT" or a.startswith(CHAOS_EVENTS)]
        assert record.moves["RED"] + record.moves["BLUE"] == len(record.actions) - len(chance)
        assert seat.get("/replay").startswith("<!DOCTYPE html>")
    finally:
        status, out, err = seat.stop()
    assert status == 130 and "Traceback" not in err, err


def test_a_kind_with_very_many_legal_actions_is_counted_not_listed():
    # With --armour, Infinitron's first turn has hundreds of thousands of legal DEFINEs.
    seat = Server("--game", "infinitron", "--armour", "--seed", "5", RANDOM)
    try:
        state = seat.get("/api/state")
        defines = [a for a in state["legal"] if a.startswith("DEFINE(")]
        assert state["legal_counts"]["DEFINE"] == len(ALL_DEFINES) + len(all_armoured_defines()) > 3000
        assert len(defines) == 4 and len(set(defines)) == 4  # a few, as examples
        others = [a for a in state["legal"] if not a.startswith("DEFINE(")]
        assert len(others) == sum(n for kind, n in state["legal_counts"].items() if kind != "DEFINE")
        state = seat.post("/api/action", {"action": "define 3 2 1 melee none"})
        assert state["actions"] == ["DEFINE(3, 2, 1, MELEE, NONE)"]
    finally:
        seat.stop()


def test_infinitron_takes_typed_commands_in_a_real_browser(browser):
    # Its clicks: tests/human_play/test_infinitron_clicks.py.
    seat = Server("--game", "infinitron", "--seed", "5", RANDOM)
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    try:
        page.goto(seat.url + "/")
        settled(page, 0)
        state = seat.get("/api/state")
        assert page.is_visible("svg#board") and page.is_visible("#text-board") and page.is_visible("#command")
        assert page.inner_text("#text-board").strip() == state["board"].strip()
        assert page.locator("#legal-list option").count() == len(state["legal"]) > 100
        page.fill("#command-text", "define 3 2 1 melee none")
        page.click("#command button")
        settled(page, 1)
        assert "t0 DEFINE(3, 2, 1, MELEE, NONE)" in page.inner_text("#text-board")
        assert page.input_value("#command-text") == ""
        page.fill("#command-text", "build 0 0 0")  # far from any city of Red's
        page.click("#command button")
        page.wait_for_selector("#message.error")
        assert page.inner_text("#message").startswith("BUILD(0, 0, 0) is illegal: ")
        assert seat.get("/api/state")["actions"] == ["DEFINE(3, 2, 1, MELEE, NONE)"]
        page.fill("#command-text", "end_turn")
        page.press("#command-text", "Enter")
        # Sent by the page (on a busy machine not at once), then the agent's whole turn.
        wait_until(lambda: "END_TURN" in seat.get("/api/state")["actions"], WAIT, "the page to send END_TURN")
        state = seat.get("/api/state?wait=1")
        assert state["turn"] == "RED" and state["actions"][-1] == "END_TURN" and len(state["actions"]) > 2
        settled(page, len(state["actions"]))
        moves = page.locator("#moves li").all_inner_texts()
        assert moves[:2] == ["RED DEFINE(3, 2, 1, MELEE, NONE)", "RED END_TURN"] and moves[-1] == "BLUE END_TURN"
        assert page.locator("#legal-list option").count() == len(state["legal"])
        assert problems == ["error: Failed to load resource: the server responded with a status of 400 (Bad Request)"]
    finally:
        page.close()
        seat.stop()


def test_new_game_resign_and_ctrl_c_while_the_agent_thinks_stop_it():
    seed = 710_000_000 + os.getpid()  # the agents' PYTHONHASHSEED is derived from it: found again below
    red_agent, blue_agent = seed * 2 % 4294967296, (seed * 2 + 1) % 4294967296
    sleepy = Server("--sandbox", "off", "--seed", str(seed), "--as", "blue", SLEEPER)
    try:
        assert sleepy.get("/api/state")["thinking"] and agents_with_hash_seed(red_agent)
        state = sleepy.post("/api/new", {"as": "red"})  # given up while RED thinks
        assert state["number"] == 2 and not state["thinking"] and state["turn"] == "RED"
        assert sleepy.post("/api/action", {"action": "SPAWN(3, 3)"})["thinking"]
        state = sleepy.post("/api/resign")  # while BLUE thinks
        result = state["result"]
        assert result["winner"] == "BLUE" and "RED (human) resigned after 1 actions" in result["message"]
        assert not sleepy.get("/api/state?wait=1")["thinking"]
        assert sleepy.post("/api/new", {"as": "blue"})["thinking"]
    finally:
        status, out, err = sleepy.stop(signal.SIGINT)
    assert status == 130 and "Traceback" not in err + out, err
    assert "interrupted: the server and the agent were stopped" in err
    assert not agents_with_hash_seed(red_agent), "an agent outlived the server"
    assert not agents_with_hash_seed(blue_agent), "an agent outlived the server"


@pytest.mark.parametrize(
    "args, message",
    [
        (("--web", "--no-open"), "required: AGENT"),
        (("--hot-seat",), "--hot-seat needs --web"),
        (("--port", "8000", RANDOM), "--port needs --web"),
        (("--web", "--no-open", "--hot-seat", RANDOM), "--hot-seat is two people"),
        (("--web", "--no-open", "--port", "70000", RANDOM), "the port must be 0..65535"),
        (("--web", "--no-open", "--port", "eighty", RANDOM), "the port must be a whole number"),
    ],
)
def test_bad_arguments_are_usage_errors(args, message):
    proc = subprocess.run([sys.executable, "-m", "referee", "play", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_a_record_file_that_is_not_one_record_a_line_is_refused_before_the_game(tmp_path):
    # Adding lines to a record written over several lines (the terminal's play writes one so) would spoil it.
    spoilt = tmp_path / "terminal.json"
    spoilt.write_text('{\n "game": "infexion"\n}\n')
    for path, message in ((spoilt, "line 1 is not a game record on one line"), (tmp_path, "that is a folder")):
        proc = run_referee("play", "--web", "--no-open", "--port", "0", "--record", str(path), RANDOM, timeout=WAIT)
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert spoilt.read_text() == '{\n "game": "infexion"\n}\n'


def test_a_port_in_use_is_a_usage_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = run_referee("play", "--web", "--no-open", "--port", str(port), RANDOM, timeout=WAIT)
    assert proc.returncode == 2 and f"--port {port}" in proc.stderr and "--port 0" in proc.stderr, proc.stderr


def greedy_choice(actions: list[str], legal: list[str]) -> str:
    """The legal action leaving the person (BLUE here) the largest power lead, by the engine; ties: the first."""
    state = InfexionState()
    for text in actions:
        state.apply_checked(state.parse_action(text))

    def lead(text: str) -> int:
        after = state.copy()
        after.apply_checked(after.parse_action(text))
        return sum(p if o == 1 else -p for _, _, o, p in after.cells())

    return max(legal, key=lead)


def test_a_person_wins_a_whole_game_by_clicks(browser):
    # Every action of the person is made by clicking the board; the agent
    # (RED, random) replies through the real hosting until the game ends.
    seat = Server("--seed", "4", "--as", "blue", RANDOM)  # a short game: 8 moves of the person
    try:
        page = browser.new_page()
        page.goto(seat.url + "/")
        for _ in range(200):  # a game ends within 343 actions
            state = seat.get("/api/state?wait=1")
            if state["result"]:
                break
            settled(page, len(state["actions"]))
            choice = greedy_choice(state["actions"], state["legal"])
            for index in state["clicks"][choice]:
                c = state["frames"]["cells"][index]
                cell(page, c["r"], c["q"]).click()
            page.wait_for_selector(f'body:not([data-shown="{len(state["actions"])}"])')
            assert seat.get("/api/state?wait=1")["actions"][len(state["actions"])] == choice
        assert state["result"] == {**state["result"], "winner": "BLUE", "reason": "elimination"}
        settled(page, len(state["actions"]))
        page.wait_for_selector("#end:not([hidden])")
        assert board_shown(page) == board_of(state["actions"])
        assert "Game over" in page.inner_text("#status")
        page.close()
    finally:
        seat.stop()


def test_a_game_whose_registration_alone_supplies_the_clicks_is_played_in_a_real_browser(browser):
    # Nim lives in tests/fixtures/nim, named only in REFEREE_GAMES: its registration says which stone a
    # person clicks for each TAKE, and nothing of the web server names it. The person (Red) plays the
    # winning line by clicks against the random agent: always leave a multiple of 4 stones.
    seat = Server("--game", "nim", "--stones", "7", "--max-take", "3", "--seed", "2", RANDOM, games=NIM)
    try:
        page = browser.new_page()
        page.goto(seat.url + "/")
        settled(page, 0)
        state = seat.get("/api/state")
        assert not state["typed"] and state["how"].startswith("Click a stone") and page.is_visible("svg#board")
        assert page.inner_text("#how") == state["how"] and page.is_hidden(STEAL)
        legal = page.eval_on_selector_all("svg#board g.cell", "gs => gs.map(g => g.classList.contains('legal'))")
        assert legal == [False] * 4 + [True] * 3  # the three stones one click can take, from the right
        cell(page, 0, 0).click()  # would take 7: more than a turn may
        page.wait_for_selector("#message.error")
        assert "No legal action starts" in page.inner_text("#message") and seat.get("/api/state")["actions"] == []
        for _ in range(7):
            state = seat.get("/api/state?wait=1")
            if state["result"]:
                break
            settled(page, len(state["actions"]))
            heap = 7 - sum(int(a[len("TAKE("):-1]) for a in state["actions"])
            take = heap % 4
            cell(page, 0, heap - take).click()  # that stone and the ones right of it
            page.wait_for_selector(f'body:not([data-shown="{len(state["actions"])}"])')
            assert seat.get("/api/state?wait=1")["actions"][len(state["actions"])] == f"TAKE({take})"
        assert (state["result"]["winner"], state["result"]["reason"]) == ("RED", "last_stone")
        settled(page, len(state["actions"]))
        page.wait_for_selector("#end:not([hidden])")
        assert "Game over" in page.inner_text("#status")
        assert page.eval_on_selector_all("svg#board text.power", "ts => ts.map(t => t.textContent)") == [""] * 7
        page.close()
    finally:
        status, out, err = seat.stop()
    assert status == 130 and "Traceback" not in err, err
