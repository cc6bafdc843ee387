"""``autograde init``: the Gradescope folders it writes, and their run_autograder in an /autograder-like layout."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from referee.hosting.sandbox import resolve
from referee.marking import gradescope, part_a, part_b, templates
from tests.helpers import ROOT, run_referee

FILES = ("setup.sh", "run_autograder", "scheme.yaml", "README.md")


def init(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run_referee("autograde", "init", *args, cwd=cwd)


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("templates")
    made = {}
    for part in templates.PARTS:
        proc = init(part, str(base / part))
        assert proc.returncode == 0, proc.stderr
        assert "scheme.yaml" in proc.stdout
        made[part] = base / part
    return made


@pytest.mark.parametrize("part", templates.PARTS)
def test_every_file_is_written_and_the_scripts_are_executable(folders, part):
    folder = folders[part]
    for name in FILES:
        assert (folder / name).is_file(), name
    for name in ("setup.sh", "run_autograder"):
        mode = (folder / name).stat().st_mode
        assert mode & stat.S_IXUSR and mode & stat.S_IXOTH, name
        assert (folder / name).read_text().startswith("#!/usr/bin/env bash\n")
        check = subprocess.run(["bash", "-n", str(folder / name)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
    assert f"autograde {part}" in (folder / "run_autograder").read_text()
    readme = (folder / "README.md").read_text()
    assert f"zip -r ../autograder-{part}.zip ." in readme and "AUTOGRADER_ROOT" in readme


def test_part_a_scheme_parses_and_names_boards_that_exist(folders):
    folder = folders["partA"]
    scheme = yaml.safe_load((folder / "scheme.yaml").read_text())
    assert scheme["command"] == "python -m search"
    assert scheme["time_limit"] == 30 and scheme["valid_marks"] == 0.5
    assert len(scheme["boards"]) == 2
    for board in scheme["boards"]:
        path = folder / board["file"]
        assert path.is_file(), board
        # Every line a "r, q, colour, power" cell, as the course's boards are.
        for line in path.read_text().splitlines():
            r, q, colour, power = (part.strip() for part in line.split(","))
            assert r.isdigit() and q.isdigit() and colour in "rb" and power.isdigit()
        assert board["visibility"] in ("visible", "hidden")
    # The grader itself reads it: every field known, each board winnable and its optimum proved.
    assert len(part_a.load_scheme(folder / "scheme.yaml").boards) == 2


def test_part_b_scheme_parses_with_opponents_bands_and_checks(folders):
    scheme = yaml.safe_load((folders["partB"] / "scheme.yaml").read_text())
    assert scheme["game"] == "infexion"
    assert (scheme["time_limit"], scheme["space_limit"], scheme["games_per_opponent"]) == (180, 250, 4)
    specs = [opponent["spec"] for opponent in scheme["opponents"]]
    assert specs == ["agents.random_agent", "agents.greedy", "agents.minimax"]
    for opponent in scheme["opponents"]:
        minimums = [band["min_score"] for band in opponent["bands"]]
        assert minimums == sorted(minimums, reverse=True), opponent["name"]
        assert all(0 < band["fraction"] <= 1 for band in opponent["bands"])
    assert scheme["checks"] == {"plays_legally": 1, "time_limit": 1, "space_limit": 1}
    # The grader itself reads it: every field known, the opponents' options accepted.
    loaded = part_b.load_scheme(folders["partB"] / "scheme.yaml")
    assert [opponent.spec for opponent in loaded.opponents] == specs
    assert not (folders["partB"] / "boards").exists()


@pytest.mark.parametrize("part", templates.PARTS)
def test_the_shipped_copy_of_the_referee_imports_without_this_checkout(folders, part, tmp_path):
    source = folders[part] / templates.SOURCE_COPY
    assert (source / "pyproject.toml").is_file()
    # From a folder outside the repository, with only the copy on the path:
    # the autograder cannot lean on anything left behind in this checkout.
    env = {**os.environ, "PYTHONPATH": str(source)}
    proc = subprocess.run(
        [sys.executable, "-c", "import referee.marking.cli, referee.marking.gradescope, agents.minimax, agents.greedy;"
         "import referee, agents; print(referee.__file__); print(agents.__file__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert all(line.startswith(str(source)) for line in proc.stdout.splitlines())
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((source / "pyproject.toml").read_text())
    assert project["project"]["name"] == "referee"
    assert set(project["project"]["dependencies"]) == {"pyyaml>=6", "tqdm>=4.60", "tabulate>=0.9"}
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["referee*", "agents*"]


def test_a_folder_that_is_not_empty_is_refused_unless_forced(tmp_path):
    folder = tmp_path / "ag"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    proc = init("partA", str(folder))
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"autograde init: error: {folder} is not empty; choose a new folder, or --force to write into it"
    )
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    forced = init("partA", str(folder), "--force")
    assert forced.returncode == 0, forced.stderr
    assert (folder / "notes.txt").read_text() == "mine" and (folder / "run_autograder").is_file()
    # An empty folder needs no --force.
    (tmp_path / "empty").mkdir()
    assert init("partB", str(tmp_path / "empty")).returncode == 0


def test_bad_arguments_exit_2_with_a_message(tmp_path):
    (tmp_path / "file").write_text("")
    proc = init("partA", str(tmp_path / "file"))
    assert proc.returncode == 2 and "exists and is not a folder" in proc.stderr
    proc = init("partC", str(tmp_path / "x"))
    assert proc.returncode == 2 and "invalid choice: 'partC'" in proc.stderr
    proc = init("partA")
    assert proc.returncode == 2 and "DIR" in proc.stderr
    assert "Traceback" not in proc.stderr


FAKE_PYTHON = """\
#!{bash}
# Records how run_autograder called it, then stands in for the grader's exit code.
python_real="{python}"
"$python_real" - "$PWD" "$@" <<'EOF'
import json, os, sys
with open(os.environ["FAKE_PYTHON_LOG"], "w") as log:
    json.dump({{"cwd": sys.argv[1], "argv": sys.argv[2:]}}, log)
