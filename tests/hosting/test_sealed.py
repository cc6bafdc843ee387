"""The sandbox holds against hostile agents: one test per attack.

Each test plays a real game (or a small tournament) through the real command
line with ``--sandbox required``: a hostile agent from tests/hosting/hostile/
(Red) that plays legal random moves and mounts one attack, against a victim
(Blue).  It checks what the attack achieved, as the attacker reported it
(``HOSTILE {json}`` lines) and as the record and the machine show it.

The games run from a copy of the tree (see hostile_runs.py), so a sandbox
that fails cannot damage this checkout.  Without bwrap or cgroups the tests
are skipped, unless ``REFEREE_REQUIRE_SANDBOX=1`` (CI) makes them fail.
test_unsealed.py plays the same agents without the sandbox and shows that
the attacks work there, i.e. that these tests can fail.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.records import GameRecord

from .hostile.common import helper_name
from .hostile_runs import (
    HOSTILE, RANDOM, ROOT, RULE_ENDINGS, SLOW_VICTIM, VICTIM,
    Game, digest, helpers_left, play, tournament, tournament_reports,
)
from tests.sandboxing import require_sandbox


@pytest.fixture
def sandbox():
    """The test needs bwrap's namespaces."""
    require_sandbox(cgroup=False)


@pytest.fixture
def sandbox_with_cgroups():
    """The test needs bwrap and cgroup accounting (CPU, memory, freezing)."""
    require_sandbox()


def assert_refereed_as_usual(game: Game, accounting: bool = False, frozen: bool = False) -> dict:
    """The referee ran the game sandboxed and to an end the attacker did not force on the victim.

    The game ended by the rules or Blue (the victim) won; Blue never failed.
    """
    record = game.record
    assert game.code == 0 and record is not None, game.context()
    assert record["sandbox"]["namespaces"] is True, record["sandbox"]
    if accounting:
        assert record["sandbox"]["accounting"].startswith("cgroup"), record["sandbox"]
    if frozen:
        assert record["sandbox"]["frozen"] is True, record["sandbox"]
    assert record["error"]["BLUE"] is None, record["error"]["BLUE"]
    assert record["reason"] in RULE_ENDINGS or record["winner"] == "BLUE", game.context()
    return record


def assert_tournament_sandboxed(out: Path) -> None:
    """Every game of the tournament in ``out`` ran sandboxed."""
    for line in (out / "games.jsonl").read_text().splitlines():
        assert json.loads(line)["sandbox"]["namespaces"] is True, line[:300]


# -- 1. attacks on the opponent's process --------------------------------------------


def attack_opponent(tree, tmp_path, seed, agent: str, *options: str) -> dict:
    game = play(tree, tmp_path, f"{HOSTILE}.opponent:{agent}", VICTIM, *options, seed=seed)
    assert_refereed_as_usual(game)
    report = game.report_with("found")
    assert not report["found"] or report["result"] != "ok", f"the attack worked: {report}"
    return report


def test_an_agent_cannot_sigkill_its_opponent(sandbox, tree, tmp_path, seed):
    """SIGKILL to the opponent's process.  Expected: the opponent is not visible (or
    the signal is refused); the game plays out and Blue does not lose by a crash."""
    attack_opponent(tree, tmp_path, seed, "SigkillsOpponent")


def test_an_agent_cannot_sigstop_its_opponent(sandbox, tree, tmp_path, seed):
    """SIGSTOP to the opponent's process, which would then miss its watchdog
    (``--call-timeout 5``).  Expected: it fails; Blue never times out."""
    attack_opponent(tree, tmp_path, seed, "SigstopsOpponent", "--call-timeout", "5")


def test_an_agent_cannot_sigint_its_opponent(sandbox, tree, tmp_path, seed):
    """SIGINT to the opponent's process (a KeyboardInterrupt there).  Expected: it fails."""
    attack_opponent(tree, tmp_path, seed, "SigintsOpponent")


def test_an_agent_cannot_forge_its_opponents_reply(sandbox, tree, tmp_path, seed):
    """A reply ``{"ok":true,"action":"SPAWN(0, 0)"}`` written into the opponent's reply
    pipe through /proc/PID/fd/REPLY_FD.  Expected: the pipe cannot be reached; Blue's
    replies stay its own (no protocol_error, no illegal_action)."""
    attack_opponent(tree, tmp_path, seed, "ForgesOpponentsReply")


