"""Gradescope's autograder results: the values, their ``results.json``, and a check of that format.

Gradescope reads one JSON object from ``/autograder/results/results.json``:
``score`` (the total; optional when every test has a score),
``execution_time`` (seconds), ``output`` (text shown above the tests),
``tests`` (each with ``name``, ``score``, ``max_score``, ``status``
``"passed"``/``"failed"``, ``output`` and ``visibility``), and optionally
``leaderboard`` entries (``name``, ``value``, ``order`` ``"asc"``/``"desc"``).
Text may say how it is written: ``output_format`` (the top-level output),
``test_output_format`` (the default of every test's ``output``) and each
test's own ``output_format``, one of :data:`FORMATS` (``md`` is Markdown,
``text`` is shown as it is, in a ``<pre>``). ``extra_data`` is stored with the
submission and not shown to students. :func:`problems` checks a loaded object
against that format, so a test (or a member of staff) can tell a results file
Gradescope will accept.

Gradescope puts the submitters in ``/autograder/submission_metadata.json``
(its ``users``: ``name``, ``email``, ``sid``); :func:`submission_users` reads
them, so that the results (in ``extra_data``) and the cohort's marks carry
who submitted.
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
#: How Gradescope may be told a text is written (its "output string formatting").
FORMATS = ("text", "html", "simple_format", "md", "ansi")
#: The fields of a submitter kept from Gradescope's submission metadata.
USER_FIELDS = ("name", "email", "sid")
#: results.json is read by Gradescope's harness and by staff, whoever runs the grader.
RESULTS_MODE = 0o644
#: ``extra_data.sandbox`` of a Part B submission that played no game: no agent of it ran, so none was sealed
#: (nor unsealed); the cohort's report shows it as it is and does not count it as graded without a sandbox.
NO_GAME_SANDBOX = "none: no game played"

#: Where Gradescope puts a submission, its metadata, and looks for its results.
SUBMISSION_DIR = Path("/autograder/submission")
#: Where Gradescope unpacks the autograder, so the scheme beside ``run_autograder`` (Part A and Part B alike).
SCHEME_FILE = Path("/autograder/source/scheme.yaml")
METADATA_FILE = Path("/autograder/submission_metadata.json")
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
    #: How ``output`` is written (one of :data:`FORMATS`); None: Gradescope's default, plain text.
    output_format: str | None = None

    @property
    def status(self) -> str:
        """``passed`` with full marks, else ``failed``."""
        return "passed" if self.score >= self.max_score else "failed"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "score": as_number(self.score),
            "max_score": as_number(self.max_score),
            "status": self.status,
            "output": self.output,
            "visibility": self.visibility,
        }
        if self.output_format is not None:
            data["output_format"] = self.output_format
        return data


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
    #: How ``output`` is written (one of :data:`FORMATS`); None: Gradescope's default.
    output_format: str | None = None
    #: Stored with the submission, not shown to students (who submitted, what the agents ran under).
    extra_data: Mapping[str, Any] = field(default_factory=dict)

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
        if self.output_format is not None:
            data["output_format"] = self.output_format
        if self.extra_data:
            data["extra_data"] = dict(self.extra_data)
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
    """Write ``data`` as JSON to ``path`` through a temporary file and a rename; readable by all (0644)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=2)
            file.write("\n")
            # mkstemp makes the file 0600: only its owner could read the results (staff, a harness
            # running as another user); chmod, not the umask, so every run writes the same mode.
            os.fchmod(file.fileno(), RESULTS_MODE)
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
    found += _format_problems(data, ("output_format", "test_output_format", "test_name_format"))
    if "extra_data" in data and not isinstance(data["extra_data"], dict):
        found.append("'extra_data' must be an object")
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
    return found + _format_problems(test, ("output_format", "name_format"))


def _format_problems(data: Mapping[str, Any], keys: tuple[str, ...]) -> list[str]:
    return [
        f"'{key}' must be one of {', '.join(FORMATS)}, not {data[key]!r}"
        for key in keys if key in data and data[key] not in FORMATS
    ]


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


def submission_users(path: Path) -> tuple[tuple[dict[str, str], ...], str | None]:
    """The submitters in Gradescope's submission metadata (``name``, ``email``, ``sid`` each), and a problem.

    No file (a local run) is no users and no problem; a file that cannot be
    read or holds no ``users`` list gives no users and says why, for the
    console: grading goes on either way.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return (), None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return (), f"{path}: cannot be read ({exc}); the results name no student"
    users = data.get("users") if isinstance(data, dict) else None
    if not isinstance(users, list):
        return (), f"{path}: has no 'users' list; the results name no student"
    return user_entries(users), None


def user_entries(users: object) -> tuple[dict[str, str], ...]:
    """The submitters in a ``users`` list (the metadata's, or the results' ``extra_data``): their USER_FIELDS."""
    if not isinstance(users, list):
        return ()
    return tuple(
        {key: str(user[key]) for key in USER_FIELDS if user.get(key) is not None}
        for user in users if isinstance(user, dict)
    )


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
