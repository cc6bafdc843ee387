"""``python -m referee autograde partB`` on fake submission folders: real games, real results.json."""
from __future__ import annotations

import csv
import json
import re
import shlex
import stat
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from referee.marking import gradescope
from referee.hosting.sandbox import resolve
from referee.marking.part_b import (
    PROG, Band, Opponent, SchemeError, games_file_for, main, parse_scheme, sandbox_state,
)
from referee.records import GameRecord
from tests.helpers import ROOT, run_referee


GREEDY = """\
from agents.greedy import Agent as Greedy


class Agent(Greedy):
    \"\"\"Plays greedily: one ply, the game's evaluation.\"\"\"
"""

RANDOM = """\
from agents.random_agent import Agent as Random


class Agent(Random):
    \"\"\"Plays at random, seeded by the referee's seed: a game is the same every time it is played.\"\"\"
"""

BROKEN = """\
import a_module_nobody_has


class Agent:
    pass
"""

SLOW = """\
from agents.random_agent import Agent as Random


class Agent(Random):
    def action(self, **referee):
        self.moves = getattr(self, "moves", 0) + 1
        while self.moves > 3:  # a few quick moves, then thinks forever
            pass
        return super().action(**referee)
"""

HUNGRY = """\
from agents.random_agent import Agent as Random


class Agent(Random):
    def action(self, **referee):
        self.moves = getattr(self, "moves", 0) + 1
        if self.moves > 3:  # a few moves, then every page of 200 MB written: resident
            self.hoard = bytearray(b"\\x01" * (200 * 1024 * 1024))
        return super().action(**referee)
"""

ILLEGAL = """\
from agents.random_agent import Agent as Random


class Agent(Random):
    def action(self, **referee):
        return "not an action at all"
"""

RAISES = """\
from agents.random_agent import Agent as Random


class Agent(Random):
    def action(self, **referee):
        raise ValueError("my first move is a bug")
"""

#: Short games: random opponents, two games each, small limits.  No turning points: analysing a lost game of
#: random play (hundreds of actions) would take up to the whole budget, a minute (test_part_b_turning.py).
SCHEME = """\
game: infexion
time_limit: {time_limit}
space_limit: {space_limit}
games_per_opponent: 2
seed: 3
opponents:
  - name: random
    spec: agents.random_agent
    marks: 4
    bands:
      - {{min_score: 0.75, fraction: 1.0}}
      - {{min_score: 0.5, fraction: 0.5}}
checks: {{plays_legally: 1, time_limit: 2, space_limit: 3}}
turning_points: {{games: 0}}
"""


def submission(tmp_path: Path, program: str, under: str = "") -> Path:
    """A submission folder whose package agent/ (``under`` a sub-folder, if given) holds ``program``."""
    folder = tmp_path / "submission"
    package = folder / under / "agent"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .program import Agent as Agent\n")
    (package / "program.py").write_text(program)
    return folder


def scheme_text(time_limit: float = 60, space_limit: float = 250) -> str:
    return SCHEME.format(time_limit=time_limit, space_limit=space_limit)


def scheme(tmp_path: Path, time_limit: float = 60, space_limit: float = 250, text: str | None = None) -> Path:
    """A scheme file: ``text``, or :data:`SCHEME` with these limits."""
    path = tmp_path / "scheme.yaml"
    path.write_text(scheme_text(time_limit, space_limit) if text is None else text)
    return path


def grade_folder(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str], text: str | None = None, *extra: str,
    **limits: float,
) -> dict:
    """Mark the submission in ``folder``; the results, checked against Gradescope's format."""
    results = tmp_path / "results" / "results.json"
    code = main([
        "--submission", str(folder), "--scheme", str(scheme(tmp_path, text=text, **limits)),
        "--results", str(results), *extra,
    ])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(results.read_text())
    assert gradescope.problems(data) == []
    assert f"Total: {data['score']:g}/" in out  # the table a student sees locally
    # Students see the tests' output on Gradescope and nothing else: no path of the grader's in it.
    assert "results.games.jsonl" not in json.dumps(data)
    assert data["output_format"] == "md" and all(test["output_format"] == "md" for test in data["tests"])
    return data


def grade(tmp_path: Path, program: str, capsys: pytest.CaptureFixture[str], **limits: float) -> dict:
    """Mark a submission holding ``program``."""
    return grade_folder(tmp_path, submission(tmp_path, program), capsys, **limits)


