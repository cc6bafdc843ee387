"""Part A submissions and marking schemes made in a test's folder (tests/marking/test_part_a*.py)."""
from __future__ import annotations

import textwrap
from pathlib import Path

# One red 1 beside one blue 1: SPREAD 3 3 0 1 takes it (optimum 1); stepping
# away and back (SPREAD 3 3 1 0, SPREAD 4 3 -1 1) is a valid win in 2.
TINY = "3, 3, r, 1\n3, 4, b, 1\n"

TINY_SCHEME = """
    time_limit: 20
    boards:
      - file: tiny.csv
        marks: 4
"""


def submission(tmp_path: Path, body: str) -> Path:
    """A submission folder whose ``search/__main__.py`` is ``body``."""
    folder = tmp_path / "submission"
    (folder / "search").mkdir(parents=True)
    (folder / "search" / "__init__.py").write_text("")
    (folder / "search" / "__main__.py").write_text(textwrap.dedent(body))
    return folder


def scheme(tmp_path: Path, text: str, boards: dict[str, str] | None = None) -> Path:
    """A scheme file (and its board files, beside it) in ``tmp_path/autograder``."""
    folder = tmp_path / "autograder"
    folder.mkdir(exist_ok=True)
    for name, board in (boards if boards is not None else {"tiny.csv": TINY}).items():
        (folder / name).write_text(board)
    path = folder / "scheme.yaml"
    path.write_text(textwrap.dedent(text))
    return path