def test_an_agent_cannot_write_garbage_into_its_opponents_pipe(sandbox, tree, tmp_path, seed):
    """Garbage written into the opponent's reply pipe.  Expected: it fails; no protocol_error for Blue."""
    attack_opponent(tree, tmp_path, seed, "WritesGarbageIntoOpponentsPipe")


def test_an_agent_cannot_read_its_opponents_memory(sandbox, tree, tmp_path, seed):
    """Reading the opponent's memory through /proc/PID/mem, looking for a secret it
    holds.  Expected: nothing read."""
    report = attack_opponent(tree, tmp_path, seed, "ReadsOpponentsMemory")
    assert not report.get("secret_found"), report


def test_an_agent_cannot_read_its_opponents_environment(sandbox, tree, tmp_path, seed):
    """Reading /proc/PID/environ of the opponent.  Expected: nothing read."""
    attack_opponent(tree, tmp_path, seed, "ReadsOpponentsEnviron")


def test_an_agent_cannot_deprioritise_its_opponent(sandbox, tree, tmp_path, seed):
    """Putting the opponent in SCHED_IDLE and pinning it to CPU 0.  Expected: neither works."""
    report = attack_opponent(tree, tmp_path, seed, "SlowsOpponentDown")
    assert report.get("sched_idle") is not True and report.get("pinned") is not True, report


# -- 2. tampering with records and code ------------------------------------------------


def test_an_agent_cannot_append_to_the_tournaments_games_jsonl(sandbox, fresh_tree, tmp_path):
    """In a tournament, appending a forged record to games.jsonl, found through the
    files its worker and the main process hold open (/proc/PID/fd) and by path.
    Expected: the writes fail; games.jsonl holds exactly the tournament's records."""
    agents = {"tamper": f"{HOSTILE}.tamper:AppendsToGamesJsonl", "random": RANDOM}
    proc, out = tournament(fresh_tree, tmp_path, "tamper", agents)
    assert proc.returncode == 0, proc.stderr
    assert_tournament_sandboxed(out)
    lines = (out / "games.jsonl").read_text().splitlines()
    assert "FORGED" not in "\n".join(lines)
    records = [GameRecord.from_json(line) for line in lines]
    assert sorted(r.extra["game_index"] for r in records) == [0, 1]
    reports = tournament_reports(out, "tamper")
    assert len(reports) == 2, lines  # it reported (by raising) in both games
    outcomes = [outcome for report in reports for outcome in report["outcomes"]]
    assert "ok" not in outcomes and not [o for o in outcomes if o.startswith("refused: no")], reports


def test_an_agent_cannot_sabotage_its_opponents_source(sandbox, fresh_tree, tmp_path, seed):
    """Appending ``raise ImportError`` to agents/random_agent/program.py, its opponent's
    code, found from its working directory, the referee's and its own tree.
    Expected: every write fails; the file is unchanged."""
    target = Path("agents/random_agent/program.py")
    before = digest(fresh_tree / target), digest(ROOT / target)
    game = play(fresh_tree, tmp_path, f"{HOSTILE}.tamper:AppendsToOpponentsSource", RANDOM, seed=seed)
    assert (digest(fresh_tree / target), digest(ROOT / target)) == before
    assert_refereed_as_usual(game)
    outcomes = game.report_with("outcomes")["outcomes"]
    assert outcomes and "ok" not in outcomes.values(), outcomes
    assert not [o for o in outcomes.values() if o.startswith("refused: no")], outcomes  # it did try


def test_an_agent_cannot_tamper_with_the_agent_host(sandbox, fresh_tree, tmp_path, seed):
    """Appending a line to referee/hosting/agent_host.py, the code every agent process
    runs, found as its own __main__ and by path.  Expected: every write fails; the file
    is unchanged."""
    target = Path("referee/hosting/agent_host.py")
    before = digest(fresh_tree / target), digest(ROOT / target)
    game = play(fresh_tree, tmp_path, f"{HOSTILE}.tamper:AppendsToTheAgentHost", VICTIM, seed=seed)
    assert (digest(fresh_tree / target), digest(ROOT / target)) == before
    assert_refereed_as_usual(game)
    outcomes = game.report_with("outcomes")["outcomes"]
    assert outcomes and "ok" not in outcomes.values(), outcomes
    assert not [o for o in outcomes.values() if o.startswith("refused: no")], outcomes


