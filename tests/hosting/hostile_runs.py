"""Playing the hostile agents (tests/hosting/hostile/) safely, for test_sealed.py and test_unsealed.py.

Every game runs from a copy of the tree in a temporary folder (``referee/``,
``agents/`` and the hostile agents, imported from there and nowhere else),
so that an attack that gets through (a broken sandbox, or none) damages a
copy, never this checkout.  The copy's ``common/forbidden.py`` names
this checkout, under which the hostile agents refuse to write anyway.

Each test gets a fresh seed, which names the victim's and the helpers'
processes (an attacker hits only its own game's victim); afterwards
:func:`clean_up` kills whatever an attack left behind and removes its
files from /tmp and /dev/shm.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import ROOT, run_referee

from .hostile.common import PREFIX, helper_name, victim_name
from .runs import alive, assert_nothing_left, referee

HOSTILE = "tests.hosting.hostile"
VICTIM = f"{HOSTILE}.victim:Victim"
SLOW_VICTIM = f"{HOSTILE}.victim:SlowVictim"
RANDOM = "agents.random_agent"
RULE_ENDINGS = ("elimination", "turn_limit", "no_tokens")
SEALED = ["--sandbox", "required"]


# -- the copy of the tree ---------------------------------------------------------


def copy_tree(dest: Path) -> Path:
    """Copy what a game needs to ``dest``; check that it imports from there."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "forbidden.py")
    for package in ("referee", "agents"):
        shutil.copytree(ROOT / package, dest / package, ignore=ignore)
    (dest / "tests" / "hosting").mkdir(parents=True)
    for init in ("tests/__init__.py", "tests/hosting/__init__.py"):
        shutil.copy(ROOT / init, dest / init)
    shutil.copytree(ROOT / "tests/hosting/hostile", dest / "tests/hosting/hostile", ignore=ignore)
    (dest / "tests/hosting/hostile/common/forbidden.py").write_text(f"ROOTS = [{str(ROOT)!r}]\n")
    probe = subprocess.run(
        [sys.executable, "-c", "import referee, agents, tests.hosting.hostile.common as c\n"
         "print(referee.__file__); print(agents.__file__); print(c.__file__)"],
        cwd=dest, env=dict(os.environ, **tree_env(dest)), capture_output=True, text=True, timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    for path in probe.stdout.split():
        assert Path(path).resolve().is_relative_to(dest.resolve()), f"{path} is imported from outside the copy {dest}"
    return dest


def tree_env(tree: Path) -> dict[str, str]:
    """The environment that makes a process import everything from the copy."""
    return {"PYTHONPATH": str(tree)}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- seeds and what attacks leave behind ------------------------------------------


def fresh_seed() -> int:
    return random.SystemRandom().randrange(10**9, 10**12)


def processes_named(name: str) -> list[int]:
    """Living processes whose ``comm`` is ``name``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as f:
                    comm = f.read().strip()
            except OSError:
                continue
            if comm == name and alive(int(entry)):
                found.append(int(entry))
    return found


def helpers_left(seed: int, wait: float = 1.0) -> list[int]:
    """The helper processes of the game with ``seed`` still alive after up to ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        left = processes_named(helper_name(seed))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def scratch_files(seed: int) -> list[Path]:
    """The files attacks with this seed may leave on the machine (outside the copy)."""
    return [
        Path(f"/dev/shm/hostile-{seed}"),
        Path(f"/dev/shm/hostile-counter-{seed}"),
        Path(f"/tmp/hostile-counter-{seed}"),
    ]


def clean_up(seed: int) -> None:
    """Kill the processes and remove the files an attack with ``seed`` left behind."""
    for name in (helper_name(seed), victim_name(seed)):
        for pid in processes_named(name):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    for path in scratch_files(seed):
        path.unlink(missing_ok=True)


# -- games and tournaments ----------------------------------------------------------


@dataclass
class Game:
    code: int
    record: dict | None
    out: str
    err: str

    def reports(self, color: str = "RED") -> list[dict]:
        """What the agent of ``color`` reported (``HOSTILE {json}`` lines), in order.

        From the referee's output at ``-v 3`` (``RED | HOSTILE ...``) and, if
        the agent failed, from the output and message kept in the record.
        """
        found = []
        shown = f"{color} | {PREFIX}"
        for line in self.out.splitlines():
            line = line.strip()
            if line.startswith(shown):
                found.append(json.loads(line[len(shown):]))
        error = (self.record or {}).get("error", {}).get(color) or {}
        for text in (error.get("output_tail") or "", error.get("message") or ""):
            for line in text.splitlines():
                at = line.find(PREFIX)
                if at >= 0:
                    try:
                        report = json.loads(line[at + len(PREFIX):])
                    except ValueError:
                        continue  # cut short
                    if report not in found:
                        found.append(report)
        return found

    def report_with(self, key: str, color: str = "RED") -> dict:
        """The first report holding ``key``."""
        for report in self.reports(color):
            if key in report:
                return report
        raise AssertionError(f"{color} reported no {key!r}: {self.reports(color)}\n{self.context()}")

    def values(self, key: str, color: str = "RED") -> list:
        return [report[key] for report in self.reports(color) if key in report]

    def context(self) -> str:
        record = self.record or {}
        return (
            f"exit {self.code}; {record.get('message')}; errors {record.get('error')}\n"
            f"stderr: {self.err[-1500:]}"
        )


def play(
    tree: Path, tmp_path: Path, red: str, blue: str, *options: str, seed: int, sealed: bool = True,
    env: dict[str, str] | None = None,
) -> Game:
    """One game at ``-v 3`` from the copy ``tree``, with the sandbox required (or, ``sealed=False``, off).

    Like runs.referee (which it uses): afterwards no process of the
    game may be alive.  ``env``: more environment variables for the referee.
    """
    mode = SEALED if sealed else ["--sandbox", "off"]
    code, record, out, err, _ = referee(
        tmp_path, red, blue, "-v", "3", "--seed", str(seed), *mode, *options,
        cwd=tree, env={**tree_env(tree), **(env or {})}, timeout=90,
    )
    return Game(code, record, out, err)


def tournament(
    tree: Path, tmp_path: Path, name: str, agents: dict[str, str], sealed: bool = True, workers: int = 1,
    env: dict[str, str] | None = None,
):
    """A small tournament (two games per pair, one worker) from the copy ``tree``.

    Returns (the finished process, the output folder ``tree/results/NAME``).
    No process of it may outlive it.  ``env``: more environment variables for the referee.
    """
    mode = "required" if sealed else "off"
    lines = [f"name: {name}", "game: infexion", "agents:"]
    lines += [f"  - {{name: {agent}, spec: '{spec}'}}" for agent, spec in agents.items()]
    lines += ["games_per_pair: 2", f"workers: {workers}", f"seed: {fresh_seed()}"]
    lines.append(f"sandbox: {mode}")
    config = tmp_path / f"{name}.yaml"
    config.write_text("\n".join(lines) + "\n")
    marker = str(tmp_path / "tournament-marker")
    proc = run_referee(
        "tournament", str(config), "-q",
        cwd=tree, env=dict(os.environ, **tree_env(tree), REFEREE_TEST_PIDS=marker, **(env or {})), timeout=120,
    )
    assert_nothing_left(marker)
    return proc, tree / "results" / name


def tournament_reports(folder: Path, agent: str) -> list[dict]:
    """What ``agent`` reported by raising (``HOSTILE {json}`` in its error message), game by game."""
    found = []
    for line in (folder / "games.jsonl").read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        for color, name in (("RED", record.get("red_name")), ("BLUE", record.get("blue_name"))):
            error = (record.get("error") or {}).get(color) or {}
            message = error.get("message") or ""
            if name == agent and PREFIX in message:
                found.append(json.loads(message[message.index(PREFIX) + len(PREFIX):]))
    return found

