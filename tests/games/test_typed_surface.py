"""The typed public surface: one version, the PEP 561 marker, and game states generic over their action."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import referee

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_is_written_once_and_the_cli_prints_it():
    pyproject = (ROOT / "pyproject.toml").read_text()
    project = pyproject.split("[project]", 1)[1].split("\n[", 1)[0]
    # The package's version is read from referee.__version__, not written a second time.
    assert not re.search(r"^version\s*=", project, re.M)
    assert re.search(r'^dynamic\s*=\s*\[.*"version".*\]', project, re.M)
    assert 'version = {attr = "referee.__version__"}' in pyproject
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", referee.__version__)
    # From the source tree, whatever is installed.
    done = subprocess.run(
        [sys.executable, "-m", "referee", "--version"], cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0 and done.stdout.strip() == f"referee {referee.__version__}"


def test_the_type_marker_is_there_and_shipped():
    assert (ROOT / "referee" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    data = pyproject.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^referee\s*=\s*\[.*"py\.typed".*\]', data, re.M)