def marks_by_name(data: dict) -> dict[str, dict]:
    return {test["name"]: test for test in data["tests"]}


def test_a_good_agent_gets_full_marks_and_an_elo(tmp_path, capsys):
    data = grade(tmp_path, GREEDY, capsys)
    tests = marks_by_name(data)
    assert list(tests) == [
        "Against random", "Loads and plays legally", "Never exceeds the time limit", "Never exceeds the memory limit",
    ]
    assert data["score"] == 10 and all(test["status"] == "passed" for test in data["tests"])
    assert "Against random you scored 2/2 (100%): full marks." in tests["Against random"]["output"]
    [elo] = data["leaderboard"]
    assert elo["name"] == "Elo" and elo["order"] == "desc" and elo["value"] > 0
    # What the agents ran under, for the cohort's report (sealed wherever this machine can seal).
    assert data["extra_data"]["sandbox"] == sandbox_state(resolve("auto"))
    assert "users" not in data["extra_data"]  # no Gradescope metadata here
    # Every game's record is kept beside the results, in the order played, for replays.
    records = [GameRecord.from_json(line) for line in games_file_for(tmp_path / "results" / "results.json")
               .read_text().splitlines()]
    assert [r.extra["game_index"] for r in records] == [0, 1]
    assert [r.red_name for r in records] == ["submission", "random"]  # both colours


def test_an_agent_written_for_the_course_template_is_marked(tmp_path, capsys):
    # The course's layout and imports (referee.game's names), as students write them.
    fixture = ROOT / "tests" / "hosting" / "fixture_agents" / "course_style"
    data = grade(tmp_path, (fixture / "program.py").read_text(), capsys)
    assert data["score"] == 10, data


def test_missing_folders_and_bad_arguments_exit_2(tmp_path, capsys):
    assert main(["--submission", str(tmp_path / "nowhere"), "--results", str(tmp_path / "r.json")]) == 2
    assert "the submission folder" in capsys.readouterr().err
    assert main(["--submission", str(tmp_path), "--scheme", str(tmp_path / "none.yaml")]) == 2
    assert f"{tmp_path / 'none.yaml'}: no such file" in capsys.readouterr().err
    assert main(["--workers", "0", "--submission", str(tmp_path)]) == 2
    assert main(["--no-such-option"]) == 2
    assert not (tmp_path / "r.json").exists()


def test_a_broken_agent_fails_to_load_and_gets_nothing(tmp_path, capsys):
    stale = games_file_for(tmp_path / "results" / "results.json")
    stale.parent.mkdir()
    stale.write_text("an earlier submission's games\n")
    data = grade(tmp_path, BROKEN, capsys)
    tests = marks_by_name(data)
    assert data["score"] == 0 and all(test["status"] == "failed" for test in data["tests"])
    load = tests["Loads and plays legally"]["output"]
    assert "could not be loaded" in load and "a_module_nobody_has" in load
    assert "Not tested" in tests["Never exceeds the time limit"]["output"]
    assert "leaderboard" not in data
    assert not stale.exists()  # no game was played, and the earlier games are not this submission's


def test_a_slow_agent_fails_the_time_check(tmp_path, capsys):
    data = grade(tmp_path, SLOW, capsys, time_limit=1)
    tests = marks_by_name(data)
    time_test = tests["Never exceeds the time limit"]
    assert time_test["score"] == 0 and time_test["max_score"] == 2
    assert time_test["output"].splitlines()[0] == "In 2 of 2 games your agent ran out of time."
    assert "**Lost game 0** as RED against random after 6 turns, by `time_limit`: your agent ran out of time." \
        in time_test["output"]
    assert "python -I -m referee agent agents.random_agent -t 1 -s 250 --seed" in time_test["output"]
    assert "The final position, after 6 turns:" in time_test["output"]
    assert tests["Never exceeds the memory limit"]["score"] == 3
    assert tests["Loads and plays legally"]["score"] == 1
    assert tests["Against random"]["score"] == 0
    assert "you scored 0/2 (0%): no marks" in tests["Against random"]["output"]


def test_a_memory_hungry_agent_fails_the_memory_check(tmp_path, capsys):
    data = grade(tmp_path, HUNGRY, capsys, space_limit=50)
    tests = marks_by_name(data)
    memory = tests["Never exceeds the memory limit"]
    assert memory["score"] == 0 and memory["max_score"] == 3
    assert "used too much memory" in memory["output"] and "by `space_limit`" in memory["output"]
    assert tests["Never exceeds the time limit"]["score"] == 2
    assert tests["Loads and plays legally"]["score"] == 1


