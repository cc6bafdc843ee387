"""Tournament throughput on a Dask LocalCluster against the local executor.

    python -m benchmarks.dask_tournament [--config configs/quick.yaml] [--games N] [--workers 2] [--repeat 2]

The first N games of the config's schedule are played through the whole
tournament path (``referee.tournament.run``: games.jsonl appended and fsynced per game)
into a temporary folder, by the local executor with W worker processes and
by the Dask executor on a LocalCluster of W single-thread workers, rounds
interleaved.  Games per minute count from the first game submitted to the
last recorded, as the command's own summary line does; the LocalCluster's
start-up and the agent checks on its workers, paid once per tournament, are
reported apart.
"""
from __future__ import annotations

import argparse
import statistics
import time

from referee.tournament.api import make_executor
from referee.tournament.config import TournamentConfig, load_config
from referee.tournament.lineup import build_lineup
from referee.tournament.schedule import TournamentPlan

from .tournament import _tournament


def _on_local_cluster(config: TournamentConfig, plan: TournamentPlan, games: int, workers: int) -> tuple[float, float]:
    """(games per minute, start-up seconds) on a fresh LocalCluster."""
    start = time.perf_counter()
    with make_executor("dask", workers, "local") as executor:
        problem = executor.check_agents(plan)
        assert problem is None, problem
        startup = time.perf_counter() - start
        return _tournament(config, games, workers, executor), startup


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dask_tournament", description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/quick.yaml")
    parser.add_argument(
        "--games", type=int, default=48, help="games per measurement (default 48; 0: the whole schedule)"
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="local worker processes = LocalCluster workers (default 2)"
    )
    parser.add_argument("--repeat", type=int, default=2, help="rounds of measurements, interleaved (default 2)")
    args = parser.parse_args(argv)

    config = load_config(args.config)
    plan = build_lineup(config, workers=args.workers).plan
    games = args.games or plan.total_games

    local, dask, startups = [], [], []
    for _ in range(args.repeat):
        # Interleaved, so that a change in the machine's load hits both alike.
        local.append(_tournament(config, games, args.workers))
        rate, startup = _on_local_cluster(config, plan, games, args.workers)
        dask.append(rate)
        startups.append(startup)

    print(f"{config.path}: first {games} of {plan.total_games} games ({', '.join(plan.names)}), "
          f"{args.workers} workers, {args.repeat} rounds")
    print(f"  {'':34} {'median':>8} {'best':>8}  games/min")
    print(f"  {'local executor':34} {statistics.median(local):8.1f} {max(local):8.1f}")
    ratio = statistics.median(dask) / statistics.median(local)
    print(f"  {'Dask LocalCluster':34} {statistics.median(dask):8.1f} {max(dask):8.1f}  ({ratio:.2f}x local)")
    print(
        f"  LocalCluster start-up and agent checks: {statistics.median(startups):.1f} s (median), once per tournament"
    )


if __name__ == "__main__":
    main()
