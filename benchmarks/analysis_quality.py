"""Are the analysis's marks real?  Each marked decision's position played out with the game's decision and with
the engine's, many times, by one fixed engine on both sides (docs/analysis.md, "How good are the marks").

    python -m benchmarks.analysis_quality [--games N] [--playouts K] [--marks M] [--agreement A]
                                          [--workers W] [--seed S] [--iterations I] [--quick] [--json FILE]

1. Games of the bundled agents (random, greedy, minimax and MCTS: the twelve ordered pairs of two different ones,
   in turn) in Infexion, Cachex n = 5 (its swap included) and Infinitron (default rules, ended at 40 turns: games
   between the searching agents otherwise run to 343, and analysing one takes five minutes), played in this
   process through the agents' own classes as the referee calls them, at a fixed effort (minimax depth 2, MCTS
   100 simulations a move): cheap, and the same games on any machine.
2. Each game analysed as ``python -m referee analyse`` does, at its default settings (``--iterations``).
3. Up to M decisions of each severity a game (drawn at random where there are more) and, as the baseline, up to M
   unmarked decisions where the engine would have chosen otherwise: from the position before each, K playouts
   after the decision played and K after the engine's, by one cheap engine on both sides (:func:`policy_action`:
   the best of the heuristics' six favourite actions one ply on, or with probability 0.1 a random legal action),
   chance drawn from the playout's seed.  Playout k of both has the same seed (common random numbers: they differ
   by the decision only).  The mover scores 1 for a win and 1/2 for a draw.
4. Per game and severity: the mover's mean score after the decision played and after the engine's, the
   difference with a 95 % interval from a bootstrap over games (one game's decisions are not independent).
5. Agreement: the first A games of each kind analysed again with the analysis's seed 1: of the decisions one run
   marks, how many the other marks too, and with the same severity.
"""
from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from agents.common.heuristics import WIN, heuristics_for, perspective
from referee.analysis import Analysis, Cache, EngineSettings, analyse
from referee.analysis.engine import DEFAULT_ITERATIONS
from referee.analysis.review import SEVERITIES
from referee.core import GameCore, SeatInfo
from referee.game.player import PlayerColor
from referee.games import game_class, load_game, recorded_game, registration
from referee.games.base import CHANCE, GameState
from referee.records import GameRecord

#: The bundled agents, by the names the tables use.
AGENTS = {"random": "agents.random_agent", "greedy": "agents.greedy", "minimax": "agents.minimax",
          "mcts": "agents.mcts"}
#: Each agent's fixed effort (a long ``move_time``: no clock ever cuts minimax's depth short).
EFFORT: dict[str, dict[str, Any]] = {"random": {}, "greedy": {}, "minimax": {"depth": 2, "move_time": 60.0},
                                     "mcts": {"iterations": 100, "move_time": 60.0}}
#: Every ordered pair of two different agents; game i of a kind is played by pair i mod 12.
PAIRINGS = list(itertools.permutations(AGENTS, 2))
#: The games measured: the game and its options.
KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "infexion": ("infexion", {}),
    "cachex": ("cachex", {"n": 5}),
    "infinitron": ("infinitron", {"max_turns": 40}),
}
SEVERITY_NAMES = tuple(name for name, _ in SEVERITIES)
#: The rows of a game: the three marks and the baseline (unmarked decisions the engine would have made otherwise).
CATEGORIES = (*SEVERITY_NAMES, "baseline")
#: The playouts' chance of a random legal action instead of the one-ply search's: enough that the K playouts of a
#: position differ (the search alone plays nearly the same game each time), few enough that a better position
#: keeps its edge.
EPSILON = 0.1
#: The heuristics' favourite actions the playouts' one-ply search compares.  Against the greedy agent's search of
#: every action (both at epsilon 0.1), over 20 games of each game, it scored 8 in Cachex, 11.5 in Infexion and 12
#: in Infinitron, at a tenth of its time in Infexion.
BREADTH = 6
#: Bootstrap resamples of the games for each interval.
RESAMPLES = 2000
#: Fewer games than this with decisions in a row: no interval (a bootstrap over so few says little).
MIN_GAMES_FOR_INTERVAL = 5
#: The analysis's seed of the agreement's second run.
SECOND_SEED = 1


@dataclass(frozen=True)
class Config:
    """One measurement: how many games of each kind, playouts, decisions a game, games analysed twice."""

    games: int = 60
    playouts: int = 16
    marks: int = 2
    agreement: int = 12
    iterations: int = DEFAULT_ITERATIONS
    seed: int = 0
    kinds: tuple[str, ...] = tuple(KINDS)

    def game_seed(self, index: int) -> int:
        return self.seed * 100_000 + index


