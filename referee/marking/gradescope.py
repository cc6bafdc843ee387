"""Gradescope's autograder results: the values, their ``results.json``, and a check of that format.

Gradescope reads one JSON object from ``/autograder/results/results.json``:
``score`` (the total; optional when every test has a score),
``execution_time`` (seconds), ``output`` (text shown above the tests),
``tests`` (each with ``name``, ``score``, ``max_score``, ``status``
``"passed"``/``"failed"``, ``output`` and ``visibility``), and optionally
``leaderboard`` entries (``name``, ``value``, ``order`` ``"asc"``/``"desc"``).
:func:`problems` checks a loaded object against that format, so a test (or a
member of staff) can tell a results file Gradescope will accept.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Who sees a test's result on Gradescope.
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
STATUSES = ("passed", "failed")
ORDERS = ("asc", "desc")

#: Where Gradescope puts a submission and looks for its results.
SUBMISSION_DIR = Path("/autograder/submission")
RESULTS_FILE = Path("/autograder/results/results.json")


@dataclass(frozen=True)
class TestResult:
    """One line of a student's feedback: a test, its marks and what happened."""

    __test__ = False  # not a pytest test class, despite its name

    name: str
    score: float
    max_score: float
    output: str = ""
    visibility: str = "visible"

    @property
    def status(self) -> str:
        """``passed`` with full marks, else ``failed``."""
        return "passed" if self.score >= self.max_score else "failed"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": as_number(self.score),
            "max_score": as_number(self.max_score),
            "status": self.status,
            "output": self.output,
            "visibility": self.visibility,
        }


@dataclass(frozen=True)
class LeaderboardEntry:
    """One column of Gradescope's leaderboard for this submission."""

    name: str
    value: float | str
    order: str = "desc"

    def to_json(self) -> dict[str, Any]:
        value = as_number(self.value) if isinstance(self.value, (int, float)) else self.value
        return {"name": self.name, "value": value, "order": self.order}


@dataclass(frozen=True)
class AutograderResults:
    """Everything one autograder run says about one submission."""

    tests: tuple[TestResult, ...]
    execution_time: float
    output: str = ""
    leaderboard: tuple[LeaderboardEntry, ...] = field(default=())

    @property
    def score(self) -> float:
        return sum(test.score for test in self.tests)

    @property
    def max_score(self) -> float:
        return sum(test.max_score for test in self.tests)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "score": as_number(self.score),
            "execution_time": as_number(round(self.execution_time, 3)),
            "output": self.output,
            "tests": [test.to_json() for test in self.tests],
        }
        if self.leaderboard:
            data["leaderboard"] = [entry.to_json() for entry in self.leaderboard]
        return data

    def write(self, path: Path) -> None:
        """Write ``results.json`` whole or not at all (a reader never sees half a file)."""
        write_json(self.to_json(), path)


def as_number(value: float) -> float | int:
    """Whole numbers as ints (``3`` rather than ``3.0``), others rounded to 4 places."""
    value = round(float(value), 4)
    return int(value) if value.is_integer() else value


def write_json(data: Mapping[str, Any], path: Path) -> None:
    """Write ``data`` as JSON to ``path`` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=2)
            file.write("\n")
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def problems(data: object) -> list[str]:
    """What in a loaded ``results.json`` Gradescope's format does not allow (empty: none)."""
    if not isinstance(data, dict):
        return [f"the top level must be an object, not {type(data).__name__}"]
    found: list[str] = []
    tests = data.get("tests")
    if "score" not in data and not (isinstance(tests, list) and tests and all(
        isinstance(t, dict) and "score" in t for t in tests
    )):
        found.append("'score' is missing and not every test has a score")
    if "score" in data and not is_number(data["score"]):
        found.append(f"'score' must be a number, not {data['score']!r}")
    if "execution_time" in data and not is_number(data["execution_time"]):
        found.append(f"'execution_time' must be a number, not {data['execution_time']!r}")
    for key in ("output", "visibility", "stdout_visibility"):
        if key in data and not isinstance(data[key], str):
            found.append(f"'{key}' must be a string")
    for key in ("visibility", "stdout_visibility"):
        if key in data and data[key] not in VISIBILITIES:
            found.append(f"'{key}' must be one of {', '.join(VISIBILITIES)}, not {data[key]!r}")
    if tests is not None:
        if not isinstance(tests, list):
            found.append("'tests' must be a list")
        else:
            for index, test in enumerate(tests):
                found += [f"tests[{index}]: {problem}" for problem in _test_problems(test)]
    board = data.get("leaderboard")
    if board is not None:
        if not isinstance(board, list):
            found.append("'leaderboard' must be a list")
        else:
            for index, entry in enumerate(board):
                found += [f"leaderboard[{index}]: {problem}" for problem in _entry_problems(entry)]
    return found


def _test_problems(test: object) -> list[str]:
    if not isinstance(test, dict):
        return ["must be an object"]
    found = []
    for key in ("score", "max_score"):
        if key in test and not is_number(test[key]):
            found.append(f"'{key}' must be a number, not {test[key]!r}")
    for key in ("name", "output"):
        if key in test and not isinstance(test[key], str):
            found.append(f"'{key}' must be a string")
    if "status" in test and test["status"] not in STATUSES:
        found.append(f"'status' must be passed or failed, not {test['status']!r}")
    if "visibility" in test and test["visibility"] not in VISIBILITIES:
        found.append(f"'visibility' must be one of {', '.join(VISIBILITIES)}, not {test['visibility']!r}")
    return found


def _entry_problems(entry: object) -> list[str]:
    if not isinstance(entry, dict):
        return ["must be an object"]
    found = []
    if not isinstance(entry.get("name"), str):
        found.append("'name' must be a string")
    if "value" not in entry or not (is_number(entry["value"]) or isinstance(entry["value"], str)):
        found.append("'value' must be a number or a string")
    if "order" in entry and entry["order"] not in ORDERS:
        found.append(f"'order' must be asc or desc, not {entry['order']!r}")
    return found


def feedback_table(results: AutograderResults) -> str:
    """The results as a student reads them in a terminal: one row a test, then the total."""
    from tabulate import tabulate

    rows = [
        [test.name, f"{as_number(test.score)}/{as_number(test.max_score)}", test.status, test.output.splitlines()[0]
         if test.output else ""]
        for test in results.tests
    ]
    table = tabulate(rows, headers=["test", "marks", "status", "what happened"], tablefmt="simple")
    total = f"Total: {as_number(results.score)}/{as_number(results.max_score)}"
    return "\n".join(part for part in (results.output, table, total) if part)
