"""The play command's options and the record it writes (real subprocesses)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from referee.games.infexion import InfexionState
from referee.records import REASONS, GameRecord
from tests.helpers import ROOT, run_referee as run

RANDOM = "agents.random_agent"


def test_record_holds_the_whole_game_and_replays(tmp_path):
    path = tmp_path / "game.json"
    proc = run("-v", "0", "--seed", "5", "-t", "30", "-s", "200", "--record", str(path), RANDOM, "agents/random_agent")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines() == [proc.stdout.strip()]  # -v 0: the result line only
    data = json.loads(path.read_text())
    record = GameRecord.from_dict(data)
    assert record.schema_version == 1 and record.game == "infexion"
    assert (record.red, record.blue) == (RANDOM, "agents/random_agent")
    assert record.reason in REASONS and record.turns == len(record.actions)
    assert record.moves["RED"] + record.moves["BLUE"] == record.turns
    assert record.seed == 5 and record.time_limit == 30 and record.space_limit == 200
    assert set(record.time_used) == set(record.peak_memory_mb) == {"RED", "BLUE"}
    assert all(0 <= t < 30 for t in record.time_used.values())
    assert record.started_at and record.duration > 0
    # Replaying the recorded actions gives the recorded result.
    state = InfexionState()
    for text in record.actions:
        state.apply_checked(state.parse_action(text))
    outcome = state.outcome
    assert outcome is not None and outcome.winner_name == record.winner and outcome.reason == record.reason
    assert f"result: {record.winner} wins ({record.reason})" in proc.stdout or "result: draw" in proc.stdout


def test_same_seed_same_game(tmp_path):
    games = []
    for i in range(2):
        path = tmp_path / f"g{i}.json"
        assert run("-v", "0", "--seed", "11", "--record", str(path), RANDOM, RANDOM).returncode == 0
        games.append(json.loads(path.read_text())["actions"])
    assert games[0] == games[1]
    path = tmp_path / "other.json"
    run("-v", "0", "--seed", "12", "--record", str(path), RANDOM, RANDOM)
    assert json.loads(path.read_text())["actions"] != games[0]


def test_record_to_standard_output_moves_the_game_to_standard_error(tmp_path):
    proc = run("-v", "1", "--seed", "5", "--record", "-", RANDOM, RANDOM)
    assert proc.returncode == 0, proc.stderr
    record = GameRecord.from_dict(json.loads(proc.stdout))  # nothing but the record
    assert "RED plays action SPAWN(" in proc.stderr
    assert proc.stderr.rstrip().splitlines()[-1].startswith("* referee @ result: ")
    assert not (ROOT / "-").exists()
    # The same game as one recorded to a file, and the replay command reads it from a pipe.
    path = tmp_path / "g.json"
    assert run("-v", "0", "--seed", "5", "--record", str(path), RANDOM, RANDOM).returncode == 0
    assert json.loads(path.read_text())["actions"] == list(record.actions)
    html = tmp_path / "g.html"
    replay = run("replay", "-", "--html", str(html), input=proc.stdout)
    assert replay.returncode == 0, replay.stderr
    assert html.read_text().count(record.actions[-1]) >= 1


def test_html_to_standard_output_and_both_on_it_is_a_usage_error():
    proc = run("-v", "0", "--seed", "6", "--html", "-", RANDOM, RANDOM)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lstrip().lower().startswith("<!doctype html")
    assert "result:" in proc.stderr and "result:" not in proc.stdout
    both = run("--record", "-", "--html", "-", RANDOM, RANDOM)
    assert both.returncode == 2 and "cannot both take standard output" in both.stderr
    assert not (ROOT / "-").exists()


def test_verbosity_levels_and_colour(tmp_path):
    one = run("-v", "1", "--seed", "1", RANDOM, RANDOM).stdout
    assert "RED plays action SPAWN(" in one and "game over" in one and "r=6" not in one
    two = run("--seed", "1", RANDOM, RANDOM).stdout  # default -v 2: boards too
    assert "r=6" in two and "\033[" not in two  # not a terminal: no colour unless asked
    coloured = run("-c", "-u", "--seed", "1", RANDOM, RANDOM).stdout
    assert "\033[1;31m" in coloured and "\u00b7" in coloured
    plain = run("-C", "-a", "--seed", "1", RANDOM, RANDOM).stdout
    assert "\033[" not in plain and "\u00b7" not in plain
    three = run("-d", "--seed", "1", RANDOM, RANDOM).stdout
    assert "RED action(): " in three and "ms CPU" in three and "MB above baseline" in three
    # A small agent's peak shows as what it is, not as a "0.0" that reads as not measured.
    assert "peak memory 0.0 MB" not in three
    # What an agent prints is shown from the default -v 2, after its colour.
    printed = run("-c", "--seed", "1", "tests.hosting.fixture_agents.misbehave:PrintsALot", RANDOM).stdout
    assert "  \033[1;31mRED\033[0m | thinking out loud on stdout" in printed


def test_logfile_gets_the_commentary_without_colour(tmp_path):
    log = tmp_path / "game.log"
    proc = run("-c", "-v", "1", "-l", str(log), "--seed", "2", RANDOM, RANDOM)
    assert proc.returncode == 0
    text = log.read_text()
    assert "plays action" in text and "result:" in text and "\033[" not in text


def test_wait_for_enter_reads_stdin(tmp_path):
    proc = run("-v", "1", "-w", "-1", "--seed", "3", RANDOM, RANDOM, input="\n" * 5)
    # Five Enters, then end of input: the referee stops waiting and finishes.
    assert proc.returncode == 0 and "result:" in proc.stdout
    assert proc.stdout.count("press Enter") >= 5


def test_version_and_help():
    assert run("-V").stdout.startswith("referee ")
    text = run("-h").stdout
    for flag in ("--time", "--space", "--verbosity", "--debug", "--logfile", "--wait", "--game", "--record", "--seed"):
        assert flag in text
    # Every command, each with what it takes; what -t 0 means; what each -v level adds.
    from referee.cli import SUBCOMMANDS

    for command in SUBCOMMANDS:
        assert f"python -m referee {command} " in text, command
    flat = " ".join(text.split())
    assert "-t 0 or no -t: no limit" in flat and "-s 0 or no -s: no limit" in flat
    assert "2: + the board and what the agents print (default; a game of several actions a turn" in flat
    assert "3: + each call's CPU, wall time and memory, and the board after every action" in flat


def test_each_verbosity_shows_what_its_help_says(tmp_path):
    """-v 1: actions and failures, no board, no agent output; 2: + board and agent output; 3: + call costs."""
    agent = "tests.hosting.fixture_agents.misbehave:PrintsALot"
    shown = {level: run("-v", str(level), "--seed", "3", agent, RANDOM).stdout for level in (0, 1, 2, 3)}
    assert shown[0].strip().splitlines() == [line for line in shown[0].strip().splitlines() if "result:" in line]
    assert "plays action" in shown[1] and "RED | thinking out loud" not in shown[1] and "r=3" not in shown[1]
    assert "RED | thinking out loud" in shown[2] and "r=3" in shown[2] and "ms CPU" not in shown[2]
    assert "ms CPU" in shown[3]
    # Every line is the referee's, with its prefix (the board's lines too), or what an agent printed, after its colour.
    for level, text in shown.items():
        strays = [line for line in text.splitlines() if not line.startswith(("* referee @ ", "  RED | ", "  BLUE | "))]
        assert strays == [], level
    assert "* referee @                   r=6" in shown[2]


def run_in(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """The command run in ``cwd`` (agents are imported from there), the referee from this checkout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return run(*args, cwd=cwd, env=env)


