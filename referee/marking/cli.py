"""``python -m referee autograde``: Gradescope autograders and the cohort report.

    python -m referee autograde partA [--submission DIR] [--scheme FILE] [--results FILE]
    python -m referee autograde partB [--submission DIR] [--scheme FILE] [--results FILE]
    python -m referee autograde init partA|partB DIR
    python -m referee autograde report RESULTS_DIR... [-o DIR]

Each action lives in its own module with ``main(argv) -> int``, imported only
when used.
"""
from __future__ import annotations

import difflib
import sys
from importlib import import_module

from ..exit_status import ExitStatus

ACTIONS: dict[str, str] = {
    "partA": "referee.marking.part_a",
    "partB": "referee.marking.part_b",
    "init": "referee.marking.templates",
    "report": "referee.marking.report",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n", 1)[1] if __doc__ else "", file=sys.stdout if argv else sys.stderr)
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
