"""The referee's games as OpenSpiel games: ``referee_infexion``, ``referee_cachex`` and ``referee_infinitron``.

Importing this module registers them with ``pyspiel.register_game``, as OpenSpiel's own Python games do,
so that ``pyspiel.load_game("referee_cachex", {"n": 4})`` makes one and OpenSpiel's algorithms (MCTS,
AlphaZero, CFR, ``evaluate_bots``) play it.  The rules are the referee's engines; the integers, chance
outcomes and observation planes are :mod:`.encoding`'s, the same the PettingZoo and Gymnasium
environments use.  docs/learning.md, "OpenSpiel", lists them.

OpenSpiel copies a Python state by deep-copying its attributes and serialises it by pickling them: the
one attribute here, a :class:`Position`, copies the engine's state without its undo history and pickles
as the game's name, options and the actions played, replayed when read back.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from referee.games.base import CHANCE, GameState
from referee.games.cachex.tables import DEFAULT_N
from referee.games.infinitron.rules import DEFAULT_RULES, MAX_TURNS

from .arrays import Lister, lister
from .encoding import Encoding, encoding

#: OpenSpiel's name of each game -> the referee's name and the parameters OpenSpiel may set, with defaults.
#: Infinitron's ``cities`` (a list) has no OpenSpiel parameter type: ``seed`` places the cities; ``armour``
#: has no encoding (docs/learning.md).  Its ``rules`` version is a number (1.2, 1.1): a game's string
#: (``referee_infinitron(rules=1.2,...)``, what a serialised state names) reads ``1.2`` back as a number.
GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "referee_infexion": ("infexion", {}),
    "referee_cachex": ("cachex", {"n": DEFAULT_N}),
    "referee_infinitron": (
        "infinitron", {"chaos": False, "seed": 0, "max_turns": MAX_TURNS, "rules": float(DEFAULT_RULES)},
    ),
}
_LONG_NAMES = {"infexion": "Infexion", "cachex": "Cachex", "infinitron": "Infinitron Skirmish"}

_encodings: dict[str, Encoding] = {}
#: Each encoding's fastest list of legal indices (:func:`.arrays.lister`), while the encoding lives (a
#: :class:`Position` may be made on an encoding of its own, not one of ``_encodings``).
_listers: weakref.WeakKeyDictionary[Encoding, Lister] = weakref.WeakKeyDictionary()


def _legal_lister(enc: Encoding) -> Lister:
    found = _listers.get(enc)
    if found is None:
        found = _listers[enc] = lister(enc)
    return found


def _encoding(game: str, options: dict[str, Any]) -> Encoding:
    """The encoding of a game with its options, made once per process (a state read back asks again)."""
    key = repr((game, sorted(options.items())))
    if key not in _encodings:
        _encodings[key] = encoding(game, **options)
    return _encodings[key]


class Position:
    """An OpenSpiel state's whole content: the engine's state, the chance draws of the event being drawn,
    and the OpenSpiel actions played (what a serialised state is read back from)."""

    __slots__ = ("encoding", "legal", "state", "drawn", "played")

    def __init__(self, enc: Encoding):
        self.encoding = enc
        self.legal = _legal_lister(enc)
        self.state: GameState = enc.new_state()
        self.drawn: list[int] = []
        self.played: list[int] = []

    def apply(self, action: int) -> None:
        """Apply an OpenSpiel action (a player's action or a chance outcome); ValueError if it is not legal."""
        enc, state = self.encoding, self.state
        if state.current_player == CHANCE:
            whole = enc.chance_action(state, action, self.drawn)
            if whole is None:
                self.drawn.append(action)
            else:
                self.drawn = []
                state.apply(whole)
        else:
            state.apply(enc.action(state, action))
        self.played.append(action)

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        other = Position.__new__(Position)
        other.encoding, other.legal = self.encoding, self.legal  # immutable and shared
        other.state = self.state.copy_without_history()  # OpenSpiel never undoes a Python state
        other.drawn = list(self.drawn)
        other.played = list(self.played)
        return other

    def __reduce__(self) -> tuple[Callable[..., Position], tuple[str, dict[str, Any], tuple[int, ...]]]:
        return _replayed, (self.encoding.name, self.encoding.options, tuple(self.played))


def _replayed(game: str, options: dict[str, Any], played: tuple[int, ...]) -> Position:
    """A position read back: the game's start with the actions played applied again."""
    position = Position(_encoding(game, options))
    for action in played:
        position.apply(action)
    return position


# OpenSpiel asks for the player to move several times an action: its ids as plain ints, converted once.
_TERMINAL, _CHANCE = int(pyspiel.PlayerId.TERMINAL), int(pyspiel.PlayerId.CHANCE)


class RefereeState(pyspiel.State):
    """An OpenSpiel state over a referee engine's state."""

    def __init__(self, game: RefereeGame):
        super().__init__(game)
        self.position = Position(game.encoding)

    def current_player(self) -> int:
        state = self.position.state
        if state.is_over:
            return _TERMINAL
        player = state.current_player
        return _CHANCE if player == CHANCE else player

    def _legal_actions(self, player: int) -> list[int]:
        position = self.position
        return position.legal(position.state)

    # Python callers (OpenSpiel's Python MCTS, evaluate_bots, a learner's loop) reach the three methods below
    # here, without the C++ round trip: its LegalActions() asks Python for the player to move five times and
    # converts the list to a C++ vector and back, twice the time of the list itself (benchmarks/learning_speed).
    # C++ callers still go through OpenSpiel's own methods; tests/learning/test_openspiel.py checks both agree.
    def is_chance_node(self) -> bool:
        state = self.position.state
        return state.current_player == CHANCE and not state.is_over

    def is_player_node(self) -> bool:
        state = self.position.state
        return state.current_player != CHANCE and not state.is_over

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of ``player`` (default: the one to move), as OpenSpiel's ``LegalActions`` gives
        them: [] at the end or for the player not to move, the chance outcomes at a chance node."""
        position = self.position
        state = position.state
        if state.is_over:
            return []
        to_move = state.current_player
        if to_move == CHANCE:
            return [outcome for outcome, _ in position.encoding.chance_outcomes(state, position.drawn)]
        if player is None or player == to_move:
            return position.legal(state)
        if player < 0:
            raise pyspiel.SpielError(f"Called LegalActions for pseudo-player {player}")
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        position = self.position
        return position.encoding.chance_outcomes(position.state, position.drawn)

    def _apply_action(self, action: int) -> None:
        self.position.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        position = self.position
        if player == pyspiel.PlayerId.CHANCE:
            return position.encoding.chance_string(position.state, action, position.drawn)
        return position.encoding.action_string(position.state, action)

    def is_terminal(self) -> bool:
        return self.position.state.is_over

    def returns(self) -> list[float]:
        position = self.position
        return position.encoding.returns(position.state)

    def __str__(self) -> str:
        position = self.position
        state = position.state
        # Drawn from a copy without history: the engines mark the last action's cells, which a clone cannot.
        text = f"{state.copy_without_history().render()}\n{state.summary()}"
        if position.drawn:
            draws = ", ".join(position.encoding.chance_string(state, i) for i in position.drawn)
            text += f"\nchance drawn so far: {draws}"
        return text


class PlanesObserver:
    """OpenSpiel's Python observer: the encoding's planes as ``tensor`` (and ``dict["observation"]``).

    The game has perfect information, so the planes serve as both observation and information state;
    the information state's string (perfect recall) lists the actions played, the observation's is the
    position's text.
    """

    def __init__(self, enc: Encoding, perfect_recall: bool):
        self.encoding = enc
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(int(np.prod(enc.observation_shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(enc.observation_shape)}

    def set_from(self, state: RefereeState, player: int) -> None:
        self.tensor[:] = self.encoding.observation(state.position.state, player)

    def string_from(self, state: RefereeState, player: int) -> str:
        if self.perfect_recall:
            return f"player {player}; played: " + " ".join(map(str, state.position.played))
        return str(state)


class RefereeGame(pyspiel.Game):
    """One of the referee's games with its parameters, as an OpenSpiel game."""

    short_name = ""

    def __init__(self, params: dict[str, Any] | None = None):
        game, defaults = GAMES[self.short_name]
        options = {**defaults, **(params or {})}
        engine_options = dict(options)
        if "rules" in options:  # OpenSpiel's number 1.2 is the engine's version "1.2"
            engine_options["rules"] = f"{float(options['rules']):.1f}"
        self.encoding = _encoding(game, engine_options)
        super().__init__(_game_type(self.short_name, chance=self.encoding.num_chance_outcomes > 0),
                         _game_info(self.encoding), options)

    def new_initial_state(self) -> RefereeState:
        return RefereeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> PlanesObserver:
        if params:
            raise ValueError(f"{self.short_name}: observation parameters are not supported, got {params}")
        return PlanesObserver(self.encoding, perfect_recall=bool(iig_obs_type and iig_obs_type.perfect_recall))


def _game_type(short_name: str, chance: bool) -> Any:
    """The ``pyspiel.GameType``: sequential, perfect information, zero-sum, rewarded at the end."""
    game, defaults = GAMES[short_name]
    mode = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=short_name,
        long_name=f"{_LONG_NAMES[game]} (the referee's engine)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=mode.EXPLICIT_STOCHASTIC if chance else mode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults,
    )


def _game_info(enc: Encoding) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=enc.num_actions,
        max_chance_outcomes=enc.num_chance_outcomes,
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=enc.max_game_length,
    )


def _game_class(short_name: str) -> type[RefereeGame]:
    return type(f"{short_name.title().replace('_', '')}Game", (RefereeGame,), {"short_name": short_name})


def register() -> None:
    """Register the three games with OpenSpiel (done on import; registering again does nothing)."""
    known = set(pyspiel.registered_names())
    for short_name, (game, _) in GAMES.items():
        if short_name not in known:
            # Infinitron's type names its chance mode as the most general one: each game says its own
            # (deterministic without chaos) when made with its parameters.
            pyspiel.register_game(_game_type(short_name, chance=game == "infinitron"), _game_class(short_name))


def load(game: str, **options: Any) -> Any:
    """One of the referee's games as OpenSpiel's: ``load("cachex", n=4)``, ``load("infinitron", rules="1.1")``."""
    if "rules" in options:  # the engine's "1.1" is OpenSpiel's number 1.1
        options["rules"] = float(options["rules"])
    return pyspiel.load_game(f"referee_{game}", options)


register()

__all__ = ["GAMES", "PlanesObserver", "Position", "RefereeGame", "RefereeState", "load", "register"]
