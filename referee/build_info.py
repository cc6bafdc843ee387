"""Which referee this is: its version, the git commit of its code, the Python running it and the platform.

A published report must name the code that produced it, and a version
number alone does not: every commit between two releases says "0.1.0".  So
a tournament asks once per run (:func:`referee_build`) and keeps the answer
with the run (``tournament.json``) and in its report.

The commit is git's, asked about the folder of the ``referee`` package
itself: ``modified`` when that folder has changes not committed (edited,
added or deleted files, untracked ones too: any of them may change what the
referee does).  A package that git does not track there (installed from a
wheel, or a copy) is "not a git checkout".  Git may be missing or refuse the
folder (another user's repository): the answer then says so, and never
raises.
"""
from __future__ import annotations

import os
import platform
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import __version__

#: The folder whose commit is asked for: this package's.
PACKAGE = Path(__file__).resolve().parent
#: Git answers in milliseconds; a hung one (a network file system) must not hold up a tournament.
GIT_TIMEOUT = 10.0


@dataclass(frozen=True)
class RefereeBuild:
    """The referee's version, its code's commit (``""``: none known, ``source`` says why), Python and platform."""

    version: str
    commit: str
    modified: bool
    source: str  # "git", "not a git checkout", or why git could not tell ("git not found")
    python: str
    platform: str

    def describe(self) -> str:
        """One line for a report: ``0.1.0 at commit 1a2b3c4 (modified: ...), Python 3.11.7 (CPython), Linux-...``."""
        if not self.commit:
            code = f"{self.version}, {self.source}"
        elif self.source != "git":
            code = f"{self.version} at commit {self.commit} ({self.source})"
        else:
            modified = " (modified: uncommitted changes in referee/)" if self.modified else ""
            code = f"{self.version} at commit {self.commit}{modified}"
        return f"{code}, Python {self.python}, {self.platform}"

    def as_dict(self) -> dict[str, Any]:
        """As ``tournament.json`` keeps it."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> RefereeBuild | None:
        """Back from :meth:`as_dict` (None: not one, e.g. a run recorded before builds were)."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(str(data["version"]), str(data["commit"]), bool(data["modified"]), str(data["source"]),
                       str(data["python"]), str(data["platform"]))
        except KeyError:
            return None


def _git(package: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # --no-optional-locks: asking must not take .git/index.lock from someone committing at the same time.
    # GIT_DIR and the like from the caller's environment would point git at another repository.
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return subprocess.run(
        ["git", "--no-optional-locks", "-C", str(package), *args],
        capture_output=True, text=True, timeout=GIT_TIMEOUT, env=env, check=False,
    )


def _commit(package: Path) -> tuple[str, bool, str]:
    """(short commit, modified, source) of the code in ``package``."""
    try:
        head = _git(package, "rev-parse", "--short", "HEAD")
        if head.returncode != 0:
            problem = head.stderr.strip().splitlines()[-1:] or [f"exit status {head.returncode}"]
            if "not a git repository" in problem[0]:
                return "", False, "not a git checkout"
            return "", False, f"commit unknown (git: {problem[0]})"
        # A package inside someone else's repository (a virtual environment in a project) is not that project's.
        tracked = _git(package, "ls-files", "--", "__init__.py")
        if tracked.returncode != 0 or not tracked.stdout.strip():
            return "", False, "not a git checkout"
        status = _git(package, "status", "--porcelain", "--", ".")
        if status.returncode != 0:
            return head.stdout.strip(), False, "whether modified is unknown: git status failed"
        return head.stdout.strip(), bool(status.stdout.strip()), "git"
    except FileNotFoundError:
        return "", False, "commit unknown (git not found)"
    except (OSError, subprocess.SubprocessError) as exc:
        return "", False, f"commit unknown (git failed: {exc})"


def referee_build(package: Path = PACKAGE) -> RefereeBuild:
    """This referee: ask once (a run, not a game, needs it; it runs git a few times)."""
    commit, modified, source = _commit(package)
    return RefereeBuild(
        __version__, commit, modified, source,
        f"{platform.python_version()} ({platform.python_implementation()})", platform.platform(),
    )