QUICK = Config(games=1, playouts=2, marks=1, agreement=1, iterations=24)


# -- one game: played, analysed, its decisions played out -------------------------------------------------------

def play_game(kind: str, red: str, blue: str, seed: int) -> GameRecord:
    """A game of the bundled agents ``red`` and ``blue`` (names of :data:`AGENTS`), driven as the referee drives
    hosted agents (the same calls and arguments), in this process."""
    name, options = KINDS[kind]
    options = game_class(name).seeded_options(options, seed)
    game = load_game(name, **options)
    types = registration(name).agent_types_module()
    referee = {"game": name, "game_options": dict(options), "seed": seed, **game.agent_kwargs,
               "time_remaining": None, "wall_remaining": None, "space_limit": None, "space_remaining": None}
    kwargs = [{**referee, **EFFORT[agent]} for agent in (red, blue)]
    seats = [import_module(AGENTS[agent]).Agent(color=PlayerColor(color), **kwargs[color])
             for color, agent in enumerate((red, blue))]
    core = GameCore(game, (SeatInfo(AGENTS[red], red), SeatInfo(AGENTS[blue], blue)), options=options, seed=seed)
    while (mover := core.mover) is not None:
        if mover == CHANCE:
            text, color = core.chance(), None
        else:
            answer = types.to_engine_action(seats[mover].action(**kwargs[mover]))
            text, color = core.submit(mover, core.state.action_to_str(answer)), PlayerColor(mover)
        if core.state.is_over:
            break
        told = types.from_engine_action(core.state.parse_action(text))
        for seat, seat_kwargs in zip(seats, kwargs):
            seat.turn(color, told, **seat_kwargs)
    return core.record(duration=0.0)


def policy_action(state: GameState, heuristics: Any, rng: random.Random) -> Any:
    """The playouts' engine, the same on both sides: with probability :data:`EPSILON` a random legal action, else
    the best by the game's evaluation one ply on of the heuristics' :data:`BREADTH` favourite actions."""
    if rng.random() < EPSILON:
        actions = state.legal_actions()
        return actions[int(rng.random() * len(actions))]
    me = state.current_player
    best, best_value = None, -2 * WIN
    for action in heuristics.ordered_actions(state, rng)[:BREADTH]:
        state.apply(action)
        outcome = state.outcome
        if outcome is not None:
            value = 0 if outcome.winner is None else WIN if outcome.winner == me else -WIN
        else:
            value = heuristics.evaluate(state) * (1 if perspective(state) == me else -1)
        state.undo()
        if value > best_value:
            best, best_value = action, value
    return best


def playout(state: GameState, mover: int, heuristics: Any, rng: random.Random) -> float:
    """Play ``state`` to its end with :func:`policy_action` on both sides: ``mover``'s score (a draw: 1/2)."""
    while not state.is_over:
        if state.current_player == CHANCE:
            state.apply(state.sample_chance(rng))
        else:
            state.apply(policy_action(state, heuristics, rng))
    outcome = state.outcome
    assert outcome is not None
    return 0.5 if outcome.winner is None else float(outcome.winner == mover)


def arm_points(before: GameState, line: Sequence[str], mover: int, heuristics: Any, seeds: Sequence[str]) -> float:
    """The mover's points over playouts from ``before`` after ``line``, one a seed."""
    points = 0.0
    for seed in seeds:
        state = before.copy()
        for text in line:
            state.apply(state.parse_action(text))
        points += playout(state, mover, heuristics, random.Random(seed))
    return points


def chosen_decisions(analysis: Analysis, marks: int, rng: random.Random) -> list[tuple[str, int]]:
    """(category, decision's index) of the decisions to play out: up to ``marks`` of each category."""
    judged = analysis.judged
    found: dict[str, list[int]] = {category: [] for category in CATEGORIES}
    for i, j in enumerate(judged):
        if j.severity is not None:
            found[j.severity].append(i)
        elif j.better is not None:  # the engine would have chosen otherwise, at a cost below every mark
            found["baseline"].append(i)
    return [(category, i) for category in CATEGORIES
            for i in sorted(rng.sample(found[category], min(marks, len(found[category]))))]


def marked(analysis: Analysis) -> dict[int, str]:
    """The marked decisions, by index: their severity."""
    return {i: j.severity for i, j in enumerate(analysis.judged) if j.severity is not None}


