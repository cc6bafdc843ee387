"""``python -m referee [options] RED BLUE``: play one game and show it.

Exit status: 0 when the game reached a result (forfeits included), 2 for a
usage error, 1 only when the referee itself failed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, TextIO

import yaml

from .. import __version__
from ..games import DEFAULT_GAME, command_line_options, game_names, registration
from ..arguments import (
    ArgumentParser, chosen_game, commands_listed, every_games_help, non_negative, non_negative_pair, seed, usage_error,
)
from ..games.agent_kwargs import REFEREE_KWARGS
from ..games.base import GameOptionError
from ..hosting.environment import check_names
from ..hosting.sandbox import MODES, SandboxUnavailable, resolve
from ..limits import DEFAULT_GRACE, Limits, at_odds
from ..match import AgentEntry, MatchSettings, play_match, spec_problem
from ..render.terminal import ConsoleObserver
from ..termination import report_stop, stop_as_usual, stoppable
from ..exit_status import ExitStatus



def _variable_name(text: str) -> str:
    try:
        return check_names([text])[0]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _agent_option(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` -> (name, value), the value read as a YAML scalar (as a tournament's ``options:``)."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE (e.g. depth=4)")
    if name in REFEREE_KWARGS:
        raise argparse.ArgumentTypeError(f"{name!r} is passed by the referee itself; an agent option cannot set it")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    if isinstance(parsed, (dict, list)) or parsed is None:
        parsed = value  # only scalars: a VALUE that reads as a list, a mapping or null is its own text
    return name, parsed


def _game_options(name: str) -> list[str]:
    """The option strings a game adds (``-n``, ``--size``, ...)."""
    scratch = ArgumentParser(add_help=False)
    try:
        registration(name).add_arguments(scratch)
    except (GameOptionError, argparse.ArgumentError):
        return []
    return scratch.option_strings()


def build_parser(game_name: str | None = DEFAULT_GAME) -> ArgumentParser:
    """The play command's parser with ``game_name``'s own options (None: every game's, for the help)."""
    others = [name for name in game_names() if name != game_name] if game_name else []
    parser = ArgumentParser(
        prog="python -m referee",
        description="Play one game between two agents, each in its own process under time and memory limits.",
        epilog="other commands (each has its own --help):\n" + commands_listed(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
        # Another game's option given without its --game is named as such, not as a typo (worked out only
        # then: it imports every game, which a plain game's start should not wait for).
        elsewhere=lambda: {
            option: f"an option of --game {name}, not of --game {game_name}"
            for name in others
            for option in _game_options(name)
        },
    )
    parser.add_argument(
        "-h", "--help", action=every_games_help(lambda: build_parser(None)),
        help="show this help (every game's options) and exit",
    )
    parser.add_argument(
        "red", metavar="RED", help="Red's agent: a package spec module.path[:Class], e.g. agents.minimax"
    )
    parser.add_argument("blue", metavar="BLUE", help="Blue's agent, likewise")
    parser.add_argument("-V", "--version", action="version", version=f"referee {__version__}")
    limits = parser.add_argument_group("limits")
    limits.add_argument(
        "-t", "--time", nargs="?", const=(180.0, 180.0), default=None, type=non_negative_pair("the time limit"),
        metavar="SECONDS", help="CPU seconds per agent per game (bare -t: 180; -t 0 or no -t: no limit); "
        "RED,BLUE gives each its own (-t 18,180: a game at odds)",
    )
    limits.add_argument(
        "-s", "--space", nargs="?", const=(250.0, 250.0), default=None, type=non_negative_pair("the space limit"),
        metavar="MB", help="memory per agent in MB above the interpreter's own (bare -s: 250; -s 0 or no -s: "
        "no limit); RED,BLUE gives each its own",
    )
    limits.add_argument(
        "--grace", type=non_negative("the grace"), default=DEFAULT_GRACE, metavar="SECONDS",
        help=f"watchdog: a call may last its remaining CPU time plus this much wall time (default {DEFAULT_GRACE:g})",
    )
    limits.add_argument(
        "--call-timeout", type=non_negative("the call timeout"), default=None, metavar="SECONDS",
        help="watchdog: wall-clock cap on any one call (default: none)",
    )
    limits.add_argument(
        "--sandbox", choices=MODES, default="auto",
        help="seal each agent in namespaces and a cgroup, frozen between calls: auto (where this machine can; "
        "the default), required (refuse to play without it) or off (docs/referee.md, 'The sandbox')",
    )
    limits.add_argument(
        "--pass-env", action="append", default=[], type=_variable_name, metavar="NAME",
        help="pass the environment variable NAME on to the agents (repeatable); they get only a few "
        "(docs/referee.md, 'What an agent's process inherits')",
    )
    show = parser.add_argument_group("output")
    show.add_argument(
        "-v", "--verbosity", nargs="?", const=3, default=2, type=int, choices=range(4), metavar="0-3",
        help="0: the result only; 1: + each action and any failure; 2: + the board and what the agents print "
        "(default; a game of several actions a turn, Infinitron: the board once a turn); 3: + each call's CPU, "
        "wall time and memory, and the board after every action (bare -v: 3)",
    )
    show.add_argument("-d", "--debug", action="store_true", help="same as -v 3")
    show.add_argument(
        "-l", "--logfile", nargs="?", const="game.log", default=None, metavar="FILE",
        help="also write the commentary to FILE (bare -l: game.log)",
    )
    color = show.add_mutually_exclusive_group()
    color.add_argument("-c", "--colour", "--color", dest="color", action="store_true", default=None, help="ANSI colour")
    color.add_argument("-C", "--colourless", "--colorless", dest="color", action="store_false", help="no colour")
    uni = show.add_mutually_exclusive_group()
    uni.add_argument("-u", "--unicode", dest="unicode", action="store_true", default=None, help="unicode symbols")
    uni.add_argument("-a", "--ascii", dest="unicode", action="store_false", help="plain ASCII")
    show.add_argument(
        "-w", "--wait", nargs="?", const=0.5, default=0.0, type=float, metavar="SECONDS",
        help="pause after each turn (bare -w: 0.5 s; negative: wait for Enter)",
    )
    game = parser.add_argument_group("game")
    game.add_argument("--game", default=DEFAULT_GAME, choices=game_names(),
                      help=f"which game (default: {DEFAULT_GAME})")
    game.add_argument("--seed", type=seed, default=None,
                      help="a seed given to both agents (their keyword argument seed)")
    for side in ("red", "blue"):
        game.add_argument(
            f"--{side}-option", dest=f"{side}_options", action="append", default=[], type=_agent_option,
            metavar="NAME=VALUE",
            # Not "as a tournament's options:": the help ended in a colon, the YAML key it named left out.
            help=f"an option {side.title()}'s agent gets as a keyword argument in every call, like an agent's "
            "options in a tournament config (repeatable; VALUE is read as in YAML: depth=4 is the number 4)",
        )
    game.add_argument(
        "--chance-seed", default=None, metavar="TEXT",
        help="seed of chance's draws (chaos events), to replay a record's (its chance_seed); "
        "default: derived from --seed and a secret of this run, never given to the agents",
    )
    game.add_argument(
        "--record", metavar="PATH", default=None,
        help="write the game record (JSON) to PATH; - prints it to standard output and the game to standard error",
    )
    game.add_argument(
        "--html", metavar="OUT.html", default=None,
        help="write an HTML replay of the game at the end (- : to standard output, the game to standard error)",
    )
    for name in [game_name] if game_name else game_names():
        own = parser.add_argument_group(f"{name} only (with --game {name})") if game_name is None else game
        try:
            registration(name).add_arguments(own)
        except (GameOptionError, argparse.ArgumentError):
            pass  # an unknown game is --game's error; a plug-in's clashing option is left out of the help
    return parser


def main(argv: list[str]) -> int:
    game_name = chosen_game(argv, DEFAULT_GAME)
    try:
        parser = build_parser(game_name)
    except GameOptionError as exc:  # e.g. a malformed REFEREE_GAMES
        print(f"python -m referee: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version (0) or a usage error (2)
        return int(exc.code or 0)
    # From here SIGTERM and SIGHUP stop the command as Ctrl-C does, the sandbox
    # probe (processes of its own) included, not only the game; a stop the
    # game does not report itself comes before or after it.
    return stoppable(lambda: _play(parser, args), "\n* referee @ {how} (no agent was running)")


def _limits(args: argparse.Namespace) -> tuple[Limits, tuple[Limits | None, Limits | None]]:
    """The game's limits, and each side's own where ``-t``/``-s`` gave two numbers that differ (else None)."""
    times, spaces = args.time or (None, None), args.space or (None, None)
    sides = [Limits(time_limit=times[c], space_limit=spaces[c], wall_grace=args.grace, call_timeout=args.call_timeout)
             for c in (0, 1)]
    if not at_odds(*sides):
        return sides[0], (None, None)
    return sides[0], (sides[0], sides[1])


def _play(parser: ArgumentParser, args: argparse.Namespace) -> int:
    """Check the arguments, play the game, write what was asked for; the exit status."""
    # A spec that names nothing here is a typo, not a game to forfeit; one
    # that names a module that then fails to import is the agent's load_error.
    for color, spec in (("RED", args.red), ("BLUE", args.blue)):
        problem = spec_problem(spec, Path.cwd())
        if problem:
            return usage_error(parser, f"{color}: {problem}")
    try:
        # --seed is also the game seed: a game whose setup it draws (Infinitron's cities) takes it as in a tournament.
        options = command_line_options(args.game, args, args.seed)
    except GameOptionError as exc:
        return usage_error(parser, str(exc))
    if args.record == "-" and args.html == "-":
        return usage_error(parser, "--record - and --html - cannot both take standard output")
    for option, path in (("--record", args.record), ("--html", args.html)):
        if path and path != "-" and not Path(path).resolve().parent.is_dir():
            return usage_error(parser, f"{option}: folder {Path(path).resolve().parent} does not exist")
    try:
        sandbox = resolve(args.sandbox)
    except SandboxUnavailable as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    verbosity = 3 if args.debug else args.verbosity
    to_stdout = "-" in (args.record, args.html)
    tty = (sys.stderr if to_stdout else sys.stdout).isatty()
    use_color = tty and os.environ.get("NO_COLOR") is None if args.color is None else args.color
    use_unicode = tty if args.unicode is None else args.unicode
    log: TextIO | None = None
    if args.logfile:
        try:
            log = open(args.logfile, "w", encoding="utf-8")
        except OSError as exc:
            return usage_error(parser, f"cannot write the log file {args.logfile}: {exc.strerror}")
    # With the record or the replay on standard output, the commentary keeps out of its way.
    console = sys.stderr if to_stdout else None
    observer = ConsoleObserver(verbosity, use_color, use_unicode, args.wait, out=console, log=log)
    game_limits, side_limits = _limits(args)
    settings = MatchSettings(
        game=args.game,
        game_options=options,
        limits=game_limits,
        seed=args.seed,
        # The record keeps the agents' options, so that the game can be played again exactly.
        extra={"agent_options": {"RED": dict(args.red_options), "BLUE": dict(args.blue_options)}}
        if args.red_options or args.blue_options else {},
        sandbox=args.sandbox,
        chance_seed=args.chance_seed,
        pass_env=tuple(args.pass_env),
    )
    if not sandbox.sealed:
        # Said where the operator looks, whatever the verbosity.
        print(f"* referee @ WARNING: {sandbox.describe()}", file=sys.stderr)
    for weaker in sandbox.weaker():
        print(f"* referee @ NOTE: agents are sealed, but weaker: {weaker}", file=sys.stderr)
    try:
        red = AgentEntry(args.red, options=dict(args.red_options), limits=side_limits[0])
        blue = AgentEntry(args.blue, options=dict(args.blue_options), limits=side_limits[1])
        record = play_match(red, blue, settings, observer)
    except KeyboardInterrupt as interrupt:  # SIGTERM and SIGHUP too: the agents are stopped on the way out
        return report_stop(interrupt, "\n* referee @ {how}: no result (the agents were stopped)")
    except Exception:  # noqa: BLE001  a referee bug: say so, and say it is ours
        print("* referee @ internal referee error (not the agents' fault):", file=sys.stderr)
        traceback.print_exc()
        return ExitStatus.INTERNAL
    finally:
        stop_as_usual()
        if log is not None:
            log.close()
    outputs = []
    if args.record:
        outputs.append((args.record, lambda: json.dumps(record.to_dict(), indent=1) + "\n"))
    if args.html:
        from ..render.html_replay import replay_html

        outputs.append((args.html, lambda: replay_html(record)))
    for path, content in outputs:
        try:
            if path == "-":
                sys.stdout.write(content())
                sys.stdout.flush()
            else:
                Path(path).write_text(content(), encoding="utf-8")
        except OSError as exc:
            print(f"* referee @ could not write {path}: {exc.strerror}", file=sys.stderr)
            return ExitStatus.INTERNAL
    return ExitStatus.OK
