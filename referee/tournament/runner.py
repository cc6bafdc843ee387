"""Playing a plan into an output folder: resume, record, progress, stop.

The output folder holds ``tournament.json`` (the plan and its fingerprint),
``games.jsonl`` (one record per finished game, appended and fsynced at once)
and, afterwards, the tables.  Running again on the same folder with the same
plan plays only the games not yet recorded; a different plan is refused.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Iterator

from tqdm import tqdm

from ..core import utc_now
from ..match import play_match
from ..records import GameRecord
from ..termination import leave_hung_up_terminal
from .agent_code import AgentsChanged, code_changes, set_aside_for
from .aggregate import GameSummary, Tally, one_per_game
from .checks import check_records
from .executor import Executor, PlayFunction
from .journal import GAMES_FILE, LOCK_FILE, SUPERSEDED_FILE, GamesFile, JournalError
from .schedule import Job, TournamentPlan, schedule
from .sprt import SprtResult, SprtSettings, sprt_result

if TYPE_CHECKING:
    from .aggregate import Results
    from .config import TournamentConfig
    from .lineup import BrokenAgent
    from .shipping import AgentBundle
    from .tables import LeftOut

META_FILE = "tournament.json"

#: After the lines of games.jsonl that fail the checks, how to go on.
REPAIR_BEFORE = "Nothing was played. After the repair, run the same command again (with --resume) to continue."
REPAIR_AFTER = (
    "Every game this run played is in the file, but the tables were not written. After the repair, run the same "
    "command again (with --resume): the deleted lines' games are played again and the tables written."
)


def tested_agent(plan: TournamentPlan) -> str:
    """Whose side a two-agent match and its SPRT are seen from: the challenger, else the first agent."""
    return plan.agents[plan.format.tested(plan)].display_name


def _differences(stored: dict, current: dict) -> list[str]:
    keys = sorted(set(stored) | set(current))
    return [
        f"{key}: {json.dumps(stored.get(key))} then, {json.dumps(current.get(key))} now"
        for key in keys
        if stored.get(key) != current.get(key)
    ]


@dataclass
class RunSummary:
    total: int
    recorded: int  # games in games.jsonl at the end
    played: int  # games played and recorded by this run
    interrupted: bool = False
    signal: int | None = None  # the last signal that stopped the run (SIGINT, SIGTERM, SIGHUP)
    referee_failures: list[str] = field(default_factory=list)
    sprt: SprtResult | None = None
    seconds: float = 0.0

    @property
    def games_per_minute(self) -> float:
        return 60.0 * self.played / self.seconds if self.seconds > 0 else 0.0


def foreign_contents(folder: Path) -> list[str]:
    """What an existing folder holds if it is not a tournament's output folder (sorted names); [] if it is one,
    is empty (a stale lock aside) or does not exist.

    A tournament's folder is recognised by its ``tournament.json`` or
    ``games.jsonl``; whose tournament it is, :meth:`OutputFolder.open` checks.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return []
    names = sorted(entry.name for entry in folder.iterdir())
    if META_FILE in names or GAMES_FILE in names:
        return []
    return [name for name in names if name != LOCK_FILE]


