"""``python -m referee serve`` (the battleground server, and ``serve tokens``) and ``python -m referee connect``."""
from __future__ import annotations

import argparse
import asyncio
import csv
import os
import sys
from collections.abc import Callable
from pathlib import Path

from ..arguments import ArgumentParser, chosen_game, non_negative, usage_error, whole_number
from ..exit_status import ExitStatus
from ..games import DEFAULT_GAME, command_line_options, game_names, registration
from ..games.base import GameOptionError
from ..hosting.sandbox import MODES
from ..match import spec_problem
from ..termination import report_stop, stoppable
from .protocol import TOKEN_VARIABLE


MISSING_LIBRARY = ("the battleground needs the websockets library: pip install -e \".[battleground]\" "
                   "(docs/battleground.md)")


def _websockets_missing() -> bool:
    try:
        import websockets  # noqa: F401
    except ImportError:
        print(f"python -m referee: error: {MISSING_LIBRARY}", file=sys.stderr)
        return True
    return False


_positive_int = whole_number()


_HOUSE_LIMITS = {"t": ("time_limit", "the time limit"), "s": ("space_limit", "the space limit")}


def _house(text: str) -> tuple[str, str, dict[str, float]]:
    """``NAME=SPEC[,t=SECONDS][,s=MB]``: a house agent, with its own limits if given (it plays at odds)."""
    name, sep, rest = text.partition("=")
    spec, *extras = rest.split(",")
    if not sep or not name or not spec:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a house agent is NAME=SPEC[,t=SECONDS][,s=MB], e.g. greedy=agents.greedy or "
            "fast=agents.mcts,t=18"
        )
    own: dict[str, float] = {}
    for extra in extras:
        key, sep, value = extra.partition("=")
        if not sep or key.strip() not in _HOUSE_LIMITS:
            raise argparse.ArgumentTypeError(
                f"{text!r}: after the spec come only t=SECONDS (its own time limit) and s=MB (its own memory), "
                f"not {extra!r}"
            )
        field, kind = _HOUSE_LIMITS[key.strip()]
        own[field] = non_negative(kind)(value.strip())
    return name, spec, own


def _address(text: str) -> str:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (e.g. localhost:7030)")
    return text


def read_roster(path: str) -> dict[str, str | None]:
    """name -> student id from a CSV with a ``name`` column (and optionally ``student_id``); ValueError saying where."""
    from .protocol import NAME_PATTERN, name_key

    try:
        with open(path, newline="", encoding="utf-8-sig") as file:
            reader = csv.DictReader(file)
            rows = list(reader)
            fields = [f.strip().lower() for f in reader.fieldnames or []]
    except OSError as exc:
        raise ValueError(f"cannot read the roster {path}: {exc.strerror}") from None
    except (csv.Error, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a CSV file ({exc})") from None
    if "name" not in fields:
        raise ValueError(f"{path}: the roster needs a 'name' column (and optionally 'student_id')")
    roster: dict[str, str | None] = {}
    for line, row in enumerate(rows, 2):
        row = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()}
        name = row.get("name", "")
        if not NAME_PATTERN.fullmatch(name):
            raise ValueError(f"{path}, line {line}: {name!r} is not a name (1 to 32 letters, digits, '_', '-', '.', "
                             "starting with a letter or a digit)")
        if name in roster:
            raise ValueError(f"{path}, line {line}: {name!r} is on the roster twice")
        like = next((known for known in roster if name_key(known) == name_key(name)), None)
        if like is not None:
            raise ValueError(f"{path}, line {line}: {name!r} reads as {like!r}, already on the roster: one of them "
                             "needs another name")
        roster[name] = row.get("student_id") or None
    return roster