def assert_usage_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit 2, the message on stderr, no traceback, and no game was played."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    for fragment in fragments:
        assert fragment in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and "result:" not in proc.stdout + proc.stderr


def test_a_misspelled_subcommand_is_a_usage_error_with_a_did_you_mean(tmp_path):
    # It used to play a game between "agents" tournamnet and configs/quick.yaml (a draw by load_error, exit 0).
    assert_usage_error(
        run("tournamnet", "configs/quick.yaml"), "unknown command 'tournamnet' (did you mean tournament?)"
    )
    assert_usage_error(run("repaly", "game.json"), "(did you mean replay?)")
    # A word close to a command that does name an agent here is that agent: a game is played.
    (tmp_path / "replai").mkdir()
    (tmp_path / "replai" / "__init__.py").write_text("")
    proc = run_in(tmp_path, "-v", "1", "replai", RANDOM)
    assert proc.returncode == 0 and "replai has no class Agent" in proc.stdout, proc.stdout + proc.stderr


def test_an_agent_spec_that_names_nothing_is_a_usage_error_with_a_did_you_mean(tmp_path):
    (tmp_path / "subs" / "my_agent").mkdir(parents=True)
    (tmp_path / "subs" / "my_agent" / "__init__.py").write_text("from .program import Agent\n")
    (tmp_path / "subs" / "my_agent" / "program.py").write_text("import a_package_nobody_installed\n")
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "quick.yaml").write_text("name: q\n")
    proc = run_in(tmp_path, "subs/my_agnet", RANDOM)
    assert_usage_error(proc, "RED: 'subs/my_agnet' names no agent: subs/ has no sub-folder my_agnet/",
                       "(did you mean subs/my_agent?)")
    proc = run_in(tmp_path, RANDOM, "subs.my_agnet")
    assert_usage_error(proc, "BLUE: 'subs.my_agnet' names no agent", "(did you mean subs.my_agent?)")
    proc = run_in(tmp_path, "my_agent", RANDOM)
    assert_usage_error(proc, f"no folder my_agent/ or file my_agent.py in the current folder ({tmp_path})")
    proc = run_in(tmp_path, "configs/quick.yaml", RANDOM)
    assert_usage_error(proc, "configs/quick.yaml is a file, not an agent package")
    # An agent that is there but fails to import is the game's load_error, as before.
    record = tmp_path / "game.json"
    proc = run_in(tmp_path, "-v", "0", "--record", str(record), "subs/my_agent", RANDOM)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(record.read_text())
    assert (data["winner"], data["reason"]) == ("BLUE", "load_error")
    assert "a_package_nobody_installed" in data["error"]["RED"]["message"]


