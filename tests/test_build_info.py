"""Which referee this is (referee/build_info.py): the commit of the package's folder as git tells it, asked of real
git repositories in temporary folders, and what is said when git cannot tell."""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

from referee import __version__
from referee.build_info import RefereeBuild, referee_build

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(folder: Path, *args: str) -> str:
    """Run git in ``folder`` as a person would (none of the caller's GIT_* settings), its output."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(folder), *args],
                          capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A repository whose package folder ``pkg/`` is committed, as a clone of the referee is."""
    package = tmp_path / "clone" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("VERSION = 1\n")
    (tmp_path / "clone" / "README").write_text("outside the package\n")
    git(tmp_path / "clone", "init", "-q")
    git(tmp_path / "clone", "add", ".")
    git(tmp_path / "clone", "commit", "-q", "-m", "first")
    return package


@needs_git
def test_a_clean_checkout_names_its_commit(checkout):
    build = referee_build(checkout)
    assert build.commit == git(checkout, "rev-parse", "--short", "HEAD") and not build.modified
    assert build.describe() == (
        f"{__version__} at commit {build.commit}, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.platform()}"
    )
    assert RefereeBuild.from_dict(build.as_dict()) == build  # as tournament.json keeps it


@needs_git
def test_uncommitted_changes_in_the_package_say_modified_and_elsewhere_do_not(checkout):
    (checkout.parent / "README").write_text("edited, but not the referee's code\n")
    assert not referee_build(checkout).modified
    (checkout / "__init__.py").write_text("VERSION = 2\n")
    edited = referee_build(checkout)
    assert edited.modified and "(modified: uncommitted changes in referee/)" in edited.describe()
    git(checkout, "commit", "-q", "-am", "second")
    assert not referee_build(checkout).modified
    (checkout / "new_module.py").write_text("")  # not committed, and code all the same
    assert referee_build(checkout).modified


@needs_git
def test_a_package_that_git_does_not_track_is_not_a_git_checkout(checkout, tmp_path):
    # A copy outside any repository, and one inside another project's repository that does not track it (a virtual
    # environment inside a project): neither has a commit of its own.
    alone = tmp_path / "alone"
    shutil.copytree(checkout, alone)
    inside = checkout.parent / "venv" / "pkg"
    shutil.copytree(checkout, inside)
    for package in (alone, inside):
        build = referee_build(package)
        assert (build.commit, build.modified, build.source) == ("", False, "not a git checkout")
        assert build.describe().startswith(f"{__version__}, not a git checkout, Python ")


def test_without_git_the_build_says_so(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    build = referee_build(tmp_path)
    assert (build.commit, build.source) == ("", "commit unknown (git not found)")
    assert build.describe().startswith(f"{__version__}, commit unknown (git not found), Python ")


def test_a_run_recorded_before_builds_were_has_none():
    assert RefereeBuild.from_dict(None) is None and RefereeBuild.from_dict({"version": "0.1.0"}) is None
