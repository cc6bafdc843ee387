"""Gradescope's results.json: the format check, the values' JSON and the terminal table."""
from __future__ import annotations

import copy
import json
import math
import os
import stat

import pytest

from referee.marking.gradescope import (
    AutograderResults,
    LeaderboardEntry,
    TestResult,
    feedback_table,
    problems,
    submission_users,
    write_json,
)

#: Every field Gradescope's autograder specification lists, as it describes them.
DOCUMENTED = {
    "score": 44.0,
    "execution_time": 136,
    "output": "Text relevant to the entire submission",
    "output_format": "simple_format",
    "test_output_format": "text",
    "test_name_format": "text",
    "visibility": "after_due_date",
    "stdout_visibility": "visible",
    "extra_data": {},
    "tests": [
        {
            "score": 2.0,
            "max_score": 2.0,
            "status": "passed",
            "name": "Your name here",
            "name_format": "text",
            "number": "1.1",
            "output": "Giant multiline string\nplaced in a <pre> tag",
            "output_format": "text",
            "tags": ["tag1", "tag2"],
            "visibility": "visible",
            "extra_data": {},
        },
        {"score": 0, "max_score": 3, "status": "failed", "name": "Another", "visibility": "hidden"},
    ],
    "leaderboard": [
        {"name": "Accuracy", "value": 0.926},
        {"name": "Time", "value": 15.1, "order": "asc"},
        {"name": "Stars", "value": "*****"},
    ],
}


def test_the_documented_example_is_accepted():
    assert problems(DOCUMENTED) == []


def test_the_smallest_results_are_accepted():
    assert problems({"score": 0}) == []
    # No top-level score: every test then carries one.
    assert problems({"tests": [{"score": 1}, {"score": 0.5, "max_score": 1}]}) == []
    assert problems({"score": 3, "tests": [], "leaderboard": []}) == []


#: Stands for "no such key" in :func:`changed`.
DELETE = object()


def changed(path: tuple[object, ...], value: object) -> dict:
    """DOCUMENTED with the field at ``path`` set to ``value`` (deleted when value is DELETE)."""
    data = copy.deepcopy(DOCUMENTED)
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize(("path", "value", "message"), [
    (("score",), "44", "'score' must be a number, not '44'"),
    (("score",), True, "'score' must be a number, not True"),
    (("score",), math.nan, "'score' must be a number, not nan"),
    (("execution_time",), None, "'execution_time' must be a number, not None"),
    (("output",), ["a"], "'output' must be a string"),
    (("visibility",), "everyone", "'visibility' must be one of hidden, after_due_date, after_published, visible, "
                                  "not 'everyone'"),
    (("stdout_visibility",), "later", "'stdout_visibility' must be one of hidden, after_due_date, "
                                      "after_published, visible, not 'later'"),
    (("tests",), {"name": "x"}, "'tests' must be a list"),
    (("tests", 1), "a test", "tests[1]: must be an object"),
    (("tests", 0, "score"), "2", "tests[0]: 'score' must be a number, not '2'"),
    (("tests", 1, "max_score"), math.inf, "tests[1]: 'max_score' must be a number, not inf"),
    (("tests", 0, "name"), 7, "tests[0]: 'name' must be a string"),
    (("tests", 0, "output"), None, "tests[0]: 'output' must be a string"),
    (("tests", 1, "status"), "error", "tests[1]: 'status' must be passed or failed, not 'error'"),
    (("tests", 0, "visibility"), "public", "tests[0]: 'visibility' must be one of hidden, after_due_date, "
                                           "after_published, visible, not 'public'"),
    (("leaderboard",), {"name": "Elo"}, "'leaderboard' must be a list"),
    (("leaderboard", 0), 0.9, "leaderboard[0]: must be an object"),
    (("leaderboard", 0, "name"), None, "leaderboard[0]: 'name' must be a string"),
    (("leaderboard", 1, "value"), DELETE, "leaderboard[1]: 'value' must be a number or a string"),
    (("leaderboard", 2, "value"), [5], "leaderboard[2]: 'value' must be a number or a string"),
    (("leaderboard", 1, "order"), "up", "leaderboard[1]: 'order' must be asc or desc, not 'up'"),
    (("output_format",), "markdown", "'output_format' must be one of text, html, simple_format, md, ansi, "
                                     "not 'markdown'"),
    (("test_output_format",), None, "'test_output_format' must be one of text, html, simple_format, md, ansi, "
                                    "not None"),
    (("tests", 0, "output_format"), "pre", "tests[0]: 'output_format' must be one of text, html, simple_format, "
                                           "md, ansi, not 'pre'"),
    (("tests", 0, "name_format"), "bold", "tests[0]: 'name_format' must be one of text, html, simple_format, "
                                          "md, ansi, not 'bold'"),
    (("extra_data",), [], "'extra_data' must be an object"),
])
def test_each_bad_shape_is_refused_with_its_reason(path, value, message):
    assert problems(changed(path, value)) == [message]