def test_an_illegal_action_fails_the_legality_check(tmp_path, capsys):
    data = grade(tmp_path, ILLEGAL, capsys)
    legal = marks_by_name(data)["Loads and plays legally"]
    assert legal["score"] == 0
    assert "by `illegal_action`" in legal["output"] and "not an action at all" in legal["output"]


def test_an_agent_that_never_gets_an_action_out_earns_no_check(tmp_path, capsys):
    data = grade(tmp_path, RAISES, capsys)
    tests = marks_by_name(data)
    assert data["score"] == 0
    assert "raised an exception" in tests["Loads and plays legally"]["output"]
    assert "my first move is a bug" in tests["Loads and plays legally"]["output"]
    for name in ("Never exceeds the time limit", "Never exceeds the memory limit"):
        # "Not tested", the word the docs and a submission that played no game use.
        assert tests[name]["output"] == "Not tested: your agent did not play a single action in any game."


def first_lines(data: dict) -> dict[str, str]:
    return {test["name"]: test["output"].splitlines()[0] for test in data["tests"]}


def test_a_submission_without_an_agent_folder_says_so_first_in_every_test(tmp_path, capsys):
    folder = tmp_path / "submission"
    (folder / "src").mkdir(parents=True)
    (folder / "README.md").write_text("my agent\n")
    # Unsealed games would be said at the top and in the results: a submission that played none claims no sandbox.
    data = grade_folder(tmp_path, folder, capsys, "sandbox: off\n" + scheme_text())
    assert data["score"] == 0 and "leaderboard" not in data
    assert data["output"].splitlines()[0] == "No game was played: your submission has no agent/ folder."
    assert "sealed" not in data["output"]
    assert data["extra_data"] == {"sandbox": "none: no game played"}
    assert first_lines(data) == {
        "Against random": "Not played: your submission has no agent/ folder.",
        "Loads and plays legally": "Your submission has no agent/ folder, so no game was played.",
        "Never exceeds the time limit": "Not tested: your submission has no agent/ folder.",
        "Never exceeds the memory limit": "Not tested: your submission has no agent/ folder.",
    }
    load = marks_by_name(data)["Loads and plays legally"]["output"]
    assert "Your submission holds: `README.md`, `src/`." in load and "zip the contents" in load
    # Nothing misleading after the first line: no failure of the grader's, no score out of nothing.
    everything = json.dumps(data)
    assert "grader failed" not in everything and "None" not in everything and "0/0" not in everything
    # The cohort's marks say so too, and do not count it among the submissions graded without a sandbox.
    done = run_referee("autograde", "report", str(tmp_path), "-o", str(tmp_path / "marks"))
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader((tmp_path / "marks" / "marks.csv").open(newline="")))
    assert rows[0][:3] == ["name", "sandbox", "total"] and rows[1][:3] == ["results", "none: no game played", "0"]
    assert "without a full sandbox" not in done.stdout
    assert "without a full sandbox" not in (tmp_path / "marks" / "marks.html").read_text()


def write_files(folder: Path, files: dict[str, str]) -> Path:
    """A submission folder holding ``files`` (path relative to it: text)."""
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


TUTORIAL_PACKAGE = {"my_agent/__init__.py": "from .program import Agent\n", "my_agent/program.py": RANDOM}