class OutputFolder:
    """The folder of one plan: checks what is there, records games."""

    def __init__(self, folder: Path, plan: TournamentPlan):
        self.folder = Path(folder)
        self.plan = plan
        self.games = GamesFile(self.folder / GAMES_FILE)
        self.meta = self.folder / META_FILE
        self.notes: list[str] = []

    def holds_a_run(self) -> bool:
        return self.meta.exists() or self.games.exists()

    def read_meta(self) -> dict[str, Any]:
        """``tournament.json`` as written ({} if there is none); raises JournalError if it cannot be read."""
        if not self.meta.exists():
            return {}
        try:
            stored = json.loads(self.meta.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise JournalError(f"{self.meta}: cannot be read: {exc}") from None
        return stored if isinstance(stored, dict) else {}

    def write_meta(self, meta: dict[str, Any]) -> None:
        temporary = self.meta.with_suffix(".tmp")
        temporary.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, self.meta)

    def open(
        self, extra_meta: dict | None = None, *, fresh: bool = False, replay_changed: bool = False
    ) -> tuple[set[int], list[GameSummary]]:
        """Check the folder belongs to this plan and read what is recorded (call with the lock held).

        ``fresh``: set every record aside first (the tournament starts over).
        Records of an agent whose code changed since (:mod:`.agent_code`) are
        set aside with ``replay_changed``, else :class:`AgentsChanged` is
        raised and nothing is touched.
        """
        current = self.plan.describe()
        stored = self.read_meta()
        if stored and stored.get("fingerprint") != self.plan.fingerprint:
            changes = _differences(stored.get("plan", {}), current) or ["(the stored fingerprint differs)"]
            raise JournalError(
                f"{self.folder} holds games of a different tournament; changed: "
                + "; ".join(changes)
                + ". Use another output folder (-o DIR), or delete this one to start again."
            )
        torn = self.games.trim()
        if torn:
            self.notes.append(
                f"{self.games.path}: removed an incomplete last line ({torn.describe()}) left by an interrupted run"
            )
        history = [entry for entry in stored.get("superseded", []) if isinstance(entry, dict)]
        runs = [entry for entry in stored.get("runs", []) if isinstance(entry, dict)]
        if fresh and self.games.exists():
            moved = self._set_aside(None)
            history.append({"at": utc_now(), "why": "--fresh", "games": moved})
            runs = []  # the time the set-aside games took is theirs
            self.notes.append(
                f"--fresh: the {moved} recorded games were set aside in {self.superseded}; the tournament starts over"
            )
        summaries = check_records(self.plan, self.games, REPAIR_BEFORE)
        stored_code = stored.get("code") if isinstance(stored.get("code"), dict) else None
        changed, unverified = code_changes(self.plan, summaries, stored_code)
        if unverified:
            self.notes.append(
                f"{self.folder}: its {unverified} games were recorded before the agents' code was fingerprinted, so "
                "whether an agent changed since cannot be told: they are kept, as games of the agents' code as it is "
                "now. If an agent changed since they were played, run again with --fresh."
            )
        if changed:
            if not replay_changed:
                raise AgentsChanged(self.folder, changed)
            names = {change.name for change in changed}
            aside = set_aside_for(self.plan, summaries, names)
            self._set_aside(aside)
            history.append({
                "at": utc_now(), "why": "code changed", "games": len(aside),
                "agents": {c.name: {"then": list(c.recorded), "now": c.current} for c in changed},
            })
            theirs = sum(1 for s in one_per_game(summaries) if s.red in names or s.blue in names)
            later = len(aside) - theirs
            also = f" and {later} of later rounds, paired from their results," if later else ""
            whose = "its" if len(names) == 1 else "their"
            self.notes.append(
                f"{self.folder}: the code of {', '.join(sorted(names))} changed: {whose} {theirs} recorded games{also} "
                f"were set aside in {self.superseded} and are played again"
            )
            summaries = check_records(self.plan, self.games, REPAIR_BEFORE)
        done: set[int] = set()
        kept = []
        for summary in one_per_game(summaries):
            assert summary.index is not None  # check_records refuses a record without one
            done.add(summary.index)
            kept.append(summary)
        meta = {
            "name": self.plan.name, "fingerprint": self.plan.fingerprint, "plan": current,
            "code": dict(self.plan.code), **(extra_meta or {}),
            **({"superseded": history} if history else {}), **({"runs": runs} if runs else {}),
        }
        self.write_meta(meta)
        return done, kept

    def add_run(self, entry: dict[str, Any]) -> None:
        """Add a run (when, how long, where) to ``tournament.json``'s ``runs``, which the report sums up."""
        meta = self.read_meta()
        meta["runs"] = [*meta.get("runs", []), entry]
        self.write_meta(meta)

    @property
    def superseded(self) -> Path:
        return self.folder / SUPERSEDED_FILE

    def _set_aside(self, indices: set[int] | None) -> int:
        """Move those games' records (None: all) to superseded.jsonl, and drop their replays, now of other games."""
        moved = self.games.set_aside(self.superseded, indices)
        replays = self.folder / "replays"
        if replays.is_dir():
            for page in replays.glob("game-*.html"):
                number = page.stem.removeprefix("game-")
                if indices is None or (number.isdigit() and int(number) in indices):
                    page.unlink()
        return moved

    def record(self, record: GameRecord) -> str | None:
        """Append a finished game; returns a note if a torn line someone else wrote had to be cut off first."""
        trimmed = self.games.append(record)
        if trimmed is None:
            return None
        note = (
            f"{self.games.path}: cut off {trimmed.describe()} that something else wrote at its end during the run "
            "(a line without a newline is never a record), before recording the next game"
        )
        self.notes.append(note)
        return note

    def final_records(self) -> list[GameSummary]:
        """Every record at the end of a run, checked again: the file may have been written to meanwhile.

        A torn last line is cut off (with a note); a line that fails the
        checks raises :class:`~referee.tournament.checks.RecordsRefused`.
        """
        torn = self.games.trim()
        if torn:
            self.notes.append(
                f"{self.games.path}: cut off {torn.describe()} that something else wrote at its end during the run "
                "(a line without a newline is never a record)"
            )
        return check_records(self.plan, self.games, REPAIR_AFTER)

    def close(self) -> None:
        self.games.close()