def test_a_missing_score_needs_every_test_to_have_one():
    expected = ["'score' is missing and not every test has a score"]
    assert problems({}) == expected
    assert problems({"tests": []}) == expected
    assert problems({"tests": [{"score": 1}, {"name": "no score"}]}) == expected
    assert problems(changed(("score",), DELETE)) == []


def test_the_top_level_must_be_an_object():
    assert problems([]) == ["the top level must be an object, not list"]
    assert problems("results") == ["the top level must be an object, not str"]


def test_every_problem_is_reported_at_once():
    data = {"score": "x", "tests": [{"score": 1, "status": "ok"}, 3], "leaderboard": [{"value": 1}]}
    assert problems(data) == [
        "'score' must be a number, not 'x'",
        "tests[0]: 'status' must be passed or failed, not 'ok'",
        "tests[1]: must be an object",
        "leaderboard[0]: 'name' must be a string",
    ]


RESULTS = AutograderResults(
    tests=(
        TestResult("Board 1", 1, 1, "optimal: 3 SPREADs"),
        TestResult("Board 2", 0.5, 1, "valid but 5 SPREADs, the shortest has 4\nreplay: python -m search < b2.csv",
                   visibility="hidden"),
        TestResult("Against greedy", 0, 3, "lost all 4 games", visibility="after_due_date"),
    ),
    execution_time=12.34567,
    output="Part A autograder",
    leaderboard=(LeaderboardEntry("Elo", 1512.0), LeaderboardEntry("Time", 2.5, "asc"), LeaderboardEntry("Tag", "ok")),
)


def test_results_round_trip_through_results_json(tmp_path):
    path = tmp_path / "results" / "results.json"
    RESULTS.write(path)
    data = json.loads(path.read_text())
    assert data == RESULTS.to_json()
    assert problems(data) == []
    assert data["score"] == 1.5 and data["execution_time"] == 12.346
    assert [t["status"] for t in data["tests"]] == ["passed", "failed", "failed"]
    assert [t["visibility"] for t in data["tests"]] == ["visible", "hidden", "after_due_date"]
    assert data["tests"][1]["output"].splitlines()[1] == "replay: python -m search < b2.csv"
    assert data["leaderboard"] == [
        {"name": "Elo", "value": 1512, "order": "desc"},
        {"name": "Time", "value": 2.5, "order": "asc"},
        {"name": "Tag", "value": "ok", "order": "desc"},
    ]
    assert sorted(p.name for p in path.parent.iterdir()) == ["results.json"]  # no temporary file left


