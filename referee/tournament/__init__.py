"""Tournaments: config -> lineup -> schedule -> executor -> games.jsonl -> aggregate -> tables.

``python -m referee tournament CONFIG.yaml`` runs one (see :mod:`.cli` and
docs/tournament.md).  Everything after ``games.jsonl`` is a pure function of
the records, so a resumed or merged run gives the same tables.
"""
from .aggregate import GameSummary, Results, aggregate
from .config import ConfigError, TournamentConfig, load_config, parse_config
from .executor import Executor, Finished, LocalExecutor
from .lineup import Lineup, build_lineup
from .schedule import Job, TournamentPlan, game_seed, schedule
from .sprt import SprtResult, SprtSettings

__all__ = [
    "ConfigError", "Executor", "Finished", "GameSummary", "Job", "LocalExecutor", "Lineup", "Results",
    "SprtResult", "SprtSettings", "TournamentConfig", "TournamentPlan", "aggregate", "build_lineup",
    "game_seed", "load_config", "parse_config", "schedule",
]
