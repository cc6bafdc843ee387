"""No path of one machine in the repository: commands in docs, configs and code name paths in the user's clone
relatively (or through a variable such as ``$CLONE``), never as the absolute path of the clone they were written
in (DEVELOPERS.md; issue 47)."""
from __future__ import annotations

import re
import subprocess

import pytest

from tests.helpers import ROOT

#: An absolute path that runs into a folder of this repository (``/somewhere/clone/configs/x.yaml``); one after
#: ``$CLONE``, ``~``, a quote or a dot is relative to something the reader has.
INTO_A_CLONE = re.compile(r"(?<![\w$}\"'.~])/(?:[\w.-]+/)+(?:configs|agents|referee|docs|benchmarks|tests)/")
TEXT = (".md", ".yaml", ".yml", ".py", ".txt", ".toml", ".cfg", ".sh")


def tracked_text_files() -> list[str]:
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an unpacked archive): which files are the repository's is unknown")
    return [name for name in listed.splitlines() if name.endswith(TEXT) and not name.startswith("tests/")]


def test_no_tracked_file_names_a_path_into_a_clone_of_one_machine():
    found = []
    for name in tracked_text_files():
        for number, line in enumerate((ROOT / name).read_text(errors="replace").splitlines(), start=1):
            if str(ROOT) in line or INTO_A_CLONE.search(line):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    assert found == [], "\n".join(found)


def test_the_check_sees_such_a_path():
    assert INTO_A_CLONE.search("cd /srv/x && python -m referee tournament /srv/x/configs/swiss.yaml")
    assert not INTO_A_CLONE.search('python -m referee tournament "$CLONE"/configs/swiss.yaml')
    assert not INTO_A_CLONE.search("tokens in ~/.config/referee/battleground-tokens.json")
