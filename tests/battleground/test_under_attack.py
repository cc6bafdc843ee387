"""The battleground under attack, at a size CI can afford: ``run_attack`` of benchmarks/battleground.py.

One run for the module: a real server (``python -m referee serve``, ``--start-timeout 5``), 20 honest
clients in 10 games at once (instant agents, each from a loopback address of its own), 10 spectators
polling as the game page does, and one attacker of each kind (``benchmarks.battleground.ATTACKERS``:
void, storm, offclock, pages, pile, ratings, sockets, double, latepong), all for 15 s.

The assertions are about outcomes: who lost which game and why, what the server charged, what it kept in
memory, what it logged. None is about speed: the latencies are the benchmark's to print
(``python -m benchmarks.battleground --attack``). The bounds they use are the benchmark's, documented
there: ``PILE_BOUND_MB``, ``OFFCLOCK_SLACK``, ``LATEPONG_SLACK``, ``SOCKET_SLACK``.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("websockets")

from benchmarks.battleground import (  # noqa: E402
    HELLO_TIMEOUT, LATEPONG_SLACK, OFFCLOCK_SLACK, PILE_BOUND_MB, SOCKET_SLACK, AttackResults, run_attack,
)


@pytest.fixture(scope="module")
def attacked() -> AttackResults:
    # In its own thread: a browser test run before in this process (Playwright's sync API) leaves an event loop
    # running in this one, where asyncio.run() refuses to start another.
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(run_attack, clients=20, spectators=10, seconds=SECONDS, start_timeout=5.0,
                             pages_rate=50.0, sockets=100, void_max=60, ratings_games=200,
                             double_rounds=20).result()


#: Seconds measured: time enough for every attacker to try (a storm game is lost at 5 s, the pile bursts 2 s).
SECONDS = 10.0


def figures(results: AttackResults, name: str) -> dict:
    return results.attackers[name].figures


def test_every_honest_game_ended_by_the_rules(attacked: AttackResults):
    assert sum(attacked.honest_endings.values()) >= 10, attacked.honest_endings
    # No time_limit, disconnected, protocol_error, load_error or aborted among the honest clients' games.
    assert attacked.honest_failures == {}, attacked.honest_failures
    assert attacked.honest_errors == [], attacked.honest_errors


def test_every_void_attempt_ended_in_a_result_against_the_attacker(attacked: AttackResults):
    void = figures(attacked, "void")
    # Lost by the attacker, recorded: not aborted (no result), not left running, not a draw.
    assert void["lost"] == void["attempts"], void["not_lost"]
    assert all(count >= 1 for count in void["kinds"].values()), void["kinds"]  # each message at least once


def test_the_offclock_attacker_is_charged_its_thinking(attacked: AttackResults):
    offclock = figures(attacked, "offclock")
    assert offclock["moves"] >= 3 and offclock["thought_s"] >= 2.5, offclock
    assert offclock["charged_s"] >= offclock["thought_s"] - OFFCLOCK_SLACK * offclock["moves"], offclock


def test_the_pile_of_unasked_messages_does_not_grow_the_server(attacked: AttackResults):
    pile = figures(attacked, "pile")
    assert pile["sent_mb"] >= 3 * PILE_BOUND_MB, pile  # kept, it would have shown
    assert pile["growth_mb"] < PILE_BOUND_MB, pile


def test_no_message_the_pile_sent_before_its_turn_is_taken_for_its_action(attacked: AttackResults):
    """Each burst was sent, and taken by the server (pushed through its frame queue by small messages it drops,
    then a pong came back), before the server asked for the pile's next move: none of it may be played as that
    move."""
    pile = figures(attacked, "pile")
    # Checked: the server asked the pile to move right after a burst was through (a turn failed or cut short by
    # the run's end, its opponent then let move early, measures nothing).
    assert pile["checks"] >= 1, pile
    assert pile["filler_played"] == 0, pile


def test_the_server_logged_no_traceback(attacked: AttackResults):
    assert attacked.tracebacks == [], attacked.tracebacks
    assert attacked.server["internal_errors"] == 0


def test_the_storm_loses_its_games_on_load_error_at_the_start_up_allowance(attacked: AttackResults):
    storm = attacked.attackers["storm"]
    ended = [g for g in storm.figures["games"] if g["outcome"] != "running"]
    assert ended and all(g["outcome"] == "lost (load_error)" for g in ended), storm.figures["games"]
    assert storm.contained, storm.achieved


def test_the_latepong_attacker_is_charged_its_thinking(attacked: AttackResults):
    late = figures(attacked, "latepong")
    assert late["pings_answered_late"] >= 1 and late["moves"] >= 10, late
    assert late["charged_s"] >= late["thought_s"] - LATEPONG_SLACK * late["moves"], late


def test_a_double_login_leaves_one_connection_and_one_game(attacked: AttackResults):
    double = figures(attacked, "double")
    assert double["rounds"] >= 2 and double["clean"] == double["rounds"], double["not_clean"]


def test_a_farmed_rating_is_capped_and_no_one_is_left_unrated(attacked: AttackResults):
    ratings = attacked.attackers["ratings"]
    assert ratings.figures["thrown"] >= 11, ratings.achieved  # more than the games of a pair that count
    assert ratings.contained, ratings.achieved


def test_connections_that_never_finish_the_handshake_are_closed_at_the_hello_timeout(attacked: AttackResults):
    sockets = figures(attacked, "sockets")
    assert sockets["opened"] > 0
    assert sockets["longest_s"] <= HELLO_TIMEOUT + SOCKET_SLACK, sockets


def test_no_page_answered_with_a_server_error(attacked: AttackResults):
    pages = figures(attacked, "pages")["requests"]
    assert pages["requests"] > 0
    assert "500" not in pages["statuses"] and "500" not in attacked.spectators["statuses"], (
        pages["statuses"], attacked.spectators["statuses"])
