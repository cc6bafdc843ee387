"""docs/learning.md, "PettingZoo", "Gymnasium" and "Speed": every Python example runs and prints what its
comments say, and the speed command prints its table (briefly: speed is measured by the command, not here)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

import pettingzoo  # noqa: F401
import gymnasium  # noqa: F401

PAGE = ROOT / "docs" / "learning.md"


def section(title: str) -> str:
    return PAGE.read_text().split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def run_python(code: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.mark.parametrize("title", ["PettingZoo", "Gymnasium"])
def test_the_sections_example_prints_what_its_comments_say(title):
    (code,) = re.findall(r"```python\n(.*?)```", section(title), re.S)
    # Each print(...) line's comment is what it prints.
    said = [m.group(1).strip() for m in re.finditer(r"^print\(.*\)\s+# (.*)$", code, re.M)]
    assert said and run_python(code) == said


def test_the_speed_command_prints_every_row():
    (command,) = re.findall(r"```sh\n(.*?)```", section("Speed"), re.S)
    args = command.split("#")[0].split()
    assert args[:2] == ["python", "-m"]
    proc = subprocess.run([sys.executable, *args[1:], "--seconds", "0.01", "--rounds", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if "actions/s" not in line and "---" not in line]
    for interface in ("our engine: random_playout", "OpenSpiel game", "PettingZoo env: last() + step",
                      "PettingZoo env: step only", "Gymnasium env vs random_agent"):
        assert sum(interface in row for row in rows) == 2, proc.stdout  # Cachex and Infexion
    assert any("hex(board_size=7)" in row for row in rows)
    assert any("connect_four_v3" in row for row in rows)  # measured, or why not (pygame is not in the extra)