class RunObserver:
    """What a run reports on the way (:func:`referee.tournament.run` prints nothing itself); every hook does
    nothing by default."""

    def broken(self, agent: BrokenAgent) -> None:
        """A discovered folder that failed to load (left out, or kept in to forfeit)."""

    def shipped(self, bundle: AgentBundle) -> None:
        """The agents' folders were sent to the executor's workers."""

    def note(self, text: str) -> None:
        """Something done to the output folder's files (a torn last line cut off...)."""

    def starting(self, plan: TournamentPlan, config: TournamentConfig, already: int, where: str, output: Path) -> None:
        """The games are about to start: ``already`` are recorded, ``where`` says where the rest run."""

    def failed(self, index: int, error: str) -> None:
        """Game ``index`` failed in the referee itself (``error``: its traceback); it is not recorded."""

    def stopping(self, discard: bool) -> None:
        """A signal stopped the run (only with ``handle_signals``); ``discard``: the running games are abandoned.

        Called from the signal handler: no buffered I/O, no locks.
        """

    def tables(self, results: Results, sprt: SprtSettings | None, left_out: tuple[LeftOut, ...]) -> None:
        """The results, before the tables and the report are written."""


class _StopOnSignals:
    """First Ctrl-C: finish the running games; second (or SIGTERM, SIGHUP): discard them.

    Installed only when asked (``handle_signals``): a library caller keeps its own handlers, and Ctrl-C is a
    KeyboardInterrupt that stops the games (the executor kills their agents on the way out).
    """

    def __init__(self, executor: Executor, observer: RunObserver, install: bool):
        self.executor = executor
        self.observer = observer
        self.install = install
        self.interrupts = 0
        self.signal: int | None = None
        self.previous: dict[int, Any] = {}  # signal.signal's handlers, restored on exit

    def _handle(self, signum: int, frame: object) -> None:
        self.interrupts += 1
        self.signal = signum
        leave_hung_up_terminal(signum)
        # SIGTERM and SIGHUP ask to end now (a hung-up terminal cannot wait for a second Ctrl-C).
        discard = self.interrupts > 1 or signum != signal.SIGINT
        self.executor.stop(discard=discard)
        self.observer.stopping(discard)

    def __enter__(self) -> _StopOnSignals:
        if self.install and threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