EOF
exit "${{FAKE_PYTHON_EXIT:-0}}"
"""


def autograder_layout(tmp_path: Path, folder: Path) -> Path:
    """An /autograder-like tree: source (the template), submission and no results yet."""
    root = tmp_path / "autograder"
    root.mkdir()
    shutil.copytree(folder, root / "source")
    (root / "submission" / "search").mkdir(parents=True)
    (root / "submission" / "search" / "__main__.py").write_text("print('SPREAD 0 0 0 1')\n")
    return root


@pytest.mark.parametrize("part", templates.PARTS)
def test_run_autograder_calls_the_grader_with_gradescopes_paths(folders, part, tmp_path):
    root = autograder_layout(tmp_path, folders[part])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text(FAKE_PYTHON.format(python=sys.executable, bash=shutil.which("bash")))
    fake.chmod(0o755)
    log = tmp_path / "argv.json"
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_PYTHON"}
    env.update(AUTOGRADER_ROOT=str(root), PATH=f"{bin_dir}:{env['PATH']}", FAKE_PYTHON_LOG=str(log))
    proc = subprocess.run(
        [str(root / "source" / "run_autograder")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    called = json.loads(log.read_text())
    assert called["argv"] == [
        "-m", "referee", "autograde", part,
        "--submission", str(root / "submission"),
        "--results", str(root / "results" / "results.json"),
        "--scheme", str(root / "source" / "scheme.yaml"),
        "--metadata", str(root / "submission_metadata.json"),
    ]
    # Run from the source folder, never the submission's (it could shadow the referee).
    assert called["cwd"] == str(root / "source")
    assert (root / "results").is_dir()
    # The grader's exit status is the script's.
    env["FAKE_PYTHON_EXIT"] = "2"
    proc = subprocess.run([str(root / "source" / "run_autograder")], env=env, capture_output=True, timeout=60)
    assert proc.returncode == 2


def test_run_autograder_prefers_the_environment_setup_sh_made(folders, tmp_path):
    root = autograder_layout(tmp_path, folders["partB"])
    venv_bin = root / "referee-venv" / "bin"
    venv_bin.mkdir(parents=True)
    fake = venv_bin / "python3"
    fake.write_text(FAKE_PYTHON.format(python=sys.executable, bash=shutil.which("bash")))
    fake.chmod(0o755)
    log = tmp_path / "argv.json"
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_PYTHON"}
    # No python3 on PATH at all (only mkdir): the venv's is the only one that can have run.
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "mkdir").symlink_to(shutil.which("mkdir"))
    env.update(AUTOGRADER_ROOT=str(root), PATH=str(tools), FAKE_PYTHON_LOG=str(log))
    proc = subprocess.run(
        [shutil.which("bash"), str(root / "source" / "run_autograder")],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(log.read_text())["argv"][:4] == ["-m", "referee", "autograde", "partB"]


SETUP_STUB = """\
#!{bash}
# Stands in for {name} while setup.sh runs: logs its arguments; `python3 -m venv DIR` makes DIR/bin/python3.
echo "{name} $*" >> "$STUB_LOG"
if [ "$1 $2" = "-m venv" ]; then
    dir="${{@: -1}}"
    mkdir -p "$dir/bin" && cp "$0" "$dir/bin/python3"