# -- 3. dodging a loss -------------------------------------------------------------------


def test_killing_everyone_it_sees_does_not_stop_the_game_being_recorded(sandbox, tree, tmp_path, seed):
    """SIGKILL to its parent (the referee, unsealed) and every process it can see.
    Expected: the referee is unharmed, the game is played out and recorded."""
    game = play(tree, tmp_path, f"{HOSTILE}.dodge:KillsEveryoneItSees", VICTIM, seed=seed)
    assert_refereed_as_usual(game)
    game.report_with("targets")  # it did attack (whatever it could see)


# -- 4. CPU outside the limit ------------------------------------------------------------


def assert_cpu_counted(game: Game, seed: int) -> None:
    """Red lost on time, or its recorded CPU covers what its helpers burnt; no helper survives."""
    record = assert_refereed_as_usual(game, accounting=True)
    burnt = max(game.values("burnt"), default=0.0)
    if (record["winner"], record["reason"]) != ("BLUE", "time_limit"):
        assert record["time_used"]["RED"] >= burnt - 0.01, (record["time_used"], burnt)
    assert not helpers_left(seed), f"{helper_name(seed)} processes survived the game"


def test_cpu_burnt_by_children_the_kernel_reaps_counts(sandbox_with_cgroups, tree, tmp_path, seed):
    """Children forked with SIGCHLD ignored burn 4 s of CPU in bursts between the
    agent's calls and exit (reaped by the kernel, so no cutime), with -t 3.
    Expected: counted: Red loses on time or its time_used covers it."""
    game = play(tree, tmp_path, f"{HOSTILE}.cpu:BurnsInIgnoredChildren", SLOW_VICTIM, "-t", "3", seed=seed)
    assert_cpu_counted(game, seed)


def test_cpu_burnt_by_a_double_forked_grandchild_counts(sandbox_with_cgroups, tree, tmp_path, seed):
    """A double-forked grandchild (no descendant of the agent) burns 4 s of CPU while
    the agent plays on quickly, with -t 3.  Expected: counted."""
    game = play(tree, tmp_path, f"{HOSTILE}.cpu:BurnsInADoubleForkedGrandchild", SLOW_VICTIM, "-t", "3", seed=seed)
    assert_cpu_counted(game, seed)


def test_cpu_burnt_by_a_grandchild_in_its_own_session_counts(sandbox_with_cgroups, tree, tmp_path, seed):
    """The same grandchild in a session of its own (setsid), which killing the agent's
    session misses.  Expected: counted, and it does not survive the game."""
    game = play(tree, tmp_path, f"{HOSTILE}.cpu:BurnsInASetsidGrandchild", SLOW_VICTIM, "-t", "3", seed=seed)
    assert_cpu_counted(game, seed)


# -- 5. memory outside the limit -------------------------------------------------------


def assert_memory_counted(game: Game) -> dict:
    """Red lost on space, or its recorded peak is at least what it reported holding."""
    record = assert_refereed_as_usual(game, accounting=True)
    held = max(game.values("held_mb"), default=0.0)
    if (record["winner"], record["reason"]) != ("BLUE", "space_limit"):
        assert record["peak_memory_mb"]["RED"] >= held, (record["peak_memory_mb"], held, game.context())
    return record


def test_memory_held_by_a_detached_grandchild_counts(sandbox_with_cgroups, tree, tmp_path, seed):
    """A grandchild in its own session holds 300 MB, with -s 100.
    Expected: counted (Red loses on space), and the grandchild does not survive."""
    game = play(tree, tmp_path, f"{HOSTILE}.memory:HoldsMemoryInADetachedGrandchild", VICTIM, "-s", "100", seed=seed)
    assert_memory_counted(game)
    assert not helpers_left(seed), "the grandchild survived the game"


def test_memory_in_dev_shm_counts_and_the_file_goes(sandbox_with_cgroups, tree, tmp_path, seed):
    """300 MB written to /dev/shm/hostile-SEED and left there, with -s 100.
    Expected: counted, and no such file on the machine after the game."""
    game = play(tree, tmp_path, f"{HOSTILE}.memory:FillsDevShm", VICTIM, "-s", "100", seed=seed)
    assert not Path(f"/dev/shm/hostile-{seed}").exists(), "the agent's /dev/shm file outlived the game"
    assert_memory_counted(game)


