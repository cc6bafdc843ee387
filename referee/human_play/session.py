"""One game a person plays, shared by the terminal and the browser: the position, the actions, the hosted agent.

The referee plays the person's side itself (no process for it).  The agent,
when there is one, runs hosted with its limits and sandbox exactly as in a
refereed game; in a hot-seat game there is none and both sides are people.
"""
from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from typing import Any

from ..agent_text import inert
from ..core import Ending, GameCore, SeatInfo
from ..games import load_game
from ..games.base import CHANCE, PLAYER_NAMES, Action, GameState, NotationError
from ..hosting.failures import AgentFailure, AgentProtocolError
from ..hosting.process import HostedAgent
from ..hosting.wire import Reply
from ..hosting.sandbox import resolve
from ..limits import Limits
from ..match import AgentEntry, MatchSettings, agent_env, call_kwargs, parse_spec
from ..records import GameRecord
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


def say(text: str) -> None:
    """Print the referee's commentary on the terminal, each line after the referee's prefix."""
    print("\n".join(PREFIX + line for line in text.splitlines() or [""]), flush=True)


def quote(text: str) -> None:
    """Print what an agent printed, as prepared (each line after its colour, inert): no referee prefix."""
    print(text, flush=True)


class Session:
    """One game: its :class:`~referee.core.GameCore` and the hosted agent (None in a hot-seat game).

    ``args`` carries the play command's options: ``game``, ``agent`` (None for
    two people), ``side``, ``time``, ``space``, ``seed``, ``sandbox``, ``human_time``.
    ``say`` receives the running commentary and ``quote`` what the agent printed (the terminal prints both);
    chance draws from ``chance_seed`` (None: from the seed and a secret of this run, as in a refereed game).
    The game ends through the core (``session.core.resigned(...)``, ``.unfinished(...)``, ...) or by its rules;
    :meth:`record` is then its record.
    """

    def __init__(
        self,
        args: argparse.Namespace,
        options: dict[str, Any],
        say: Callable[[str], None] = say,
        quote: Callable[[str], None] = quote,
        chance_seed: str | None = None,
    ):
        self.settings = MatchSettings(
            game=args.game, game_options=options, limits=Limits(time_limit=args.time, space_limit=args.space),
            seed=args.seed, sandbox=args.sandbox,
        )
        self.entry = AgentEntry(args.agent) if args.agent else None
        self.game = load_game(args.game, **options)
        self.human = 0 if args.side == "red" else 1
        self.agent_color: int | None = None if self.entry is None else 1 - self.human
        seats = tuple(SeatInfo(self.name_of(color), limits=self.settings.limits) for color in (0, 1))
        self.core = GameCore(self.game, (seats[0], seats[1]), options=options, seed=args.seed, chance_seed=chance_seed)
        self.agent: HostedAgent | None = None
        self.failure: AgentFailure | None = None
        self.sandbox = resolve(args.sandbox)
        self.start = time.monotonic()
        self.human_time = args.human_time or None  # 0 means none, as for -t
        self.say, self.quote = say, quote

    @property
    def state(self) -> GameState[Any]:
        return self.core.state

    @property
    def actions(self) -> list[str]:
        return self.core.actions

    @property
    def human_used(self) -> list[float]:
        """Each side's time used: a person's wall-clock seconds on their moves (added by the page or the prompt);
        the agent's side is its CPU time, kept by the session."""
        return self.core.used

    @property
    def humans(self) -> tuple[int, ...]:
        """The sides people play: one against an agent, both in a hot-seat game."""
        return (0, 1) if self.agent_color is None else (self.human,)

    def time_used(self, color: int) -> float:
        """What ``color`` has used so far: a person's wall-clock seconds, the agent's CPU seconds."""
        return self.core.used[color]

    def name_of(self, color: int) -> str:
        """Who plays ``color``: ``human`` or the agent's spec."""
        return self.entry.spec if color == self.agent_color and self.entry else HUMAN

    def _kwargs(self) -> dict[str, Any]:
        assert self.agent is not None and self.entry is not None
        return call_kwargs(self.game, self.settings, self.entry, self.agent)

    def _call(self, message: dict[str, Any]) -> Reply:
        """A call of the agent's, its clock and peak kept in the core (a call that fails too)."""
        agent, color = self.agent, self.agent_color
        assert agent is not None and color is not None
        try:
            return agent.call(message)
        finally:
            self.core.used[color], self.core.peak_mb[color] = agent.time_used, agent.peak_memory_mb

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
        self._call({"op": "init", "module": module, "class": class_name, "color": color, "kwargs": self._kwargs()})
        for text, mover in zip(self.core.actions, self.core.movers):
            self.tell(mover_name(mover), text)
        self.agent.take_output()
        clocks = self.core.clocks
        if clocks:
            # Restarted by an undo: its clock is what it had used at this position (it did not ask for the
            # undo, so the replies taken back are not charged; the person's clock gives nothing back).
            self.agent.count_time_from(clocks[-1][self.agent_color])
            self.core.used[self.agent_color] = self.agent.time_used

    def tell(self, color_name: str | None, text: str) -> None:
        if self.agent is not None:
            self._call({"op": "turn", "color": color_name, "action": text, "kwargs": self._kwargs()})

    def close_agent(self) -> None:
        if self.agent is not None:
            self.agent.close()

    def play(self, action: Action | str) -> None:
        """Play the action of the side to move (a person's, checked; the agent's reply, checked here) and tell the
        agent.  AgentFailure: the agent's reply is not a legal action, or the agent failed when told."""
        player = self.state.current_player
        text = self.core.submit(player, action if isinstance(action, str) else self.state.action_to_str(action))
        self._told(player, text)

    def _told(self, player: int, text: str) -> None:
        mover = mover_name(player)
        self.say(f"{mover or 'chance'} plays {text}")
        if not self.state.is_over:
            self.tell(mover, text)

    def ask_agent(self) -> str:
        """The agent's answer for the position (its text: :meth:`play` checks it); a failure raises AgentFailure.

        The position is not changed: :meth:`play` applies the action.
        """
        assert self.agent is not None and self.agent_color is not None and self.entry is not None
        self.say(f"{PLAYER_NAMES[self.agent_color]} ({self.entry.spec}) is thinking...")
        reply = self._call({"op": "action", "kwargs": self._kwargs()})
        output = self.agent.take_output()
        if output.strip():
            # Inert, and each line after the agent's colour, as in a refereed game: a line it prints
            # cannot pass for the referee's (``* referee @ result: ...``) nor move the cursor.
            label = PLAYER_NAMES[self.agent_color]
            self.quote("\n".join(f"  {label} | {line}" for line in inert(output.rstrip()).splitlines()))
        if reply.action is None:
            raise AgentProtocolError("the reply to action() carried no action")
        return reply.action

    def chance_move(self) -> None:
        """Let chance act (a chaos event) and tell the agent."""
        self._told(CHANCE, self.core.chance())

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
        mine = [i for i, mover in enumerate(self.core.movers) if mover in self.humans]
        if not mine:
            return False
        self.core.take_back_to(mine[-1])
        return True

    def show(self) -> None:
        self.say(self.state.render())
        summary = self.state.summary()
        if summary:
            self.say(summary)

    def forfeit(self, failure: AgentFailure) -> Ending:
        """The agent failed: it loses (its message, inert, is the record's)."""
        assert self.agent_color is not None
        return self.core.failed(self.agent_color, failure)

    def record(self) -> GameRecord:
        """The game's record; of a game not yet over, the game so far (no winner, ``unfinished``)."""
        human = PLAYER_NAMES[self.human] if self.agent_color is not None else "RED BLUE"
        extra: dict[str, Any] = {"human": human}
        if self.human_time is not None:
            extra["human_time"] = self.human_time  # a person's budget: the replay shows what was left of it
        return self.core.record(duration=time.monotonic() - self.start, extra=extra,
                                sandbox=self.sandbox.to_json(), so_far="")
