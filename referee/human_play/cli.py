"""``python -m referee play [options] AGENT``: a person plays one game against an agent, in the terminal or a browser.

In the terminal (the loop below) the referee shows the board, reads actions
typed in the game's text, refuses illegal ones with the reason, lists legal
actions on ``?``, takes back the last full move on ``undo`` (the agent is
restarted and replayed to the position: agents have no undo), gives the game
up on ``resign`` (the agent wins by ``resignation``) and saves the record on
``q`` (``unfinished``: no winner), ``resign`` or at the end.
With ``--web`` a local page does the same by clicks (:mod:`.web`, the page in
:mod:`.page`); ``--web --hot-seat`` lets two people share that page.  Either
way the agent runs hosted, with its limits and sandbox, as in a refereed game
(:mod:`.session`).

Exit status: 0 when the game ended or was quit (record saved), 2 for a usage
error, 130 on Ctrl-C, 1 only when the referee itself failed.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

from ..agent_text import inert_line
from ..arguments import ArgumentParser, chosen_game, every_games_help, non_negative, seed, usage_error
from ..console import ConsoleReader
from ..games import DEFAULT_GAME, GAMES, command_line_options, game_names, registration
from ..games.base import CHANCE, PLAYER_NAMES, GameOptionError
from ..hosting.failures import AgentFailure
from ..hosting.sandbox import MODES, SandboxUnavailable, resolve
from ..match import spec_problem
from ..termination import report_stop, stop_as_usual, stoppable
from .session import HUMAN, Session, candidates, legal_listing, read_action, say
from ..exit_status import ExitStatus

__all__ = ["HUMAN", "Session", "build_parser", "candidates", "legal_listing", "main", "read_action"]

DEFAULT_RECORD = "human_game.json"
DEFAULT_PORT = 8765
PROMPT_HELP = (
    "type an action, '?' for the legal actions, 'undo' to take back your last move, "
    "'resign' to give the game up, 'q' to save and quit (unfinished: no winner)"
)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the port must be a whole number, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"the port must be 0..65535 (0: any free port), not {port}")
    return port


def _games() -> list[str]:
    """Every game a person can play: the bundled ones in their usual order, then any plug-in (REFEREE_GAMES)."""
    return [*GAMES, *(name for name in game_names() if name not in GAMES)]


def build_parser(game_name: str | None) -> ArgumentParser:
    """The play command's parser, with ``game_name``'s own options (None: every game's, for the help)."""
    parser = ArgumentParser(
        prog="python -m referee play",
        add_help=False,
        description="Play one game against an agent in this terminal, or with --web in your browser; "
        "the agent runs under its limits as usual.",
        epilog="At the prompt: " + PROMPT_HELP + " (Ctrl-D too). Ctrl-C stops at once, without a record. "
        "With --web, Ctrl-C stops the server and the agent; the API is in docs/play.md.",
    )
    parser.add_argument(
        "-h", "--help", action=every_games_help(lambda: build_parser(None)),
        help="show this help (every game's options) and exit",
    )
    parser.add_argument("agent", metavar="AGENT", nargs="?", default=None,
                        help="the agent: module.path[:Class], e.g. agents.minimax (none with --hot-seat)")
    parser.add_argument("--as", dest="side", choices=("red", "blue"), default="red",
                        help="the side you play (default red: you move first)")
    parser.add_argument("-t", "--time", nargs="?", const=180.0, default=None, type=non_negative("the time limit"),
                        metavar="SECONDS", help="the agent's CPU seconds for the game (bare -t: 180; default: none)")
    parser.add_argument("-s", "--space", nargs="?", const=250.0, default=None, type=non_negative("the space limit"),
                        metavar="MB", help="the agent's memory in MB (bare -s: 250; default: no limit)")
    parser.add_argument("--human-time", type=non_negative("the human time"), default=None, metavar="SECONDS",
                        help="your own wall-clock seconds for the game, counted while the prompt waits "
                        "(on the page: while it is your move; default: no limit); running out of it loses the game")
    parser.add_argument("--sandbox", choices=MODES, default="auto", help="seal the agent (default auto)")
    parser.add_argument("--seed", type=seed, default=None, help="a seed given to the agent (its keyword argument seed)")
    parser.add_argument("--record", metavar="PATH", default=None,
                        help="where the record is written at the end, on resign or q (terminal default "
                        f"{DEFAULT_RECORD}); with --web, when given: each game is added to it as a line "
                        "(replay --game-index N)")
    parser.add_argument("--game", default=DEFAULT_GAME, choices=_games(), help=f"which game (default: {DEFAULT_GAME})")
    web = parser.add_argument_group("in the browser")
    web.add_argument("--web", action="store_true", help="play on a local web page instead of the terminal")
    web.add_argument("--port", type=_port, default=None,
                     help=f"the page's port on 127.0.0.1 (default {DEFAULT_PORT}; 0: any free port)")
    web.add_argument("--no-open", dest="open", action="store_false", help="print the page's address, open no browser")
    web.add_argument("--hot-seat", action="store_true", help="two people share the page: no AGENT")
    for name in [game_name] if game_name else _games():
        own = parser.add_argument_group(f"{name} only (with --game {name})") if game_name is None else parser
        try:
            registration(name).add_arguments(own)
        except (GameOptionError, argparse.ArgumentError):
            pass  # an unknown game is --game's error
    return parser


def run(session: Session, record_path: str, reader: ConsoleReader) -> int:
    """The game loop; returns the exit status once the record is written."""
    session.start_agent()
    human = PLAYER_NAMES[session.human]
    say(f"You play {human} against {session.name_of(1 - session.human)}; {PROMPT_HELP}.")
    core = session.core
    shown = -1
    while not core.over:
        state = session.state
        if state.current_player == CHANCE:  # a chaos event, drawn by the referee
            try:
                session.chance_move()
            except AgentFailure as failure:  # told of the event, the agent failed: it forfeits
                session.failure = failure
            continue
        if state.current_player == session.agent_color or session.failure is not None:
            try:
                if session.failure is not None:
                    raise session.failure
                session.agent_move()
            except AgentFailure as failure:
                say(inert_line(session.forfeit(failure).message))  # the record's message, inert
            continue
        if shown != len(session.actions):  # the board again only when the position changed
            session.show()
            shown = len(session.actions)
        asked = time.monotonic()
        line = reader.ask(f"{human} (you) > ")
        # The person's clock runs while the prompt waits (undo gives no time back).
        session.human_used[session.human] += time.monotonic() - asked
        if session.human_time is not None and session.human_used[session.human] > session.human_time \
                and line is not None:
            core.out_of_time(session.human, f"{human} ({HUMAN}) ran out of {session.human_time:g} s")
            break
        command = None if line is None else line.strip()
        if command is None or command.lower() in ("q", "quit"):
            core.unfinished(f"unfinished: {HUMAN} quit after {len(session.actions)} actions")
        elif command.lower() == "resign":
            core.resigned(session.human, HUMAN)
        elif command == "":
            say(PROMPT_HELP)
        elif command == "?" or command.startswith("? "):
            say(legal_listing(state, command[1:].strip()))
        elif command.lower() == "undo":
            try:
                undone = session.undo()
            except AgentFailure as failure:  # restarted and told the game again, the agent failed: it forfeits
                session.failure = failure
                continue
            if undone:
                say("took back your last move")
                shown = -1
            else:
                say("nothing to undo: you have not moved yet")
        else:
            action, problem = read_action(state, command)
            if action is None:
                say(problem)
            else:
                try:
                    session.play(action)
                except AgentFailure as failure:  # told of the move, the agent failed: it forfeits
                    session.failure = failure
    session.close_agent()
    record = session.record()
    say(f"result: {inert_line(record.message)}")  # it may quote the agent
    try:
        Path(record_path).write_text(json.dumps(record.to_dict(), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"* referee @ could not write {record_path}: {exc.strerror}", file=sys.stderr)
        return ExitStatus.INTERNAL
    say(f"record: {record_path}")
    return ExitStatus.OK


def main(argv: list[str]) -> int:
    """Parse the options, then play the game against the agent."""
    game_name = chosen_game(argv, DEFAULT_GAME)
    try:
        parser = build_parser(game_name)
        args = parser.parse_args(argv)
    except GameOptionError as exc:
        print(f"python -m referee play: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0)
    # From here SIGTERM and SIGHUP stop the command as Ctrl-C does, the sandbox
    # probe (processes of its own) included, not only the game; a stop the
    # game does not report itself comes before or after it.
    return stoppable(lambda: _start(parser, args), "\n* referee @ {how} (no agent was running)")


def _start(parser: ArgumentParser, args: argparse.Namespace) -> int:
    """Check the arguments, then play in the terminal or serve the page; the exit status."""
    if not args.web:
        for flag, given in (("--hot-seat", args.hot_seat), ("--port", args.port is not None),
                            ("--no-open", not args.open)):
            if given:
                return usage_error(parser, f"{flag} needs --web (it is about the page)")
    if args.port is None:
        args.port = DEFAULT_PORT
    if args.hot_seat and args.agent:
        return usage_error(parser, f"--hot-seat is two people: give no AGENT (got {args.agent!r})")
    if not args.hot_seat:
        if not args.agent:
            return usage_error(parser, "the following arguments are required: AGENT (or --web --hot-seat)")
        problem = spec_problem(args.agent, Path.cwd())
        if problem:
            return usage_error(parser, problem)
    if args.record is None and not args.web:
        args.record = DEFAULT_RECORD
    try:
        # --seed is also the game seed: a game whose setup it draws (Infinitron's cities) takes it as in a tournament.
        options = command_line_options(args.game, args, args.seed)
    except GameOptionError as exc:
        return usage_error(parser, str(exc))
    if args.record is not None and not Path(args.record).resolve().parent.is_dir():
        return usage_error(parser, f"--record: folder {Path(args.record).resolve().parent} does not exist")
    try:
        sandbox = resolve(args.sandbox)
    except SandboxUnavailable as exc:
        return usage_error(parser, str(exc))
    if not sandbox.sealed and not args.hot_seat:
        print(f"* referee @ WARNING: {sandbox.describe()}", file=sys.stderr)
    if args.web:
        from .web import serve  # only here: the terminal game needs no HTTP server

        return serve(args, options)
    session = Session(args, options)
    with ConsoleReader() as reader:  # a Ctrl-C while the prompt waits is not lost
        try:
            return run(session, args.record, reader)
        except KeyboardInterrupt as interrupt:
            return report_stop(interrupt, "\n* referee @ {how}: no record (the agent was stopped)")
        except AgentFailure as failure:  # the agent failed while being started or told a move
            print(f"* referee @ the agent failed: {inert_line(failure.message)}", file=sys.stderr)
            return ExitStatus.INTERNAL
        except Exception:  # noqa: BLE001  a referee bug: say so
            print("* referee @ internal referee error:", file=sys.stderr)
            traceback.print_exc()
            return ExitStatus.INTERNAL
        finally:
            session.close_agent()
            stop_as_usual()