def test_results_json_is_readable_by_everyone_whatever_the_umask(tmp_path):
    # Gradescope's harness and staff may read it as another user than the grader's.
    old = os.umask(0o077)
    try:
        RESULTS.write(tmp_path / "results.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "results.json").stat().st_mode) == 0o644


def test_formats_and_extra_data_are_written_when_given():
    results = AutograderResults(
        (TestResult("t", 1, 1, "**bold**", output_format="md"), TestResult("u", 0, 1, "plain")), 1.0,
        output="# Part B", output_format="md", extra_data={"users": [{"name": "Ada", "sid": "1"}]},
    )
    data = results.to_json()
    assert problems(data) == []
    assert data["output_format"] == "md" and data["extra_data"] == {"users": [{"name": "Ada", "sid": "1"}]}
    assert data["tests"][0]["output_format"] == "md" and "output_format" not in data["tests"][1]


def test_submission_users_come_from_gradescopes_metadata(tmp_path):
    metadata = tmp_path / "submission_metadata.json"
    assert submission_users(metadata) == ((), None)  # a local run has none
    metadata.write_text(json.dumps({
        "id": 123, "created_at": "2026-11-28T10:00:00.0+11:00", "assignment": {"title": "Part B"},
        "users": [
            {"email": "ada@student.example", "id": 1, "name": "Ada Lovelace", "sid": "1234567"},
            {"email": "bob@student.example", "id": 2, "name": "Bob", "sid": None},
        ],
    }))
    assert submission_users(metadata) == ((
        {"name": "Ada Lovelace", "email": "ada@student.example", "sid": "1234567"},
        {"name": "Bob", "email": "bob@student.example"},
    ), None)
    metadata.write_text("{not json")
    users, problem = submission_users(metadata)
    assert users == () and problem is not None and "cannot be read" in problem
    metadata.write_text('{"users": "Ada"}')
    assert submission_users(metadata) == ((), f"{metadata}: has no 'users' list; the results name no student")


def test_without_a_leaderboard_the_key_is_left_out():
    data = AutograderResults((TestResult("t", 0, 1),), 0.0).to_json()
    assert "leaderboard" not in data
    assert data == {"score": 0, "execution_time": 0, "output": "", "tests": [
        {"name": "t", "score": 0, "max_score": 1, "status": "failed", "output": "", "visibility": "visible"},
    ]}


@pytest.mark.parametrize(("score", "max_score", "status"), [
    (1, 1, "passed"), (2, 1, "passed"), (0, 0, "passed"), (0.99, 1, "failed"), (0, 1, "failed"),
])
def test_full_marks_pass_anything_less_fails(score, max_score, status):
    assert TestResult("t", score, max_score).status == status


def test_scores_and_totals_are_written_as_gradescope_shows_them():
    assert RESULTS.score == 1.5 and RESULTS.max_score == 5
    thirds = TestResult("t", 1 / 3, 1.0).to_json()
    assert thirds["score"] == 0.3333 and thirds["max_score"] == 1 and isinstance(thirds["max_score"], int)
    assert json.dumps(TestResult("t", 2.0, 4.0).to_json()).startswith('{"name": "t", "score": 2, "max_score": 4,')
    assert AutograderResults((TestResult("a", 0.1, 1), TestResult("b", 0.2, 1)), 0).to_json()["score"] == 0.3


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "results.json"
    RESULTS.write(path)
    before = path.read_text()
    with pytest.raises(TypeError):
        write_json({"score": object()}, path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_feedback_table_shows_each_test_its_first_line_and_the_total():
    lines = feedback_table(RESULTS).splitlines()
    assert lines[0] == "Part A autograder"
    assert lines[1].split() == ["test", "marks", "status", "what", "happened"]
    rows = [line for line in lines if line.startswith(("Board", "Against"))]
    assert [row.split()[:4] for row in rows] == [
        ["Board", "1", "1/1", "passed"],
        ["Board", "2", "0.5/1", "failed"],
        ["Against", "greedy", "0/3", "failed"],
    ]
    assert rows[1].endswith("valid but 5 SPREADs, the shortest has 4")
    assert "replay:" not in "\n".join(lines)
    assert lines[-1] == "Total: 1.5/5"


def test_feedback_table_without_output_starts_with_the_table():
    table = feedback_table(AutograderResults((TestResult("only", 1, 2),), 0))
    assert table.splitlines()[0].startswith("test")
    assert table.splitlines()[-1] == "Total: 1/2"
