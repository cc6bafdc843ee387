"""The small interface every game implements.

The referee, the bundled search agents and the tests touch a game only through
this surface: whose turn it is, the legal actions, a checked and an unchecked
apply, undo and copy, the outcome, a hashable key and the canonical text of an
action.  Game modules are pure: no I/O, no clocks, no randomness of their own.

Actions are opaque hashable values chosen by each game (small ints for
Infexion), so search code never looks inside them.  A state names its action
type (``class InfexionState(AlternatingState[int])``), so the type checker
sees each game's own; code written for every game says ``GameState``, which
means ``GameState[Any]``.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from operator import index
from typing import TYPE_CHECKING, Any, Generic, cast
from collections.abc import Hashable, Iterable, Mapping

if TYPE_CHECKING:
    # A TypeVar with a default (PEP 696, in typing from Python 3.13): a bare
    # ``GameState`` is ``GameState[Any]``, so code written for every game and
    # the states of each game fit together without naming an action type.
    from typing_extensions import TypeVar

    ActionT = TypeVar("ActionT", bound=Hashable, default=Any)
else:
    from typing import TypeVar

    ActionT = TypeVar("ActionT", bound=Hashable)

RED = 0
BLUE = 1
#: ``current_player`` of a state where chance acts next (a chaos event).
CHANCE = -1
PLAYER_NAMES = ("RED", "BLUE")

Action = Hashable


class GameRuleError(Exception):
    """Base of the rule-level errors a game raises."""


class IllegalActionError(GameRuleError):
    """A well-formed action that the rules do not allow in this position."""

    def __init__(self, action_text: str, reason: str):
        super().__init__(f"illegal action {action_text}: {reason}")
        self.action_text = action_text
        self.reason = reason


class NotationError(GameRuleError, ValueError):
    """Text that is not an action of this game at all."""


class GameOptionError(GameRuleError, ValueError):
    """A game option (board size, ...) that the game does not accept."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended, as far as the rules are concerned.

    ``winner`` is ``RED``, ``BLUE`` or ``None`` for a draw; ``reason`` is a
    short lower-case word such as ``elimination`` or ``turn_limit``.
    """

    winner: int | None
    reason: str

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else PLAYER_NAMES[self.winner]


class GameState(ABC, Generic[ActionT]):
    """One position of a game, mutable in place by ``apply``/``undo``; ``ActionT`` is the type of its actions."""

    # Empty, so that an engine declaring its own ``__slots__`` really has no
    # ``__dict__`` (an undeclared field then cannot be set by mistake).
    __slots__ = ()

    @property
    @abstractmethod
    def current_player(self) -> int:
        """``RED``, ``BLUE`` or ``CHANCE``: who acts next.

        Nothing assumes the players alternate: a game may let one player act
        several times in a row, so callers always ask.
        """

    @property
    @abstractmethod
    def move_count(self) -> int:
        """How many actions have been applied since the start."""

    @abstractmethod
    def legal_actions(self) -> list[ActionT]:
        """Every legal action for the player to move (empty once over)."""

    @abstractmethod
    def is_legal(self, action: ActionT) -> bool:
        """Whether ``action`` may be applied now."""

    @abstractmethod
    def apply(self, action: ActionT) -> None:
        """Apply a legal action without checking it (fast path for search)."""

    def apply_checked(self, action: object) -> None:
        """Apply an action from an untrusted source, which may be anything.

        Raises :class:`IllegalActionError` naming the action and the reason.
        """
        # Typed as an action, but it is whatever arrived: illegal_reason checks
        # its type too, and action_to_str writes out whatever it is handed.
        checked = cast(ActionT, action)
        reason = self.illegal_reason(checked)
        if reason is not None:
            raise IllegalActionError(self.action_to_str(checked), reason)
        self.apply(checked)

    @abstractmethod
    def illegal_reason(self, action: ActionT) -> str | None:
        """Why ``action`` is illegal now, or ``None`` when it is legal.

        :meth:`apply_checked` passes on what an agent sent, which may not be an
        action of this game at all: say so rather than fail.
        """

    def sample_chance(self, rng: random.Random) -> ActionT:
        """The chance action to apply when ``current_player == CHANCE``.

        Randomness is injected: the referee passes an RNG seeded from the
        game's seed (so a game is reproducible), search agents pass their own.
        Games without chance never reach a chance state.
        """
        raise NotImplementedError(f"{type(self).__name__} has no chance events")

    @abstractmethod
    def undo(self) -> None:
        """Take back the last applied action."""

    @abstractmethod
    def copy(self) -> GameState[ActionT]:
        """An independent state equal to this one (undo history included)."""

    def copy_without_history(self) -> GameState[ActionT]:
        """An independent copy that need not undo past this point (for playouts).

        Engines override it when dropping the history makes copying cheaper.
        """
        return self.copy()

    def random_action(self, rng: random.Random) -> ActionT:
        """A legal action of the player to move, drawn uniformly with ``rng``.

        Only ``rng.random()`` is used, whose sequence Python keeps the same
        across versions.  Engines override it when they can draw without
        listing every action.
        """
        actions = self.legal_actions()
        if not actions:
            raise ValueError("no legal action: the game is over or chance acts next")
        return actions[int(rng.random() * len(actions))]

    @property
    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result once the game is over, else ``None``."""

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @abstractmethod
    def key(self) -> Hashable:
        """A hashable, exact key of the position and the player to move."""

    @abstractmethod
    def action_to_str(self, action: ActionT) -> str:
        """The canonical text of an action; ``parse_action`` reads it back."""

    @abstractmethod
    def parse_action(self, text: str) -> ActionT:
        """Read an action's text; raises :class:`NotationError` if malformed."""

    def action_kind(self, action: ActionT) -> str:
        """The command word of an action (``SPAWN``, ``END_TURN``), for listing legal actions by kind.

        Games with very many actions of a kind override it with something
        cheaper than writing every action out.
        """
        return self.action_to_str(action).split("(")[0]

    def render(self, use_color: bool = False, use_unicode: bool = False) -> str:
        """A text drawing of the position."""
        return repr(self)

    def summary(self) -> str:
        """One line on the standing of the game (e.g. each side's material)."""
        return ""


