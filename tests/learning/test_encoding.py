"""The shared action encoding (referee.learning.encoding): fixed integers that round-trip, observations of
the declared shape, chance outcomes that are a distribution.  Pure Python: runs without the learning extra."""
from __future__ import annotations

import math
import random

import pytest

from referee.games.base import BLUE, CHANCE, RED, GameOptionError
from referee.games.infinitron.engine import cell_of, parse_action
from referee.learning.encoding import encoding
from referee.learning.infinitron_encoding import (
    ATTACK_BASE,
    BUILD_BASE,
    FISH_INDEX,
    MOVE_BASE,
    MOVE_PAIR,
    InfinitronEncoding,
)

SETTINGS = [
    ("infexion", {}),
    ("cachex", {"n": 3}),
    ("cachex", {"n": 7}),
    ("infinitron", {"max_turns": 6}),
    ("infinitron", {"max_turns": 8, "chaos": True, "seed": 3}),
]


def random_game(enc, seed: int, max_actions: int = 400):
    """Yield each position of a random game (chance drawn by its outcomes), until it ends or max_actions."""
    rng = random.Random(seed)
    state = enc.new_state()
    drawn: list[int] = []
    played = 0
    while not state.is_over and played < max_actions:
        if state.current_player == CHANCE:
            outcomes = enc.chance_outcomes(state, drawn)
            index = rng.choices([i for i, _ in outcomes], [p for _, p in outcomes])[0]
            action = enc.chance_action(state, index, drawn)
            if action is None:
                drawn.append(index)
                continue
            drawn = []
            state.apply(action)
            continue
        yield state
        state.apply(enc.action(state, rng.choice(enc.legal_indices(state))))
        played += 1
    yield state


@pytest.mark.parametrize(("game", "options"), SETTINGS, ids=lambda x: str(x))
def test_every_legal_action_has_one_integer_that_round_trips(game, options):
    enc = encoding(game, **options)
    for state in random_game(enc, seed=7, max_actions=150):
        if state.is_over:
            assert enc.legal_indices(state) == [] and enc.returns(state) in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
            continue
        legal = state.legal_actions()
        indices = enc.legal_indices(state)
        assert indices == sorted(set(indices)) and indices == sorted(enc.index(state, a) for a in legal)
        assert all(0 <= i < enc.num_actions for i in indices)
        for action in legal:
            i = enc.index(state, action)
            assert enc.action(state, i) == action
            assert enc.action_string(state, i) == state.action_to_str(action)
        for player in (RED, BLUE):
            assert len(enc.observation(state, player)) == math.prod(enc.observation_shape)


@pytest.mark.parametrize(("game", "options", "size"), [
    ("infexion", {}, 343), ("cachex", {"n": 3}, 10), ("cachex", {"n": 15}, 226),
    ("infinitron", {}, 1 + 2744 + 4 * 91 + 480 + 4770 + 1405 + 4 * 91 + 6 * 91),
    ("infinitron", {"cities": [[0, 0]]}, 1 + 2744 + 4 * 91 + 480 + 4770 + 1405 + 4 * 91 + 3 * 91),
])
def test_the_action_spaces_sizes(game, options, size):
    assert encoding(game, **options).num_actions == size


def test_a_fixed_list_of_actions_round_trips_through_index_action_and_text():
    infexion = encoding("infexion")
    state = infexion.new_state()
    for text, index in [("SPAWN(3, 3)", 24), ("SPREAD(3, 3, -1, 0)", 49 + 24 * 6 + 2), ("SPAWN(0, 1)", 1)]:
        assert infexion.action_string(state, index) == text
        assert infexion.index(state, state.parse_action(text)) == index
    cachex = encoding("cachex", n=4)
    state = cachex.new_state()
    state.apply(cachex.action(state, 1 * 4 + 2))
    assert cachex.action_string(state, 16) == "STEAL" and cachex.action(state, 16) == state.parse_action("STEAL")
    assert cachex.action_string(state, 3 * 4 + 0) == "PLACE(3, 0)"
    with pytest.raises(ValueError):
        cachex.action(state, 1 * 4 + 2)  # taken
    with pytest.raises(ValueError):
        cachex.action(state, 17)


def test_infinitron_names_a_unit_by_its_cell():
    enc = encoding("infinitron", cities=[[0, 0]])
    state = enc.new_state()
    state.setup_template(RED, 0, 2, 3, "MELEE", "NONE")
    state.setup_template(BLUE, 0, 2, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 3, -2)
    state.setup_unit(BLUE, 0, -3, 2)
    assert enc.action_string(state, 0) == "END_TURN"
    move = enc.index(state, parse_action("MOVE(0, 2, -1)"))  # Red's unit 0 on (3, -2), a step up
    assert MOVE_BASE <= move < ATTACK_BASE and enc.action_string(state, move) == "MOVE(0, 2, -1)"
    state.apply(enc.action(state, move))
    assert enc.index(state, parse_action("MOVE(0, 1, 0)")) == MOVE_BASE + MOVE_PAIR[cell_of(2, -1) * 91 + cell_of(1, 0)]
    # Blue's unit stands on (-3, 2): the index naming it is not Red's to play, and names no Red unit.
    blue_move = MOVE_BASE + MOVE_PAIR[cell_of(-3, 2) * 91 + cell_of(-2, 2)]
    with pytest.raises(ValueError):
        enc.action(state, blue_move)
    assert enc.action_string(state, blue_move) == "MOVE from (-3, 2) to (-2, 2) (no unit of the mover there)"
    for text in ["DEFINE(1, 2, 2, MEDIUM, NONE)", "BUILD(0, 4, -1)", "TERRAIN(LAVA, 3, -1)", "CLAIM(0, 2, -2)"]:
        i = enc.index(state, parse_action(text))
        assert i >= BUILD_BASE or text.startswith("DEFINE")
        assert enc.action_string(state, i) == text


def test_infinitron_refuses_the_armour_option_and_unknown_games_are_refused():
    with pytest.raises(GameOptionError, match="armour"):
        encoding("infinitron", armour=True)
    with pytest.raises(GameOptionError):
        encoding("chess")
    with pytest.raises(GameOptionError):
        encoding("cachex", n=2)


def test_a_fish_market_is_drawn_cell_by_cell_and_every_step_sums_to_one():
    enc = encoding("infinitron", chaos=True, max_turns=4)
    assert isinstance(enc, InfinitronEncoding) and enc.num_chance_outcomes == 184
    state = enc.new_state()
    first = enc.chance_outcomes(state)
    assert math.isclose(sum(p for _, p in first), 1.0) and first[0] == (0, pytest.approx(11 / 12))
    assert enc.chance_action(state, 0) == (7,) and enc.chance_string(state, 0) == "NO_EVENT"
    assert enc.chance_action(state, FISH_INDEX) is None
    drawn = [FISH_INDEX]
    while True:
        outcomes = enc.chance_outcomes(state, drawn)
        assert math.isclose(sum(p for _, p in outcomes), 1.0)
        assert len({p for _, p in outcomes}) == 1, "the next cell is uniform among those left"
        index = outcomes[len(drawn) * 5][0]
        action = enc.chance_action(state, index, drawn)
        if action is not None:
            break
        drawn.append(index)
    assert len(drawn) == 6 and action[0] == 9 and len(action) == 7
    state.apply_checked(action)
    assert enc.legal_indices(state), "Red's turn follows the roll"
