"""``python -m referee autograde ACTION``: Gradescope autograders and the cohort report.

Each action lives in its own module with ``main(argv) -> int``, imported only
when used; :data:`HELP` is what a user reads (``-h``, or no action).
"""
from __future__ import annotations

import difflib
import sys
from importlib import import_module

from ..exit_status import ExitStatus

#: ``-h``: the usage, what the command does and its actions, in plain words (the docstring is for developers).
HELP = """\
usage: python -m referee autograde ACTION [options]

Mark students' submissions as Gradescope's autograder, or gather a cohort's marks.

actions (each has its own -h):
  partA [--submission DIR] [--scheme FILE] [--results FILE]   mark a Part A program
  partB [--submission DIR] [--scheme FILE] [--results FILE]   mark a Part B agent
  init partA|partB DIR                                        write an autograder folder for Gradescope
  report RESULTS_DIR... [-o DIR]                              a cohort's marks from its results.json files

See docs/marking.md."""

ACTIONS: dict[str, str] = {
    "partA": "referee.marking.part_a",
    "partB": "referee.marking.part_b",
    "init": "referee.marking.templates",
    "report": "referee.marking.report",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(HELP, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else ExitStatus.USAGE
    action = argv[0]
    if action not in ACTIONS:
        close = difflib.get_close_matches(action, ACTIONS, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        print(
            f"python -m referee autograde: error: unknown action {action!r}{hint}; "
            f"the actions are {', '.join(ACTIONS)}",
            file=sys.stderr,
        )
        return ExitStatus.USAGE
    result: int = import_module(ACTIONS[action]).main(argv[1:])
    return result
