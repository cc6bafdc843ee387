"""docs/learning.md, "OpenSpiel": every Python example in the section runs and prints what the page says."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

import pyspiel  # noqa: F401

PAGE = ROOT / "docs" / "learning.md"


def section() -> str:
    text = PAGE.read_text()
    return text.split("\n## OpenSpiel\n", 1)[1].split("\n## ", 1)[0]


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", section(), re.S)


def test_the_section_has_its_examples():
    assert len(examples()) == 2


@pytest.mark.parametrize("number", range(2))
def test_an_example_runs_and_prints_what_its_comments_say(number):
    code = examples()[number]
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.splitlines()
    # Each print(...) line's comment, up to its colon, is what it prints.
    said = [m.group(1).split(":")[0].split(" = ")[0].strip() for m in re.finditer(r"print\(.*\)\s+# (.*)", code)]
    assert printed == said