class AlternatingState(GameState[ActionT]):
    """A state whose players take one action each in turn, Red first.

    ``turn`` counts the actions applied: Red moves on even turns.
    """

    __slots__ = ()
    turn: int

    @property
    def current_player(self) -> int:
        return self.turn & 1

    @property
    def move_count(self) -> int:
        return self.turn


class Game(ABC, Generic[ActionT]):
    """A game's rules with their options: makes initial states (whose actions are ``ActionT``s)."""

    name: str = ""
    #: Game-specific verdict reasons (besides the referee's own).
    reasons: tuple[str, ...] = ()
    #: Whether every turn is exactly one action (commentary says "turn N"
    #: then; games whose turns hold several actions count actions instead).
    one_action_per_turn: bool = True

    def __init__(self, **options: Any):
        self.options: dict[str, Any] = dict(options)

    @abstractmethod
    def new_state(self) -> GameState[ActionT]:
        """The starting position."""

    @property
    def agent_kwargs(self) -> Mapping[str, Any]:
        """Extra keyword arguments every agent receives (e.g. board size)."""
        return {}

    @classmethod
    def seeded_options(cls, options: Mapping[str, Any], seed: int | None) -> dict[str, Any]:
        """The options of one game of a tournament whose seed is ``seed``.

        For games whose setup is drawn from the game seed (Infinitron's
        cities): the tournament gives every game its own seed, and this puts
        it where the game reads it.  Most games take the options as they are.
        """
        return dict(options)

    @classmethod
    def recorded_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options a record's game was played with, from the record's ``game_options``.

        For a game whose default changed (Infinitron's rules version): a record written before the option
        existed gets the value its games were played under.  Most games take the options as they are.
        """
        return dict(options)


def check_options(game: str, options: Mapping[str, Any], allowed: Iterable[str]) -> None:
    """Reject options a game does not know, naming them."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise GameOptionError(f"{game}: unknown option(s) {', '.join(unknown)}")


def whole_number(value: object, allow_bool: bool = False) -> int | None:
    """``value`` as a plain ``int`` if it is a whole number of any integer type, else None.

    Whatever ``operator.index`` accepts counts: ``int``, numpy's integers,
    any object with ``__index__``.  Agents build actions from such numbers
    (the course's referees took numpy integers), and the engines need plain
    ``int``s.  ``bool`` is refused unless ``allow_bool``: ``True`` as a
    coordinate is almost always a mistake.
    """
    if type(value) is int:
        return value
    if type(value) is bool and not allow_bool:
        return None
    try:
        return index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def count_of(count: int, noun: str, plural: str | None = None) -> str:
    """``1 cell``, ``2 cells``: a count with its noun in the right number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
