"""Game analysis: every decision of a recorded game judged by a bundled engine (docs/analysis.md).

``engine.py`` judges one position (each side's chance of winning, the engine's action); ``review.py`` splits a
game into decisions and marks them (pure); ``runner.py`` judges a record's positions (cached, on worker
processes); ``text.py`` says it in a terminal and ``html_page.py`` on a web page (the replay with the graph);
``cli.py`` is ``python -m referee analyse``.
"""
from .engine import EngineSettings, Evaluation, evaluate
from .review import BLUNDER, INACCURACY, MISTAKE, Judged
from .runner import Analysis, AnalysisError, Cache, analyse

__all__ = [
    "BLUNDER", "INACCURACY", "MISTAKE", "Analysis", "AnalysisError", "Cache", "EngineSettings", "Evaluation",
    "Judged", "analyse", "evaluate",
]
