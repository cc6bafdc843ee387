"""Tournaments: config -> lineup -> schedule -> executor -> games.jsonl -> aggregate -> tables.

``python -m referee tournament CONFIG.yaml`` runs one (see :mod:`.cli` and
docs/tournament.md); :func:`run` is the same from Python.  Everything after
``games.jsonl`` is a pure function of the records, so a resumed or merged run
gives the same tables.
"""
from .aggregate import GameSummary, Results, aggregate
from .api import RunError, RunObserver, TournamentRun, make_executor, run
from .config import ConfigError, TournamentConfig, load_config, parse_config
from .executor import ClusterError, Executor, Finished, LocalExecutor
from .lineup import Lineup, build_lineup
from .schedule import Job, TournamentPlan, game_seed, schedule
from .sprt import SprtResult, SprtSettings

__all__ = [
    "ClusterError", "ConfigError", "Executor", "Finished", "GameSummary", "Job", "LocalExecutor", "Lineup", "Results",
    "RunError", "RunObserver", "SprtResult", "SprtSettings", "TournamentConfig", "TournamentPlan", "TournamentRun",
    "aggregate", "build_lineup", "game_seed", "load_config", "make_executor", "parse_config", "run", "schedule",
]
