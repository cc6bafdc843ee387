"""The exit statuses of the ``python -m referee`` commands, declared once (docs/referee.md).

Every command returns one of these from its ``main``; a value is an
:class:`int`, so ``sys.exit(ExitStatus.USAGE)`` and comparisons with numbers
work as before.  A command stopped by a signal other than SIGINT exits with
128 + its number (:func:`referee.termination.exit_status`).
"""
from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What a command's exit status says."""

    #: Done: a game reached a result (forfeits included) or was quit with its record, a file was written.
    OK = 0
    #: The referee itself failed (not the agents' fault).
    INTERNAL = 1
    #: ``search``: the board has no winning sequence (the same number as INTERNAL, another command's meaning).
    UNWINNABLE = 1
    #: A usage error: an unknown option, a bad value, a missing or unreadable file.
    USAGE = 2
    #: ``search``: it gave up within its limits.
    GAVE_UP = 3
    #: Stopped by Ctrl-C (128 + SIGINT).
    INTERRUPTED = 130