fi
if [ "{name}" = apt-get ] && [ "${{STUB_APT_FAILS:-0}}" = 1 ] && [ "$1" = install ]; then
    exit 100
fi
exit 0
"""


@pytest.mark.parametrize("apt_fails", [False, True])
def test_setup_sh_installs_bubblewrap_and_goes_on_without_it(folders, tmp_path, apt_fails):
    # Gradescope's image, stood in for by stubs: no bwrap on PATH, apt-get and python3 that only log.
    root = tmp_path / "autograder"
    shutil.copytree(folders["partB"], root / "source")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name in ("apt-get", "python3"):
        (stubs / name).write_text(SETUP_STUB.format(bash=shutil.which("bash"), name=name))
        (stubs / name).chmod(0o755)
    for tool in ("dirname", "mkdir", "cp"):
        (stubs / tool).symlink_to(shutil.which(tool))
    log = tmp_path / "calls.log"
    env = {"PATH": str(stubs), "AUTOGRADER_ROOT": str(root), "STUB_LOG": str(log),
           "STUB_APT_FAILS": "1" if apt_fails else "0"}
    proc = subprocess.run([shutil.which("bash"), str(root / "source" / "setup.sh")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    calls = log.read_text().splitlines()
    assert "apt-get install -y --no-install-recommends bubblewrap" in calls
    assert any(call.endswith("-m pip install ./referee-src") for call in calls)
    # A failed install is said, and the image is built all the same: its games say "unsealed".
    assert ("bubblewrap could not be installed: agents will run unsealed" in proc.stderr) == apt_fails


def builder() -> str | None:
    """An interpreter that can build a project offline (pip, setuptools and wheel installed), or None."""
    for python in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if python and Path(python).exists() and subprocess.run(
            [python, "-c", "import setuptools, wheel, pip"], capture_output=True,
        ).returncode == 0:
            return python
    return None


def test_setup_sh_can_pip_install_the_shipped_copy(folders, tmp_path):
    python = builder()
    if python is None:
        pytest.skip("no interpreter here has pip, setuptools and wheel to build the copy offline")
    source = tmp_path / "src"
    shutil.copytree(folders["partB"] / templates.SOURCE_COPY, source)
    target = tmp_path / "installed"
    # What setup.sh's `pip install ./referee-src` does, without the network:
    # no build isolation (it would download setuptools), no dependencies.
    proc = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert (target / "referee" / "marking" / "cli.py").is_file()
    assert (target / "agents" / "minimax" / "__init__.py").is_file()
    # Not only the Python: every other file of this checkout's packages too (the web pages' skeletons, CSS and
    # scripts that feedback and replays are made of, the learned agent's model, py.typed).
    data = sorted(path.relative_to(ROOT).as_posix() for name in templates.PACKAGES for path in (ROOT / name).rglob("*")
                  if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts)
    assert "referee/render/assets/replay.html" in data and "agents/learned_cachex4/model.npz" in data
    assert [name for name in data if not (target / name).is_file()] == []
    metadata = next(target.glob("referee-*.dist-info")) / "METADATA"
    # Older setuptools write "pyyaml (>=6)", newer "pyyaml>=6".
    requires = sorted(
        line.removeprefix("Requires-Dist:").translate(str.maketrans("", "", " ()"))
        for line in metadata.read_text().splitlines() if line.startswith("Requires-Dist:")
    )
    assert requires == ["pyyaml>=6", "tabulate>=0.9", "tqdm>=4.60"]


# A correct Part A program: this package's solver, reading the board from stdin.
SOLVER = """\
import sys
from referee.search.board import board_bytes, format_spread, parse_board
from referee.search.solver import solve