@pytest.mark.parametrize("files, why, advice", [
    # The tutorial's way (docs/first-agent.md: agents/my_agent/), beside the course template's own referee/ and a
    # package of tests: the agent is the one package that is not the referee's, named to rename.
    ({**TUTORIAL_PACKAGE, "README.txt": "my agent\n", "referee/__init__.py": "", "tests/__init__.py": "",
      "tests/test_it.py": "def test_it():\n    pass\n"},
     "rename your package `my_agent/` to `agent/`",
     "Your agent must be the package `agent/`: rename `my_agent/` to `agent/`. If your modules import each other "
     "by the name `my_agent` (`from my_agent.utils import helper`), import them relatively instead "
     "(`from .utils import helper`)."),
    # The project folder zipped, its package without an __init__.py: both fixes, and the zipping advice.
    ({"comp30024/README.txt": "my agent\n", "comp30024/mine/program.py": RANDOM},
     "rename your package `comp30024/mine/` to `agent/`",
     "rename `comp30024/mine/` to `comp30024/agent/`. If your modules import each other by the name `mine` "
     "(`from mine.utils import helper`), import them relatively instead (`from .utils import helper`). Then zip the "
     "contents of `comp30024/`, not the folder itself. It also needs an `__init__.py` that imports your agent's "
     "class (for example `from .program import Agent`)."),
])
def test_a_package_under_another_name_is_named_with_how_to_rename_it(tmp_path, capsys, files, why, advice):
    data = grade_folder(tmp_path, write_files(tmp_path / "submission", files), capsys)
    message = f"your submission has no agent/ folder ({why})"
    assert first_lines(data) == {
        "Against random": f"Not played: {message}.",
        "Loads and plays legally": f"Y{message[1:]}, so no game was played.",
        "Never exceeds the time limit": f"Not tested: {message}.",
        "Never exceeds the memory limit": f"Not tested: {message}.",
    }
    load = marks_by_name(data)["Loads and plays legally"]["output"]
    assert advice in load
    assert ("zip the contents" in load) == ("comp30024" in why)  # zipping is advice only where a folder was zipped


def test_two_packages_under_other_names_are_not_guessed(tmp_path, capsys):
    files = {"mine/__init__.py": "from .program import Agent\n", "mine/program.py": RANDOM,
             "theirs/__init__.py": "from .program import Agent\n", "theirs/program.py": RANDOM}
    data = grade_folder(tmp_path, write_files(tmp_path / "submission", files), capsys)
    assert first_lines(data)["Against random"] == "Not played: your submission has no agent/ folder."
    assert "rename" not in json.dumps(data)


def test_an_agent_one_folder_down_is_found_used_and_noted(tmp_path, capsys):
    # The common zip mistake: the project folder zipped rather than its contents (a Mac adds __MACOSX).
    folder = submission(tmp_path, RANDOM, under="comp30024-partb")
    (folder / "__MACOSX" / "comp30024-partb" / "agent").mkdir(parents=True)
    data = grade_folder(tmp_path, folder, capsys)
    note = ("Note: your submission has no agent/ folder at its top; the one in `comp30024-partb/agent/` was used. "
            "Next time zip the contents of `comp30024-partb/`, not the folder itself.")
    assert data["output"].splitlines()[0] == note
    tests = marks_by_name(data)
    assert tests["Loads and plays legally"]["score"] == 1 and note in tests["Loads and plays legally"]["output"]
    against = tests["Against random"]["output"]
    assert "Play it again, from the folder `comp30024-partb/` of your submission (it holds agent/):" in against
    # Why the command has -I, so that nobody drops it and runs a template's referee/ instead.
    assert "`-I` makes Python run the referee you installed, never a `referee/` folder in your submission." in against
    assert len(games_file_for(tmp_path / "results" / "results.json").read_text().splitlines()) == 2
    # A random agent uses hundredths of a CPU second a game: shown as used, never as "0.0".
    assert_most_time_shown(tests["Never exceeds the time limit"]["output"], graded(tmp_path).values())


def assert_most_time_shown(output: str, records: Iterable[GameRecord]) -> None:
    """The time check's output shows the most CPU time the submission used in a game, to 2 significant digits."""
    most = max(record.time_used["RED" if record.red_name == "submission" else "BLUE"] for record in records)
    if most < 0.01:
        assert "(less than 0.01 CPU seconds in every game)" in output, output
        return
    shown = re.search(r"\(at most (\d+(?:\.\d+)?) CPU seconds in one game\)", output)
    assert shown is not None, output
    # One decimal above a second; below it two significant digits, within 5% of the time used.
    assert abs(float(shown[1]) - most) <= (0.05 if most >= 1 else 0.05 * most), (shown[0], most)


@pytest.mark.parametrize("under, nested, message", [
    (("comp30024-partb",), "nested_agent: false\n",
     "your submission has no agent/ folder at its top (it is in `comp30024-partb/agent/`)"),
    (("mine", "theirs"), "",
     "your submission has no agent/ folder at its top (there is one in each of `mine/agent/`, `theirs/agent/`)"),
])
def test_an_agent_one_folder_down_that_cannot_be_used_is_named(tmp_path, capsys, under, nested, message):
    for folder in under:
        folder = submission(tmp_path, RANDOM, under=folder)
    data = grade_folder(tmp_path, folder, capsys, nested + scheme_text())
    assert data["score"] == 0
    assert data["output"].splitlines()[0] == f"No game was played: {message}."
    assert first_lines(data)["Against random"] == f"Not played: {message}."
    assert not games_file_for(tmp_path / "results" / "results.json").exists()


