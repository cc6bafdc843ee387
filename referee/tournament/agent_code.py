"""Fingerprints of the agents' code, so that a record is never taken for a game of code that has changed.

An agent's fingerprint is a hash of the files the sandbox shows of it: its
package folder (every file, data included, but ``__pycache__``, ``*.pyc``
and version-control folders), or its module file, and a ``common`` package
beside the folder, which the sandbox shows too (the bundled agents' search
code lives in ``agents/common``).  The files are hashed in a fixed order,
each with its path relative to the folder that holds the package, so a
renamed, added or removed file changes the fingerprint as an edit does.
Nothing is imported: the package is found by path, the way the sandbox and
the config checks find it.

Each record of a tournament carries its two agents' fingerprints
(``extra.code_hash``); a run that finds a record whose fingerprint is not
the agent's current one does not reuse it (docs/tournament.md, "When an
agent's code changes").
"""
from __future__ import annotations

import hashlib
import importlib.machinery
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..hosting.sandbox import locate_module
from ..match import AgentEntry, SpecError, parse_spec
from .aggregate import GameSummary, one_per_game
from .journal import SUPERSEDED_FILE, JournalError
from .schedule import TournamentPlan
from .shipping import package_files

#: Hex digits kept of a fingerprint (64 bits: no two versions of a class's agents collide in practice).
DIGITS = 16
#: Read files in pieces of this size (a data file may be large).
_CHUNK = 1 << 20


def _file_digest(path: Path) -> bytes:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while piece := file.read(_CHUNK):
            digest.update(piece)
    return digest.digest()


def _folder_entries(folder: Path, cache: dict[Path, list[bytes]]) -> list[bytes]:
    """One entry per file of ``folder`` (its path from the folder's parent, its content's hash), in order."""
    if folder not in cache:
        entries = []
        for path in package_files(folder):
            try:
                content = _file_digest(path)
            except OSError as exc:  # unreadable here: it would be unreadable to the agent too; hash the error
                content = f"unreadable: {exc.strerror}".encode()
            entries.append(path.relative_to(folder.parent).as_posix().encode() + b"\0" + content)
        cache[folder] = entries
    return cache[folder]


def code_files(spec: str, workdir: Path) -> list[Path]:
    """The folders and files that make up the agent of ``spec`` as imported from ``workdir`` ([]: none found)."""
    try:
        module, _ = parse_spec(spec)
    except SpecError:
        return []
    found_at, found = locate_module(workdir, module)
    if found < len(module.split(".")):
        return []
    if found_at.is_dir():
        common = found_at.parent / "common"
        shared = [common] if common != found_at and (common / "__init__.py").is_file() else []
        return [found_at, *shared]
    # A module file: the first of the suffixes Python would import it from (source, bytecode, extension).
    for suffix in importlib.machinery.all_suffixes():
        file = found_at.with_name(found_at.name + suffix)
        if file.is_file():
            return [file]
    return []


def code_hash(spec: str, workdir: Path, cache: dict[Path, list[bytes]] | None = None) -> str:
    """The fingerprint of the agent of ``spec`` as imported from ``workdir``.

    ``cache``: folders already read (a shared ``common`` package is read
    once for a whole lineup).  An agent whose package is not there gets the
    fingerprint of no files: it cannot be loaded anyway, and its code
    appearing later changes the fingerprint.
    """
    cache = {} if cache is None else cache
    digest = hashlib.sha256()
    for path in code_files(spec, workdir):
        if path.is_dir():
            entries = _folder_entries(path, cache)
        else:
            entries = [path.name.encode() + b"\0" + _file_digest(path)]
        for entry in entries:
            digest.update(len(entry).to_bytes(8, "big") + entry)
    return digest.hexdigest()[:DIGITS]


def code_hashes(agents: Iterable[AgentEntry], workdir: Path) -> dict[str, str]:
    """Each agent's fingerprint by its name (see :func:`code_hash`)."""
    cache: dict[Path, list[bytes]] = {}
    return {agent.display_name: code_hash(agent.spec, workdir, cache) for agent in agents}


@dataclass(frozen=True)
class CodeChange:
    """An agent whose recorded games were played by other code than its current one."""

    name: str
    spec: str
    recorded: tuple[str, ...]  # the other fingerprints its records carry
    current: str
    games: int  # its recorded games of other code

    def describe(self) -> str:
        games = f"{self.games} recorded game{'s' * (self.games != 1)}"
        return f"{self.name} ({self.spec}): code {', '.join(self.recorded)} in {games}, {self.current} now"


class AgentsChanged(JournalError):
    """Recorded games of agents whose code has changed since: not reused unless asked to replay them."""

    def __init__(self, folder: Path, changes: Sequence[CodeChange]):
        self.folder = folder
        self.changes = tuple(changes)
        lines = [f"{folder} holds games of agents whose code changed since they were played:"]
        lines += [f"  {change.describe()}" for change in self.changes]
        lines.append(
            "Those games are not reused. Play the changed agents' games again (replay_changed; the command's "
            "--replay-changed), or start the whole tournament over (fresh; --fresh); either way the old records "
            f"are set aside in {folder / SUPERSEDED_FILE}."
        )
        super().__init__("\n".join(lines))


def code_changes(
    plan: TournamentPlan, games: Iterable[GameSummary], stored: Mapping[str, str] | None
) -> tuple[list[CodeChange], int]:
    """The agents whose recorded games carry another fingerprint than the plan's, and how many games say nothing.

    A record without a fingerprint (written before fingerprints were kept)
    counts as played by the code ``stored`` in ``tournament.json`` when it
    has one; else it cannot be checked and is counted as unverified.
    """
    if not plan.code:
        return [], 0
    recorded: dict[str, Counter[str]] = {}
    unverified = 0
    for game in one_per_game(games):
        blind = False
        for name, code in zip((game.red, game.blue), game.code):
            code = code or (stored or {}).get(name)
            if code is None:
                blind = True
            else:
                recorded.setdefault(name, Counter())[code] += 1
        unverified += blind
    changes = []
    for agent in plan.agents:
        name, current = agent.display_name, plan.code.get(agent.display_name)
        stale = {code: count for code, count in recorded.get(name, {}).items() if code != current}
        if current is not None and stale:
            changes.append(CodeChange(name, agent.spec, tuple(sorted(stale)), current, sum(stale.values())))
    return changes, unverified


def set_aside_for(plan: TournamentPlan, games: Iterable[GameSummary], changed: Collection[str]) -> set[int]:
    """The game indices to play again when the agents ``changed`` have changed: all their games, and in a plan
    paired from results (Swiss, ladder, knockout) every game of a later round, since its pairing came from
    results that are now to be played again."""
    games = one_per_game(games)
    aside = {game.index for game in games if game.red in changed or game.blue in changed}
    if plan.format.adaptive and aside:
        first = min(game.round or 0 for game in games if game.index in aside)
        aside |= {game.index for game in games if game.round is not None and game.round > first}
    return {index for index in aside if index is not None}
