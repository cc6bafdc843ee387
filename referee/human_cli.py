"""``python -m referee play [options] AGENT``: a person plays one game against an agent in the terminal.

The referee plays the person's side itself (no process for it): it shows the
board, reads actions typed in the game's text, refuses illegal ones with the
reason, lists legal actions on ``?``, takes back the last full move on
``undo`` (the agent is restarted and replayed to the position: agents have no
undo) and saves the record on ``q`` or at the end.  The agent runs hosted, with
its limits and sandbox, as in a refereed game.

Exit status: 0 when the game ended or was quit (record saved), 2 for a usage
error, 130 on Ctrl-C, 1 only when the referee itself failed.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import select
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from . import __version__
from .arguments import ArgumentParser
from .games import game_class, load_game, registration
from .games.base import PLAYER_NAMES, Action, GameOptionError, GameState, NotationError
from .hosting.failures import AgentFailure
from .hosting.process import HostedAgent
from .hosting.sandbox import MODES, SandboxUnavailable, resolve
from .limits import Limits
from .match import AgentEntry, MatchSettings, _agent_env, _now, call_kwargs, parse_spec, spec_problem
from .play_cli import _non_negative, _seed, _usage_error
from .records import UNFINISHED, GameRecord
from .termination import Terminated, exit_status, stop_as_usual, stop_like_ctrl_c

EXIT_DONE, EXIT_INTERNAL, EXIT_USAGE = 0, 1, 2
HUMAN = "human"
DEFAULT_RECORD = "human_game.json"
#: Games whose turns are one action by one player and no chance: the only ones this mode handles yet.
SUPPORTED = ("infexion", "cachex")
PROMPT_HELP = "type an action, '?' for the legal actions, 'undo' to take back your last move, 'q' to save and quit"


def build_parser(game_name: str) -> ArgumentParser:
    """The play command's parser, with ``game_name``'s own options."""
    parser = ArgumentParser(
        prog="python -m referee play",
        description="Play one game against an agent in this terminal; the agent runs under its limits as usual.",
        epilog="At the prompt: " + PROMPT_HELP + " (Ctrl-D too). Ctrl-C stops at once, without a record.",
    )
    parser.add_argument("agent", metavar="AGENT", help="the agent: module.path[:Class], e.g. agents.minimax")
    parser.add_argument("--as", dest="side", choices=("red", "blue"), default="red",
                        help="the side you play (default red: you move first)")
    parser.add_argument("-t", "--time", nargs="?", const=180.0, default=None, type=_non_negative("the time limit"),
                        metavar="SECONDS", help="the agent's CPU seconds for the game (bare -t: 180; default: none)")
    parser.add_argument("-s", "--space", nargs="?", const=250.0, default=None, type=_non_negative("the space limit"),
                        metavar="MB", help="the agent's memory in MB (bare -s: 250; default: no limit)")
    parser.add_argument("--human-time", type=_non_negative("the human time"), default=None, metavar="SECONDS",
                        help="your own wall-clock seconds for the game, counted while the prompt waits "
                        "(default: no limit); running out loses by time_limit")
    parser.add_argument("--sandbox", choices=MODES, default="auto", help="seal the agent (default auto)")
    parser.add_argument("--seed", type=_seed, default=None, help="seed passed to the agent (kwarg 'seed')")
    parser.add_argument("--record", metavar="PATH", default=DEFAULT_RECORD,
                        help=f"where the record is written at the end or on q (default {DEFAULT_RECORD})")
    parser.add_argument("--game", default="infexion", choices=SUPPORTED, help="which game (default: infexion)")
    try:
        registration(game_name).add_arguments(parser)
    except (GameOptionError, argparse.ArgumentError):
        pass  # an unknown game is --game's error
    return parser


def _game_name(argv: list[str]) -> str:
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--game", default="infexion")
    known, _ = pre.parse_known_args(argv)
    return str(known.game)


def candidates(text: str) -> list[str]:
    """Readings of what was typed, most literal first: as typed, then rebuilt as ``WORD(a, b, ...)``.

    People type ``spread 3 3 0 1`` or ``SPAWN(3,3)``; the game's parser wants its canonical text.
    """
    text = text.strip()
    found = [text, text.upper()]
    words = re.findall(r"[A-Za-z]+|-?\d+", text)
    if words and words[0].isalpha():
        name, numbers = words[0].upper(), words[1:]
        found.append(f"{name}({', '.join(numbers)})" if numbers else name)
    return found


def read_action(state: GameState, text: str) -> tuple[Action | None, str]:
    """The action ``text`` names and an empty string, or None and why it cannot be played now."""
    error = ""
    for reading in candidates(text):
        try:
            action = state.parse_action(reading)
        except NotationError as exc:
            error = error or str(exc)
            continue
        reason = state.illegal_reason(action)
        if reason is not None:
            return None, f"{state.action_to_str(action)} is illegal: {reason}"
        return action, ""
    return None, error


class Session:
    """One game: the position, the actions so far and the hosted agent."""

    def __init__(self, args: argparse.Namespace, options: dict[str, Any]):
        self.settings = MatchSettings(
            game=args.game, game_options=options, limits=Limits(time_limit=args.time, space_limit=args.space),
            seed=args.seed, sandbox=args.sandbox,
        )
        self.entry = AgentEntry(args.agent)
        self.game = load_game(args.game, **options)
        self.human = 0 if args.side == "red" else 1
        self.agent_color = 1 - self.human
        self.actions: list[str] = []
        self.state = self.game.new_state()
        self.agent: HostedAgent | None = None
        self.failure: AgentFailure | None = None
        self.sandbox = resolve(args.sandbox)
        self.started_at, self.start = _now(), time.monotonic()
        self.human_time = args.human_time or None  # 0 means none, as for -t
        self.human_used = 0.0

    def _kwargs(self) -> dict[str, Any]:
        assert self.agent is not None
        return call_kwargs(self.game, self.settings, self.entry, self.agent)

    def start_agent(self) -> None:
        """Start the agent's process, construct it and tell it every action so far."""
        module, class_name = parse_spec(self.entry.spec)
        color = PLAYER_NAMES[self.agent_color]
        self.agent = HostedAgent(color, module, class_name, self.game.name, dict(self.settings.game_options),
                                 self.settings.limits, env=_agent_env(self.settings.seed, self.agent_color),
                                 sandbox=self.sandbox)
        self.agent.start()
        self.agent.wait_ready()
        self.agent.call({"op": "init", "module": module, "class": class_name, "color": color, "kwargs": self._kwargs()})
        replay = self.game.new_state()
        for text in self.actions:
            mover = PLAYER_NAMES[replay.current_player]
            replay.apply(replay.parse_action(text))
            self.tell(mover, text)
        self.agent.take_output()

    def tell(self, color_name: str, text: str) -> None:
        assert self.agent is not None
        self.agent.call({"op": "turn", "color": color_name, "action": text, "kwargs": self._kwargs()})

    def close_agent(self) -> None:
        if self.agent is not None:
            self.agent.close()

    def play(self, action: Action) -> None:
        """Apply a legal action of the player to move and tell the agent."""
        mover = PLAYER_NAMES[self.state.current_player]
        text = self.state.action_to_str(action)
        self.state.apply(action)
        self.actions.append(text)
        print(f"{mover} plays {text}", flush=True)
        if not self.state.is_over:
            self.tell(mover, text)

    def agent_move(self) -> None:
        """Ask the agent for its action; a failure or an illegal action is raised as AgentFailure."""
        assert self.agent is not None
        print(f"{PLAYER_NAMES[self.agent_color]} ({self.entry.spec}) is thinking...", flush=True)
        reply = self.agent.call({"op": "action", "kwargs": self._kwargs()})
        output = self.agent.take_output()
        if output.strip():
            print(output.rstrip(), flush=True)
        from .hosting.failures import AgentIllegalAction, AgentProtocolError

        if reply.action is None:
            raise AgentProtocolError("the reply to action() carried no action")
        try:
            action = self.state.parse_action(reply.action)
        except NotationError as exc:
            raise AgentProtocolError(f"unreadable action: {exc}") from None
        reason = self.state.illegal_reason(action)
        if reason is not None:
            raise AgentIllegalAction(f"{self.state.action_to_str(action)}: {reason}")
        self.play(action)

    def undo(self) -> bool:
        """Take back the person's last action and what followed; False when there is none."""
        replay = self.game.new_state()
        movers = []
        for text in self.actions:
            movers.append(replay.current_player)
            replay.apply(replay.parse_action(text))
        if self.human not in movers:
            return False
        keep = len(movers) - 1 - movers[::-1].index(self.human)
        self.actions = self.actions[:keep]
        self.state = self.game.new_state()
        for text in self.actions:
            self.state.apply(self.state.parse_action(text))
        # Agents cannot undo: a fresh process is told the game again.
        self.close_agent()
        self.start_agent()
        return True

    def show(self) -> None:
        print(self.state.render(), flush=True)
        summary = self.state.summary()
        if summary:
            print(summary, flush=True)

    def record(self, winner: str | None, reason: str, message: str, error: dict[str, Any] | None = None) -> GameRecord:
        names = {self.human: HUMAN, self.agent_color: self.entry.spec}
        agent = self.agent
        agent_name = PLAYER_NAMES[self.agent_color]
        moves = {"RED": 0, "BLUE": 0}
        replay = self.game.new_state()
        for text in self.actions:
            moves[PLAYER_NAMES[replay.current_player]] += 1
            replay.apply(replay.parse_action(text))
        return GameRecord(
            game=self.game.name, game_options=dict(self.settings.game_options),
            red=names[0], blue=names[1], red_name=names[0], blue_name=names[1],
            winner=winner, reason=reason, message=message, turns=len(self.actions), actions=list(self.actions),
            moves=moves,
            time_used={PLAYER_NAMES[self.human]: round(self.human_used, 4),
                       agent_name: round(agent.time_used, 4) if agent else 0.0},
            peak_memory_mb={PLAYER_NAMES[self.human]: 0.0,
                            agent_name: round(agent.peak_memory_mb, 2) if agent else 0.0},
            error={"RED": None, "BLUE": None, **({agent_name: error} if error else {})},
            seed=self.settings.seed, time_limit=self.settings.limits.time_limit,
            space_limit=self.settings.limits.space_limit, started_at=self.started_at,
            duration=round(time.monotonic() - self.start, 4), referee_version=__version__,
            extra={"human": PLAYER_NAMES[self.human]}, sandbox=self.sandbox.to_json(),
        )