def test_an_agent_that_does_not_load_plays_no_game_and_says_why_once(tmp_path, capsys):
    data = grade(tmp_path, BROKEN, capsys)
    assert first_lines(data) == {
        "Against random": "Not played: your agent could not be loaded (see Loads and plays legally).",
        "Loads and plays legally": "Your agent could not be loaded, so no game was played.",
        "Never exceeds the time limit": "Not tested: your agent could not be loaded.",
        "Never exceeds the memory limit": "Not tested: your agent could not be loaded.",
    }
    assert "a_module_nobody_has" in marks_by_name(data)["Loads and plays legally"]["output"]


GAME_SCHEME = """\
game: {game}
game_options: {options}
time_limit: 60
space_limit: 250
games_per_opponent: 2
seed: {seed}
opponents:
  - {{name: {name}, spec: {spec}, marks: 4, options: {agent_options}}}
checks: {{plays_legally: 1, time_limit: 2, space_limit: 3}}
turning_points: {{games: 0}}
"""
#: What the decoy referee/ of a submission says when it is imported.
DECOY = "the submission's own referee/ package was imported, not the installed referee"
#: A told game: its headline's number and the command printed with it.
TOLD = re.compile(r"\*\*(?:Lost|Drew) game (\d+)\*\*.*?Play it again, from [^\n]*:\n\n```sh\n(.*?)\n```", re.S)


def commands(test: dict) -> dict[int, str]:
    """The play-again command printed for each game a test tells."""
    return {int(index): command for index, command in TOLD.findall(test["output"])}