#: This process's evaluations: a position is judged the same in any game (openings recur).
_CACHE = Cache(None)


def measure_game(config: Config, kind: str, index: int) -> dict[str, Any]:
    """Game ``index`` of ``kind``: played, analysed (twice for the first ``config.agreement``), its chosen
    decisions played out; a JSON-ready summary."""
    cache = _CACHE
    seed = config.game_seed(index)
    red, blue = PAIRINGS[index % len(PAIRINGS)]
    began = time.process_time()
    record = play_game(kind, red, blue, seed)
    played = time.process_time()
    analysis = analyse(record, EngineSettings(iterations=config.iterations), cache=cache)
    second = None
    if index < config.agreement:
        second = analyse(record, EngineSettings(iterations=config.iterations, seed=SECOND_SEED), cache=cache)
    analysed = time.process_time()
    chosen = chosen_decisions(analysis, config.marks, random.Random(f"{config.seed}:{kind}:{index}:chosen"))
    game = recorded_game(record.game, record.game_options)
    heuristics = heuristics_for(game)
    starts = {analysis.judged[i].decision.start for _, i in chosen}
    befores = _positions(game.new_state(), record.actions, starts)
    items = []
    for category, i in chosen:
        j = analysis.judged[i]
        start, mover = j.decision.start, j.decision.color
        seeds = [f"{config.seed}:{kind}:{index}:{start}:{k}" for k in range(config.playouts)]
        items.append({
            "category": category, "decision": i, "start": start, "mover": j.color, "cost": round(j.drop, 4),
            "played": j.played, "suggested": "; ".join(j.line), "playouts": config.playouts,
            "played_points": arm_points(befores[start], j.decision.actions, mover, heuristics, seeds),
            "suggested_points": arm_points(befores[start], j.line, mover, heuristics, seeds),
        })
    return {
        "kind": kind, "index": index, "seed": seed, "red": red, "blue": blue, "actions": len(record.actions),
        "decisions": len(analysis.judged), "winner": record.winner, "reason": record.reason,
        "marks": {name: sum(1 for j in analysis.judged if j.severity == name) for name in SEVERITY_NAMES},
        "items": items,
        "agreement": None if second is None else {"first": sorted(marked(analysis).items()),
                                                  "second": sorted(marked(second).items())},
        "seconds": {"play": round(played - began, 2), "analysis": round(analysed - played, 2),
                    "playouts": round(time.process_time() - analysed, 2)},
    }


def _positions(start: GameState, actions: Sequence[str], wanted: Iterable[int]) -> dict[int, GameState]:
    """The positions after each of ``wanted`` actions of the game."""
    wanted = set(wanted)
    found = {}
    state = start.copy()
    for index in range(len(actions) + 1):
        if index in wanted:
            found[index] = state.copy()
        if index < len(actions):
            state.apply(state.parse_action(actions[index]))
    return found


def _measure(task: tuple[Config, str, int]) -> dict[str, Any]:
    return measure_game(*task)


def run(config: Config, workers: int = 1,
        progress: Callable[[int, int, dict[str, Any]], Any] | None = None) -> list[dict[str, Any]]:
    """Every game of ``config`` measured (on ``workers`` processes; 1: in this one), in a fixed order whatever
    order they finished in; ``progress(done, total, game)`` is told of each."""
    tasks = [(config, kind, index) for index in range(config.games) for kind in config.kinds]
    results = []
    if workers <= 1:
        for done, task in enumerate(tasks, 1):
            results.append(_measure(task))
            if progress is not None:
                progress(done, len(tasks), results[-1])
    else:
        context = multiprocessing.get_context("spawn")  # a clean interpreter in each worker
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = [pool.submit(_measure, task) for task in tasks]
            for done, future in enumerate(as_completed(futures), 1):
                results.append(future.result())
                if progress is not None:
                    progress(done, len(tasks), results[-1])
    order = {kind: k for k, kind in enumerate(config.kinds)}
    return sorted(results, key=lambda game: (order[game["kind"]], game["index"]))


# -- the tables (pure functions of the games' summaries) --------------------------------------------------------

@dataclass(frozen=True)
class QualityRow:
    """One game kind's (or all games') decisions of one category, played out."""

    kind: str
    category: str
    decisions: int
    games: int
    cost: float  # the analysis's mean cost of the decisions (0..1)
    played: float  # the mover's mean score after the decision played
    suggested: float  # ... after the engine's
    difference: float
    low: float | None  # the difference's 95 % interval (None: too few games)
    high: float | None
    playouts: int