def test_an_unknown_option_is_named_with_a_did_you_mean_not_read_as_an_agent():
    # It used to say "unrecognized arguments: --tme agents.random_agent", having taken 5 as RED.
    proc = run("--tme", "5", RANDOM, RANDOM)
    assert_usage_error(proc, "unrecognized option '--tme' (did you mean --time?)")
    assert "unrecognized arguments" not in proc.stderr
    assert_usage_error(
        run("--verbosty=1", RANDOM, RANDOM), "unrecognized option '--verbosty=1' (did you mean --verbosity?)"
    )
    # Another game's option without its --game says so.
    assert_usage_error(run("-n", "5", RANDOM, RANDOM), "-n is an option of --game cachex, not of --game infexion")
    assert_usage_error(run("--chaos", RANDOM, RANDOM), "--chaos is an option of --game infinitron")
    # Values that look like options are still values: a negative wait, '-' for standard output.
    proc = run("-v", "0", "-w", "-0.0", "--seed", "1", "--record", "-", RANDOM, RANDOM)
    assert proc.returncode == 0 and json.loads(proc.stdout)["reason"], proc.stderr
    # The other commands too.
    assert_usage_error(
        run("tournament", "--workrs", "2", "configs/quick.yaml"),
        "unrecognized option '--workrs' (did you mean --workers?)",
    )
    assert_usage_error(run("replay", "--game-indx", "3", "x.jsonl"), "(did you mean --game-index?)")
    assert_usage_error(
        run("search", "--max-node", "3", "--grde", "x"), "unrecognized option '--grde' (did you mean --grade?)"
    )