class LineReader:
    """Lines typed on standard input, read so that Ctrl-C is never lost.

    ``input()`` has a race: a SIGINT that lands between its prompt and its
    read leaves it blocked until the next key.  Here the read waits on the
    signal wake-up pipe as well, so the KeyboardInterrupt is raised at once.
    """

    def __init__(self) -> None:
        self.buffer = b""
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(wake_w, False)
        self.wake_w = wake_w
        self.previous = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)

    def close(self) -> None:
        signal.set_wakeup_fd(self.previous)
        os.close(self.wake_r)
        os.close(self.wake_w)

    def ask(self, prompt: str) -> str | None:
        """The next line typed after ``prompt``, or None at end of input (Ctrl-D)."""
        print(prompt, end="", flush=True)
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([0, self.wake_r], [], [])
            if self.wake_r in ready:
                try:
                    os.read(self.wake_r, 512)  # a signal came: its Python handler runs right after this
                except BlockingIOError:
                    pass
            if 0 in ready:
                data = os.read(0, 4096)
                if not data:
                    print()
                    return None
                self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace")


def run(session: Session, record_path: str, reader: LineReader) -> int:
    """The game loop; returns the exit status once the record is written."""
    session.start_agent()
    human = PLAYER_NAMES[session.human]
    print(f"You play {human} against {session.entry.spec}; {PROMPT_HELP}.", flush=True)
    record: GameRecord | None = None
    shown = -1
    while record is None:
        state = session.state
        if state.is_over:
            outcome = state.outcome
            assert outcome is not None
            winner = outcome.winner_name
            message = f"{winner} wins ({outcome.reason})" if winner else f"draw ({outcome.reason})"
            record = session.record(winner, outcome.reason, message)
            break
        if state.current_player == session.agent_color or session.failure is not None:
            try:
                if session.failure is not None:
                    raise session.failure
                session.agent_move()
            except AgentFailure as failure:
                message = f"{PLAYER_NAMES[session.agent_color]} agent: {failure.message}"
                print(f"* referee @ {message}", flush=True)
                error = {"kind": failure.reason, "message": failure.message, "traceback": failure.traceback or None,
                         "output_tail": failure.output or None}
                record = session.record(human, failure.reason, message, error)
            continue
        if shown != len(session.actions):  # the board again only when the position changed
            session.show()
            shown = len(session.actions)
        asked = time.monotonic()
        line = reader.ask(f"{human} (you) > ")
        # The person's clock runs while the prompt waits (undo gives no time back).
        session.human_used += time.monotonic() - asked
        if session.human_time is not None and session.human_used > session.human_time and line is not None:
            winner = PLAYER_NAMES[session.agent_color]
            message = f"{winner} wins (time_limit): {human} ({HUMAN}) ran out of {session.human_time:g} s"
            record = session.record(winner, "time_limit", message)
            break
        command = None if line is None else line.strip()
        if command is None or command.lower() in ("q", "quit"):
            quit_message = f"unfinished: {HUMAN} quit after {len(session.actions)} actions"
            record = session.record(None, UNFINISHED, quit_message)
        elif command == "":
            print(PROMPT_HELP, flush=True)
        elif command == "?":
            print("legal actions: " + " ".join(state.action_to_str(a) for a in state.legal_actions()), flush=True)
        elif command.lower() == "undo":
            if session.undo():
                print("took back your last move", flush=True)
                shown = -1
            else:
                print("nothing to undo: you have not moved yet", flush=True)
        else:
            action, problem = read_action(state, command)
            if action is None:
                print(problem, flush=True)
            else:
                try:
                    session.play(action)
                except AgentFailure as failure:  # told of the move, the agent failed: it forfeits
                    session.failure = failure
    session.close_agent()
    print(f"* referee @ result: {record.message}", flush=True)
    try:
        Path(record_path).write_text(json.dumps(record.to_dict(), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"* referee @ could not write {record_path}: {exc.strerror}", file=sys.stderr)
        return EXIT_INTERNAL
    print(f"* referee @ record: {record_path}", flush=True)
    return EXIT_DONE


def main(argv: list[str]) -> int:
    """Parse the options, then play the game against the agent."""
    game_name = _game_name(argv)
    if game_name == "infinitron":
        print("python -m referee play: error: not yet: --game infinitron (several actions a turn and chance) "
              "cannot be played by a person; infexion and cachex can", file=sys.stderr)
        return EXIT_USAGE
    try:
        parser = build_parser(game_name)
        args = parser.parse_args(argv)
    except GameOptionError as exc:
        print(f"python -m referee play: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0)
    problem = spec_problem(args.agent, Path.cwd())
    if problem:
        return _usage_error(parser, problem)
    try:
        options = dict(registration(args.game).options_from_args(args))
        game_class(args.game)(**options)
    except GameOptionError as exc:
        return _usage_error(parser, str(exc))
    if not Path(args.record).resolve().parent.is_dir():
        return _usage_error(parser, f"--record: folder {Path(args.record).resolve().parent} does not exist")
    try:
        sandbox = resolve(args.sandbox)
    except SandboxUnavailable as exc:
        return _usage_error(parser, str(exc))
    if not sandbox.sealed:
        print(f"* referee @ WARNING: {sandbox.describe()}", file=sys.stderr)
    session = Session(args, options)
    reader = LineReader()
    try:
        stop_like_ctrl_c()
        return run(session, args.record, reader)
    except KeyboardInterrupt as interrupt:
        how = f"stopped by {interrupt.name}" if isinstance(interrupt, Terminated) else "interrupted"
        try:
            print(f"\n* referee @ {how}: no record (the agent was stopped)", file=sys.stderr)
        except OSError:
            pass
        return exit_status(interrupt)
    except AgentFailure as failure:  # the agent failed while being started or told a move
        print(f"* referee @ the agent failed: {failure.message}", file=sys.stderr)
        return EXIT_INTERNAL
    except Exception:  # noqa: BLE001  a referee bug: say so
        print("* referee @ internal referee error:", file=sys.stderr)
        traceback.print_exc()
        return EXIT_INTERNAL
    finally:
        session.close_agent()
        reader.close()
        stop_as_usual()