def bootstrap(clusters: Sequence[Sequence[float]], rng: random.Random,
              resamples: int = RESAMPLES) -> tuple[float, float]:
    """A 95 % percentile interval of the mean of all values, resampling the clusters (games) with replacement."""
    means = []
    for _ in range(resamples):
        total = count = 0.0
        for _ in clusters:
            cluster = clusters[int(rng.random() * len(clusters))]
            total += sum(cluster)
            count += len(cluster)
        means.append(total / count)
    means.sort()
    return means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]


def quality(games: Sequence[Mapping[str, Any]], kinds: Sequence[str], seed: int = 0) -> list[QualityRow]:
    """Per kind (then all kinds together) and category, the decisions' mean scores and difference."""
    rows = []
    for kind in [*kinds, "all"]:
        for category in CATEGORIES:
            clusters: list[list[dict[str, Any]]] = []
            for game in games:
                if kind in ("all", game["kind"]):
                    items = [item for item in game["items"] if item["category"] == category]
                    if items:
                        clusters.append(items)
            items = [item for cluster in clusters for item in cluster]
            if not items:
                rows.append(QualityRow(kind, category, 0, 0, 0.0, 0.0, 0.0, 0.0, None, None, 0))
                continue
            n = len(items)
            played = sum(item["played_points"] / item["playouts"] for item in items) / n
            suggested = sum(item["suggested_points"] / item["playouts"] for item in items) / n
            low = high = None
            if len(clusters) >= MIN_GAMES_FOR_INTERVAL:
                differences = [[(item["suggested_points"] - item["played_points"]) / item["playouts"]
                                for item in cluster] for cluster in clusters]
                low, high = bootstrap(differences, random.Random(f"{seed}:{kind}:{category}"))
            rows.append(QualityRow(kind, category, n, len(clusters), sum(item["cost"] for item in items) / n,
                                   played, suggested, suggested - played, low, high,
                                   sum(2 * item["playouts"] for item in items)))
    return rows


@dataclass(frozen=True)
class AgreementRow:
    """Of the decisions either run marked with ``severity`` (each run's marks counted once), how many the other
    run marked too, and with the same severity."""

    kind: str
    severity: str
    games: int
    decisions: int  # the games' decisions (each analysed twice)
    marks: int
    also: int
    same: int


def agreement(games: Sequence[Mapping[str, Any]], kinds: Sequence[str]) -> list[AgreementRow]:
    """Per kind (then all kinds together) and severity (then any), the two runs' agreement."""
    rows = []
    for kind in [*kinds, "all"]:
        twice = [game for game in games if game["agreement"] is not None and kind in ("all", game["kind"])]
        for severity in (*SEVERITY_NAMES, "any"):
            marks = also = same = 0
            for game in twice:
                first = {i: s for i, s in game["agreement"]["first"]}
                second = {i: s for i, s in game["agreement"]["second"]}
                for mine, other in ((first, second), (second, first)):
                    for i, s in mine.items():
                        if severity in ("any", s):
                            marks += 1
                            also += i in other
                            same += other.get(i) == s
            rows.append(AgreementRow(kind, severity, len(twice), sum(game["decisions"] for game in twice),
                                     marks, also, same))
    return rows


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"


def _share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.0f} %)" if whole else "0"


