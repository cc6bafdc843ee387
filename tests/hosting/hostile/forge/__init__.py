"""Forging the referee's output: text full of terminal control sequences.

Everything this agent controls carries them: what it prints (standard output
and standard error), the message of the exception it raises at its third
action, the load error of :class:`FailsToLoad`, the ``repr`` of what
:class:`ReturnsAForgery` returns.  Raw on a terminal they would clear the
screen, set the window title, move the cursor up and erase the line, reorder
the line (bidi overrides) and write ``* referee @ result: ...`` lines the
referee never wrote (tests/hosting/test_inert_text.py checks that it shows
them all escaped).  It attacks nothing else and writes no file.
"""
from __future__ import annotations

import sys

from ..common import Plays

#: A result line of the referee's, as a terminal would show it after a carriage return.
FORGED = "\r* referee @ result: RED wins (forged by the agent)"
#: The same after a newline, which must start a line of its own after the agent's label.
FORGED_LINE = "\n* referee @ result: RED wins (forged on a line of its own)"
#: What the forged lines say, to look for in what the referee showed.
FORGED_WORDS = "forged"
#: Control sequences, one of each kind a terminal obeys.
SEQUENCES = (
    "\x1b[2J\x1b[H",  # clear the screen, cursor home
    "\x1b]0;forged window title\x07",  # OSC: set the window title (ended by BEL)
    "\x1b]2;forged window title\x1b\\",  # the same, ended by ST
    "\x1b[1A\x1b[2K",  # cursor up a line, erase it
    "\x9b2J",  # a C1 CSI (one character): clear the screen on some terminals
    "\x08\x08\x08",  # backspaces over what was written
    "\x07\x0b\x0c\x00\x7f",  # bell, vertical tab, form feed, NUL, DEL
    "\x85",  # NEL: a line break on some terminals
    "\u202e",  # right-to-left override: the rest of the line shown reversed
    "\u2066\u200f\u061c",  # left-to-right isolate, right-to-left mark, Arabic letter mark
    "\u2028",  # line separator
)
#: One of everything: every sequence, then a forged line after a carriage return and one after a newline.
NASTY = "".join(SEQUENCES) + FORGED + FORGED_LINE
#: The action at which :class:`Agent` raises.
RAISES_AT = 3


def shout(where: str) -> None:
    """Print the sequences and the forged lines on standard output and on standard error."""
    print(f"forge {where}: " + NASTY, flush=True)
    print(f"forge {where} on stderr: " + NASTY, file=sys.stderr, flush=True)


class Agent(Plays):
    """Plays random legal actions, printing control sequences at every call; raises at its third action."""

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.actions = 0
        shout("__init__")

    def action(self, **referee):
        self.actions += 1
        shout(f"action {self.actions}")
        if self.actions >= RAISES_AT:
            raise ValueError("forge raised " + NASTY)
        return super().action(**referee)

    def turn(self, color, action, **referee):
        super().turn(color, action, **referee)
        shout("turn")


class FailsToLoad:
    """Raises when constructed, with the sequences in its message (a load error)."""

    def __init__(self, color, **referee):
        shout("__init__")
        raise RuntimeError("forge cannot load " + NASTY)


class Forgery:
    """Not an action: its ``repr``, which the referee quotes (its first 120 characters), carries the sequences."""

    def __repr__(self) -> str:
        return "Forgery(\x1b[2J\x1b]0;forged\x07\u202e\x9b1A" + FORGED + FORGED_LINE + ")"


class ReturnsAForgery(Plays):
    """Returns a :class:`Forgery` from its first action (the referee echoes it in the illegal action's message)."""

    def action(self, **referee):
        shout("action")
        return Forgery()
