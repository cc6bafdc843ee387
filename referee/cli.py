"""Command line: ``python -m referee ...`` only dispatches, to the command its first word names.

Every command lives in its feature's package, as ``<feature>/cli.py`` with
``main(argv: list[str]) -> int``: ``python -m referee [options] RED BLUE``
(a game between two agents) in :mod:`referee.agent_game.cli`; ``play`` (a
person against an agent) in :mod:`referee.human_play.cli`; ``replay``,
``tournament``, ``search`` and ``autograde`` (:mod:`referee.marking.cli`) in
theirs; ``serve`` and ``connect`` (the battleground) in
:mod:`referee.battleground.cli`.  A command's module is imported only when used, so a plain game
starts fast.
"""
from __future__ import annotations

import difflib
import sys
from importlib import import_module
from pathlib import Path

from .arguments import COMMANDS
from .exit_status import ExitStatus

#: Command -> the module (or ``module:function``) that runs it (:data:`referee.arguments.COMMANDS`).
SUBCOMMANDS: dict[str, str] = {name: target for name, (target, _, _) in COMMANDS.items()}


def misspelled_subcommand(word: str) -> str | None:
    """The subcommand ``word`` looks like a typo of, when it names no agent either; else None.

    ``python -m referee tournamnet quick.yaml`` would otherwise play a game
    between "agents" ``tournamnet`` and ``quick.yaml``.
    """
    if word.startswith("-"):
        return None
    close = difflib.get_close_matches(word, SUBCOMMANDS, n=1)
    if not close:
        return None
    from .match import spec_problem  # only on this path: a plain game starts fast

    return close[0] if spec_problem(word, Path.cwd()) else None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in SUBCOMMANDS:
        module, _, function = SUBCOMMANDS[argv[0]].partition(":")
        command: int = getattr(import_module(module), function or "main")(argv[1:])
        return command
    if argv:
        meant = misspelled_subcommand(argv[0])
        if meant:
            print(
                f"python -m referee: error: unknown command {argv[0]!r} (did you mean {meant}?); the commands are "
                f"{', '.join(SUBCOMMANDS)}, or two agents to play a game: python -m referee RED BLUE",
                file=sys.stderr,
            )
            return ExitStatus.USAGE
    from .agent_game.cli import main as game_main

    return game_main(argv)
