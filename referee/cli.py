"""Command line: ``python -m referee [options] RED BLUE`` plays one game;
``python -m referee tournament|search|replay ...`` hand off to their modules.

Each subcommand module has ``main(argv: list[str]) -> int`` and is imported
only when used, so a plain game starts fast.
"""
from __future__ import annotations

import sys
from importlib import import_module

SUBCOMMANDS: dict[str, str] = {
    "tournament": "referee.tournament.cli",
    "search": "referee.search.cli",
    "replay": "referee.replay_cli",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in SUBCOMMANDS:
        return import_module(SUBCOMMANDS[argv[0]]).main(argv[1:])
    from .play_cli import main as play_main

    return play_main(argv)