def test_the_help_lists_every_games_own_options():
    for args in (["-h"], ["--game", "cachex", "--help"]):
        text = run(*args).stdout
        assert "cachex only (with --game cachex)" in text and "-n N, --size N" in text, text
        assert "infinitron only (with --game infinitron)" in text and "--chaos" in text, text


def test_a_missing_agent_class_says_what_is_really_wrong(tmp_path):
    # A folder without __init__.py imports as an empty namespace package: "has no class Agent" hid that.
    (tmp_path / "subs" / "noinit").mkdir(parents=True)
    (tmp_path / "subs" / "noinit" / "program.py").write_text("class Agent:\n    pass\n")
    (tmp_path / "subs" / "noimport").mkdir()
    (tmp_path / "subs" / "noimport" / "__init__.py").write_text('"""My agent."""\n')
    (tmp_path / "subs" / "noimport" / "program.py").write_text("class Agent:\n    pass\n")
    (tmp_path / "subs" / "typo.py").write_text("class Agnet:\n    pass\n")
    proc = run_in(tmp_path, "-v", "1", "subs/noinit", "subs.typo")
    assert proc.returncode == 0, proc.stderr
    assert (
        f"subs.noinit has no class Agent: its folder {tmp_path / 'subs' / 'noinit'} has no __init__.py, so it is "
        "not a package" in proc.stdout
    ), proc.stdout
    assert "add an __init__.py with 'from .program import Agent' (program.py defines it)" in proc.stdout
    assert "subs.typo has no class Agent (did you mean Agnet?)" in proc.stdout
    proc = run_in(tmp_path, "-v", "1", "subs.noimport", RANDOM)
    assert (
        "subs.noimport has no class Agent: its __init__.py does not define or import it; "
        "add 'from .program import Agent' (program.py defines it) to it" in proc.stdout
    ), proc.stdout


def test_agent_options_reach_each_agent_as_keyword_arguments_and_the_record(tmp_path):
    record = tmp_path / "r.json"
    agent = "tests.hosting.fixture_agents.misbehave:ShowsItsOptions"
    done = run(
        "-v", "3", "--red-option", "depth=4", "--red-option", "fast=true", "--blue-option", "label=blue side",
        "--blue-option", "ratio=0.5", "--record", str(record), agent, agent,
    )
    assert done.returncode == 0, done.stderr
    assert "RED | options: [('depth', 4), ('fast', True)]" in done.stdout
    assert "BLUE | options: [('label', 'blue side'), ('ratio', 0.5)]" in done.stdout
    saved = json.loads(record.read_text())["extra"]["agent_options"]
    assert saved == {"RED": {"depth": 4, "fast": True}, "BLUE": {"label": "blue side", "ratio": 0.5}}


@pytest.mark.parametrize(
    "option, words",
    [("depth", "is not NAME=VALUE"), ("=4", "is not NAME=VALUE"), ("seed=3", "is passed by the referee itself")],
)
def test_a_bad_agent_option_is_a_usage_error(option, words):
    done = run("--red-option", option, "agents.random_agent", "agents.random_agent")
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_the_record_keeps_both_clocks_after_every_action(tmp_path):
    record = tmp_path / "r.json"
    done = run("-v", "0", "--seed", "4", "--record", str(record), "agents.greedy", RANDOM)
    assert done.returncode == 0, done.stderr
    game = json.loads(record.read_text())
    clocks = game["time_used_after"]
    assert len(clocks) == len(game["actions"]) > 0
    for color, side in (("RED", 0), ("BLUE", 1)):
        times = [pair[side] for pair in clocks]
        assert times == sorted(times) and times[-1] == game["time_used"][color]
