"""argparse with an unknown option named as such, with a did-you-mean.

Plain argparse lets an unknown option through as an "extra" and goes on
filling the positional arguments with what follows it: ``python -m referee
--tme 5 A B`` took ``5`` as RED and then complained about "unrecognized
arguments: --tme B".  :class:`ArgumentParser` looks at the options first and
stops at the first it does not know, naming it (and the closest known one).
"""
from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Callable, Mapping, Sequence

from .exit_status import ExitStatus

#: Every command: the module (or ``module:function``) that runs it, its arguments and what it is for, as ``python
#: -m referee -h`` lists them.  referee/cli.py dispatches from this table, so a command cannot be listed and not run.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "tournament": ("referee.tournament.cli", "CONFIG.yaml", "a tournament from a YAML config (docs/tournament.md)"),
    "play": ("referee.human_play.cli", "AGENT",
             "you against an agent, in the terminal or in a browser (docs/play.md)"),
    "replay": ("referee.replay.cli", "RECORD.json",
               "a recorded game, step by step or as an HTML page (docs/replay.md)"),
    "analyse": ("referee.analysis.cli", "RECORD",
                "where a recorded game was won and lost, judged by a bundled engine (docs/analysis.md)"),
    "learning-agent": ("referee.learning.cli", "FOLDER",
                       "an agent folder of a policy trained in the learning environments, or of OpenSpiel's MCTS "
                       "(docs/learning.md)"),
    "search": ("referee.search.cli", "[BOARD]", "solve or grade Part A's single-player puzzle (docs/search.md)"),
    "autograde": ("referee.marking.cli", "ACTION",
                  "the Gradescope autograders and the cohort report: partA, partB, init, report (docs/marking.md)"),
    # Two commands of one feature: module:function.
    "serve": ("referee.battleground.cli:serve_main", "[OPTIONS]",
              "the battleground server: students' agents meet online (docs/battleground.md)"),
    "connect": ("referee.battleground.cli:connect_main", "AGENT NAME",
                "play your agent on a battleground server (docs/battleground.md)"),
}


def commands_listed() -> str:
    """The commands as ``python -m referee -h`` lists them: one a line, their descriptions in one column."""
    lines = [(f"python -m referee {name} {arguments}", what) for name, (_, arguments, what) in COMMANDS.items()]
    width = max(len(command) for command, _ in lines)
    return "\n".join(f"  {command:<{width}}  {what}" for command, what in lines)


#: What argparse reads as a negative number, not an option (parsers here
#: have no option that looks like one).
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


class ArgumentParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` that refuses an unknown option by name.

    ``elsewhere`` gives, only when an unknown option is met (it may be slow
    to work out), options this parser does not have but that a user may
    mean, with what to say instead (e.g. ``-n`` -> "an option of --game
    cachex").
    """

    def __init__(self, *args, elsewhere: Callable[[], Mapping[str, str]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.elsewhere = elsewhere or dict

    def option_strings(self) -> list[str]:
        """Every option string this parser knows (``-t``, ``--time``, ...)."""
        # argparse keeps its actions in a private list; every version has it.
        return [option for action in self._actions for option in action.option_strings]

    def unknown_option(self, args: Sequence[str]) -> str | None:
        """The message for the first option in ``args`` this parser does not know, or None.

        Follows argparse's own reading: ``--`` ends the options, ``-`` and
        negative numbers are values, ``--opt=value`` is ``--opt``, a unique
        prefix of a long option is that option, and ``-xVALUE`` is ``-x``.
        """
        known = self.option_strings()
        longs = [o for o in known if o.startswith("--")]
        for arg in args:
            if arg == "--":
                return None
            if not arg.startswith("-") or arg == "-" or _NEGATIVE_NUMBER.match(arg) or " " in arg:
                continue
            name = arg.split("=", 1)[0]
            if name in known or (not name.startswith("--") and name[:2] in known):
                continue
            if name.startswith("--") and self.allow_abbrev and any(o.startswith(name) for o in longs):
                continue
            for option, why in self.elsewhere().items():
                if option == name or (name.startswith("--") and option.startswith(name)):
                    return f"unrecognized option {arg!r}: {option} is {why}"
            close = difflib.get_close_matches(name, longs if name.startswith("--") else known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            return f"unrecognized option {arg!r}{hint}"
        return None

    def parse_known_args(self, args=None, namespace=None):
        args = sys.argv[1:] if args is None else list(args)
        problem = self.unknown_option(args)
        if problem:
            self.error(problem)
        return super().parse_known_args(args, namespace)


def every_games_help(build: Callable[[], argparse.ArgumentParser]) -> type[argparse.Action]:
    """A ``-h`` action that prints the help of ``build()`` (a parser with every game's own options) and exits.

    A command's parser holds only the chosen game's options; its help should
    list them all, each game's in a group of its own.
    """

    class _Help(argparse.Action):
        def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                     default: str = argparse.SUPPRESS, help: str | None = None):
            super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

        def __call__(self, parser, namespace, values, option_string=None) -> None:
            build().print_help()
            parser.exit()

    return _Help


def non_negative(kind: str) -> Callable[[str], float]:
    """An argparse type: a number of 0 or more, refused naming ``kind`` ("the time limit")."""

    def convert(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{kind} must be a number, not {text!r}") from None
        if value < 0 or value != value:
            raise argparse.ArgumentTypeError(f"{kind} must be 0 or more, not {text}")
        return value

    return convert


def non_negative_pair(kind: str) -> Callable[[str], tuple[float, float]]:
    """An argparse type: one number of 0 or more for both sides, or ``RED,BLUE`` (``-t 18,180``), refused
    naming ``kind``; always a pair (Red's, Blue's)."""
    one = non_negative(kind)

    def convert(text: str) -> tuple[float, float]:
        parts = text.split(",")
        if len(parts) > 2:
            raise argparse.ArgumentTypeError(
                f"{kind} is one number for both agents or two, Red's and Blue's (18,180), not {text!r}"
            )
        values = [one(part.strip()) for part in parts]
        return (values[0], values[-1])

    return convert


def whole_number(kind: str = "", minimum: int = 0) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``, refused naming ``kind`` (if given)."""
    subject = f"{kind} " if kind else ""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{subject}must be a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{subject}must be at least {minimum}, not {value}")
        return value

    return convert


def seed(text: str) -> int:
    """An argparse type: a seed, a whole number."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the seed must be a whole number, not {text!r}") from None


def chosen_game(argv: Sequence[str], default: str) -> str:
    """The game ``--game NAME`` or ``--game=NAME`` names in ``argv`` (``default`` when none), read before the
    full parser is built: the game decides which options the parser has."""
    pre = argparse.ArgumentParser(add_help=False)  # the plain one: everything else is left for the real parse
    pre.add_argument("--game", default=default)
    known, _ = pre.parse_known_args(list(argv))
    return str(known.game)


def usage_error(parser: argparse.ArgumentParser, message: str) -> int:
    """Print ``parser``'s usage and ``message`` as argparse does; the usage error's exit status."""
    parser.print_usage(sys.stderr)
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    return ExitStatus.USAGE