def serve_parser(game: str = DEFAULT_GAME) -> ArgumentParser:
    parser = ArgumentParser(
        prog="python -m referee serve",
        description="The battleground server: students' agents play each other from their own machines "
        "(docs/battleground.md). 'python -m referee serve tokens ROSTER.csv --db DB' prints the roster's tokens.",
    )
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every address)")
    parser.add_argument("--port", type=_positive_int, default=7030, help="the one port (default 7030; 0: any free)")
    parser.add_argument("--db", default="battleground.sqlite", help="the SQLite database (default battleground.sqlite)")
    parser.add_argument("--game", default=DEFAULT_GAME, choices=game_names(),
                        help=f"which game (default {DEFAULT_GAME})")
    parser.add_argument("-t", "--time", type=non_negative("the time limit"), default=180.0, metavar="SECONDS",
                        help="CPU seconds per agent per game (default 180; 0: none)")
    parser.add_argument("-s", "--space", type=non_negative("the space limit"), default=250.0, metavar="MB",
                        help="memory per agent in MB (default 250; 0: none)")
    parser.add_argument("--house", action="append", type=_house, default=[], metavar="NAME=SPEC[,t=S][,s=MB]",
                        help="a house agent students play on channel NAME (repeatable); t= and s= give it its own "
                        "time and memory limit (its games are at odds: fast=agents.mcts,t=18)")
    parser.add_argument("--house-workers", type=_positive_int, default=os.cpu_count() or 2, metavar="N",
                        help="house agents' games at once (default: the number of cores)")
    parser.add_argument("--sandbox", choices=MODES, default="auto", help="how house agents are sealed")
    parser.add_argument("--roster", metavar="CSV", help="only these names may play, each with its token")
    parser.add_argument("--grace", type=non_negative("the grace period"), default=20.0, metavar="SECONDS",
                        help="how long a dropped client may take to come back to its game (default 20)")
    parser.add_argument("--wall-factor", type=non_negative("the wall factor"), default=1.25, metavar="X",
                        help="each side's wall clock on the server is X times the time limit (default 1.25)")
    parser.add_argument("--per-address", type=_positive_int, default=8, metavar="N",
                        help="connections from one address at once (default 8; 0: no cap)")
    parser.add_argument("--open-per-address", type=_positive_int, default=64, metavar="N",
                        help="connections of any kind (agents, page requests, unfinished handshakes) one address may "
                        "hold open at once, counted from their accept (default 64; 0: no cap)")
    parser.add_argument("--names-per-hour", type=_positive_int, default=20, metavar="N",
                        help="new names one address may take in an hour (default 20; 0: no cap; a class behind one "
                        "address should use a --roster)")
    parser.add_argument("--pair-games-per-hour", type=_positive_int, default=30, metavar="N",
                        help="games two players may start together in an hour; house games are not capped "
                        "(default 30; 0: no cap)")
    parser.add_argument("--hello-timeout", type=non_negative("the hello timeout"), default=10.0, metavar="SECONDS",
                        help="a new connection that has not said hello within this is closed (default 10)")
    parser.add_argument("--start-timeout", type=non_negative("the start timeout"), default=60.0, metavar="SECONDS",
                        help="wall seconds from a game's start for both agents to be ready (default 60)")
    parser.add_argument("--http-rate", type=non_negative("the request rate"), default=50.0, metavar="N",
                        help="HTTP requests a second one address may make to the pages and the API (default 50; "
                        "0: no limit)")
    parser.add_argument("--http-burst", type=non_negative("the request burst"), default=200.0, metavar="N",
                        help="HTTP requests an address may make at once before --http-rate applies (default 200)")
    parser.add_argument("--rate", type=non_negative("the message rate"), default=200.0, metavar="N",
                        help="messages a second a client may send unasked, answers to the server not counted "
                        "(default 200)")
    parser.add_argument("--burst", type=non_negative("the burst"), default=400.0, metavar="N",
                        help="unasked messages a client may send at once before --rate applies (default 400)")
    _add_game_options(parser, game)
    return parser


def _add_game_options(parser: ArgumentParser, game: str) -> None:
    """The game's own options (``-n`` of cachex...), in a group of their own, as every command gives them."""
    try:
        registration(game).add_arguments(parser.add_argument_group(f"{game} options"))
    except (GameOptionError, argparse.ArgumentError):
        pass  # a broken plug-in (or flags clashing with the command's): its options are then refused as
        # unknown, and a broken game is said so when its options are read