def play_again(command: str, cwd: Path, tmp_path: Path) -> GameRecord:
    """Run a printed command as the student would, from ``cwd``; the game it plays."""
    argv = shlex.split(command)
    assert argv[:4] == ["python", "-I", "-m", "referee"]
    out = tmp_path / "again.json"
    done = subprocess.run([sys.executable, *argv[1:], "--record", str(out), "-v", "0"], cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and DECOY not in done.stderr, done.stderr
    return GameRecord.from_json(out.read_text())


def graded(tmp_path: Path) -> dict[int, GameRecord]:
    lines = games_file_for(tmp_path / "results" / "results.json").read_text().splitlines()
    return {record.extra["game_index"]: record for record in map(GameRecord.from_json, lines)}


def assert_same_game(again: GameRecord, record: GameRecord) -> None:
    assert (again.actions, again.winner, again.reason) == (record.actions, record.winner, record.reason)
    assert again.chance_seed == record.chance_seed


@pytest.mark.parametrize("game, options, seed, opponent, flags", [
    ("cachex", "{n: 3}", 3, "random", "--game cachex --size 3 -t 60 -s 250 --seed"),
    # Chance (chaos events) and the cities, drawn from the game's seed, are played again too.  The chaos
    # events come from a chance seed drawn per game, so the opponent is greedy: random against random
    # would win both games about one run in four, leaving nothing told.
    ("infinitron", "{chaos: true}", 1, "greedy", "--game infinitron --chaos -t 60 -s 250 --seed"),
])
def test_the_command_given_plays_the_graded_game_again(tmp_path, capsys, game, options, seed, opponent, flags):
    folder = submission(tmp_path, RANDOM)
    # The course's template holds a referee/ of its own beside agent/: the command must not run that one.
    write_files(folder, {"referee/__init__.py": f"raise SystemExit({DECOY!r})\n"})
    shadowed = run_referee("-V", cwd=folder)  # the decoy works: a plain `python -m referee` here runs it
    assert shadowed.returncode != 0 and DECOY in shadowed.stderr
    spec = {"random": "agents.random_agent", "greedy": "agents.greedy"}[opponent]
    text = GAME_SCHEME.format(game=game, options=options, seed=seed, name=opponent, spec=spec, agent_options="{}")
    data = grade_folder(tmp_path, folder, capsys, text)
    told = commands(marks_by_name(data)[f"Against {opponent}"])
    assert told, "the submission won every game: choose another seed"
    records = graded(tmp_path)
    for index, command in told.items():
        assert flags in command and f"--seed {records[index].seed}" in command
        if game == "infinitron":
            assert f"--chance-seed {records[index].chance_seed}" in command
    index, command = min(told.items())  # one is enough: every command is made alike
    assert_same_game(play_again(command, folder, tmp_path), records[index])


def option_flags_exist() -> bool:
    done = run_referee("-h")
    return "--red-option" in done.stdout


def test_the_command_gives_the_opponent_its_options(tmp_path, capsys):
    folder = submission(tmp_path, RANDOM)
    text = GAME_SCHEME.format(game="infexion", options="{}", seed=3, name="greedy", spec="agents.greedy",
                              agent_options="{move_time: 0.25, max_move_time: 0.5}")
    data = grade_folder(tmp_path, folder, capsys, text)
    told = commands(marks_by_name(data)["Against greedy"])
    records = graded(tmp_path)
    assert sorted(told) == [0, 1]  # a random agent loses both to greedy
    assert told[0] == (f"python -I -m referee agent agents.greedy -t 60 -s 250 --seed {records[0].seed} "
                       "--blue-option move_time=0.25 --blue-option max_move_time=0.5")
    assert told[1] == (f"python -I -m referee agents.greedy agent -t 60 -s 250 --seed {records[1].seed} "
                       "--red-option move_time=0.25 --red-option max_move_time=0.5")
    if not option_flags_exist():
        pytest.skip("python -m referee has no --red-option/--blue-option yet: the command was checked, not run")
    # Greedy searches one ply whatever its clock: with the same seed and options it plays the same game.
    assert_same_game(play_again(told[1], folder, tmp_path), records[1])


def test_an_opponent_with_its_own_limits_plays_at_odds_and_the_feedback_says_so(tmp_path, capsys):
    folder = submission(tmp_path, RANDOM)
    text = GAME_SCHEME.format(game="infexion", options="{}", seed=3, name="greedy", spec="agents.greedy",
                              agent_options="{}").replace("marks: 4,", "marks: 4, time_limit: 20,")
    data = grade_folder(tmp_path, folder, capsys, text)
    against = marks_by_name(data)["Against greedy"]["output"]
    assert "A game at odds: greedy played under 20 s CPU, 250 MB, your agent under 60 s CPU, 250 MB." in against
    records = graded(tmp_path)
    assert records[0].odds == {"RED": {"time_limit": 60.0, "space_limit": 250.0},
                               "BLUE": {"time_limit": 20.0, "space_limit": 250.0}}
    told = commands(marks_by_name(data)["Against greedy"])
    assert sorted(told) == [0, 1]  # a random agent loses both to greedy
    assert told[0] == f"python -I -m referee agent agents.greedy -t 60,20 -s 250 --seed {records[0].seed}"
    assert told[1] == f"python -I -m referee agents.greedy agent -t 20,60 -s 250 --seed {records[1].seed}"
    again = play_again(told[1], folder, tmp_path)
    assert_same_game(again, records[1])
    assert again.odds == records[1].odds


def test_unsealed_games_and_the_students_names_are_in_the_results(tmp_path, capsys):
    metadata = tmp_path / "submission_metadata.json"
    metadata.write_text(json.dumps({"users": [{"name": "Ada Lovelace", "email": "ada@uni.example", "sid": "42"}]}))
    data = grade_folder(tmp_path, submission(tmp_path, GREEDY), capsys, "sandbox: off\n" + scheme_text(),
                        "--metadata", str(metadata))
    assert data["extra_data"]["sandbox"] == "unsealed"
    assert data["extra_data"]["users"] == [{"name": "Ada Lovelace", "email": "ada@uni.example", "sid": "42"}]
    assert "The games were played unsealed: the agents ran as ordinary processes" in data["output"]
    assert stat.S_IMODE((tmp_path / "results" / "results.json").stat().st_mode) == 0o644
    assert stat.S_IMODE(games_file_for(tmp_path / "results" / "results.json").stat().st_mode) == 0o644


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_referee("autograde", "partB", *args, cwd=cwd, timeout=300)


def test_the_command_marks_a_submission(tmp_path):
    folder = submission(tmp_path, GREEDY)
    done = run_cli("--submission", ".", "--scheme", str(scheme(tmp_path)), "--results", "out/results.json",
                   "--workers", "2", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "Against random" in done.stdout and "Total: 10/10" in done.stdout
    data = json.loads((folder / "out" / "results.json").read_text())
    assert gradescope.problems(data) == [] and data["score"] == 10
    assert len((folder / "out" / "results.games.jsonl").read_text().splitlines()) == 2


def test_a_bad_scheme_is_refused_naming_the_file_line_and_field(tmp_path):
    # Every problem at once, in the file's order, each with its line: one run finds them all.
    folder = submission(tmp_path, GREEDY)
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "games_per_opponent: 3\n"
        "opponents:\n"
        "  - {spec: agents.random_agent, marks: -1}\n"
        "  - spec: agents.greedy\n"
        "    mark: 2\n"
        "time_limt: 5\n"
        "seed: 1\n"
        "seed: 2\n"
    )
    done = run_cli("--submission", str(folder), "--scheme", str(bad), "--results", str(tmp_path / "r.json"),
                   cwd=tmp_path)
    assert done.returncode == 2
    error = f"{PROG}: error: {bad}"
    assert done.stderr.splitlines() == [
        f"{error}:1: games_per_opponent: must be an even whole number of 2 or more (both colours equally), not 3",
        f"{error}:3: opponents[0].marks: must be a number of 0 or more, not -1",
        f"{error}:4: opponents[1]: needs 'marks': what beating this opponent is worth",
        f"{error}:5: opponents[1].mark: unknown field (did you mean 'marks'?)",
        f"{error}:6: time_limt: unknown field (did you mean 'time_limit'?)",
        f"{error}:8: seed: given twice",
    ]
    assert not (tmp_path / "r.json").exists()


def test_a_scheme_that_is_not_yaml_is_placed_at_its_line_and_column(tmp_path):
    folder = submission(tmp_path, GREEDY)
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\nopponents: [{spec: agents.greedy, marks: 1}}]\ngames_per_opponent: 2\n")
    done = run_cli("--submission", str(folder), "--scheme", str(bad), "--results", str(tmp_path / "r.json"),
                   cwd=tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line == f"{PROG}: error: {bad}:2:44: not valid YAML: expected ',' or ']', but got '}}'"
    assert not (tmp_path / "r.json").exists()


def test_an_alias_bomb_scheme_is_refused_before_it_is_expanded(tmp_path):
    # A few hundred bytes standing for 10**9 values: refused while reading, in well under the test's timeout.
    bomb = "lol: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"lol{n}: &{chr(ord('a') + n)} [" + ", ".join([f"*{chr(ord('a') + n - 1)}"] * 10) + "]\n"
        for n in range(1, 9)
    )
    folder = submission(tmp_path, GREEDY)
    bad = tmp_path / "bomb.yaml"
    bad.write_text(bomb + "opponents: [{spec: agents.greedy, marks: 1, options: {depth: *i}}]\n")
    done = run_cli("--submission", str(folder), "--scheme", str(bad), "--results", str(tmp_path / "r.json"),
                   cwd=tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"{PROG}: error: {bad}:")
    assert "values once its aliases (*name) are expanded; a marking scheme never needs so many" in line
    assert not (tmp_path / "r.json").exists()


