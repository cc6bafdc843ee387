"""Tampering with records and code outside the agent's folder.

Every write goes through ``guarded_append``: it happens only when played
from a test's copy of the tree (which holds ``common/forbidden.py``),
and never under the real checkout.  Each reports ``{target: outcome}``.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ..common import Plays, Report, ancestors, failure, guarded_append, places_to_look, report, tree_root

FORGED = "FORGED by a hostile agent"


class AppendsToGamesJsonl(Plays):
    """Appends a forged record to the running tournament's ``games.jsonl``.

    Found through the files its parent and grandparent (a tournament's worker
    and main process) hold open, /proc/PID/fd/*, and by path
    (``results/*/games.jsonl`` in the places it looks).  The forged line is
    a copy of the first record, if it can read one, marked :data:`FORGED`.
    Reports by raising (a tournament shows no agent output), so it loses
    every game by ``agent_error``.
    """

    def targets(self) -> list[str]:
        found = []
        for pid in ancestors(2):
            try:
                fds = os.listdir(f"/proc/{pid}/fd")
            except OSError:
                continue
            for fd in fds:
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}").endswith("/games.jsonl"):
                        found.append(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
        for place in places_to_look():
            try:
                found += [str(path) for path in sorted(place.glob("results/*/games.jsonl"))]
            except OSError:
                continue
        return found

    @staticmethod
    def forged_line(target: str) -> bytes:
        try:
            with open(target, "rb") as f:
                record = json.loads(f.readline())
            record["message"] = FORGED
            record["winner"] = "RED" if record.get("winner") == "BLUE" else "BLUE"
        except (OSError, ValueError, AttributeError):
            record = {"message": FORGED}
        return (json.dumps(record) + "\n").encode()

    def attack(self, **referee):
        outcomes = {target: guarded_append(target, self.forged_line(target)) for target in self.targets()}
        raise Report(attack="append to games.jsonl", outcomes=sorted(set(outcomes.values())), targets=len(outcomes))


class AppendsToOpponentsSource(Plays):
    """Appends ``raise ImportError`` to ``agents/random_agent/program.py``, the
    opponent's code (play against agents.random_agent), so it fails to load
    in every later game."""

    line = b'\nraise ImportError("sabotaged by a hostile agent")\n'

    def attack(self, **referee):
        relative = Path("agents", "random_agent", "program.py")
        outcomes = {str(place / relative): guarded_append(place / relative, self.line) for place in places_to_look()}
        report(attack="append to the opponent's source", outcomes=outcomes)


class AppendsToTheAgentHost(Plays):
    """Appends a line to ``referee/hosting/agent_host.py``, the code every agent process runs.

    Found as this process's ``__main__``, next to ``referee.hosting.wire``,
    and by path from the places it looks.
    """

    line = b"\n# tampered with by a hostile agent\n"

    def attack(self, **referee):
        relative = Path("referee", "hosting", "agent_host.py")
        targets = []
        main = getattr(sys.modules.get("__main__"), "__file__", None)
        if main:
            targets.append(main)
        wire = sys.modules.get("referee.hosting.wire")
        if wire is not None:
            targets.append(os.path.join(os.path.dirname(wire.__file__), "agent_host.py"))
        targets += [str(place / relative) for place in places_to_look()]
        targets.append(str(tree_root() / relative))
        outcomes = {}
        for target in dict.fromkeys(targets):
            try:
                outcomes[target] = guarded_append(target, self.line)
            except Exception as exc:  # noqa: BLE001
                outcomes[target] = failure(exc)
        report(attack="append to agent_host.py", outcomes=outcomes)
