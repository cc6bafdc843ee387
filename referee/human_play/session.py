"""One game a person plays, shared by the terminal and the browser: the position, the actions, the hosted agent.

The referee plays the person's side itself (no process for it).  The agent,
when there is one, runs hosted with its limits and sandbox exactly as in a
refereed game; in a hot-seat game there is none and both sides are people.
"""
from __future__ import annotations

import argparse
import random
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from .. import __version__
from ..agent_text import inert
from ..games import load_game
from ..games.base import CHANCE, PLAYER_NAMES, Action, GameState, NotationError
from ..hosting.failures import AgentFailure, AgentIllegalAction, AgentProtocolError
from ..hosting.process import HostedAgent
from ..hosting.sandbox import resolve
from ..limits import Limits
from ..match import AgentEntry, MatchSettings, agent_env, utc_now, call_kwargs, ending_message, parse_spec
from ..records import RESIGNATION, GameRecord
from ..render.terminal import PREFIX

HUMAN = "human"
#: Above this many actions of one kind, ``?`` gives their number and a few, not all (Infinitron's DEFINE: 2,744).
LISTED_PER_KIND = 100
#: The most actions of one kind ever written out (``? KIND``, the page's suggestions): with ``--armour``
#: Infinitron has 386,938 legal DEFINEs, which take seconds only to write out.
LISTED_IN_FULL = 3000
EXAMPLES = 4


def candidates(text: str) -> list[str]:
    """Readings of what was typed, most literal first: as typed, then rebuilt as ``WORD(a, b, ...)``.

    People type ``spread 3 3 0 1``, ``SPAWN(3,3)`` or ``define 0 1 1 melee none``; the game's parser
    wants its canonical text.
    """
    text = text.strip()
    found = [text, text.upper()]
    words = re.findall(r"[A-Za-z_]+|-?\d+", text)
    if words and not words[0].lstrip("-").isdigit():
        name, arguments = words[0].upper(), [word.upper() for word in words[1:]]
        found.append(f"{name}({', '.join(arguments)})" if arguments else name)
    return found


def read_action(state: GameState, text: str) -> tuple[Action | None, str]:
    """The action ``text`` names and an empty string, or None and why it cannot be played now."""
    errors = []
    for reading in candidates(text):
        try:
            action = state.parse_action(reading)
        except NotationError as exc:
            errors.append(str(exc))
            continue
        reason = state.illegal_reason(action)
        if reason is not None:
            return None, f"{state.action_to_str(action)} is illegal: {reason}"
        return action, ""
    # The rebuilt reading's error says what is wrong with the numbers (off the board, not a
    # direction); "not an action" only when no reading got that far.
    specific = [error for error in errors if not error.startswith("not a")]
    return None, (specific[-1] if specific else errors[0]) if errors else ""


def legal_by_kind(state: GameState) -> dict[str, list[Action]]:
    """The legal actions grouped by command word, each group in the game's order."""
    kinds: dict[str, list[Action]] = {}
    for action in state.legal_actions():
        kinds.setdefault(state.action_kind(action), []).append(action)
    return kinds


def legal_listing(state: GameState, kind: str = "") -> str:
    """What ``?`` prints: every legal action, or the number and a few of each kind with very many.

    ``kind`` (a command word, e.g. ``DEFINE``): the legal actions of that kind
    (at most :data:`LISTED_IN_FULL` of them).
    """
    kinds = legal_by_kind(state)

    def texts(actions: list[Action], most: int) -> str:
        return " ".join(state.action_to_str(a) for a in actions[:most])

    if kind:
        word = kind.upper()
        chosen = kinds.get(word, [])
        if not chosen:
            return f"no legal {word} action now"
        more = f" ... and {len(chosen) - LISTED_IN_FULL} more" if len(chosen) > LISTED_IN_FULL else ""
        return f"legal {word} actions ({len(chosen)}): {texts(chosen, LISTED_IN_FULL)}{more}"
    few = [texts(group, len(group)) for group in kinds.values() if len(group) <= LISTED_PER_KIND]
    lines = ["legal actions: " + " ".join(few)]
    for word, group in kinds.items():
        if len(group) > LISTED_PER_KIND:
            lines.append(f"and {len(group)} {word} actions, e.g. {texts(group, EXAMPLES)} ('? {word}' lists them)")
    return "\n".join(lines)


def mover_name(player: int) -> str | None:
    """``RED`` or ``BLUE``; None for chance, as the protocol's ``turn(None, event)`` has it."""
    return None if player == CHANCE else PLAYER_NAMES[player]


def resignation_message(loser: int, actions: int) -> str:
    """The record's message when the person playing ``loser`` resigns after ``actions`` actions."""
    detail = f"{PLAYER_NAMES[loser]} ({HUMAN}) resigned after {actions} actions"
    return ending_message(PLAYER_NAMES[1 - loser], RESIGNATION, detail)


