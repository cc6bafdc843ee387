"""A recorded game analysed: each decision's position judged (cached, on worker processes), then marked."""
from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..games import recorded_game
from ..games.base import Game, GameState
from ..records import AGENT_FAILURE_REASONS, GameRecord
from .engine import EngineSettings, Evaluation, evaluate, position_digest
from .review import Decision, Judged, decisions, judge, turning_point

#: The cache's file under the user's cache folder (``XDG_CACHE_HOME``, else ``~/.cache``).
CACHE_NAME = Path("referee") / "analysis.jsonl"


class AnalysisError(ValueError):
    """The record cannot be analysed; the message says why."""


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / CACHE_NAME


#: The most evaluations the cache's file keeps: about 120 bytes each (a 343-action Infexion game leaves some 700),
#: so about 25 MB, read in under a second at each start.  Past it, the newest half is kept.
CACHE_LIMIT = 200_000


class Cache:
    """Evaluations by position and settings (:func:`~.engine.position_digest`), kept in a JSON-lines file.

    The file only grows as positions are judged; when it is read holding more than ``limit`` evaluations it is
    rewritten with the newest ``limit // 2`` (the last lines: a position judged again is written again), so
    that years of analyses do not make every start slower.
    """

    def __init__(self, path: Path | None, limit: int = CACHE_LIMIT):
        self.path = path
        self.known: dict[str, Evaluation] = {}
        if path is None or not path.is_file():
            return
        lines: dict[str, str] = {}  # key -> its newest line, in the order last written
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                item = json.loads(line)
                evaluation = Evaluation.from_dict(item)
                key = item["key"]
            except (ValueError, KeyError, TypeError):
                continue  # a torn or foreign line: that position is judged again
            lines.pop(key, None)
            lines[key] = line
            self.known[key] = evaluation
        if len(lines) > limit:
            kept = list(lines)[-(limit // 2):]
            self.known = {key: self.known[key] for key in kept}
            self._rewrite(path, [lines[key] for key in kept])

    @staticmethod
    def _rewrite(path: Path, lines: list[str]) -> None:
        """The file replaced at once by ``lines`` (an analysis appending meanwhile loses its lines, not the file)."""
        spare = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            spare.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            os.replace(spare, path)
        except OSError:
            spare.unlink(missing_ok=True)  # a cache that cannot be trimmed still serves; the next start tries again

    def get(self, key: str) -> Evaluation | None:
        return self.known.get(key)

    def put(self, key: str, evaluation: Evaluation) -> None:
        self.known[key] = evaluation
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as file:
            file.write(json.dumps({"key": key, **evaluation.as_dict()}) + "\n")


@dataclass(frozen=True)
class Analysis:
    """A game's decisions judged, the end's evaluation, the turning point of the loser's game."""

    record: GameRecord
    settings: EngineSettings
    judged: tuple[Judged, ...]
    final: Evaluation
    turning: Judged | None
    #: Why the record's last position is not the end the rules gave (an agent's failure ended the game).
    cut_short: str | None = None

    def red_curve(self) -> list[tuple[int, float]]:
        """(actions played, Red's chance of winning) before each decision and at the end: the graph's points.

        Each point is the mean of its position's evaluation and the one before: the side to move's chances carry
        its tempo (and its search's optimism), which would draw a zigzag from one side's turn to the other's."""
        raw = [(j.decision.start, j.before if j.color == "RED" else 1.0 - j.before) for j in self.judged]
        raw.append((len(self.record.actions), self.final.red))
        smooth = [raw[0]] + [(at, (red + raw[k][1]) / 2) for k, (at, red) in enumerate(raw[1:])]
        if self.final.proven:
            smooth[-1] = raw[-1]  # the end is known exactly
        return smooth


def analyse(
    record: GameRecord,
    settings: EngineSettings,
    *,
    workers: int = 1,
    cache: Cache | None = None,
    progress: Callable[[int, int], Any] | None = None,
) -> Analysis:
    """Analyse ``record``; ``progress(done, total)`` is told of the positions judged so far and how many are to be
    judged in this round (the cache's are not): the game's positions, then the engine's decisions from them."""
    try:
        game = recorded_game(record.game, record.game_options)
        start = game.new_state()
        found = decisions(start.copy(), record.actions)
    except Exception as exc:  # noqa: BLE001  a record that does not replay: said, never a traceback
        raise AnalysisError(f"the record does not replay in {record.game}: {exc}") from None
    if not found:
        raise AnalysisError("the record has no action of either side to analyse")
    with _Judge(game, record.actions, settings, workers, cache or Cache(None), progress) as judge_positions:
        # The game's own positions: before each decision, right after it (before any chance event), at the end.
        marks = sorted({d.start for d in found} | {d.end for d in found} | {len(record.actions)})
        states = dict(zip(marks, _positions(start, record.actions, marks)))
        seen = dict(zip(marks, judge_positions({index: ((index, ()), states[index]) for index in marks})))
        lines = _engine_lines(found, states, seen, judge_positions)
    final = seen[len(record.actions)]
    positions = [seen[d.start] for d in found]
    afters = [seen[d.end] for d in found]
    judged = judge(found, positions, afters, lines)
    cut_short = None
    if record.reason in AGENT_FAILURE_REASONS or not states[len(record.actions)].is_over:
        cut_short = record.message or record.reason
    return Analysis(record, settings, tuple(judged), final, turning_point(judged, record.loser), cut_short)


def _engine_lines(found: Sequence[Decision], states: dict[int, GameState], seen: dict[int, Evaluation],
                  judge_positions: _Judge) -> list[tuple[tuple[str, ...], Evaluation | None]]:
    """The engine's decision from each decision's position, and the evaluation after it (None: the one played).

    A decision of several actions (an Infinitron turn) is followed action by action, each the engine's best from
    where the last left it, all the decisions' lines a step at a time (each step's positions judged at once)."""
    lines: dict[int, list[str]] = {}
    ends: dict[int, GameState] = {}
    open_lines: dict[int, tuple[GameState, Evaluation]] = {}
    for i, decision in enumerate(found):
        best = seen[decision.start].best
        if best is not None and best != decision.actions[0] or len(decision.actions) > 1:
            open_lines[i] = (states[decision.start].copy(), seen[decision.start])
            lines[i] = []
    while open_lines:
        asked: dict[int, tuple[tuple[int, tuple[str, ...]], GameState]] = {}
        for i, (state, evaluation) in open_lines.items():
            if evaluation.best is None:  # over: nothing more to play
                ends[i] = state
                continue
            state.apply(state.parse_action(evaluation.best))
            lines[i].append(evaluation.best)
            if state.is_over or state.current_player != found[i].color:
                ends[i] = state
            else:
                asked[i] = ((found[i].start, tuple(lines[i])), state)
        open_lines = {i: (asked[i][1], e) for i, e in zip(asked, judge_positions(asked))}
    judged_ends = dict(zip(ends, judge_positions({i: ((found[i].start, tuple(lines[i])), ends[i]) for i in ends})))
    result: list[tuple[tuple[str, ...], Evaluation | None]] = []
    for i, decision in enumerate(found):
        line = tuple(lines.get(i, decision.actions))
        result.append((line, None if line == decision.actions else judged_ends[i]))
    return result


class _Judge:
    """Judges batches of positions, each a prefix of the record's actions and a line played from there: from the
    cache, else on the workers, and keeps what it judged."""

    def __init__(self, game: Game, actions: Sequence[str], settings: EngineSettings, workers: int, cache: Cache,
                 progress: Callable[[int, int], Any] | None):
        self.game, self.actions, self.settings, self.workers = game, actions, settings, workers
        self.cache, self.progress = cache, progress
        self.pool: ProcessPoolExecutor | None = None  # started at the first batch worth it, kept to the end
        self.local = False

    def __enter__(self) -> _Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def _judge_all(self, tasks: list[tuple[int, tuple[str, ...]]]) -> Iterator[Evaluation]:
        """The evaluations of the positions after each task's prefix of the actions and then its line, in order."""
        initargs = (self.game.name, dict(self.game.options), list(self.actions), self.settings)
        if self.pool is None and (self.workers <= 1 or len(tasks) < 2):
            if not self.local:  # this process is the worker: set up for this record (not a previous one's)
                _start_worker(*initargs)
                self.local = True
            return map(_judge_one, tasks)
        if self.pool is None:
            context = multiprocessing.get_context("spawn")  # a clean interpreter, whatever threads the caller has
            self.pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                            initializer=_start_worker, initargs=initargs)
        # Chunks of consecutive positions: a worker goes on from the position it judged last.
        return self.pool.map(_judge_one, tasks, chunksize=max(1, len(tasks) // (4 * self.workers)))

    def __call__(self, batch: dict[Any, tuple[tuple[int, tuple[str, ...]], GameState]]) -> list[Evaluation]:
        """The evaluations of ``batch``'s positions (its values: the task and the state), in its order."""
        keys = {name: position_digest(self.game, state, self.settings) for name, (_, state) in batch.items()}
        wanted: dict[str, tuple[int, tuple[str, ...]]] = {}
        for name, (task, _) in batch.items():
            if self.cache.get(keys[name]) is None:
                wanted.setdefault(keys[name], task)
        if self.progress is not None:
            self.progress(0, len(wanted))
        judged = self._judge_all(list(wanted.values()))
        for done, (key, evaluation) in enumerate(zip(wanted, judged), 1):
            self.cache.put(key, evaluation)
            if self.progress is not None:
                self.progress(done, len(wanted))
        found = [self.cache.get(keys[name]) for name in batch]
        assert all(e is not None for e in found)
        return [e for e in found if e is not None]


def _positions(start: GameState, actions: Sequence[str], marks: Sequence[int]) -> list[GameState]:
    """The position after each of ``marks`` (ascending) actions."""
    state = start.copy()
    found = []
    wanted = iter(marks)
    mark = next(wanted, None)
    for index in range(len(actions) + 1):
        while mark == index:
            found.append(state.copy())
            mark = next(wanted, None)
        if index < len(actions):
            state.apply(state.parse_action(actions[index]))
    return found


# -- a worker's side --------------------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _start_worker(name: str, options: dict[str, Any], actions: list[str], settings: EngineSettings) -> None:
    from agents.common.heuristics import heuristics_for

    game = recorded_game(name, options)
    _WORKER.update(game=game, actions=actions, settings=settings, state=game.new_state(),
                   heuristics=heuristics_for(game))


def _judge_one(task: tuple[int, tuple[str, ...]]) -> Evaluation:
    """The evaluation after a prefix of the record's actions and a line from there (the worker's state goes on
    from the last prefix)."""
    prefix, line = task
    state: GameState = _WORKER["state"]
    if state.move_count > prefix:
        state = _WORKER["game"].new_state()
    actions = _WORKER["actions"]
    while state.move_count < prefix:
        state.apply(state.parse_action(actions[state.move_count]))
    _WORKER["state"] = state
    if line:
        state = state.copy()
        for text in line:
            state.apply(state.parse_action(text))
    return evaluate(_WORKER["game"], state, _WORKER["settings"], _WORKER["heuristics"])


__all__ = ["Analysis", "AnalysisError", "Cache", "Decision", "analyse", "default_cache"]
