"""REFEREE_REQUIRE_BROWSER turns a missing browser into a failure, whatever is missing.

Each case runs one browser test in a fresh pytest with a ``playwright`` that
cannot be imported placed first on the path, as if the package were not
installed.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REQUIRE_BROWSER
from tests.helpers import ROOT

ONE_BROWSER_TEST = "tests/render/test_html_replay.py::test_page_loads_clean_and_offline"


def run_without_playwright(tmp_path: Path, require: bool) -> subprocess.CompletedProcess:
    blocker = tmp_path / "no_playwright" / "playwright"
    blocker.mkdir(parents=True, exist_ok=True)
    (blocker / "__init__.py").write_text("raise ImportError(\"No module named 'playwright'\")\n")
    env = {key: value for key, value in os.environ.items() if key != REQUIRE_BROWSER}
    env["PYTHONPATH"] = os.pathsep.join([str(blocker.parent), *filter(None, [env.get("PYTHONPATH")])])
    if require:
        env[REQUIRE_BROWSER] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", ONE_BROWSER_TEST],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )


def test_a_missing_playwright_fails_the_browser_tests_when_a_browser_is_required(tmp_path):
    proc = run_without_playwright(tmp_path, require=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 error" in proc.stdout and "skipped" not in proc.stdout
    assert "the playwright package cannot be imported" in proc.stdout
    assert f"{REQUIRE_BROWSER} is set, so this is a failure, not a skip" in proc.stdout


def test_a_missing_playwright_skips_the_browser_tests_otherwise(tmp_path):
    proc = run_without_playwright(tmp_path, require=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 skipped" in proc.stdout and "the playwright package cannot be imported" in proc.stdout
