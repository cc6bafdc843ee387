"""Tournaments: config -> lineup -> schedule -> executor -> games.jsonl -> aggregate -> tables.

``python -m referee tournament CONFIG.yaml`` runs one (see :mod:`.cli` and
docs/tournament.md); :func:`run` is the same from Python, printing nothing
(its :class:`RunObserver` hears everything).  Everything after
``games.jsonl`` is a pure function of the records, so a resumed or merged
run gives the same tables.  The formats are :mod:`.formats`.

The functions named like their modules are not re-exported here (the
module ``referee.tournament.aggregate`` stays a module): import
``aggregate`` from :mod:`.aggregate` and ``schedule`` from :mod:`.schedule`.
"""
from .aggregate import GameSummary, Results
from .api import RunError, TournamentRun, make_executor, run
from .config import ConfigError, TournamentConfig, load_config, parse_config
from .executor import ClusterError, Executor, Finished, LocalExecutor
from .formats import Format
from .lineup import Lineup, build_lineup
from .runner import RunObserver
from .schedule import Job, TournamentPlan, game_seed
from .sprt import SprtResult, SprtSettings

__all__ = [
    "ClusterError", "ConfigError", "Executor", "Finished", "Format", "GameSummary", "Job", "LocalExecutor", "Lineup",
    "Results", "RunError", "RunObserver", "SprtResult", "SprtSettings", "TournamentConfig", "TournamentPlan",
    "TournamentRun", "build_lineup", "game_seed", "load_config", "make_executor", "parse_config", "run",
]
