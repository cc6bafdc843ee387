"""``python -m referee tournament``: real tournaments with real agent processes."""
from __future__ import annotations

import html
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import pytest

from referee.records import GameRecord

from .commands import TINY, command, records, run, same_tables, start, table, wait_for_lines, write_config
from .procs import MARK, marked_processes, wait_until_gone

from tests.helpers import ROOT, run_referee, wait_until


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> tuple[str, Path]:
    """The tiny tournament, played through once."""
    folder = tmp_path_factory.mktemp("uninterrupted")
    config = write_config(folder, TINY)
    proc = run(config, "-o", str(folder / "out"), "--workers", "2", "-q")
    assert proc.returncode == 0, proc.stderr
    return config, folder / "out"


@pytest.fixture(scope="module")
def interruptible(tmp_path_factory) -> tuple[str, Path]:
    """A 12-game version of the tiny tournament, played through once.

    The interruption tests stop it after a game or two; with ten or more
    games still to play, it cannot have finished in between.
    """
    folder = tmp_path_factory.mktemp("interruptible")
    config = write_config(folder, TINY.replace("games_per_pair: 2", "games_per_pair: 4"))
    proc = run(config, "-o", str(folder / "out"), "--workers", "2", "-q")
    assert proc.returncode == 0, proc.stderr
    assert len(records(folder / "out")) == 12
    return config, folder / "out"


def test_a_tiny_round_robin(uninterrupted):
    config, out = uninterrupted
    games = records(out)
    assert sorted(r.extra["game_index"] for r in games) == list(range(6))
    by_pair: dict[frozenset, list[str]] = {}
    for record in games:
        assert record.time_limit == 20 and record.space_limit == 200 and record.seed is not None
        by_pair.setdefault(frozenset((record.red_name, record.blue_name)), []).append(record.red_name)
    assert len(by_pair) == 3
    assert all(sorted(Counter(reds).values()) == [1, 1] for reds in by_pair.values())  # one game with each colour
    standings = table(out, "standings")
    assert standings[0][:4] == ["rank", "agent", "games", "wins"]
    assert sorted(row[1] for row in standings[1:]) == ["r1", "r2", "r3"]
    assert all(row[2] == "4" for row in standings[1:])
    wins = sum(int(row[3]) for row in standings[1:])
    draws = sum(int(row[4]) for row in standings[1:])
    assert wins + draws / 2 == 6
    assert (out / "results.md").read_text().startswith("# Tournament tiny")


