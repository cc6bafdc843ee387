"""docs/learning.md, "From an environment to a tournament" (issue 50, item 4): every command of the section runs as a
student types it, in a copy of the clone, and says what the page says.

Two are run smaller than written: the training (``--episodes 128 --check 10``: the full run takes minutes and
is measured on the page, not here) and the tournament (its config's 200 games cut to 6).  The 6 games are the
check that the agent in the repository, sealed, beats the random agent it was trained against: it must win 5.
"""
from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import ROOT
from tests.sandboxing import require_sandbox

import gymnasium  # noqa: F401
import pyspiel  # noqa: F401

PAGE = ROOT / "docs" / "learning.md"
TITLE = "From an environment to a tournament"
#: What the test adds to a command of the page, to run it smaller (a later option wins).
SMALLER = {"examples/learning/train_cachex.py": ["--episodes", "128", "--check", "10"]}
#: The tournament's games here, instead of the config's.
GAMES = 6


def section() -> str:
    return PAGE.read_text().split(f"\n## {TITLE}\n", 1)[1].split("\n## ", 1)[0]


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", section(), re.S)


def commands() -> list[str]:
    return [line for block in blocks("sh") for line in block.splitlines() if line.strip()]


def files() -> dict[str, str]:
    """PATH -> text of each Python block that starts with ``# PATH``."""
    return {text.split("\n", 1)[0][2:]: text for text in blocks("python") if text.startswith("# ")}


def unbroken(text: str) -> str:
    """Prose as one line: a quoted output may be wrapped over two."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """What a student's clone holds that the section's commands use: the agents, the config, the examples."""
    folder = tmp_path_factory.mktemp("clone")
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "agents", folder / "agents", ignore=ignore)
    shutil.copytree(ROOT / "examples", folder / "examples", ignore=ignore)
    config = (ROOT / "configs" / "learned_cachex4.yaml").read_text()
    (folder / "configs").mkdir()
    (folder / "configs" / "learned_cachex4.yaml").write_text(
        re.sub(r"(?m)^games_per_pair: 200 ", f"games_per_pair: {GAMES} ", config))
    return folder


def run(clone: Path, command: str) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    assert words[0] == "python", command
    words += next((more for script, more in SMALLER.items() if script in words), [])
    proc = subprocess.run([sys.executable, *words[1:]], cwd=clone, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{command}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_the_section_has_its_commands_and_files():
    assert len(commands()) == 7
    assert set(files()) == {"agents/linear_cachex4/__init__.py"}


def test_every_command_runs_and_says_what_the_page_says(clone):
    require_sandbox()
    said = unbroken(section())
    train, make, play, tournament, win_rate, make_mcts, play_mcts = commands()

    proc = run(clone, train)
    assert re.fullmatch(r"wrote model\.npz; greedy against random: \d+% of 10 games", proc.stdout.splitlines()[-1])

    proc = run(clone, make)
    assert f"prints `{proc.stdout.strip()}`" in said
    # The page's file is what the command writes, and the repository's agent is such a folder.
    (init,) = [text for text in blocks("python") if "PolicyAgent" in text]
    written = (clone / "agents" / "my_cachex4" / "__init__.py").read_text()
    assert written == init == (ROOT / "agents" / "learned_cachex4" / "__init__.py").read_text()

    proc = run(clone, play)
    assert "UNSEALED" not in proc.stdout + proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert f"ends with `{last}`" in said

    run(clone, tournament)
    records = [json.loads(line) for line in (clone / "results" / "learned_cachex4" / "games.jsonl").open()]
    assert len(records) == GAMES and all(r["sandbox"]["namespaces"] and r["sandbox"]["seccomp"] for r in records)
    proc = run(clone, win_rate)
    overall = re.match(r"overall\s+(\d+) / (\d+)\s+won", proc.stdout)
    assert overall and int(overall[2]) == GAMES, proc.stdout
    assert int(overall[1]) >= GAMES - 1, proc.stdout  # sealed, against the random agent: it wins
    assert [line.split()[0:2] for line in proc.stdout.splitlines()] == [["overall", overall[1]], ["as", "Red"],
                                                                        ["as", "Blue"]]

    run(clone, make_mcts)
    proc = run(clone, play_mcts)
    assert "result:" in proc.stdout and "load_error" not in proc.stdout, proc.stdout


def test_the_pages_own_agent_plays_and_a_model_for_another_board_is_refused_as_quoted(clone):
    require_sandbox()
    for path, text in files().items():
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        (clone / path).write_text(text)
    np.save(clone / "agents" / "linear_cachex4" / "weights.npy", np.random.default_rng(0).normal(size=(112, 17)))
    proc = run(clone, "python -m referee --game cachex -n 4 -v 1 --seed 2 agents/linear_cachex4 agents.random_agent")
    assert "RED plays" in proc.stdout and "RED agent failed" not in proc.stdout, proc.stdout
    # The page quotes what the referee says of the repository's model on a board of 5.
    proc = run(clone, "python -m referee --game cachex -n 5 -v 0 agents/learned_cachex4 agents.random_agent")
    quoted = re.search(r"refuses to start: `(.*?)`\)", unbroken(section()))
    assert quoted and quoted[1] in proc.stdout, proc.stdout
