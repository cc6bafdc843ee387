"""``autograde report``: a cohort's marks.csv and marks.html from real results.json files."""
from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest

from referee.marking.gradescope import AutograderResults, TestResult
from tests.helpers import run_referee
from tests.support.pages import open_page


#: Five submissions' marks on two boards (out of 1) and one opponent (out of 3).
MARKS = {
    "alice": (1, 1, 3),
    "bob": (0.5, 1, 1.5),
    "carol": (0, 0.5, 0),
    "dan": (1, 0, 3),
    "erin": (1, 1, 1.5),
}
TESTS = (("Board 1", 1), ("Board 2", 1), ("Against random", 3))


def write_cohort(folder: Path) -> None:
    for name, scores in MARKS.items():
        tests = tuple(
            TestResult(test, score, top, output=f"{name} on {test}")
            for (test, top), score in zip(TESTS, scores)
        )
        AutograderResults(tests, execution_time=2.5).write(folder / name / "results.json")


def report(*args: str) -> subprocess.CompletedProcess[str]:
    return run_referee("autograde", "report", *args)


@pytest.fixture
def cohort(tmp_path) -> Path:
    folder = tmp_path / "results"
    write_cohort(folder)
    return folder


def test_marks_csv_has_a_row_per_submission_with_each_tests_score(cohort, tmp_path):
    out = tmp_path / "out"
    proc = report(str(cohort), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    with (out / "marks.csv").open(newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["name", "total", "Board 1", "Board 2", "Against random"]
    assert rows[1:] == [
        ["alice", "5", "1", "1", "3"],
        ["bob", "3", "0.5", "1", "1.5"],
        ["carol", "0.5", "0", "0.5", "0"],
        ["dan", "4", "1", "0", "3"],
        ["erin", "3.5", "1", "1", "1.5"],
    ]
    # The printed summary: per test the max, mean, median and full marks.
    lines = proc.stdout.splitlines()
    total = next(line for line in lines if line.startswith("Total")).split()
    assert total == ["Total", "5", "3.2", "3.5", "1/5"]
    board_1 = next(line for line in lines if line.startswith("Board 1")).split()
    assert board_1 == ["Board", "1", "1", "0.7", "1", "3/5"]
    against = next(line for line in lines if line.startswith("Against random")).split()
    assert against == ["Against", "random", "3", "1.8", "1.5", "2/5"]
    assert "5 submissions; left out 0." in proc.stdout


def test_marks_html_has_each_test_with_its_counts(cohort, tmp_path):
    out = tmp_path / "out"
    assert report(str(cohort), "-o", str(out)).returncode == 0
    page = (out / "marks.html").read_text()
    assert "http://" not in page and "https://" not in page and "<script" not in page
    for name, _ in TESTS:
        assert f'<section class="test" data-test="{name}">' in page
    # Board 1: one 0, one 0.5, three 1s; the opponent: one 0, two 1.5s, two 3s.
    assert page.count('data-label="0.5" data-count="1"') >= 1
    assert 'data-label="1" data-count="3"' in page
    assert 'data-label="1.5" data-count="2"' in page and 'data-label="3" data-count="2"' in page
    assert "full marks 3 of 5" in page and "full marks 2 of 5" in page
    assert "<h1>Marks: 5 submissions</h1>" in page


def test_a_broken_results_file_is_listed_with_why_and_left_out(cohort, tmp_path):
    (cohort / "frank").mkdir()
    (cohort / "frank" / "results.json").write_text('{"score": 3, "tests": [')
    (cohort / "grace").mkdir()
    (cohort / "grace" / "results.json").write_text('{"score": 1, "tests": [{"name": "x", "status": "ok"}]}')
    out = tmp_path / "out"
    proc = report(str(cohort), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = proc.stderr.splitlines()
    assert len(errors) == 2
    assert errors[0].startswith(f"autograde report: left out frank: {cohort / 'frank' / 'results.json'} is not JSON (")
    assert errors[1] == (
        f"autograde report: left out grace: {cohort / 'grace' / 'results.json'} is not in Gradescope's format: "
        "tests[0]: 'status' must be passed or failed, not 'ok'"
    )
    names = [row[0] for row in csv.reader((out / "marks.csv").open())]
    assert names == ["name", "alice", "bob", "carol", "dan", "erin"]
    page = (out / "marks.html").read_text()
    assert "<h2>Left out</h2>" in page and "grace: " in page and "frank: " in page
    assert "5 submissions; left out 2." in proc.stdout


def test_nested_folders_and_several_result_dirs_name_submissions_by_their_path(tmp_path):
    first, second = tmp_path / "week1", tmp_path / "week2"
    AutograderResults((TestResult("t", 1, 1),), 0).write(first / "tutorial-a" / "s1" / "results.json")
    AutograderResults((TestResult("t", 0, 1),), 0).write(second / "s2" / "results.json")
    proc = report(str(first), str(second), "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.reader((tmp_path / "out" / "marks.csv").open()))
    assert rows[1:] == [["week1/tutorial-a/s1", "1", "1"], ["week2/s2", "0", "0"]]


def test_students_and_the_sandbox_are_columns_when_the_results_say_them(tmp_path):
    folder = tmp_path / "results"
    one = (TestResult("Against random", 2, 2),)
    # The grader copied Gradescope's metadata into the results (a group of two), and the games were sealed.
    AutograderResults(one, 0, extra_data={"sandbox": "sealed", "users": [
        {"name": "=Bob", "email": "bob@uni.example", "sid": "1002"},  # a name a spreadsheet would run
        {"name": "Ada Lovelace", "email": "ada@uni.example", "sid": "1001"},
    ]}).write(folder / "s1" / "results.json")
    # Older results: the metadata only beside them; and games played unsealed.
    AutograderResults(one, 0, extra_data={"sandbox": "unsealed"}).write(folder / "s2" / "results.json")
    (folder / "s2" / "submission_metadata.json").write_text(
        json.dumps({"users": [{"name": "Carol", "email": "carol@uni.example", "sid": "1003"}]}))
    AutograderResults(one, 0).write(folder / "s3" / "results.json")  # says neither
    proc = report(str(folder), "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.reader((tmp_path / "out" / "marks.csv").open()))
    assert rows == [
        ["name", "students", "sid", "email", "sandbox", "total", "Against random"],
        ["s1", "'=Bob; Ada Lovelace", "1002; 1001", "bob@uni.example; ada@uni.example", "sealed", "2", "2"],
        ["s2", "Carol", "1003", "carol@uni.example", "unsealed", "2", "2"],
        ["s3", "", "", "", "", "2", "2"],
    ]
    assert "1 of 3 submissions were graded without a full sandbox: s2 (unsealed)" in proc.stdout
    page = (tmp_path / "out" / "marks.html").read_text()
    assert '<section class="unsealed">' in page and "<li>s2: unsealed</li>" in page


def test_no_results_exits_2_with_a_message(tmp_path):
    (tmp_path / "empty").mkdir()
    proc = report(str(tmp_path / "empty"), "-o", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"autograde report: error: no results.json found under {tmp_path / 'empty'}"
    assert not (tmp_path / "out").exists()
    (tmp_path / "empty" / "s1").mkdir()
    (tmp_path / "empty" / "s1" / "results.json").write_text("[]")
    proc = report(str(tmp_path / "empty"))
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == (
        f"autograde report: error: none of the 1 results.json files could be used under {tmp_path / 'empty'}"
    )
    proc = report(str(tmp_path / "missing"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"autograde report: error: no such folder: {tmp_path / 'missing'}"
    assert "Traceback" not in proc.stderr


def test_the_histograms_are_drawn_in_a_browser(browser, cohort, tmp_path):
    out = tmp_path / "out"
    assert report(str(cohort), "-o", str(out)).returncode == 0
    page, problems, requests = open_page(browser, out / "marks.html")
    assert problems == [] and requests == [(out / "marks.html").as_uri()]
    sections = page.locator("section.test")
    assert sections.all_inner_texts() and sections.count() == 4  # the total and three tests
    # Every bin's bar is laid out, as tall as its count relative to the section's tallest.
    drawn = page.eval_on_selector_all(
        "section.test[data-test='Board 1'] g.bin",
        "gs => gs.map(g => [g.dataset.label, Number(g.dataset.count), g.querySelector('rect').getBBox().height,"
        " getComputedStyle(g.querySelector('rect')).fill])",
    )
    assert [(label, count) for label, count, _, _ in drawn] == [("0", 1), ("0.5", 1), ("1", 3)]
    heights = [height for _, _, height, _ in drawn]
    assert heights[2] > heights[0] == heights[1] > 0
    assert heights[0] * 3 == pytest.approx(heights[2], abs=2)
    assert all(fill == "rgb(74, 123, 183)" for *_, fill in drawn)
    summary = page.locator("#summary tbody tr").all_inner_texts()
    assert summary[0].split("\t")[0] == "Total" and len(summary) == 4
    page.close()