def test_memory_in_a_memfd_counts(sandbox_with_cgroups, tree, tmp_path, seed):
    """300 MB written to a memfd (os.memfd_create), kept open, never mapped, with -s 100.
    Expected: counted."""
    game = play(tree, tmp_path, f"{HOSTILE}.memory:FillsAMemfd", VICTIM, "-s", "100", seed=seed)
    assert_memory_counted(game)


def test_memory_touched_between_calls_counts(sandbox_with_cgroups, tree, tmp_path, seed):
    """A thread allocates 300 MB after a reply has gone, while the (slow) opponent
    thinks, and frees it before the agent's next call, with -s 100.  Expected: counted."""
    game = play(tree, tmp_path, f"{HOSTILE}.memory:AllocatesBetweenCalls", SLOW_VICTIM, "-s", "100", seed=seed)
    assert_memory_counted(game)


def test_memory_touched_between_calls_counts_after_a_peak_reset(sandbox_with_cgroups, tree, tmp_path, seed):
    """The same, then "5" written to /proc/self/clear_refs, which resets the kernel's
    high-water mark (VmHWM) the referee reads.  Expected: counted all the same."""
    hostile = f"{HOSTILE}.memory:AllocatesBetweenCallsAndResetsPeak"
    game = play(tree, tmp_path, hostile, SLOW_VICTIM, "-s", "100", seed=seed)
    assert_memory_counted(game)


# -- 6. knowing too much -----------------------------------------------------------------


def test_an_agent_cannot_read_its_opponents_source(sandbox, tree, tmp_path, seed):
    """Reading the victim's source, its opponent's code.  Expected: not visible."""
    game = play(tree, tmp_path, f"{HOSTILE}.snoop:ReadsOpponentsSource", VICTIM, seed=seed)
    assert_refereed_as_usual(game)
    report = game.report_with("tries")
    assert report["read"] == 0, report["tries"]


def test_an_agent_cannot_keep_a_counter_on_disk_between_games(sandbox, tree, tmp_path, seed):
    """A file left in its working directory, /tmp, /dev/shm and its own folder in one
    game, looked for in the next (same seed).  Expected: none is there."""
    for game in ("1", "2"):
        (tmp_path / game).mkdir()
    first = play(tree, tmp_path / "1", f"{HOSTILE}.snoop:KeepsACounterOnDisk", VICTIM, seed=seed)
    assert_refereed_as_usual(first)
    assert first.report_with("found")["found"] == []
    second = play(tree, tmp_path / "2", f"{HOSTILE}.snoop:KeepsACounterOnDisk", VICTIM, seed=seed)
    assert_refereed_as_usual(second)
    assert second.report_with("found")["found"] == [], "the agent found what it left in the first game"


def test_an_agent_cannot_read_the_tournaments_plan(sandbox, tree, tmp_path):
    """In a tournament, reading results/*/tournament.json (the plan: agents, seed,
    limits) from its working directory, its worker's and the main process's.
    Expected: not visible."""
    proc, out = tournament(tree, tmp_path, "snoop", {"snoop": f"{HOSTILE}.snoop:ReadsTournamentJson", "random": RANDOM})
    assert proc.returncode == 0, proc.stderr
    assert_tournament_sandboxed(out)
    reports = tournament_reports(out, "snoop")
    assert len(reports) == 2, reports
    assert all(report["readable"] == [] for report in reports), reports


# -- 7. pondering ------------------------------------------------------------------------


def test_an_agent_cannot_ponder_between_its_calls(sandbox_with_cgroups, tree, tmp_path, seed):
    """A thread that works all the time, against an opponent whose first moves take
    0.6 s.  For each long stretch between two of its calls the agent counts the units of
    work the thread finished in the stretch's middle (0.1 s cut off each end, when the
    referee is still stopping or already starting it).  Expected: the agent is frozen
    between its calls, so the thread finished none there."""
    game = play(tree, tmp_path, f"{HOSTILE}.ponder:PondersBetweenCalls", SLOW_VICTIM, seed=seed)
    assert_refereed_as_usual(game, accounting=True, frozen=True)
    gaps = [report for report in game.reports() if "gap" in report]
    assert len(gaps) >= 3, f"too few long stretches between calls to judge: {gaps}"
    assert [gap["work"] for gap in gaps] == [0] * len(gaps), gaps
