"""Without the sandbox the hostile agents' attacks work: test_sealed.py can fail.

The same agents as test_sealed.py, played with the sandbox off (``--sandbox
off``, or no option before the sandbox existed), each asserting that its
attack succeeded.  Only the attacks whose success does not hang on timing
are here (not the CPU bursts between calls, the memory touched between
calls, nor pondering), and only what is safe: every game runs from a copy
of the tree, the attackers hit only their own game's processes, and what
they leave behind is killed or removed afterwards.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from .hostile.common import helper_name
from .hostile_runs import (
    HOSTILE, RANDOM, SLOW_VICTIM, VICTIM,
    digest, helpers_left, play, tournament, tournament_reports,
)


def unsealed(tree, tmp_path, red, blue, *options, seed):
    return play(tree, tmp_path, red, blue, *options, seed=seed, sealed=False)


def opponent_attack(tree, tmp_path, seed, agent, *options):
    game = unsealed(tree, tmp_path, f"{HOSTILE}.opponent:{agent}", VICTIM, *options, seed=seed)
    assert game.code == 0, game.context()
    report = game.report_with("found")
    assert report["found"], report
    return game, report


# -- 1. attacks on the opponent's process --------------------------------------------


@pytest.mark.parametrize(
    "agent, options, reasons",
    [
        ("SigkillsOpponent", (), ("agent_crashed",)),
        ("SigstopsOpponent", ("--call-timeout", "1"), ("time_limit",)),
        ("SigintsOpponent", (), ("agent_crashed", "agent_error")),
        ("ForgesOpponentsReply", (), ("protocol_error", "illegal_action")),
        ("WritesGarbageIntoOpponentsPipe", (), ("protocol_error",)),
    ],
)
def test_an_unsealed_agent_makes_its_opponent_lose(tree, tmp_path, seed, agent, options, reasons):
    game, report = opponent_attack(tree, tmp_path, seed, agent, *options)
    assert report["result"] == "ok", report
    assert game.record["winner"] == "RED" and game.record["reason"] in reasons, game.context()


def test_an_unsealed_agent_reads_its_opponents_memory(tree, tmp_path, seed):
    game, report = opponent_attack(tree, tmp_path, seed, "ReadsOpponentsMemory")
    if report["result"] == "PermissionError":
        pytest.skip("this machine forbids reading a sibling's memory even without the sandbox (ptrace_scope)")
    assert report["secret_found"], report


def test_an_unsealed_agent_reads_its_opponents_environment(tree, tmp_path, seed):
    game, report = opponent_attack(tree, tmp_path, seed, "ReadsOpponentsEnviron")
    assert report["result"] == "ok" and report["bytes_read"] > 0, report


def test_an_unsealed_agent_deprioritises_its_opponent(tree, tmp_path, seed):
    game, report = opponent_attack(tree, tmp_path, seed, "SlowsOpponentDown")
    assert report["sched_idle"] is True and report["pinned"] is True, report


# -- 2. tampering with records and code ------------------------------------------------


def test_an_unsealed_agent_appends_to_the_tournaments_games_jsonl(fresh_tree, tmp_path):
    agents = {"tamper": f"{HOSTILE}.tamper:AppendsToGamesJsonl", "random": RANDOM}
    proc, out = tournament(fresh_tree, tmp_path, "tamper", agents, sealed=False)
    lines = (out / "games.jsonl").read_text().splitlines()
    assert any("FORGED" in line for line in lines), lines
    assert any("ok" in report["outcomes"] for report in tournament_reports(out, "tamper"))


def test_an_unsealed_agent_sabotages_its_opponents_source(fresh_tree, tmp_path, seed):
    target = fresh_tree / "agents/random_agent/program.py"
    before = digest(target)
    game = unsealed(fresh_tree, tmp_path, f"{HOSTILE}.tamper:AppendsToOpponentsSource", RANDOM, seed=seed)
    assert "ok" in game.report_with("outcomes")["outcomes"].values()
    assert digest(target) != before
    assert target.read_text().rstrip().endswith('raise ImportError("sabotaged by a hostile agent")')


def test_an_unsealed_agent_tampers_with_the_agent_host(fresh_tree, tmp_path, seed):
    target = fresh_tree / "referee/hosting/agent_host.py"
    before = digest(target)
    game = unsealed(fresh_tree, tmp_path, f"{HOSTILE}.tamper:AppendsToTheAgentHost", VICTIM, seed=seed)
    assert "ok" in game.report_with("outcomes")["outcomes"].values()
    assert digest(target) != before


# -- 3. dodging a loss -------------------------------------------------------------------


def test_an_unsealed_agent_kills_the_referee_before_the_game_is_recorded(tree, tmp_path, seed):
    game = unsealed(tree, tmp_path, f"{HOSTILE}.dodge:KillsEveryoneItSees", VICTIM, seed=seed)
    assert game.code == -9 and game.record is None, game.context()


# -- 4. CPU outside the limit ------------------------------------------------------------


def test_an_unsealed_agent_burns_cpu_in_a_double_forked_grandchild_uncounted(tree, tmp_path, seed):
    game = unsealed(tree, tmp_path, f"{HOSTILE}.cpu:BurnsInADoubleForkedGrandchild", SLOW_VICTIM, "-t", "3", seed=seed)
    burnt = max(game.values("burnt"))
    # On a busy machine (the suite runs on every core) the grandchild may get
    # only a share of a CPU during the victim's slow moves: a fifth of a second
    # uncounted already shows the hole.
    assert burnt > 0.2, "the grandchild hardly ran"
    assert game.record["reason"] != "time_limit" and game.record["time_used"]["RED"] < burnt / 2, game.context()


def test_an_unsealed_agents_grandchild_in_its_own_session_survives_the_game(tree, tmp_path, seed):
    with pytest.raises(AssertionError, match="left behind"):
        unsealed(tree, tmp_path, f"{HOSTILE}.cpu:BurnsInASetsidGrandchild", SLOW_VICTIM, "-t", "3", seed=seed)
    assert helpers_left(seed), f"no {helper_name(seed)} process"


# -- 5. memory outside the limit -------------------------------------------------------


def test_an_unsealed_agent_holds_memory_in_a_detached_grandchild_uncounted(tree, tmp_path, seed):
    with pytest.raises(AssertionError, match="left behind"):  # the grandchild survives, too
        unsealed(tree, tmp_path, f"{HOSTILE}.memory:HoldsMemoryInADetachedGrandchild", VICTIM, "-s", "100", seed=seed)
    record = json.loads((tmp_path / "record.json").read_text())  # where runs.referee has it written
    assert record["reason"] != "space_limit" and record["peak_memory_mb"]["RED"] < 100, record


@pytest.mark.parametrize("agent", ["FillsDevShm", "FillsAMemfd"])
def test_an_unsealed_agent_holds_memory_in_a_memory_file_uncounted(tree, tmp_path, seed, agent):
    game = unsealed(tree, tmp_path, f"{HOSTILE}.memory:{agent}", VICTIM, "-s", "100", seed=seed)
    assert max(game.values("held_mb")) >= 300
    assert game.record["reason"] != "space_limit" and game.record["peak_memory_mb"]["RED"] < 100, game.context()
    if agent == "FillsDevShm":
        assert Path(f"/dev/shm/hostile-{seed}").stat().st_size >= 300 * 1024 * 1024


# -- 6. knowing too much -----------------------------------------------------------------


def test_an_unsealed_agent_reads_its_opponents_source(tree, tmp_path, seed):
    game = unsealed(tree, tmp_path, f"{HOSTILE}.snoop:ReadsOpponentsSource", VICTIM, seed=seed)
    assert game.report_with("tries")["read"] > 0


def test_an_unsealed_agent_keeps_a_counter_on_disk_between_games(tree, tmp_path, seed):
    for game in ("1", "2"):
        (tmp_path / game).mkdir()
    unsealed(tree, tmp_path / "1", f"{HOSTILE}.snoop:KeepsACounterOnDisk", VICTIM, seed=seed)
    second = unsealed(tree, tmp_path / "2", f"{HOSTILE}.snoop:KeepsACounterOnDisk", VICTIM, seed=seed)
    found = second.report_with("found")["found"]
    assert f"/tmp/hostile-counter-{seed}" in found and str(tree / f"hostile-counter-{seed}") in found, found


def test_an_unsealed_agent_reads_the_tournaments_plan(tree, tmp_path):
    proc, out = tournament(
        tree, tmp_path, "snoop", {"snoop": f"{HOSTILE}.snoop:ReadsTournamentJson", "random": RANDOM}, sealed=False
    )
    assert proc.returncode == 0, proc.stderr
    assert all(report["readable"] == ["read: name snoop"] for report in tournament_reports(out, "snoop"))
