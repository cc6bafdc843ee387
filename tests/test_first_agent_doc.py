"""docs/first-agent.md does what it says: its files, its commands, its test and its error messages.

The page's files (code blocks whose first line is ``# PATH``) are written
into a copy of the clone, and its shell blocks are run there in order as a
student types them: section 1 makes a fresh ``.venv`` with a plain
``pip install -e .`` (no dev extra: no pytest-xdist), and every later block
runs in it.  Each mistake of section 5 is made to the page's agent: the
referee must say what the page quotes (numbers may differ).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_referee

PAGE = ROOT / "docs" / "first-agent.md"
BLOCK = re.compile(r"^( *)```(\w+)\n(.*?)^ *```", re.MULTILINE | re.DOTALL)


def blocks(kind: str) -> list[str]:
    """The page's code blocks of ``kind``, each without the indent of its list item."""
    found = []
    for indent, lang, text in BLOCK.findall(PAGE.read_text()):
        if lang == kind:
            found.append("".join(line[len(indent):] if line.startswith(indent) else line
                                 for line in text.splitlines(keepends=True)))
    return found


def files() -> dict[str, str]:
    """PATH -> text of each code block that starts with ``# PATH``."""
    found = {}
    for text in blocks("python"):
        first, _, rest = text.partition("\n")
        if first.startswith("# ") and "/" in first:
            found[first[2:].strip()] = text
    return found


def quoted_messages() -> list[str]:
    """The first line of each ``text`` block, in order."""
    return [text.strip().splitlines()[0] for text in blocks("text")]


def matches(quoted: str, output: str) -> bool:
    """Whether ``output`` says ``quoted``, any number standing for any number."""
    pattern = re.sub(r"\\?\d+(\\\.\d+)?", r"\\d+(?:\\.\\d+)?", re.escape(quoted.rstrip(".")))
    return re.search(pattern, output) is not None


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    """A folder as a student has it after sections 1 and 2: the bundled agents and agents/my_agent."""
    folder = tmp_path_factory.mktemp("student")
    shutil.copytree(ROOT / "agents", folder / "agents", ignore=shutil.ignore_patterns("__pycache__"))
    for path, text in files().items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder


