"""``python -m referee autograde init partA|partB DIR``: a Gradescope autograder folder, ready to zip.

DIR gets ``setup.sh``, ``run_autograder``, a commented ``scheme.yaml``, a
``README.md`` for staff, Part A's sample ``boards/``, and ``referee-src/``: a
copy of this package (``referee`` and the reference ``agents``) with its own
``pyproject.toml``. ``setup.sh`` installs that copy when Gradescope builds the
autograder image, so grading itself never needs the network or this
repository.
"""
from __future__ import annotations

import json
import shutil
import stat
import sys
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from referee.arguments import ArgumentParser
from ..exit_status import ExitStatus

PARTS = ("partA", "partB")
#: The folder of DIR holding the copy of this package that setup.sh installs.
SOURCE_COPY = "referee-src"
#: The packages copied into it: the referee and the reference agents Part B plays against.
PACKAGES = ("referee", "agents")
#: Part A boards copied into the template as examples.
SAMPLE_BOARDS = ("capture-chain.csv", "long-walk.csv")

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (the
# network is available then, not needed later). It installs the copy of the
# referee shipped in this zip (referee-src/) into its own virtual environment;
# run_autograder uses that environment's python3.
set -euo pipefail
cd "$(dirname "$0")"
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"

if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    apt-get update
    apt-get install -y python3 python3-pip python3-venv
fi
# bubblewrap seals each agent in namespaces of its own (docs/marking.md, "The sandbox on
# Gradescope"). Whether this container lets it make them is checked at every grading run, and
# the feedback says "unsealed" when it does not; a failed install leaves the games unsealed.
if ! command -v bwrap >/dev/null; then
    apt-get update
    apt-get install -y --no-install-recommends bubblewrap \
        || echo "setup.sh: warning: bubblewrap could not be installed: agents will run unsealed" >&2
fi
# --system-site-packages: libraries installed for the students' code (e.g.
# `pip3 install numpy` below) are visible to the agents the referee starts.
python3 -m venv --system-site-packages "$ROOT/referee-venv"
"$ROOT/referee-venv/bin/python3" -m pip install --upgrade pip
"$ROOT/referee-venv/bin/python3" -m pip install ./{source_copy}
# Libraries the students may use go here, e.g.:
# "$ROOT/referee-venv/bin/python3" -m pip install numpy
"$ROOT/referee-venv/bin/python3" -m referee autograde --help >/dev/null
# What the agents would run under here (grading may run under other settings: its feedback says).
"$ROOT/referee-venv/bin/python3" -c \
    'from referee.hosting.sandbox import resolve; print("sandbox at build time:", resolve("auto").describe())'
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission: the submission is in
# $ROOT/submission, this zip's files in $ROOT/source, and the marks must end up
# in $ROOT/results/results.json. AUTOGRADER_ROOT (default /autograder) moves
# the whole layout, to try it locally; REFEREE_PYTHON picks the interpreter.
set -u
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{REFEREE_PYTHON:-$ROOT/referee-venv/bin/python3}}"
if [ ! -x "$PYTHON" ]; then
    PYTHON=python3
fi
mkdir -p "$ROOT/results"
# Not the submission folder: `python -m` puts the working folder first on
# sys.path, and a submission must not be able to shadow the referee.
cd "$ROOT/source"
exec "$PYTHON" -m referee autograde {part} \\
    --submission "$ROOT/submission" \\
    --results "$ROOT/results/results.json" \\
    --scheme "$ROOT/source/scheme.yaml" \\
    --metadata "$ROOT/submission_metadata.json"
"""

SCHEME_A = """\
# Part A marking scheme (python -m referee autograde partA).
# Paths are relative to this file. Every board is one test on Gradescope.

# How the submission is run, from the submission folder, once per board,
# with the board (CSV) on standard input.
command: python -m search
# Seconds per board; the program's whole process group is killed after it.
time_limit: 30
# MB for all the program's processes together, a hard cap where the sandbox
# has a cgroup (0: none).
space_limit: 512
# Marks for a valid winning sequence that is longer than the shortest one
# (an optimal sequence earns the board's full marks).
valid_marks: 0.5
# auto: the program runs sealed where the machine can (bubblewrap: it sees
# its own folder and Python read-only, no network, nothing it starts outlives
# it; a system-call filter, a user of its own, its memory capped);
# required: refuse to mark without that; off: an ordinary process.
sandbox: auto

boards:
  # visibility: visible, hidden, after_due_date or after_published.
  - {{file: boards/{board_1}, marks: 1, visibility: visible}}
  - {{file: boards/{board_2}, marks: 1, visibility: hidden}}
"""

SCHEME_B = """\
# Part B marking scheme (python -m referee autograde partB).
# The submission's top-level package `agent/` plays a gauntlet against the
# opponents below, half its games as red and half as blue.