def _parsed(
    argv: list[str], make: Callable[[str], ArgumentParser]
) -> tuple[ArgumentParser, argparse.Namespace] | int:
    """The parser ``make`` gives for the game the command line names (its options among the flags), and the
    arguments it read; or the exit status once argparse has said its piece (--help: 0, a usage error: 2)."""
    game = chosen_game(argv, DEFAULT_GAME)
    parser = make(game if game in game_names() else DEFAULT_GAME)
    try:
        return parser, parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def serve_main(argv: list[str]) -> int:
    if argv[:1] == ["tokens"]:
        return tokens_main(argv[1:])
    parsed = _parsed(argv, serve_parser)
    if isinstance(parsed, int):
        return parsed
    parser, args = parsed
    if _websockets_missing():
        return ExitStatus.USAGE
    try:
        options = command_line_options(args.game, args, None)
    except GameOptionError as exc:
        return usage_error(parser, str(exc))
    for name, spec, _own in args.house:
        problem = spec_problem(spec, Path.cwd())
        if problem:
            return usage_error(parser, f"--house {name}: {problem}")
    roster = None
    if args.roster:
        try:
            roster = read_roster(args.roster)
        except ValueError as exc:
            return usage_error(parser, str(exc))
    if not args.wall_factor or args.wall_factor < 1:
        return usage_error(parser, "--wall-factor must be at least 1 (the server's clock backs the client's)")
    if not args.hello_timeout or not args.start_timeout:
        return usage_error(parser, "--hello-timeout and --start-timeout must be more than 0")
    if not args.rate or args.burst < 1:
        return usage_error(parser, "--rate must be more than 0 and --burst at least 1")
    from .server import ServerSettings, run_server
    from .store import StoreError

    settings = ServerSettings(
        game=args.game, game_options=options, time_limit=args.time or None, space_limit=args.space or None,
        wall_factor=args.wall_factor, grace=args.grace, house={name: spec for name, spec, _own in args.house},
        house_limits={name: own for name, _spec, own in args.house if own}, house_workers=args.house_workers,
        house_sandbox=args.sandbox, roster=roster, per_address=args.per_address,
        open_per_address=args.open_per_address, names_per_hour=args.names_per_hour,
        pair_games_per_hour=args.pair_games_per_hour, rate=args.rate, burst=args.burst,
        hello_timeout=args.hello_timeout, startup_allowance=args.start_timeout, http_rate=args.http_rate,
        http_burst=max(1.0, args.http_burst),
    )

    def run() -> int:
        try:
            asyncio.run(run_server(settings, args.db, args.host, args.port,
                                   say=lambda text: print(text, file=sys.stderr, flush=True)))
        except StoreError as exc:
            return usage_error(parser, str(exc))
        except OSError as exc:
            return usage_error(parser, f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        return ExitStatus.OK

    return stoppable(run, "* battleground: stopped ({how}); running games are recorded as aborted at the next start")


def tokens_parser(game: str = DEFAULT_GAME) -> ArgumentParser:
    """The parser of ``serve tokens``: the roster, the database, and the game and its options as ``serve`` takes
    them (they make a new database; an existing one has its own)."""
    parser = ArgumentParser(
        prog="python -m referee serve tokens",
        description="Print each roster name's token (CSV: name, student_id, token) from the server's database. "
        "A database made already keeps its game and options; a new one is made for the --game and options given, "
        "as serve takes them.",
    )
    parser.add_argument("roster", metavar="ROSTER.csv",
                        help="the roster: a CSV file with a name column (and optionally student_id)")
    parser.add_argument("--db", default="battleground.sqlite",
                        help="the server's database (default battleground.sqlite)")
    # No default: whether --game was given decides whether an existing database's setup is checked against it.
    parser.add_argument("--game", default=None, choices=game_names(),
                        help=f"the server's game, as given to serve (default: the database's own; {DEFAULT_GAME} "
                        "for a new database)")
    _add_game_options(parser, game)
    return parser


def _options_given(game: str, args: argparse.Namespace) -> bool:
    """Whether the command line sets any of the game's own options (a flag absent is False, a value None)."""
    try:
        options = registration(game).options
    except GameOptionError:
        return False
    return any(getattr(args, option.name, None) not in (None, False) for option in options)


def tokens_main(argv: list[str]) -> int:
    """``serve tokens``: the roster's tokens, from the database's secret (CSV on standard output)."""
    parsed = _parsed(argv, tokens_parser)
    if isinstance(parsed, int):
        return parsed
    parser, args = parsed
    try:
        roster = read_roster(args.roster)
    except ValueError as exc:
        return usage_error(parser, str(exc))
    from .store import Store, StoreError, kept_setup, other_setup, roster_token, setup_json

    game = args.game or DEFAULT_GAME
    asked = args.game is not None or _options_given(game, args)
    try:
        kept = kept_setup(args.db)
    except StoreError as exc:
        return usage_error(parser, str(exc))
    if kept is not None and not asked:
        secret = kept.secret
    else:
        try:
            # Read as serve reads them: the setup written or compared is the one serve keeps for this command line.
            options = command_line_options(game, args, None)
        except GameOptionError as exc:
            return usage_error(parser, str(exc))
        if kept is not None:
            if setup_json(game, options) != kept.setup:
                return usage_error(parser, f"{other_setup(args.db, kept.setup, setup_json(game, options))} (or give "
                                   "no --game: serve tokens then uses the database's own game and options)")
            secret = kept.secret
        else:
            try:
                store = Store(args.db, game, options)
            except StoreError as exc:
                return usage_error(parser, str(exc))
            secret = store.secret
            store.close()
    writer = csv.writer(sys.stdout)
    writer.writerow(["name", "student_id", "token"])
    for name, student_id in roster.items():
        writer.writerow([name, student_id or "", roster_token(secret, name)])
    return ExitStatus.OK


def connect_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="python -m referee connect",
        description="Play your agent on a battleground server from this machine; it runs sealed here, under the "
        "server's limits, and the server never sees its code (docs/battleground.md).",
    )
    parser.add_argument("agent", metavar="AGENT", help="your agent's package, e.g. agents/my_agent")
    parser.add_argument("name", metavar="NAME", help="your name on the server (1-32 letters, digits, _ - .)")
    parser.add_argument("--server", type=_address, default="localhost:7030", help="HOST:PORT (default localhost:7030)")
    parser.add_argument("--channel", default="", help="play whoever joins this channel, or the house agent of "
                        "that name (default: the public pool, paired by rating)")
    parser.add_argument("--games", type=_positive_int, default=2,
                        help="games to play (default 2: a colour-swapped pair)")
    parser.add_argument("--token", default=None,
                        help=f"your token (default: ${TOKEN_VARIABLE} if set, else the one kept from your first "
                        "connection to this server)")
    parser.add_argument("--record-file", default="battleground-games.jsonl", metavar="PATH",
                        help="append each game's record here (default battleground-games.jsonl)")
    parser.add_argument("--sandbox", choices=MODES, default="auto", help="how your agent is sealed (default auto)")
    parser.add_argument("-v", "--verbosity", type=int, choices=range(4), default=1, metavar="0-3",
                        help="as for a local game (default 1: each action)")
    parser.add_argument("--house-for", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--no-token-file", action="store_true", help=argparse.SUPPRESS)
    return parser


def connect_main(argv: list[str]) -> int:
    parser = connect_parser()
    args = parser.parse_args(argv)
    problem = spec_problem(args.agent, Path.cwd())
    if problem:
        return usage_error(parser, problem)
    if not 1 <= args.games <= 1000:
        return usage_error(parser, "--games must be between 1 and 1000")
    if _websockets_missing():
        return ExitStatus.USAGE
    from .client import Client, ClientOptions

    options = ClientOptions(
        spec=args.agent, name=args.name, server=args.server, channel=args.channel, games=args.games,
        token=args.token or os.environ.get(TOKEN_VARIABLE) or None, sandbox=args.sandbox,
        record_file=args.record_file or None, verbosity=args.verbosity, keep_token=not args.no_token_file,
        house_for=args.house_for,
    )
    client = Client(options)
    try:
        return client.run()
    except KeyboardInterrupt as interrupt:
        client.close_game()
        return report_stop(interrupt, "* battleground @ {how}: the game in play is lost if not resumed in time")
