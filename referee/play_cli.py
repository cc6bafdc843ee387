"""The old path of :mod:`referee.agent_game.cli` (``python -m referee RED BLUE``), kept for code that imports it.

The same module under both names, not a copy: what a caller sets on
``referee.play_cli`` (a test's monkeypatch of ``play_match``) the command sees.
"""
import sys

from .agent_game import cli

sys.modules[__name__] = cli