game: infexion
# CPU seconds per agent per game, and memory in MB (the course limits).
time_limit: 180
space_limit: 250
# Games against each opponent (even: both colours equally).
games_per_opponent: 4
# An agent/ folder one folder down (a zip of the project folder rather than
# its contents) is used, and the feedback says so; false: such a submission
# plays no game, and the feedback says where its agent/ is.
nested_agent: true
# auto: each agent sealed in a sandbox where the machine can (bubblewrap,
# installed by setup.sh); required: refuse to grade unsealed; off: never.
sandbox: auto

opponents:
  # spec: a package with the agent, as in tournaments (options: extra kwargs).
  # bands: the submission's score against this opponent (win 1, draw 0.5,
  # loss 0, averaged) -> the fraction of `marks` it earns; the first band
  # whose min_score is reached counts, none reached: 0.
  - name: random
    spec: agents.random_agent
    marks: 3
    bands:
      - {min_score: 0.75, fraction: 1.0}
      - {min_score: 0.5, fraction: 0.5}
  - name: greedy
    spec: agents.greedy
    marks: 3
    bands:
      - {min_score: 0.75, fraction: 1.0}
      - {min_score: 0.5, fraction: 0.5}
      - {min_score: 0.25, fraction: 0.25}
  - name: minimax
    spec: agents.minimax
    options: {depth: 2}
    marks: 2
    bands:
      - {min_score: 0.5, fraction: 1.0}
      - {min_score: 0.25, fraction: 0.5}

# Marks for the checks every game is part of: the agent loads and only plays
# legal actions; it never exceeds the time limit; nor the memory limit.
checks: {plays_legally: 1, time_limit: 1, space_limit: 1}

# The feedback of a game lost by the rules names its turning point, found by
# the referee's MCTS once every game is over: the first such game told for
# each opponent (games; 0: none), at `iterations` simulations a position,
# all analyses within `seconds` of wall clock (add them to Gradescope's
# timeout). A failed analysis only leaves the sentence out.
turning_points: {games: 1, iterations: 400, seconds: 60}
"""

README = """\
# Gradescope autograder: {title}

Generated by `python -m referee autograde init {part} DIR`. Staff guide:
docs/marking.md in the referee repository.

## Files

- `setup.sh`: run once by Gradescope when it builds the autograder image;
  installs `{source_copy}/` (a copy of the referee and its reference agents)
  into `/autograder/referee-venv`. Add any library students may use there.
- `run_autograder`: run by Gradescope for every submission; runs
  `python3 -m referee autograde {part}` on `/autograder/submission` with
  `scheme.yaml` and writes `/autograder/results/results.json`.
- `scheme.yaml`: the marking scheme; its comments explain every field.
{extra_files}- `{source_copy}/`: the referee the autograder runs. Nothing is
  downloaded at grading time; to pick up a newer referee, run `init` again.

## Upload

1. Edit `scheme.yaml` (marks, limits, {what_to_edit}).
2. Check it locally (below).
3. Zip the *contents* of this folder (`setup.sh` and `run_autograder` must be
   at the top of the zip):

       cd THIS_FOLDER && zip -r ../autograder-{part}.zip .

4. On Gradescope: the assignment's *Configure Autograder*, choose "Zip file
   upload", upload the zip, and wait for the image to build.{timeout_note}
5. Test it there with a sample submission ("Test Autograder").

## Try it locally

The same grader, without Gradescope (`python -m referee` from the repository
or an environment where the referee is installed):

    python -m referee autograde {part} --submission path/to/submission \\
        --scheme scheme.yaml --results /tmp/results.json

or the whole script in a `/autograder`-like folder:

    mkdir -p /tmp/ag/submission /tmp/ag/results
    cp -r THIS_FOLDER /tmp/ag/source
    cp -r path/to/submission/. /tmp/ag/submission/
    AUTOGRADER_ROOT=/tmp/ag REFEREE_PYTHON=python3 bash /tmp/ag/source/run_autograder
    cat /tmp/ag/results/results.json

After the deadline, download the submissions' results and run
`python -m referee autograde report FOLDER` for a cohort's marks (CSV) and
their distribution (HTML).
"""

PART_TEXT = {
    "partA": {
        "title": "Part A (search)",
        "extra_files": "- `boards/`: the boards the scheme marks; add yours and list them in `scheme.yaml`.\n",
        "what_to_edit": "the boards and their visibility",
        "timeout_note": "",
        "scheme": SCHEME_A,
    },
    "partB": {
        "title": "Part B (game-playing agent)",
        "extra_files": "",
        "what_to_edit": "opponents, games and bands",
        "timeout_note": (
            "\n   Set the autograder timeout in its settings high enough for the\n"
            "   gauntlet: at worst every game uses both agents' whole time limit\n"
            "   (games x 2 x time_limit), so keep the scheme within it."
        ),
        "scheme": SCHEME_B,
    },
}

#: Used when this installation has no benchmarks/partA_boards (e.g. installed from a wheel).
FALLBACK_BOARDS = {
    "capture-chain.csv": "0, 0, r, 1\n0, 1, b, 5\n1, 1, b, 1\n2, 1, b, 1\n3, 1, b, 1\n",
    "long-walk.csv": "3, 3, r, 1\n0, 0, b, 1\n6, 6, b, 1\n0, 6, b, 1\n",
}


def write_template(part: str, folder: Path) -> list[Path]:
    """Write the autograder folder for ``part`` (``partA``/``partB``) into ``folder``; the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    text = PART_TEXT[part]
    written = []

    def put(name: str, content: str, executable: bool = False) -> None:
        path = folder / name
        path.write_text(content, encoding="utf-8")
        if executable:
            path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        written.append(path)

    put("setup.sh", SETUP_SH.format(source_copy=SOURCE_COPY), executable=True)
    put("run_autograder", RUN_AUTOGRADER.format(part=part), executable=True)
    scheme = text["scheme"]
    if part == "partA":
        scheme = scheme.format(board_1=SAMPLE_BOARDS[0], board_2=SAMPLE_BOARDS[1])
    put("scheme.yaml", scheme)
    words = {key: value for key, value in text.items() if key != "scheme"}
    put("README.md", README.format(part=part, source_copy=SOURCE_COPY, **words))
    if part == "partA":
        written += copy_sample_boards(folder / "boards")
    written.append(copy_package(folder / SOURCE_COPY))
    return written