def test_the_same_config_plays_the_same_games(uninterrupted, tmp_path):
    config, out = uninterrupted
    proc = run(config, "-o", str(tmp_path / "again"), "--workers", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    first = {r.extra["game_index"]: r.actions for r in records(out)}
    second = {r.extra["game_index"]: r.actions for r in records(tmp_path / "again")}
    assert first == second
    same_tables(out, tmp_path / "again")
    # Running it again on the finished folder plays nothing and prints the same tables.
    proc = run(config, "-o", str(out), "-q")
    assert proc.returncode == 0 and "games in" not in proc.stdout and "Standings" in proc.stdout


def test_resume_after_sigkill_gives_the_uninterrupted_tables(interruptible, tmp_path):
    config, reference = interruptible
    out = tmp_path / "killed"
    mark = uuid.uuid4().hex
    env = {**os.environ, MARK: mark}
    proc = start(config, out, env=env, stdout=subprocess.DEVNULL, text=False)
    wait_for_lines(out / "games.jsonl", 2, proc)
    proc.kill()  # SIGKILL: no cleanup in the tournament process at all
    proc.wait()
    proc.stderr.close()
    # Its workers notice and kill their games' agents.
    assert wait_until_gone(mark) == []
    recorded = len(records(out))
    assert 2 <= recorded < 12
    resumed = run(config, "-o", str(out), "--resume", "--workers", "2", "-q")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{recorded} already recorded" in resumed.stderr
    assert sorted(r.extra["game_index"] for r in records(out)) == list(range(12))
    same_tables(out, reference)


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(interruptible, tmp_path):
    config, reference = interruptible
    out = tmp_path / "interrupted"
    proc = start(config, out)
    wait_for_lines(out / "games.jsonl", 1, proc)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "waiting for the running games to finish" in stderr
    hint = stderr.split("To resume:\n", 1)[1].strip().splitlines()[0]
    assert "--resume" in hint and str(out) in hint
    assert (out / "games.jsonl").read_bytes().endswith(b"\n")
    assert 1 <= len(records(out)) < 12 and "Standings" in stdout
    # The printed command finishes the tournament.
    argv = hint.split()
    assert argv[:4] == ["python", "-m", "referee", "tournament"]
    resumed = subprocess.run([sys.executable, *argv[1:], "-q"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    same_tables(out, reference)


def said_in_html(page: str, element_id: str) -> str:
    """The text of the element with that id in ``page`` (report.html), tags dropped, as a reader reads it."""
    section = page.split(f'id="{element_id}"', 1)[1].split("</section>", 1)[0]
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", section.split(">", 1)[1]).split()))


def test_a_stopped_runs_report_says_it_is_unfinished_how_far_and_how_to_resume(interruptible, tmp_path):
    config, _ = interruptible
    out = tmp_path / "stopped"
    # One worker plays the games in order: four (or five) of them leave the three agents with unequal games.
    proc = subprocess.Popen(command(config, "-o", str(out), "--workers", "1", "-q"), cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for_lines(out / "games.jsonl", 4, proc)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    recorded = len(records(out))
    hint = stderr.split("To resume:\n", 1)[1].strip().splitlines()[0]
    # The rule that ranked these standings, by what a reader sees in them: points only when every agent played as
    # many games, else Elo (the games connect all three agents, so there are ratings).
    games = [int(row[2]) for row in table(out, "standings")[1:]]
    if len(set(games)) == 1:
        rule = "by points (win 1, draw ½), equal points sharing a rank, listed by Elo then name."
    else:
        rule = (f"by Elo (the joint fit of every game), then score %, then name: the agents have played different "
                f"numbers of games ({min(games)} to {max(games)}), so points do not compare them.")
    headline = f"UNFINISHED: {recorded} of 12 games played (stopped by SIGTERM)."
    markdown = (out / "results.md").read_text()
    top = markdown.split("## Standings", 1)[0]  # said before any table
    assert headline in top and f"The standings so far are ranked {rule}" in top
    assert f"To resume, run from the folder the tournament was started in: `{hint}`" in top
    assert f"**Official ranking: {rule}**" in markdown  # under the standings' title: the one rule used, no "else"
    assert "while the agents have played" not in markdown
    page = (out / "report.html").read_text()
    said = said_in_html(page, "unfinished")
    assert page.index('id="unfinished"') < page.index('id="standings"')
    assert headline in said and f"The standings so far are ranked {rule}" in said and said.endswith(hint)
    assert f"Official ranking: {rule}" in html.unescape(page)
    # (That the printed command finishes the tournament, the Ctrl-C test shows.)
    assert hint.startswith("python -m referee tournament ") and "--resume" in hint.split()


def test_a_finished_runs_report_names_the_rule_and_nothing_unfinished(uninterrupted):
    _, out = uninterrupted
    markdown, page = (out / "results.md").read_text(), (out / "report.html").read_text()
    assert "UNFINISHED" not in markdown and 'id="unfinished"' not in page and "To resume" not in markdown
    rule = "Official ranking: by points (win 1, draw ½), equal points sharing a rank, listed by Elo then name."
    assert f"**{rule}**" in markdown and rule in html.unescape(page)


def repair_command(stderr: str) -> list[str]:
    """The command the refusal prints to delete the bad lines."""
    line = next(line for line in stderr.splitlines() if line.startswith("  sed -i.bak "))
    return shlex.split(line)


def test_tampered_records_are_refused_on_resume_and_the_printed_repair_works(uninterrupted, tmp_path):
    config, reference = uninterrupted
    out = tmp_path / "tampered"
    shutil.copytree(reference, out)
    games = out / "games.jsonl"
    lines = [json.loads(line) for line in games.read_text().splitlines()]
    lines[1]["extra"]["game_index"] = 6  # a game the schedule does not have
    flipped = json.loads(json.dumps(lines[0]))
    flipped["winner"] = "RED" if flipped["winner"] != "RED" else "BLUE"  # game 0 again, another result
    games.write_text("".join(json.dumps(line) + "\n" for line in lines + [flipped]))

    proc = run(config, "-o", str(out), "--resume", "-q")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "Standings" not in proc.stdout
    assert f"error: {games}:1: game " in proc.stderr
    assert f"{games}:2: game index 6 is outside the schedule (games 0 to 5)" in proc.stderr
    assert (
        f"{games}:7: game {lines[0]['extra']['game_index']} is recorded on line 1 too, with another result"
        in proc.stderr
    )
    command = repair_command(proc.stderr)
    assert command == ["sed", "-i.bak", "1d;2d;7d", str(games)]
    subprocess.run(command, check=True, timeout=30)
    assert (out / "games.jsonl.bak").exists()  # nothing is lost
    resumed = run(config, "-o", str(out), "--resume", "-q")
    assert resumed.returncode == 0, resumed.stderr
    assert "4 already recorded" in resumed.stderr
    same_tables(out, reference)


def test_an_identical_duplicate_record_counts_once(uninterrupted, tmp_path):
    config, reference = uninterrupted
    out = tmp_path / "merged"
    shutil.copytree(reference, out)
    with open(out / "games.jsonl", "a") as games:
        games.write((reference / "games.jsonl").read_text())  # e.g. two folders' files merged
    proc = run(config, "-o", str(out), "-q")
    assert proc.returncode == 0, proc.stderr
    same_tables(out, reference)


def test_a_torn_line_written_during_the_run_is_cut_off_and_the_tables_come_out(interruptible, tmp_path):
    config, reference = interruptible
    out = tmp_path / "torn"
    proc = start(config, out)
    wait_for_lines(out / "games.jsonl", 1, proc)
    with open(out / "games.jsonl", "ab") as games:  # five bytes, no newline, from "an agent"
        games.write(b"xxxxx")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert "cut off 5 bytes without a newline (b'xxxxx')" in stderr
    assert "Standings" in stdout
    assert sorted(r.extra["game_index"] for r in records(out)) == list(range(12))
    same_tables(out, reference)


def test_a_bad_line_written_during_the_run_stops_the_tables_and_says_how_to_repair(interruptible, tmp_path):
    config, reference = interruptible
    out = tmp_path / "junk"
    games = out / "games.jsonl"
    proc = start(config, out)
    wait_for_lines(games, 1, proc)
    with open(games, "ab") as file:
        file.write(b"junk\n")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr
    assert "Traceback" not in stderr and "Standings" not in stdout
    junk = games.read_text().splitlines().index("junk") + 1
    assert f"error: {games}:{junk}: not a game record" in stderr and "the tables were not written" in stderr
    # Every game the run played was kept.
    assert len([line for line in games.read_text().splitlines() if line != "junk"]) == 12
    subprocess.run(repair_command(stderr), check=True, timeout=30)
    again = run(config, "-o", str(out), "--resume", "-q")
    assert again.returncode == 0, again.stderr
    assert "games in" not in again.stdout  # nothing left to play
    same_tables(out, reference)


def wait_for_agents(mark: str, count: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    """Until ``count`` agent processes carrying ``mark`` in their environment run."""
    def started() -> bool:
        agents = 0
        for pid in marked_processes(mark):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            # The interpreter running the agent (not a wrapper around it, such as a sandbox's).
            if "python" in Path(argv[0].decode(errors="replace")).name and b"referee.hosting.agent_host" in argv:
                agents += 1
        if agents >= count:
            return True
        assert proc.poll() is None, proc.communicate()
        return False

    wait_until(started, seconds, f"{count} agent processes to start", interval=0.02)


@pytest.mark.parametrize(
    "signum, status, whole_group",
    [(signal.SIGTERM, 143, False), (signal.SIGHUP, 129, False), (signal.SIGHUP, 129, True)],
    ids=["SIGTERM", "SIGHUP", "SIGHUP-to-the-process-group"],
)
def test_sigterm_and_sighup_discard_the_running_games_and_leave_no_process(tmp_path, signum, status, whole_group):
    # A closed terminal sends SIGHUP to the whole process group, workers included; kill(1) to one process.
    config = write_config(tmp_path, """\
name: stopped
agents:
  - {name: sleeper, spec: "tests.hosting.fixture_agents.misbehave:Sleeps"}
  - {name: random, spec: agents.random_agent}
games_per_pair: 4
""")
    out, mark = tmp_path / "out", uuid.uuid4().hex
    proc = start(config, out, env={**os.environ, MARK: mark}, start_new_session=True)
    # The two agents are checked at once; three agents mean games are running (the sleeper sleeps 600 s a move).
    wait_for_agents(mark, 3, proc)
    if whole_group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == status, stderr
    assert "Traceback" not in stderr and "discarding the running games" in stderr
    assert "To resume:" in stderr and "No games recorded yet." in stdout  # the tables, of no game
    assert wait_until_gone(mark) == []  # workers and every agent


def test_sigterm_while_the_agents_are_checked_stops_the_checks_at_once(tmp_path):
    config = write_config(tmp_path, """\
name: checking
agents:
  - {name: slow, spec: tests.tournament.fixtures.agents.slow_init}
  - {name: slow2, spec: tests.tournament.fixtures.agents.slow_init}
  - {name: slow3, spec: tests.tournament.fixtures.agents.slow_init}
  - {name: random, spec: agents.random_agent}
""")
    out, mark = tmp_path / "out", uuid.uuid4().hex
    proc = start(config, out, env={**os.environ, MARK: mark})
    wait_for_agents(mark, 2, proc)  # checks under way: constructors that take ten minutes
    proc.send_signal(signal.SIGTERM)
    # Not ten minutes: the running checks' agents are killed (the timeout only guards against a hang).
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    assert "stopped by SIGTERM" in stderr and "Traceback" not in stderr
    assert wait_until_gone(mark) == []
    assert not out.exists()


def test_agent_options_reach_every_call_of_the_agent(tmp_path):
    report = tmp_path / "calls.jsonl"
    config = write_config(
        tmp_path,
        f"""\
name: options
agents:
  - name: echo
    spec: tests.tournament.fixtures.agents.echo_options
    options: {{report_to: {str(report)!r}, depth: 3}}
  - {{name: random, spec: agents.random_agent}}
games_per_pair: 2
time_limit: 20
seed: 4
sandbox: off  # the agent reports its calls to a file of the test's, which a sealed agent cannot see
""",
    )
    proc = run(config, "-o", str(tmp_path / "out"), "--workers", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    calls = [json.loads(line) for line in report.read_text().splitlines()]
    # The lineup check constructs it once; each of the two games then calls
    # __init__ once and action/turn many times.
    assert [c["call"] for c in calls].count("init") == 3
    assert {"action", "turn"} <= {c["call"] for c in calls}
    for call in calls:
        kwargs = call["kwargs"]
        assert kwargs["depth"] == 3 and kwargs["report_to"] == str(report), call
        # The referee's own keywords still arrive beside the options.
        assert kwargs["game"] == "infexion" and "time_remaining" in kwargs and kwargs["space_limit"] is None


def test_call_timeout_stops_an_agent_that_blocks_without_a_time_limit(tmp_path):
    config = write_config(tmp_path, """\
name: blocked
agents:
  - {name: sleeper, spec: tests.tournament.fixtures.agents.sleeper}
  - {name: random, spec: agents.random_agent}
games_per_pair: 2
call_timeout: 1
seed: 2
""")
    proc = run(config, "-o", str(tmp_path / "out"), "--workers", "2", "-q")
    assert proc.returncode == 0, proc.stderr
    games = records(tmp_path / "out")
    assert len(games) == 2
    for record in games:
        # The sleeper thinks for 60 s a move; the 1 s cap ends each game.
        assert record.reason == "time_limit" and record.name_of(record.winner) == "random"
        assert "watchdog" in record.error[record.loser]["message"]


def test_a_bad_config_stops_before_any_game(tmp_path):
    config = write_config(tmp_path, TINY.replace("games_per_pair: 2", "games_per_pair: 5"))
    proc = run(config, "-o", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert f"{config}:6: games_per_pair: must be even" in proc.stderr and "even" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_billion_laughs_config_is_refused(tmp_path):
    # 9 levels of 9 aliases: 9**9 values from a 300-byte addition.  It used to be
    # walked value by value (minutes, gigabytes); now it is refused as it is
    # read.  The subprocess timeout only keeps a regression from hanging.
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    config = write_config(tmp_path, TINY + "\n".join(lines) + "\n")
    assert Path(config).stat().st_size < 1000
    proc = run(config, "-o", str(tmp_path / "out"))
    assert proc.returncode == 2, proc.stderr
    assert (
        f"error: {config}:{len(TINY.splitlines()) + 6}: this holds more than 100000 values once its aliases (*name) "
        "are expanded" in proc.stderr
    )
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_an_agent_that_cannot_be_imported_is_a_config_error(tmp_path):
    text = TINY.replace("agents/random_agent", "tests.tournament.fixtures.submissions.broken_import")
    config = write_config(tmp_path, text)
    proc = run(config, "-o", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert f"{config}:5: agents[2]: agent 'r3'" in proc.stderr
    assert "a_package_nobody_installed" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_command_line_errors(tmp_path):
    config = write_config(tmp_path, TINY)
    assert run(config, "--workers", "0").returncode == 2
    proc = run(config, "--resume", "-o", str(tmp_path / "empty"))
    assert proc.returncode == 2 and "holds no tournament to continue" in proc.stderr
    assert not (tmp_path / "empty").exists()
    assert run(str(tmp_path / "missing.yaml")).returncode == 2
    for both in (["--fresh", "--resume"], ["--fresh", "--replay-changed"]):
        proc = run(config, *both, "-o", str(tmp_path / "empty"))
        assert proc.returncode == 2 and ("not allowed with" in proc.stderr or "give one of them" in proc.stderr)


def test_an_existing_folder_that_is_not_a_tournaments_is_refused_unless_forced(tmp_path):
    # Two agents (two games a run): what is tested is the folder, and it runs four times.
    config = write_config(tmp_path, TINY.replace("  - {name: r3, spec: agents/random_agent}\n", ""))
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    (mine / "results.md").write_text("my own results.md, not a tournament's")
    proc = run(config, "-o", str(mine), "-q")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"error: {mine} already exists and is not a tournament's output folder" in proc.stderr
    assert "notes.txt, results.md" in proc.stderr and "--force" in proc.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt", "results.md"]  # not even a lock file

    forced = run(config, "-o", str(mine), "-q", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (mine / "notes.txt").read_text() == "my notes" and len(records(mine)) == 2
    # Now it is this tournament's folder: running again needs no --force.
    assert run(config, "-o", str(mine), "-q").returncode == 0

    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(config, "-o", str(empty), "-q").returncode == 0


DISCOVER = """\
name: class
agents:
  - discover: tests/tournament/fixtures/submissions
    on_error: {on_error}
games_per_pair: 2
seed: 1
"""


def test_discovered_folders_join_and_broken_ones_are_left_out(tmp_path):
    config = write_config(tmp_path, DISCOVER.format(on_error="exclude"))
    proc = run(config, "-o", str(tmp_path / "out"), "-q")
    assert proc.returncode == 0, proc.stderr
    for name in ("broken_import", "no_class", "bad-name"):
        line = next(line for line in proc.stderr.splitlines() if f"submissions/{name}:" in line)
        assert "left out" in line
    assert "a_package_nobody_installed" in proc.stderr and "has no class Agent" in proc.stderr
    assert "_skipped" not in proc.stderr
    names = {r.red_name for r in records(tmp_path / "out")} | {r.blue_name for r in records(tmp_path / "out")}
    assert names == {"alice", "bob"}
    meta = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert {b["name"] for b in meta["broken_agents"]} == {"broken_import", "no_class", "bad-name"}


#: A random player that needs nothing but the referee package.
RANDOM_AGENT = """\
import random

from referee.game.actions import from_engine_action, to_engine_action
from referee.games.infexion import InfexionState


class Agent:
    def __init__(self, color, **referee):
        self.state, self.rng = InfexionState(), random.Random(referee.get("seed"))

    def action(self, **referee):
        return from_engine_action(self.rng.choice(self.state.legal_actions()))

    def turn(self, color, action, **referee):
        self.state.apply(to_engine_action(action))
"""


def test_a_discovered_symlink_out_of_the_folder_is_left_out_unimported(tmp_path):
    # A folder of its own as the current directory (agents import from it);
    # the referee comes from PYTHONPATH.
    marker = tmp_path / "imported.txt"
    for name in ("alice", "bob"):
        (tmp_path / "subs" / name).mkdir(parents=True)
        (tmp_path / "subs" / name / "__init__.py").write_text(RANDOM_AGENT)
    (tmp_path / "subs" / "_impl" / "carol").mkdir(parents=True)
    (tmp_path / "subs" / "_impl" / "carol" / "__init__.py").write_text(RANDOM_AGENT)
    (tmp_path / "subs" / "carol").symlink_to(Path("_impl") / "carol")  # stays inside: fine
    (tmp_path / "outside" / "evil").mkdir(parents=True)
    (tmp_path / "outside" / "evil" / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').write('imported')\n" + RANDOM_AGENT
    )
    (tmp_path / "subs" / "evil").symlink_to(tmp_path / "outside" / "evil")
    (tmp_path / "subs" / "sneaky").symlink_to(Path("..") / "outside" / "evil")  # relative, same place
    (tmp_path / "class.yaml").write_text(
        "name: class\nagents:\n  - {discover: subs, on_error: forfeit}\ngames_per_pair: 2\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = run_referee("tournament", "class.yaml", "-o", "out", "-q", cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for name in ("evil", "sneaky"):
        line = next(line for line in proc.stderr.splitlines() if line.startswith(f"{tmp_path / 'subs' / name}:"))
        assert "left out" in line and f"a symbolic link to {tmp_path / 'outside' / 'evil'}, outside" in line
    assert not marker.exists()  # never imported, not even by the load check
    games = records(tmp_path / "out")
    assert {r.red_name for r in games} | {r.blue_name for r in games} == {"alice", "bob", "carol"}
    meta = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert {b["name"]: b["kept"] for b in meta["broken_agents"]} == {"evil": False, "sneaky": False}


def test_broken_folders_can_be_kept_in_to_forfeit(tmp_path):
    config = write_config(tmp_path, DISCOVER.format(on_error="forfeit"))
    proc = run(config, "-o", str(tmp_path / "out"), "-q", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    assert "kept in: it forfeits its games" in proc.stderr
    games = records(tmp_path / "out")
    assert len(games) == 6 * 2  # alice, bob, broken_import, no_class
    for record in games:
        if {"alice", "bob"} & {record.red_name, record.blue_name} and {"broken_import", "no_class"} & {
            record.red_name,
            record.blue_name,
        }:
            assert record.reason == "load_error" and record.name_of(record.winner) in ("alice", "bob")
    endings = {row[0]: row for row in table(tmp_path / "out", "endings")}
    header = table(tmp_path / "out", "endings")[0]
    assert int(endings["broken_import"][header.index("error")]) >= 4
    assert int(endings["alice"][header.index("opponent failed")]) == 4
    # The two broken folders' games against each other have no winner: ½ each, as every game without one
    # (docs/tournament.md, "Points"), in no rating.
    between = [r for r in games if {r.red_name, r.blue_name} == {"broken_import", "no_class"}]
    assert len(between) == 2 and all(r.reason == "load_error" and r.winner is None for r in between)
    standings = table(tmp_path / "out", "standings")
    rows = {row[1]: dict(zip(standings[0], row)) for row in standings[1:]}
    for broken in ("broken_import", "no_class"):
        assert (rows[broken]["games"], rows[broken]["draws"], rows[broken]["losses"], rows[broken]["points"]) == (
            "6",
            "2",
            "4",
            "1",
        )
        assert rows[broken]["score %"] == "16.7"


def test_gauntlet_with_sprt_stops_when_decided(tmp_path):
    config = write_config(tmp_path, """\
name: sprt
agents:
  - {name: random, spec: agents.random_agent}
  - {name: resigner, spec: tests.tournament.fixtures.agents.illegal}
format: gauntlet
challenger: random
games_per_pair: 200
sprt: {elo0: 0, elo1: 50}
""")
    proc = run(config, "-o", str(tmp_path / "out"), "-q", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    games = records(tmp_path / "out")
    assert 22 <= len(games) < 30
    assert all(r.reason == "illegal_action" and r.name_of(r.winner) == "random" for r in games)
    assert "H1 accepted" in proc.stdout and "random vs resigner: Elo difference +" in proc.stdout
    # The output names the Elo model of elo0/elo1, and reports the colour-swapped pairs (all won).
    assert "SPRT (logistic Elo: elo0 0, elo1 50, alpha 0.05, beta 0.05)" in proc.stdout
    rounds = {r.extra["round"] for r in games}
    pairs = sum(1 for r in rounds if r % 2 == 0 and r + 1 in rounds)  # games abandoned at the stop may leave gaps
    assert f"Pentanomial, {pairs} colour-swapped pairs scoring 0/½/1/1½/2: 0/0/0/0/{pairs}:" in proc.stdout
    assert "pentanomial LLR" in proc.stdout and f"over {pairs} pairs" in proc.stdout
    trajectory = table(tmp_path / "out", "sprt")
    assert trajectory[0] == ["games", "game_index", "llr", "lower", "upper"] and len(trajectory) == len(games) + 1
    assert float(trajectory[-1][2]) >= float(trajectory[-1][4]) > 0


def test_a_gauntlet_is_ranked_by_rating_not_by_the_challengers_many_points(tmp_path):
    # Every agent but random forfeits its first move, so Red forfeits between two
    # of them (Blue wins) and random wins every game: the challenger scores 1 of
    # 2 against each of r1, r2, r3 and 0 of 2 against random, i.e. 3 points, more
    # than anyone else, at 37.5%, the lowest score.
    config = write_config(tmp_path, """\
name: ranked
agents:
  - {name: challenger, spec: tests.tournament.fixtures.agents.illegal}
  - {name: r1, spec: tests.tournament.fixtures.agents.illegal}
  - {name: r2, spec: tests.tournament.fixtures.agents.illegal}
  - {name: r3, spec: tests.tournament.fixtures.agents.illegal}
  - {name: random, spec: agents.random_agent}
format: gauntlet
challenger: challenger
games_per_pair: 2
seed: 5
""")
    proc = run(config, "-o", str(tmp_path / "out"), "-q", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    games = records(tmp_path / "out")
    assert len(games) == 8
    for record in games:
        expected = "random" if "random" in (record.red_name, record.blue_name) else record.blue_name
        assert record.name_of(record.winner) == expected, record
    standings = table(tmp_path / "out", "standings")
    rows = [dict(zip(standings[0], row)) for row in standings[1:]]
    assert [row["agent"] for row in rows] == ["random", "r1", "r2", "r3", "challenger"]
    assert [row["rank"] for row in rows] == ["1", "2", "2", "2", "5"]
    assert [row["points"] for row in rows] == ["2", "1", "1", "1", "3"]
    # 50% against the challenger rates r1-r3 as the challenger; the score % breaks the tie.
    assert len({row["Elo"] for row in rows[1:]}) == 1 and rows[-1]["score %"] == "37.5"
    # The gauntlet's rule, said once, right under the title of its one ranked table, on screen and in the files.
    rule = "Official ranking: by Elo (the joint fit of every game), then score %, then name: the challenger plays"
    assert proc.stdout.startswith(f"Standings\n{rule}")
    assert f"## Standings\n\n**{rule}" in (tmp_path / "out" / "results.md").read_text()


def test_unsealed_games_are_flagged_in_every_output_and_sealed_ones_are_not(tmp_path):
    from tests.sandboxing import require_sandbox

    require_sandbox()
    two = TINY.replace("  - {name: r3, spec: agents/random_agent}\n", "")  # two games a run: enough to flag
    for mode in ("off", "required"):
        config = write_config(
            tmp_path, two.replace("name: tiny", f"name: tiny_{mode}") + f"sandbox: {mode}\n", f"{mode}.yaml"
        )
        out = tmp_path / mode
        proc = run(config, "-o", str(out), "--workers", "2", "-q")
        assert proc.returncode == 0, proc.stderr
        flagged = [
            "WARNING: 2 of 2 games ran with the agents UNSEALED" in text
            for text in (proc.stdout, (out / "results.md").read_text(), (out / "report.html").read_text())
        ]
        assert flagged == [mode == "off"] * 3, (mode, flagged)
        sandboxes = {json.dumps(r.sandbox, sort_keys=True) for r in records(out)}
        assert len(sandboxes) == 1 and (json.loads(sandboxes.pop())["namespaces"] is (mode == "required"))


def test_a_bad_sandbox_mode_in_a_config_names_its_line(tmp_path):
    config = write_config(tmp_path, TINY + "sandbox: sometimes\n")
    proc = run(config, "-o", str(tmp_path / "out"), "-q")
    assert proc.returncode == 2
    line = len(TINY.splitlines()) + 1
    assert f"{config}:{line}: sandbox: must be one of auto, required, off" in proc.stderr, proc.stderr


def class_folder(tmp_path: Path) -> Path:
    """A class's submissions: two that play and one of each common way to be broken."""
    subs = tmp_path / "subs"
    for name in ("alice", "bob"):
        (subs / name).mkdir(parents=True)
        (subs / name / "__init__.py").write_text(RANDOM_AGENT)
    (subs / "bad-name").mkdir()
    (subs / "bad-name" / "__init__.py").write_text(RANDOM_AGENT)
    (subs / "syntax").mkdir()
    (subs / "syntax" / "__init__.py").write_text("from .program import Agent\n")
    (subs / "syntax" / "program.py").write_text("class Agent:\n    def action(self)\n        pass\n")
    (subs / "noinit").mkdir()
    (subs / "noinit" / "program.py").write_text(RANDOM_AGENT)
    (subs / "noimport").mkdir()
    (subs / "noimport" / "__init__.py").write_text('"""Mine."""\n')
    (subs / "noimport" / "program.py").write_text(RANDOM_AGENT)
    (subs / "missing").mkdir()
    (subs / "missing" / "__init__.py").write_text("import a_package_nobody_installed\n" + RANDOM_AGENT)
    return subs


#: What each broken folder of class_folder must be reported with.
BROKEN = {
    "bad-name": "the folder's name is not a Python identifier",
    "syntax": "SyntaxError: expected ':' (program.py, line 2)",
    "noinit": "has no __init__.py, so it is not a package",
    "noimport": "its __init__.py does not define or import it; add 'from .program import Agent'",
    "missing": "No module named 'a_package_nobody_installed'",
}


def markdown_rows(markdown: str) -> dict[str, list[str]]:
    """The cells of a Markdown file's table rows (code spans as their text), by their first cell."""
    rows = [
        [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        for line in markdown.splitlines()
        if line.startswith("|")
    ]
    return {row[0]: row for row in rows}


def run_class(tmp_path: Path, on_error: str) -> tuple[subprocess.CompletedProcess, Path]:
    """The class tournament, run in ``tmp_path`` (agents import from there; the referee from PYTHONPATH)."""
    class_folder(tmp_path)
    (tmp_path / "class.yaml").write_text(
        f"name: class\nagents:\n  - {{discover: subs, on_error: {on_error}}}\ngames_per_pair: 2\nseed: 1\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = run_referee("tournament", "class.yaml", "-o", "out", "-q", "--workers", "2", cwd=tmp_path, env=env,
                       timeout=180)
    return proc, tmp_path / "out"


def test_discovered_folders_that_fail_to_load_are_listed_in_the_report_the_markdown_and_the_tables(tmp_path):
    proc, out = run_class(tmp_path, "exclude")
    # The tournament ran, so it exits 0; the broken folders are said last, where they are seen.
    assert proc.returncode == 0, proc.stderr
    assert {r.red_name for r in records(out)} | {r.blue_name for r in records(out)} == {"alice", "bob"}
    meta = json.loads((out / "tournament.json").read_text())
    assert {b["name"] for b in meta["broken_agents"]} == set(BROKEN)

    console = proc.stdout[: proc.stdout.index("\nwritten: ")]
    section = console[console.index("Left out / failed to load: 5 discovered folders"):]
    assert console.rstrip().endswith(section.rstrip())  # the tables' end
    markdown = (out / "results.md").read_text()
    assert markdown.index("## Left out / failed to load (5)") < markdown.index("## Standings")
    page = (out / "report.html").read_text()
    assert page.index('id="left-out"') < page.index("<h2>Standings</h2>")
    for name, why in BROKEN.items():
        folder = str(tmp_path / "subs" / name)
        line = next(line for line in section.splitlines() if line.startswith(f"  {folder} (left out): "))
        assert why in line, line
        row = markdown_rows(markdown)[folder]
        assert row[1:3] == [name, "left out"] and why in row[3], row
        assert f"`{folder}`" in markdown  # code: __init__.py must not render as a bold "init"
        assert html.escape(why) in page and html.escape(folder) in page
    assert "note: 5 discovered folders failed to load (5 left out, 0 kept in to forfeit)" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_folders_kept_in_to_forfeit_are_listed_as_such(tmp_path):
    proc, out = run_class(tmp_path, "forfeit")
    assert proc.returncode == 0, proc.stderr
    rows = markdown_rows((out / "results.md").read_text())
    # A folder that cannot even be named is left out whatever on_error says; the others play to forfeit.
    assert rows[str(tmp_path / "subs" / "bad-name")][1:3] == ["bad-name", "left out"]
    for name in ("syntax", "noinit", "noimport", "missing"):
        assert rows[str(tmp_path / "subs" / name)][1:3] == [name, "kept in: forfeits its games"]
    assert "(1 left out, 4 kept in to forfeit)" in proc.stderr
    assert "kept in: forfeits its games" in (out / "report.html").read_text()


def test_when_too_few_agents_load_each_left_out_folder_says_why(tmp_path):
    subs = class_folder(tmp_path)
    shutil.rmtree(subs / "bob")
    (tmp_path / "class.yaml").write_text("name: class\nagents:\n  - {discover: subs}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = run_referee("tournament", "class.yaml", "-o", "out", "-q", cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert (
        "agents: a tournament needs at least two agents; 1 can play (5 discovered folders were left out)" in proc.stderr
    )
    for name, why in BROKEN.items():
        line = next(
            line
            for line in proc.stderr.splitlines()
            if line.startswith(f"error: {tmp_path / 'subs' / name}: left out: ")
        )
        assert why in line, line
    assert not (tmp_path / "out").exists()


def test_a_config_with_several_mistakes_reports_them_all_at_once(tmp_path):
    config = write_config(tmp_path, """\
name: evening
agents:
  - agents.minmax
  - {name: mm4, spec: agents.minimax, nmae: x, options: {seed: 1}}
  - {name: r, spec: agents/random_agnet}
games_per_pair: 5
time_limit: -1
sprt: {elo0: 5, elo1: 0}
workrs: 2
""")
    proc = run(config, "-o", str(tmp_path / "out"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    expected = [
        f"error: {config}:3: agents[0]: 'agents.minmax' names no agent: agents/ has no sub-folder minmax/ or file "
        "minmax.py (did you mean agents.minimax?)",
        f"error: {config}:4: agents[1].nmae: unknown field (did you mean 'name'?)",
        f"error: {config}:4: agents[1].options.seed: 'seed' is passed by the referee itself",
        f"error: {config}:5: agents[2].spec: 'agents/random_agnet' names no agent: agents/ has no sub-folder "
        "random_agnet/ or file random_agnet.py (did you mean agents/random_agent?)",
        f"error: {config}:6: games_per_pair: must be even",
        f"error: {config}:7: time_limit: must be a number of 0 or more",
        f"error: {config}:8: sprt.elo1: must be greater than elo0",
        f"error: {config}:9: workrs: unknown field (did you mean 'workers'?)",
    ]
    lines = proc.stderr.splitlines()
    assert len(lines) == len(expected) + 1 and lines[-1] == f"{len(expected)} problems; nothing was played.", (
        proc.stderr
    )
    for line, beginning in zip(lines, expected):
        assert line.startswith(beginning), (line, beginning)
    assert not (tmp_path / "out").exists()


def test_peak_memory_reads_as_memory_above_the_baseline(uninterrupted):
    _, out = uninterrupted
    rows = table(out, "endings")
    peaks = [row[rows[0].index("peak MB")] for row in rows[1:]]
    # The random agents' peaks are a few hundredths of a MB or less: never a "0.0" that reads as not measured.
    assert peaks and all(
        p == "< 0.01" or p.count(".") == 1 and (float(p) >= 1 or len(p.split(".")[1]) == 2) for p in peaks
    ), peaks
    assert "peak memory (MB above the interpreter's baseline)" in (out / "results.md").read_text()
    assert "peak MB: memory above the interpreter's baseline" in (out / "report.html").read_text()


def printed_command(stderr: str, flag: str) -> list[str]:
    """The command a message printed (an indented line ending in ``flag``), as arguments for this interpreter."""
    line = next(line.strip() for line in stderr.splitlines() if line.startswith("  python ") and line.endswith(flag))
    return [sys.executable, *shlex.split(line)[1:]]


def test_an_edited_agent_is_not_reused_until_the_user_says_how(tmp_path):
    subs = tmp_path / "subs"
    for name in ("alice", "bob", "carol"):
        (subs / name).mkdir(parents=True)
        (subs / name / "__init__.py").write_text(RANDOM_AGENT)
    (tmp_path / "class.yaml").write_text("name: class\nagents:\n  - {discover: subs}\ngames_per_pair: 2\nseed: 1\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

    def again(*args: str) -> subprocess.CompletedProcess:
        arguments = list(args) or command("class.yaml", "-o", "out", "-q")
        return subprocess.run(arguments, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)

    out = tmp_path / "out"
    assert again().returncode == 0
    first = (out / "games.jsonl").read_text()
    code = json.loads((out / "tournament.json").read_text())["code"]
    assert set(code) == {"alice", "bob", "carol"} and len(set(code.values())) == 3
    for record in records(out):
        assert record.extra["code_hash"] == {n: code[n] for n in (record.red_name, record.blue_name)}
    assert {row[1]: row[-1] for row in table(out, "standings")[1:]} == code  # the standings' code column
    assert code["alice"] in (out / "results.md").read_text() and code["alice"] in (out / "report.html").read_text()

    # alice gets a data file; bob only byte code (not its code). The same command stops, naming alice alone.
    (subs / "alice" / "book.txt").write_text("opening book\n")
    (subs / "bob" / "__pycache__").mkdir(exist_ok=True)
    (subs / "bob" / "__pycache__" / "stale.cpython-311.pyc").write_bytes(b"\0junk")
    stopped = again()
    assert stopped.returncode == 2 and "Traceback" not in stopped.stderr
    assert "error: the code of 1 agent changed since its games were recorded" in stopped.stderr
    assert f"  alice (subs.alice): code {code['alice']} in 4 recorded games, " in stopped.stderr
    assert "bob" not in stopped.stderr and "Nothing was played." in stopped.stderr
    assert (out / "games.jsonl").read_text() == first and not (out / "superseded.jsonl").exists()

    # The printed --replay-changed command plays alice's 4 games again and keeps bob against carol.
    replayed = again(*printed_command(stopped.stderr, "--replay-changed"))
    assert replayed.returncode == 0, replayed.stderr
    assert "the code of alice changed: its 4 recorded games were set aside in out/superseded.jsonl" in replayed.stderr
    assert "4 games in " in replayed.stdout
    aside = [GameRecord.from_json(line) for line in (out / "superseded.jsonl").read_text().splitlines()]
    assert len(aside) == 4 and all("alice" in (r.red_name, r.blue_name) for r in aside)
    kept = [line for line in first.splitlines() if '"alice"' not in line]
    assert len(kept) == 2 and all(line in (out / "games.jsonl").read_text() for line in kept)
    now = json.loads((out / "tournament.json").read_text())["code"]
    assert now["alice"] != code["alice"] and {n: now[n] for n in ("bob", "carol")} == {"bob": code["bob"],
                                                                                       "carol": code["carol"]}
    assert {r.extra["code_hash"].get("alice", now["alice"]) for r in records(out)} == {now["alice"]}

    # The printed --fresh command (from the first message) sets everything aside and plays it all again.
    (subs / "carol" / "__init__.py").write_text(RANDOM_AGENT + "\n# carol's second try\n")
    fresh = again(*printed_command(again().stderr, "--fresh"))
    assert fresh.returncode == 0, fresh.stderr
    assert "--fresh: the 6 recorded games were set aside" in fresh.stderr and "6 games in " in fresh.stdout
    assert len((out / "superseded.jsonl").read_text().splitlines()) == 10
    assert len(records(out)) == 6


def test_a_missing_config_names_the_one_beside_it_that_was_meant(tmp_path):
    (tmp_path / "quick.yaml").write_text("name: q\n")
    (tmp_path / "other.yml").write_text("name: o\n")
    said = {
        typed: run(str(tmp_path / typed)).stderr.strip()
        for typed in ("quick.yml", "quik.yaml", "other.yaml", "nothing-like-it.yaml")
    }
    assert said == {
        "quick.yml": f"error: {tmp_path}/quick.yml: no such file (did you mean {tmp_path}/quick.yaml?)",
        "quik.yaml": f"error: {tmp_path}/quik.yaml: no such file (did you mean {tmp_path}/quick.yaml?)",
        "other.yaml": f"error: {tmp_path}/other.yaml: no such file (did you mean {tmp_path}/other.yml?)",
        "nothing-like-it.yaml": f"error: {tmp_path}/nothing-like-it.yaml: no such file",
    }


def test_the_help_names_every_format():
    assert "(round robin, gauntlet, Swiss, ladder or knockout)" in " ".join(run("-h").stdout.split())