def run_plan(
    plan: TournamentPlan,
    folder: OutputFolder,
    done: set[int],
    recorded: list[GameSummary],
    executor: Executor,
    *,
    play: PlayFunction = play_match,
    sprt: SprtSettings | None = None,
    progress: bool = True,
    limit: int | None = None,
    observer: RunObserver | None = None,
    handle_signals: bool = False,
) -> RunSummary:
    """Play the games of ``plan`` not in ``done`` on ``executor``, recording each as it finishes.

    ``limit`` stops after that many new games (for benchmarks).  A Swiss plan
    is played a round at a time: a round's games all at once, then the next
    round is paired from the results; a ladder plan likewise batch by batch, a
knockout plan by what its bracket can pair (a round, or level ties' extra games).
    """
    total = plan.total_games
    two_agents = len(plan.agents) == 2
    observer = observer or RunObserver()
    tally = Tally(tested_agent(plan) if two_agents else None)
    for game in recorded:
        tally.add(game)
    summary = RunSummary(total=total, recorded=len(done), played=0)

    def sprt_state() -> SprtResult | None:
        if sprt is None:
            return None
        return sprt_result(tally.wins, tally.draws, tally.losses, sprt, games_left=len(done) < total)

    summary.sprt = sprt_state()
    if summary.sprt is not None and summary.sprt.decided:
        return summary
    winners = {game.index: game.winner for game in recorded if game.index is not None}

    def batches() -> Iterator[Iterator[Job]]:
        """The games to play: all at once, or (a format paired from results) what the results so far pair."""
        if not plan.format.adaptive:
            yield schedule(plan, skip=done)
            return
        tried: tuple[tuple[int, ...], int] | None = None
        memo: dict[str, Any] = {}
        while True:
            draw = plan.format.draw(plan, winners, memo)
            batch = tuple(draw.next_games(done))
            if not batch:
                return  # every round played
            if tried == (batch, summary.played):
                return  # the round was tried and nothing more was played (referee failures, a stop)
            tried = (batch, summary.played)
            yield schedule(plan, skip=done, draw=draw, games=batch)

    bar = tqdm(
        total=total,
        initial=len(done),
        desc=plan.name,
        unit="game",
        file=sys.stderr,
        disable=not progress,
        dynamic_ncols=True,
    )
    start = time.monotonic()
    try:
        with _StopOnSignals(executor, observer, handle_signals) as signals:
            for jobs in batches():
                if signals.interrupts or (summary.sprt is not None and summary.sprt.decided):
                    break
                if limit is not None:
                    if summary.played >= limit:
                        break
                    jobs = islice(jobs, limit - summary.played)
                for finished in executor.run(play, jobs):
                    if finished.record is None:
                        summary.referee_failures.append(f"game {finished.job.index}: {finished.error}")
                        observer.failed(finished.job.index, finished.error or "")
                        continue
                    note = folder.record(finished.record)
                    if note:
                        observer.note(note)
                    done.add(finished.job.index)
                    winners[finished.job.index] = finished.record.winner
                    tally.add(GameSummary.of(finished.record))
                    summary.played += 1
                    summary.seconds = time.monotonic() - start
                    summary.sprt = sprt_state()
                    status = [tally.describe(), f"{summary.games_per_minute:.1f} games/min"]
                    if summary.sprt is not None:
                        sprt_now = summary.sprt
                        status.append(f"LLR {sprt_now.llr:.2f} ({sprt_now.lower:.2f}, {sprt_now.upper:.2f})")
                    bar.set_postfix_str(", ".join(status), refresh=False)
                    bar.update(1)
                    if summary.sprt is not None and summary.sprt.decided:
                        executor.stop(discard=True)
            summary.interrupted = signals.interrupts > 0
            summary.signal = signals.signal
    finally:
        bar.close()
        folder.close()
    summary.seconds = time.monotonic() - start
    summary.recorded = len(done)
    summary.sprt = sprt_state()
    return summary