def copy_sample_boards(boards: Path) -> list[Path]:
    """Copy the sample boards into ``boards`` (from benchmarks/partA_boards when installed with them)."""
    boards.mkdir(exist_ok=True)
    here = _package_folder("benchmarks")
    written = []
    for name in SAMPLE_BOARDS:
        source = here / "partA_boards" / name if here else None
        target = boards / name
        if source is not None and source.is_file():
            shutil.copyfile(source, target)
        else:
            target.write_text(FALLBACK_BOARDS[name], encoding="utf-8")
        written.append(target)
    return written


def copy_package(target: Path) -> Path:
    """Copy the referee and the reference agents into ``target`` as a pip-installable project."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo")
    for name in PACKAGES:
        source = _package_folder(name)
        if source is None:
            raise FileNotFoundError(f"cannot find the {name!r} package to copy into the autograder")
        shutil.copytree(source, target / name, ignore=ignore)
    (target / "pyproject.toml").write_text(_pyproject(_package_data(target)), encoding="utf-8")
    return target


def _package_data(root: Path) -> dict[str, list[str]]:
    """Every file of the copied packages that is not Python (web pages' assets, a model, ``py.typed``), by the
    package it belongs to: setup.sh's ``pip install`` (not editable) installs only what the pyproject names."""
    data: dict[str, list[str]] = {}
    for name in PACKAGES:
        for path in sorted((root / name).rglob("*")):
            if not path.is_file() or path.suffix in (".py", ".pyc", ".pyo"):
                continue
            package = path.parent
            while not (package / "__init__.py").is_file():
                package = package.parent
            dotted = ".".join(package.relative_to(root).parts)
            data.setdefault(dotted, []).append(path.relative_to(package).as_posix())
    return data


def _package_folder(name: str) -> Path | None:
    """The folder of the installed package ``name``, or None when it is not installed."""
    from importlib.util import find_spec

    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _pyproject(package_data: dict[str, list[str]]) -> str:
    try:
        version = metadata.version("referee")
    except metadata.PackageNotFoundError:
        version = "0.0.0"
    return f"""\
# The referee as shipped inside a Gradescope autograder (python -m referee autograde init).
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "referee"
version = "{version}"
requires-python = ">=3.10"
dependencies = ["pyyaml>=6", "tqdm>=4.60", "tabulate>=0.9"]

[tool.setuptools.packages.find]
include = {_toml_list(f"{name}*" for name in PACKAGES)}

[tool.setuptools.package-data]
""" + "".join(f'"{package}" = {_toml_list(files)}\n' for package, files in package_data.items())


def _toml_list(items: Iterable[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"  # a JSON string is a TOML basic string


def main(argv: list[str]) -> int:
    parser = ArgumentParser(
        prog="python -m referee autograde init",
        description="Write a Gradescope autograder folder (setup.sh, run_autograder, scheme.yaml, README.md).",
    )
    parser.add_argument("part", choices=PARTS, help="which autograder")
    parser.add_argument("folder", type=Path, metavar="DIR", help="where to write it (new or empty)")
    parser.add_argument("--force", action="store_true", help="write into DIR even when it is not empty")
    args = parser.parse_args(argv)
    folder: Path = args.folder
    if folder.exists() and not folder.is_dir():
        print(f"autograde init: error: {folder} exists and is not a folder", file=sys.stderr)
        return ExitStatus.USAGE
    if folder.is_dir() and any(folder.iterdir()) and not args.force:
        print(
            f"autograde init: error: {folder} is not empty; choose a new folder, or --force to write into it",
            file=sys.stderr,
        )
        return ExitStatus.USAGE
    try:
        write_template(args.part, folder)
    except OSError as exc:
        print(f"autograde init: error: cannot write {folder}: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    print(f"Wrote the {args.part} autograder to {folder}: edit scheme.yaml, then read {folder / 'README.md'}.")
    return 0
