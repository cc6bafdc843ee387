"""Tournament throughput: games per minute with 1 and 2 workers.

    python -m benchmarks.tournament [--config configs/quick.yaml] [--games N] [--workers 1,2]

The first N games of the config's schedule are played through the whole
tournament path (worker processes, games.jsonl appended and fsynced per game)
into a temporary folder by ``referee.tournament.run``, once per worker count.  The baseline, in this same
process, plays the same games with ``play_match`` in a plain loop: no workers,
no file.  Workers = 1 against the baseline is the tournament's own overhead;
workers = 2 against workers = 1 is the scaling (2.0 would be linear).
Wall time includes starting the workers.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from itertools import islice
from pathlib import Path

from referee.match import play_match
from referee.tournament import run
from referee.tournament.config import TournamentConfig, load_config
from referee.tournament.executor import Executor, LocalExecutor
from referee.tournament.lineup import build_lineup
from referee.tournament.schedule import schedule


def _baseline(plan, games: int) -> float:
    start = time.perf_counter()
    for job in islice(schedule(plan), games):
        play_match(job.red, job.blue, job.settings)
    return 60 * games / (time.perf_counter() - start)


def _tournament(config: TournamentConfig, games: int, workers: int, executor: Executor | None = None) -> float:
    with tempfile.TemporaryDirectory() as folder:
        executor = executor or LocalExecutor(workers)
        done = run(config, output=Path(folder), executor=executor, workers=workers, limit=games)
    assert done.summary.played == games and not done.summary.referee_failures
    return done.summary.games_per_minute


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tournament", description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/quick.yaml")
    parser.add_argument(
        "--games", type=int, default=24, help="games per measurement (default 24; 0: the whole schedule)"
    )
    parser.add_argument("--workers", default="1,2", help="worker counts to measure, comma-separated (default 1,2)")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of measurements, interleaved (default 2)")
    args = parser.parse_args(argv)

    config = load_config(args.config)
    plan = build_lineup(config, workers=2).plan
    games = args.games or plan.total_games
    counts = [int(w) for w in args.workers.split(",")]

    rates: dict[str, list[float]] = {"baseline": [], **{str(w): [] for w in counts}}
    for _ in range(args.repeat):
        # Interleaved, so that a change in the machine's load hits every variant alike.
        rates["baseline"].append(_baseline(plan, games))
        for workers in counts:
            rates[str(workers)].append(_tournament(config, games, workers))

    median = {key: statistics.median(values) for key, values in rates.items()}
    print(f"{config.path}: first {games} of {plan.total_games} games ({', '.join(plan.names)}), {args.repeat} rounds")
    print(f"  {'':34} {'median':>8} {'best':>8}  games/min")
    print(f"  {'baseline: play_match in a loop':34} {median['baseline']:8.1f} {max(rates['baseline']):8.1f}")
    for workers in counts:
        key = str(workers)
        note = f"{median[key] / median['baseline']:.2f}x baseline"
        if workers != 1 and "1" in median:
            note += f", {median[key] / median['1']:.2f}x one worker"
        label = f"tournament, {workers} worker{'s' if workers != 1 else ''}"
        print(f"  {label:34} {median[key]:8.1f} {max(rates[key]):8.1f}  ({note})")


if __name__ == "__main__":
    main()