for action in solve(board_bytes(parse_board(sys.stdin.read()))).actions:
    print(format_spread(action))
"""

SMALL_PART_B_SCHEME = """\
game: infexion
time_limit: 60
space_limit: 250
games_per_opponent: 2
opponents:
  - {name: random, spec: agents.random_agent, marks: 3}
"""


def run_real_autograder(folder: Path, tmp_path: Path, files: dict[str, str]) -> dict:
    """Copy a generated template into an /autograder-like tree, add a submission, run run_autograder for real."""
    root = tmp_path / "autograder"
    shutil.copytree(folder, root / "source")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "REFEREE_PYTHON": sys.executable}
    proc = subprocess.run(
        [str(root / "source" / "run_autograder")], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    assert "Total:" in proc.stdout  # the table a student reads
    data = json.loads((root / "results" / "results.json").read_text())
    assert gradescope.problems(data) == []
    return data


#: What Gradescope writes beside the submission (trimmed): who submitted.
METADATA = json.dumps({
    "id": 7, "assignment": {"title": "Part B"},
    "users": [{"email": "ada@uni.example", "id": 1, "name": "Ada Lovelace", "sid": "1234567"}],
})
USERS = [{"name": "Ada Lovelace", "email": "ada@uni.example", "sid": "1234567"}]


def test_the_part_a_template_marks_a_correct_program_end_to_end(folders, tmp_path):
    data = run_real_autograder(folders["partA"], tmp_path, {
        "submission/search/__init__.py": "",
        "submission/search/__main__.py": SOLVER,
        "submission_metadata.json": METADATA,
    })
    assert [test["status"] for test in data["tests"]] == ["passed", "passed"]
    assert data["score"] == 2
    assert data["extra_data"]["users"] == USERS
    assert data["extra_data"]["sandbox"] == part_a.sealing(resolve("auto"), part_a.DEFAULT_SPACE_LIMIT)[0]
    assert [run["board"] for run in data["extra_data"]["runs"]] == [test["name"] for test in data["tests"]]


def test_the_part_b_template_marks_an_agent_end_to_end(folders, tmp_path):
    data = run_real_autograder(folders["partB"], tmp_path, {
        "source/scheme.yaml": SMALL_PART_B_SCHEME,  # the staff's edit: two quick games
        "submission/agent/__init__.py": "from agents.greedy import Agent as Agent\n",
        "submission_metadata.json": METADATA,
    })
    by_name = {test["name"]: test for test in data["tests"]}
    assert data["extra_data"]["users"] == USERS
    assert data["extra_data"]["sandbox"] == part_b.sandbox_state(resolve("auto"))
    results = tmp_path / "autograder" / "results"
    assert stat.S_IMODE((results / "results.json").stat().st_mode) == 0o644
    assert len(by_name) == 4 and all(test["max_score"] > 0 for test in by_name.values())
    assert data["leaderboard"][0]["order"] == "desc"
    assert (tmp_path / "autograder" / "results" / "results.games.jsonl").read_text().count("\n") == 2