def say(text: str) -> None:
    """Print the referee's commentary on the terminal, each line after the referee's prefix."""
    print("\n".join(PREFIX + line for line in text.splitlines() or [""]), flush=True)


def quote(text: str) -> None:
    """Print what an agent printed, as prepared (each line after its colour, inert): no referee prefix."""
    print(text, flush=True)


class Session:
    """One game: the position, the actions so far and the hosted agent (None in a hot-seat game).

    ``args`` carries the play command's options: ``game``, ``agent`` (None for
    two people), ``side``, ``time``, ``space``, ``seed``, ``sandbox``, ``human_time``.
    ``say`` receives the running commentary and ``quote`` what the agent printed (the terminal prints both).
    """

    def __init__(
        self,
        args: argparse.Namespace,
        options: dict[str, Any],
        say: Callable[[str], None] = say,
        quote: Callable[[str], None] = quote,
    ):
        self.settings = MatchSettings(
            game=args.game, game_options=options, limits=Limits(time_limit=args.time, space_limit=args.space),
            seed=args.seed, sandbox=args.sandbox,
        )
        self.entry = AgentEntry(args.agent) if args.agent else None
        self.game = load_game(args.game, **options)
        self.human = 0 if args.side == "red" else 1
        self.agent_color: int | None = None if self.entry is None else 1 - self.human
        self.actions: list[str] = []
        self.movers: list[int] = []  # who played each action: RED, BLUE or CHANCE
        self.clocks: list[list[float]] = []  # both sides' time used once each action was played
        self.state = self.game.new_state()
        self.agent: HostedAgent | None = None
        self.failure: AgentFailure | None = None
        self.sandbox = resolve(args.sandbox)
        self.started_at, self.start = utc_now(), time.monotonic()
        self.human_time = args.human_time or None  # 0 means none, as for -t
        self.human_used = [0.0, 0.0]  # wall-clock seconds each person spent on their moves
        # Chance (Infinitron's chaos) draws from a secret of this session and
        # the action's number: an undo draws the same event again, not a new one.
        self.chance_secret = secrets.token_hex(16)
        self.say, self.quote = say, quote

    @property
    def humans(self) -> tuple[int, ...]:
        """The sides people play: one against an agent, both in a hot-seat game."""
        return (0, 1) if self.agent_color is None else (self.human,)

    def time_used(self, color: int) -> float:
        """What ``color`` has used so far: a person's wall-clock seconds, the agent's CPU seconds."""
        if color != self.agent_color:
            return self.human_used[color]
        return self.agent.time_used if self.agent is not None else 0.0

    def name_of(self, color: int) -> str:
        """Who plays ``color``: ``human`` or the agent's spec."""
        return self.entry.spec if color == self.agent_color and self.entry else HUMAN

    def _kwargs(self) -> dict[str, Any]:
        assert self.agent is not None and self.entry is not None
        return call_kwargs(self.game, self.settings, self.entry, self.agent)

    def start_agent(self) -> None:
        """Start the agent's process, construct it and tell it every action so far (nothing in a hot-seat game)."""
        if self.entry is None or self.agent_color is None:
            return
        module, class_name = parse_spec(self.entry.spec)
        color = PLAYER_NAMES[self.agent_color]
        self.agent = HostedAgent(color, module, class_name, self.game.name, dict(self.settings.game_options),
                                 self.settings.limits, env=agent_env(self.settings, self.sandbox, self.agent_color),
                                 sandbox=self.sandbox)
        self.agent.start()
        self.agent.wait_ready()
        self.agent.call({"op": "init", "module": module, "class": class_name, "color": color, "kwargs": self._kwargs()})
        for text, mover in zip(self.actions, self.movers):
            self.tell(mover_name(mover), text)
        self.agent.take_output()
        if self.clocks:
            # Restarted by an undo: its clock is what it had used at this position (it did not ask for the
            # undo, so the replies taken back are not charged; the person's clock gives nothing back).
            self.agent.count_time_from(self.clocks[-1][self.agent_color])

    def tell(self, color_name: str | None, text: str) -> None:
        if self.agent is not None:
            self.agent.call({"op": "turn", "color": color_name, "action": text, "kwargs": self._kwargs()})

    def close_agent(self) -> None:
        if self.agent is not None:
            self.agent.close()

    def play(self, action: Action) -> None:
        """Apply a legal action of the player to move and tell the agent."""
        player = self.state.current_player
        mover = mover_name(player)
        text = self.state.action_to_str(action)
        self.state.apply(action)
        self.actions.append(text)
        self.movers.append(player)
        self.clocks.append([round(self.time_used(0), 4), round(self.time_used(1), 4)])
        self.say(f"{mover or 'chance'} plays {text}")
        if not self.state.is_over:
            self.tell(mover, text)

    def ask_agent(self) -> Action:
        """The agent's action for the position, checked; a failure or an illegal action raises AgentFailure.

        The position is not changed: :meth:`play` applies the action.
        """
        assert self.agent is not None and self.agent_color is not None and self.entry is not None
        self.say(f"{PLAYER_NAMES[self.agent_color]} ({self.entry.spec}) is thinking...")
        reply = self.agent.call({"op": "action", "kwargs": self._kwargs()})
        output = self.agent.take_output()
        if output.strip():
            # Inert, and each line after the agent's colour, as in a refereed game: a line it prints
            # cannot pass for the referee's (``* referee @ result: ...``) nor move the cursor.
            label = PLAYER_NAMES[self.agent_color]
            self.quote("\n".join(f"  {label} | {line}" for line in inert(output.rstrip()).splitlines()))
        if reply.action is None:
            raise AgentProtocolError("the reply to action() carried no action")
        try:
            action = self.state.parse_action(reply.action)
        except NotationError as exc:
            raise AgentProtocolError(f"unreadable action: {exc}") from None
        reason = self.state.illegal_reason(action)
        if reason is not None:
            raise AgentIllegalAction(f"{self.state.action_to_str(action)}: {reason}")
        return action

    def chance_move(self) -> None:
        """Let chance act (a chaos event) and tell the agent."""
        # Keyed by the draw's number, not the action's: an undo and other commands before it change the latter.
        rng = random.Random(f"chance:{self.chance_secret}:{self.movers.count(CHANCE)}")
        self.play(self.state.sample_chance(rng))

    def agent_move(self) -> None:
        """Ask the agent for its action and play it."""
        self.play(self.ask_agent())

    def undo(self) -> bool:
        """Take back the person's last action and what followed; False when there is none.

        In a hot-seat game that is the last action, whoever played it.
        """
        if not self.take_back():
            return False
        # Agents cannot undo: a fresh process is told the game again.
        self.close_agent()
        self.start_agent()
        return True

    def take_back(self) -> bool:
        """:meth:`undo` on the position only; the agent, which still knows the actions taken back, is left as it is."""
        mine = [i for i, mover in enumerate(self.movers) if mover in self.humans]
        if not mine:
            return False
        kept = mine[-1]
        self.actions, self.movers, self.clocks = self.actions[:kept], self.movers[:kept], self.clocks[:kept]
        self.state = self.game.new_state()
        for text in self.actions:
            self.state.apply(self.state.parse_action(text))
        return True

    def show(self) -> None:
        self.say(self.state.render())
        summary = self.state.summary()
        if summary:
            self.say(summary)

    def record(self, winner: str | None, reason: str, message: str, error: dict[str, Any] | None = None) -> GameRecord:
        """The game so far as a record, ended with ``winner`` (None: a draw or unfinished) and ``reason``."""
        names = [self.name_of(0), self.name_of(1)]
        agent = self.agent
        moves = {name: self.movers.count(color) for color, name in enumerate(PLAYER_NAMES)}
        time_used = {name: round(self.time_used(color), 4) for color, name in enumerate(PLAYER_NAMES)}
        peak = {PLAYER_NAMES[c]: 0.0 for c in self.humans}
        if self.agent_color is not None:
            peak[PLAYER_NAMES[self.agent_color]] = round(agent.peak_memory_mb, 2) if agent else 0.0
        errors: dict[str, Any] = {"RED": None, "BLUE": None}
        if error and self.agent_color is not None:
            errors[PLAYER_NAMES[self.agent_color]] = error
        human = PLAYER_NAMES[self.human] if self.agent_color is not None else "RED BLUE"
        extra: dict[str, Any] = {"human": human}
        if self.human_time is not None:
            extra["human_time"] = self.human_time  # a person's budget: the replay shows what was left of it
        return GameRecord(
            game=self.game.name, game_options=dict(self.settings.game_options),
            red=names[0], blue=names[1], red_name=names[0], blue_name=names[1],
            winner=winner, reason=reason, message=message, turns=len(self.actions), actions=list(self.actions),
            moves=moves, time_used=time_used, time_used_after=[list(pair) for pair in self.clocks],
            peak_memory_mb={"RED": peak["RED"], "BLUE": peak["BLUE"]}, error=errors,
            seed=self.settings.seed, time_limit=self.settings.limits.time_limit,
            space_limit=self.settings.limits.space_limit, started_at=self.started_at,
            duration=round(time.monotonic() - self.start, 4), referee_version=__version__,
            extra=extra, sandbox=self.sandbox.to_json(),
        )
