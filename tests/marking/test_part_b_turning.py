"""The turning point of a lost game in Part B's feedback: a random agent marked against greedy, real games, the
real analysis (at a few simulations a position: what is tested is where the sentence goes, not its depth)."""
from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

import pytest

from referee.analysis import EngineSettings
from referee.marking import gradescope
from referee.marking.part_b import (
    Game, Marking, TurningPoints, find_agent, games_file_for, lost_by_the_rules, main, opponent_test, parse_scheme,
    turning_points,
)
from referee.marking.part_b import turning
from referee.records import GameRecord

RANDOM = """\
from agents.random_agent import Agent as Random


class Agent(Random):
    \"\"\"Plays at random, seeded by the referee's seed: it loses to greedy, by the rules.\"\"\"
"""

SCHEME = """\
game: infexion
time_limit: 60
space_limit: 250
games_per_opponent: 2
seed: 3
opponents:
  - {name: greedy, spec: agents.greedy, marks: 4}
turning_points: {iterations: 40}
"""

#: The feedback's paragraph on a turning point: the action's number, who played what.
SAID = re.compile(r"\*\*Turning point\*\* \(judged by the referee's MCTS at 40 simulations a position\): on action "
                  r"(\d+) you played (.+?) \(your chance of winning after it: \d+%\)")


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The submission marked by the command's own code (main): its folder, results and games' records."""
    folder = tmp_path_factory.mktemp("turning")
    package = folder / "submission" / "agent"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .program import Agent as Agent\n")
    (package / "program.py").write_text(RANDOM)
    (folder / "scheme.yaml").write_text(SCHEME)
    results = folder / "results" / "results.json"
    code = main(["--submission", str(folder / "submission"), "--scheme", str(folder / "scheme.yaml"),
                 "--results", str(results)])
    assert code == 0
    data = json.loads(results.read_text())
    assert gradescope.problems(data) == []
    records = [GameRecord.from_json(line) for line in games_file_for(results).read_text().splitlines()]
    return {"folder": folder / "submission", "data": data, "records": {r.extra["game_index"]: r for r in records}}


def against_greedy(data: dict[str, Any]) -> str:
    return next(test["output"] for test in data["tests"] if test["name"] == "Against greedy")


def test_a_lost_games_feedback_names_its_turning_point(marked):
    records = marked["records"]
    # The submission plays Red in game 0, Blue in game 1.
    lost = [index for index, record in sorted(records.items()) if record.winner not in (None, ("RED", "BLUE")[index])]
    assert lost == [0, 1], "the random agent won a game against greedy: choose another seed"
    output = against_greedy(marked["data"])
    said = SAID.findall(output)
    assert len(said) == 1, output  # the first game lost by the rules, of each opponent (turning_points.games: 1)
    number, played = int(said[0][0]), said[0][1].replace("\\", "")
    # The sentence is about the submission's own decision in game 0 (it played RED): the action it played there.
    record = records[0]
    assert record.actions[number - 1] == played
    assert (number - 1) % 2 == 0  # Red's actions are the even ones
    # It sits in game 0's story, between its headline and its moves, and says how to see the whole analysis.
    game_0 = output.split("**Lost game 0**", 1)[1].split("**Lost game 1**", 1)[0]
    assert SAID.search(game_0) and game_0.index("Turning point") < game_0.index("The moves")
    assert "`python -I -m referee analyse game.json`" in game_0
    # Staff see what was analysed (students do not see extra_data).
    note = marked["data"]["extra_data"]["turning_points"]
    assert note["settings"] == "mcts, 40 simulations a position, seed 0"
    assert list(note["games"]) == ["0"] and note["games"]["0"].startswith(f"turning point: action {number}, ")


def rebuilt(marked: dict[str, Any], **setting: Any) -> tuple[Marking, list[Game]]:
    """The marked games again, as the grader held them, under the scheme with ``setting`` in its turning_points."""
    scheme = parse_scheme(SCHEME, "scheme.yaml")
    scheme = dataclasses.replace(scheme, turning_points=dataclasses.replace(scheme.turning_points, **setting))
    [opponent] = scheme.opponents
    games = [Game(index, opponent, ("RED", "BLUE")[index % 2], record.seed or 0, record)
             for index, record in sorted(marked["records"].items())]
    assert all(lost_by_the_rules(game) for game in games)
    return Marking(scheme, find_agent(scheme, marked["folder"]), games), games


def test_an_analysis_out_of_time_or_failing_leaves_the_feedback_without_the_sentence(marked, monkeypatch):
    marking, games = rebuilt(marked, seconds=1e-9)
    said, note = turning_points(marking.scheme, games)
    assert said == {} and note["games"] == {"0": "not analysed: out of time"}

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug of the analysis")

    # A bug cannot be made to happen in the real analysis; one is put in its place.
    monkeypatch.setattr(turning, "analyse", broken)
    marking, games = rebuilt(marked)
    said, note = turning_points(marking.scheme, games)
    assert said == {} and note["games"] == {"0": "not analysed: the analysis failed (RuntimeError: a bug of the "
                                                  "analysis)"}
    output = opponent_test(dataclasses.replace(marking, turning=said), marking.scheme.opponents[0]).output
    assert "Turning point" not in output and "**Lost game 0**" in output


def test_more_games_or_none_are_analysed_as_the_scheme_says(marked):
    marking, games = rebuilt(marked, games=2)
    said, _ = turning_points(marking.scheme, games)
    assert sorted(said) == [0, 1]
    marking, games = rebuilt(marked, games=0)
    assert turning_points(marking.scheme, games) == ({}, {"settings": "mcts, 40 simulations a position, seed 0",
                                                         "seconds": 0.0, "games": {}})


@pytest.mark.parametrize("text, problem", [
    ("turning_points: 3", "turning_points: must be a mapping of games, iterations, seconds, not 3"),
    ("turning_points: {games: -1}", "turning_points.games: must be a whole number of 0 or more, not -1"),
    ("turning_points: {iterations: 0.5}", "turning_points.iterations: must be a whole number of 1 or more, not 0.5"),
    ("turning_points: {seconds: 0}", "turning_points.seconds: must be a number of seconds above 0, not 0"),
    ("turning_points: {gmaes: 1}", "turning_points.gmaes: unknown field (did you mean 'games'?)"),
])
def test_bad_turning_point_settings_are_named(text, problem):
    from referee.marking.part_b import SchemeError

    with pytest.raises(SchemeError) as raised:
        parse_scheme(SCHEME.replace("turning_points: {iterations: 40}", text), "scheme.yaml")
    assert any(problem in line for line in raised.value.problems), raised.value.problems


def test_the_default_is_one_game_an_opponent_at_a_modest_effort():
    assert parse_scheme(SCHEME.replace("turning_points: {iterations: 40}\n", ""), "s").turning_points == \
        TurningPoints(games=1, iterations=400, seconds=60.0)


def test_the_sentence_is_plain_markdown():
    # An Infinitron turn's END_TURN would be emphasis in Markdown: escaped.
    text = turning.paragraph("on turn 3 (actions 5-7) you played END_TURN.", EngineSettings(iterations=9))
    assert "END\\_TURN" in text and text.startswith("**Turning point** (judged by the referee's MCTS at 9 ")