def test_a_missing_scheme_names_the_one_meant(tmp_path, capsys):
    (tmp_path / "scheme.yml").write_text(scheme_text())
    assert main(["--submission", str(tmp_path), "--scheme", str(tmp_path / "scheme.yaml")]) == 2
    meant = f"{tmp_path / 'scheme.yaml'}: no such file (did you mean {tmp_path / 'scheme.yml'}?)"
    assert meant in capsys.readouterr().err


def test_an_opponent_that_cannot_load_is_the_schemes_fault(tmp_path):
    # It would forfeit every game and hand out marks, so nothing is marked.
    folder = submission(tmp_path, GREEDY)
    bad = tmp_path / "bad.yaml"
    bad.write_text("opponents:\n  - {spec: agents.greedy, marks: 1, options: {max_move_tme: 0.1}}\n")
    done = run_cli("--submission", str(folder), "--scheme", str(bad), "--results", str(tmp_path / "r.json"),
                   cwd=tmp_path)
    assert done.returncode == 2
    assert f"{bad}:2: opponents[0]: greedy cannot be loaded" in done.stderr and "max_move_tme" in done.stderr
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("text, problem", [
    ("opponents: []\n", "opponents: must be a list of at least one opponent"),
    ("opponents: [{spec: agents.no_such_agent, marks: 1}]\n", "opponents[0].spec: 'agents.no_such_agent' names no"),
    ("opponents: [{spec: agents.random_agent}]\n", "opponents[0]: needs 'marks'"),
    ("opponents: [{spec: agents.random_agent, marks: 1, bands: [{min_score: 2, fraction: 1}]}]\n",
     "opponents[0].bands[0].min_score: must be a number from 0 to 1, not 2"),
    ("game: chess\nopponents: [{spec: agents.random_agent, marks: 1}]\n", "game: must be one of"),
    ("time_limt: 3\nopponents: [{spec: agents.random_agent, marks: 1}]\n", "time_limt: unknown field (did you mean"),
    ("opponents: [{spec: agents.random_agent, marks: 1, options: {seed: 3}}]\n",
     "opponents[0].options.seed: 'seed' is passed by the referee itself"),
    ("checks: {time: 1}\nopponents: [{spec: agents.random_agent, marks: 1}]\n", "checks.time: unknown field"),
    ("opponents: [{name: submission, spec: agents.random_agent, marks: 1}]\n", "opponents[0].name: 'submission' is"),
    ("opponents: [{spec: agents.random_agent, marks: 1, time_limit: fast}]\n",
     "opponents[0].time_limit: must be a number of 0 or more"),
    ("opponents: [\n", "not valid YAML"),
    ("- a list\n", "a marking scheme is a mapping"),
])
def test_scheme_problems_are_named(text, problem):
    with pytest.raises(SchemeError) as caught:
        parse_scheme(text, "s.yaml", ROOT)
    assert any(line.startswith("s.yaml") and problem in line for line in caught.value.problems), caught.value.problems


