"""The typed public surface: one version, the PEP 561 marker, and game states generic over their action."""
from __future__ import annotations

import random
import re
import typing

import pytest

import referee
from referee.games.base import AlternatingState, Game, GameState, IllegalActionError, Outcome
from referee.games.cachex.engine import Cachex, CachexState
from referee.games.infexion.engine import Infexion, InfexionState
from referee.games.infinitron.engine import Infinitron, InfinitronState
from tests.helpers import ROOT, run_referee


def test_the_version_is_written_once_and_the_cli_prints_it():
    pyproject = (ROOT / "pyproject.toml").read_text()
    project = pyproject.split("[project]", 1)[1].split("\n[", 1)[0]
    # The package's version is read from referee.__version__, not written a second time.
    assert not re.search(r"^version\s*=", project, re.M)
    assert re.search(r'^dynamic\s*=\s*\[.*"version".*\]', project, re.M)
    assert 'version = {attr = "referee.__version__"}' in pyproject
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", referee.__version__)
    # From the source tree, whatever is installed.
    done = run_referee("--version", env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout.strip() == f"referee {referee.__version__}"


def test_the_type_marker_is_there_and_shipped():
    assert (ROOT / "referee" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    data = pyproject.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^referee\s*=\s*\[.*"py\.typed".*\]', data, re.M)


def _action_type(cls: type) -> object:
    """The action type a state or game class names in its bases (``GameState[int]`` -> ``int``)."""
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            args = typing.get_args(base)
            if args and typing.get_origin(base) in (GameState, AlternatingState, Game):
                return args[0]
    return None


@pytest.mark.parametrize(
    ("state", "game", "action"),
    [
        (InfexionState, Infexion, int),
        (CachexState, Cachex, int),
        (InfinitronState, Infinitron, tuple[int, ...]),
    ],
)
def test_each_game_names_its_action_type(state, game, action):
    assert _action_type(state) == action and _action_type(game) == action
    # The type is what the state hands out.
    first = game().new_state().legal_actions()[0]
    assert isinstance(first, typing.get_origin(action) or action)


def test_a_state_that_names_no_action_type_still_works():
    """A plug-in game written before the type parameter (``class S(GameState)``) runs unchanged."""

    class Counter(GameState):
        __slots__ = ("n",)

        def __init__(self) -> None:
            self.n = 0

        current_player = property(lambda self: self.n & 1)
        move_count = property(lambda self: self.n)
        outcome = property(lambda self: Outcome(None, "done") if self.n >= 2 else None)

        def legal_actions(self):
            return [] if self.n >= 2 else ["tick"]

        def is_legal(self, action):
            return action in self.legal_actions()

        def apply(self, action):
            self.n += 1

        def illegal_reason(self, action):
            return None if self.is_legal(action) else "not now"

        def undo(self):
            self.n -= 1

        def copy(self):
            other = Counter()
            other.n = self.n
            return other

        def key(self):
            return self.n

        def action_to_str(self, action):
            return str(action)

        def parse_action(self, text):
            return text

    state = Counter()
    state.apply_checked("tick")
    with pytest.raises(IllegalActionError, match="illegal action tock: not now"):
        state.apply_checked("tock")
    state.apply_checked(state.random_action(random.Random(1)))
    assert state.is_over and _action_type(Counter) is None