def referee(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return run_referee(*args, cwd=folder, timeout=120)


def test_the_page_has_the_agent_and_its_test():
    expected = {"agents/my_agent/__init__.py", "agents/my_agent/program.py", "tests_my_agent/test_my_agent.py"}
    assert set(files()) == expected


#: What a fresh clone holds that the page's commands use (the suite's own tests/ are not among them).
CLONE = ("pyproject.toml", "README.md", "referee", "agents")


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A copy of the clone with the page's files, before section 1's commands."""
    folder = tmp_path_factory.mktemp("clone")
    for name in CLONE:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(ROOT / name, folder / name)
    for path, text in files().items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder


def a_students_shell() -> dict[str, str]:
    """This environment without the suite's virtual environment: ``python3`` is the machine's."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    ours = Path(sys.prefix).resolve()
    env["PATH"] = os.pathsep.join(entry for entry in env.get("PATH", "").split(os.pathsep)
                                  if entry and not Path(entry).resolve().is_relative_to(ours))
    return env


def test_the_pages_commands_run_in_a_plain_install(clone):
    sections = blocks("sh")
    assert len(sections) == 4, sections  # set up, play, test, submit: each checked below
    said = []
    for number, block in enumerate(sections):
        # The student's terminal stays in the environment section 1 activated.
        script = "set -e\n" + ("" if number == 0 else ". .venv/bin/activate\n") + block
        done = subprocess.run(["bash", "-c", script], cwd=clone, env=a_students_shell(), capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, (block, done.stdout[-2000:], done.stderr[-2000:])
        said.append(done.stdout)
    setup, play, test, submit = said
    # A plain install, as the page says: the suite's parallel runner is not in it.
    plain = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-c", "import xdist"], capture_output=True)
    assert plain.returncode != 0
    assert setup.count("* referee @ result:") == 1 and play.count("* referee @ result:") == 2, play[-1000:]
    for output in (setup, play):
        assert "load_error" not in output and "illegal_action" not in output, output[-1000:]
    assert re.search(r"=+ 1 passed in ", test), test[-1000:]
    # The renamed package is marked: it loads, plays legally and beats the random agent.
    assert "Not played" not in submit and re.search(r"^Total: \d+/\d+", submit, re.MULTILINE), submit[-2000:]
    results = json.loads((clone / "results.json").read_text())
    checks = {test["name"]: test for test in results["tests"]}
    assert checks["Loads and plays legally"]["status"] == "passed", checks
    assert checks["Against random"]["score"] > 0, checks


#: Each mistake of section 5 (and the time limit after it), as a change to the page's agent,
#: with the arguments that show it; in the order of the page's quoted messages.
MISTAKES = [
    ("no __init__.py", lambda agent: (agent / "__init__.py").unlink(), ("agents.my_agent", "agents.random_agent")),
    ("a typo", lambda agent: None, ("agents.my_agnet", "agents.random_agent")),
    (
        "an absolute import",
        lambda agent: (agent / "program.py").write_text(
            "from agent.utils import helper\n" + (agent / "program.py").read_text()
        ),
        ("agents.my_agent", "agents.random_agent"),
    ),
    (
        "the engine's action",
        lambda agent: (agent / "program.py").write_text(
            (agent / "program.py").read_text().replace("return self.view.to_agent(best)", "return best")
        ),
        ("agents.my_agent", "agents.random_agent"),
    ),
    (
        "no turn()",
        lambda agent: (agent / "program.py").write_text(
            (agent / "program.py").read_text().replace("self.view.observe(action)", "pass")
        ),
        ("agents.my_agent", "agents.random_agent"),
    ),
    (
        "thinking too long",
        lambda agent: (agent / "program.py").write_text(
            (agent / "program.py").read_text().replace("state = self.view.state", "while True:\n            pass")
        ),
        ("-v", "1", "-t", "1", "agents.my_agent", "agents.random_agent"),
    ),
]


@pytest.mark.parametrize("index", range(len(MISTAKES)), ids=[m[0] for m in MISTAKES])
def test_each_mistake_gets_the_message_the_page_quotes(student, tmp_path, index):
    _, make, args = MISTAKES[index]
    folder = tmp_path / "copy"
    shutil.copytree(student, folder, ignore=shutil.ignore_patterns("__pycache__"))
    make(folder / "agents" / "my_agent")
    done = referee(folder, *args)
    quoted = quoted_messages()[index]
    assert matches(quoted, done.stdout + done.stderr), (quoted, done.stdout[-1500:], done.stderr[-1500:])


def test_the_readmes_playing_a_game_example_plays_in_a_fresh_clone():
    """The first command under "Playing a game" names only agents a clone has."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Playing a game"):]
    command = next(line for line in section.splitlines() if line.startswith("python -m referee "))
    done = referee(ROOT, *command.split()[3:], "-v", "0")
    assert done.returncode == 0, done.stderr
    assert "* referee @ result:" in done.stdout and "load_error" not in done.stdout, done.stdout


def test_the_pages_budgeting_lines_take_the_smaller_clock():
    [lines] = [text for text in blocks("python") if text.startswith("# in action(")]
    for referee, left in [
        ({"time_remaining": 60.0, "wall_remaining": 5.0}, 5.0),  # the battleground, a busy machine
        ({"time_remaining": 5.0, "wall_remaining": 60.0}, 5.0),
        ({"time_remaining": 60.0, "wall_remaining": None}, 60.0),  # a local game
        ({"time_remaining": None, "wall_remaining": None}, None),  # no limit at all
    ]:
        scope: dict[str, object] = {"referee": referee}
        exec(lines, scope)
        assert scope["left"] == left, referee