def quality_table(rows: Sequence[QualityRow]) -> str:
    lines = ["| game | decisions | n (games) | analysis's cost | mover's score after: played | "
             "the engine's | difference [95 % CI] | playouts |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if not row.decisions:
            lines.append(f"| {row.kind} | {row.category} | 0 | | | | | |")
            continue
        interval = "" if row.low is None else f" [{_points(row.low)}, {_points(row.high or 0.0)}]"
        lines.append(f"| {row.kind} | {row.category} | {row.decisions} ({row.games}) | {100 * row.cost:.1f} | "
                     f"{100 * row.played:.1f} % | {100 * row.suggested:.1f} % | {_points(row.difference)}{interval} | "
                     f"{row.playouts:,} |")
    return "\n".join(lines)


def agreement_table(rows: Sequence[AgreementRow]) -> str:
    lines = ["| game | marked | games (decisions) | marks of either run | the other run marks it | "
             "with the same severity |", "|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row.kind} | {row.severity} | {row.games} ({row.decisions}) | {row.marks} | "
                     f"{_share(row.also, row.marks)} | {_share(row.same, row.marks)} |")
    return "\n".join(lines)


def describe(config: Config, workers: int) -> str:
    kinds = ", ".join(f"{kind} {options}" if options else kind
                      for kind, (_, options) in KINDS.items() if kind in config.kinds)
    return (f"{config.games} games of each of {kinds}; analysis: mcts, {config.iterations} simulations a position "
            f"(second run: seed {SECOND_SEED}, {config.agreement} games of each); up to {config.marks} decisions "
            f"of each kind a game, {config.playouts} playouts after each decision, the best of "
            f"{BREADTH} one ply on, epsilon {EPSILON}; seed {config.seed}; {workers} workers, {os.cpu_count()} cores")


def report(config: Config, games: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The measurement's tables and totals."""
    seconds: dict[str, dict[str, float]] = {}
    for game in games:
        total = seconds.setdefault(game["kind"], {"play": 0.0, "analysis": 0.0, "playouts": 0.0})
        for part, value in game["seconds"].items():
            total[part] = round(total[part] + value, 2)
    return {
        "quality": [asdict(row) for row in quality(games, config.kinds, config.seed)],
        "agreement": [asdict(row) for row in agreement(games, config.kinds)],
        "marks": {kind: {name: sum(g["marks"][name] for g in games if g["kind"] == kind) for name in SEVERITY_NAMES}
                  for kind in config.kinds},
        "decisions": {kind: sum(g["decisions"] for g in games if g["kind"] == kind) for kind in config.kinds},
        "cpu_seconds": seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.analysis_quality", description=__doc__.split("\n")[0])
    defaults = Config()
    parser.add_argument("--games", type=int, default=defaults.games, help="games of each kind")
    parser.add_argument("--playouts", type=int, default=defaults.playouts, help="playouts after each decision")
    parser.add_argument("--marks", type=int, default=defaults.marks, help="decisions of each category a game")
    parser.add_argument("--agreement", type=int, default=defaults.agreement, help="games of each kind analysed twice")
    parser.add_argument("--iterations", type=int, default=defaults.iterations, help="the analysis's simulations")
    parser.add_argument("--seed", type=int, default=defaults.seed, help="the games' and the playouts' seed")
    parser.add_argument("--kinds", default=",".join(KINDS), help="the games, comma-separated")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--quick", action="store_true", help="a tiny run: one game of each, few playouts")
    parser.add_argument("--json", type=Path, help="write the games and the tables there")
    args = parser.parse_args(argv)
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or any(kind not in KINDS for kind in kinds):
        parser.error(f"--kinds: a comma-separated choice of {', '.join(KINDS)}")
    if args.quick:
        config = Config(**{**asdict(QUICK), "seed": args.seed, "kinds": kinds})
    else:
        config = Config(args.games, args.playouts, args.marks, args.agreement, args.iterations, args.seed, kinds)
    if min(config.games, config.playouts, config.marks, config.iterations) < 1 or config.agreement < 0:
        parser.error("--games, --playouts, --marks and --iterations must be positive, --agreement not negative")
    print(f"# benchmarks.analysis_quality: {describe(config, args.workers)}")
    began = time.monotonic()
    tty = sys.stderr.isatty()

    def progress(done: int, total: int, game: dict[str, Any]) -> None:
        elapsed = time.monotonic() - began
        start = "\r" if tty else ""
        print(f"{start}{done}/{total} games, {elapsed / 60:.1f} min: {game['kind']} {game['index']} "
              f"({game['red']} v {game['blue']}, {game['decisions']} decisions, {len(game['items'])} played out)",
              end="" if tty else "\n", file=sys.stderr, flush=True)

    games = run(config, args.workers, progress)
    seconds = time.monotonic() - began
    if tty:
        print(file=sys.stderr)
    tables = report(config, games)
    print(quality_table([QualityRow(**row) for row in tables["quality"]]))
    print()
    print(agreement_table([AgreementRow(**row) for row in tables["agreement"]]))
    print(f"\n{len(games)} games in {seconds / 60:.1f} min; marks: {tables['marks']}")
    print("CPU seconds (play, analysis, playouts): " + "; ".join(
        f"{kind} {parts['play']:.0f}, {parts['analysis']:.0f}, {parts['playouts']:.0f}"
        for kind, parts in tables["cpu_seconds"].items()))
    if args.json is not None:
        document = {"config": asdict(config), "workers": args.workers, "wall_seconds": round(seconds, 1),
                    **tables, "games": games}
        args.json.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