def test_the_highest_band_reached_gives_the_marks():
    bands = (Band(0.75, 1.0), Band(0.5, 0.5))
    opponent = Opponent("greedy", "agents.greedy", {}, 4, bands)
    assert [opponent.fraction(score) for score in (1.0, 0.75, 0.6, 0.5, 0.49, 0.0)] == [1, 1, 0.5, 0.5, 0, 0]
    in_proportion = Opponent("greedy", "agents.greedy", {}, 4, ())
    assert in_proportion.fraction(0.25) == 0.25


def test_the_default_scheme_is_valid():
    from referee.marking.part_b import DEFAULT_SCHEME

    parsed = parse_scheme(DEFAULT_SCHEME, "default", ROOT)
    assert parsed.limits.time_limit == 180 and parsed.limits.space_limit == 250
    assert [o.name for o in parsed.opponents] == ["random", "greedy"]


def test_the_documented_scheme_is_valid_and_its_opponents_load(tmp_path):
    import textwrap

    from referee.marking import part_b
    from referee.marking.part_b import opponent_problems

    assert part_b.__doc__ is not None
    example = textwrap.dedent(part_b.__doc__.split("::\n", 1)[1].split("\n\n", 1)[0])
    parsed = parse_scheme(example, "docstring", ROOT)
    assert [o.name for o in parsed.opponents] == ["random", "quick-minimax"]
    assert parsed.checks == {"plays_legally": 1, "time_limit": 1, "space_limit": 1}
    assert opponent_problems(parsed, submission(tmp_path, GREEDY)) == []



def test_a_reader_that_leaves_early_costs_no_traceback_and_no_results(tmp_path):
    """``autograde partB ... | head``: the marks are written and the command succeeds; the text nobody reads
    any more is dropped (it ended in a BrokenPipeError traceback, exit 1)."""
    folder = submission(tmp_path, GREEDY)
    command = [sys.executable, "-m", "referee", "autograde", "partB", "--submission", ".",
               "--scheme", str(scheme(tmp_path)), "--results", "out/results.json", "--workers", "2"]
    proc = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line
    stderr = proc.stderr.read()
    assert proc.wait(timeout=300) == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
    assert json.loads((folder / "out" / "results.json").read_text())["score"] == 10


@pytest.mark.parametrize("seconds, shown", [
    (0.04, "0.04"), (0.0432, "0.043"), (0.5, "0.5"), (0.999, "1"), (0.004, "< 0.01"), (0.0, "< 0.01"),
    (1.0, "1.0"), (2.345, "2.3"), (180.0, "180.0"),
])
def test_cpu_seconds_are_never_shown_as_zero(seconds, shown):
    from referee.marking.part_b.marks import seconds_text

    assert seconds_text(seconds) == shown
