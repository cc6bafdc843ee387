"""docs/first-agent.md does what it says: its files, its commands, its test and its error messages.

The page's files (code blocks whose first line is ``# PATH``) are written
into a folder with a copy of the bundled agents, its commands are run there
as a student would, and each mistake of section 5 is made to the page's
agent: the referee must say what the page quotes (numbers may differ).
"""
from __future__ import annotations

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


def test_the_pages_commands_play_and_its_test_passes(student):
    commands = [line for text in blocks("sh") for line in text.splitlines() if line.startswith("python -m referee ")]
    assert len(commands) == 3, commands
    for command in commands:
        done = referee(student, *command.split()[3:])
        assert done.returncode == 0, (command, done.stderr)
        assert "* referee @ result:" in done.stdout, command
        assert "load_error" not in done.stdout and "illegal_action" not in done.stdout, (command, done.stdout[-500:])
    test = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests_my_agent"],
        cwd=student, capture_output=True, text=True, timeout=300,
    )
    assert test.returncode == 0, test.stdout[-2000:]


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
