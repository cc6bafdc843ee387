"""Chaos: the roll before Red's turns, its events, and reproducibility from the seed."""
from __future__ import annotations

import random

import pytest

from referee.games.base import BLUE, CHANCE, RED
from referee.games.infinitron import Infinitron
from referee.games.infinitron.engine import ASTEROID, CELLS, FISH_MARKET, NO_EVENT, RUBBLE_TURNS, cell_of

from .common import empty_state, play, reason


def _chance_game(chance_seed: int, player_seed: int, max_actions: int = 4000) -> list[str]:
    """A random chaos game's action texts: chance from one seed, the players from another."""
    state = Infinitron(chaos=True, seed=11).new_state()
    chance, players = random.Random(f"chance:{chance_seed}"), random.Random(player_seed)
    texts = []
    while not state.is_over and len(texts) < max_actions:
        if state.current_player == CHANCE:
            action = state.sample_chance(chance)
        else:
            action = players.choice(state.legal_actions())
        texts.append(state.action_to_str(action))
        state.apply_checked(action)
    return texts


def test_chaos_events_are_reproducible_from_the_seed():
    first = _chance_game(3, 1)
    assert first == _chance_game(3, 1)
    events = [t for t in first if t.startswith(("ASTEROID", "FISH_MARKET"))]
    rolls = [t for t in first if t.startswith(("ASTEROID", "FISH_MARKET", "NO_EVENT"))]
    assert rolls and events, "a long game sees chaos events"
    other_events = [t for t in _chance_game(4, 1) if t.startswith(("ASTEROID", "FISH_MARKET"))]
    assert other_events != events


class _OnlyRandom(random.Random):
    """An RNG that fails on every method but random(), the one Python keeps stable across versions."""

    def _refuse(self, *args, **kwargs):
        raise AssertionError("sample_chance must use random() only")

    randrange = randint = choice = sample = shuffle = getrandbits = _refuse


def test_sample_chance_uses_only_random_so_seeds_replay_on_any_python():
    state = empty_state(chaos=True)
    rng = _OnlyRandom(5)
    for _ in range(300):
        action = state.sample_chance(rng)
        assert state.is_legal(action)


def test_an_event_comes_one_roll_in_twelve_asteroid_or_fish_evenly():
    state = Infinitron(chaos=True).new_state()
    rng = random.Random(0)
    kinds = [state.sample_chance(rng)[0] for _ in range(24000)]
    events = sum(k != NO_EVENT for k in kinds)
    assert 1700 < events < 2300  # 2000 expected
    asteroids = kinds.count(ASTEROID)
    assert 0.4 < asteroids / events < 0.6
    assert kinds.count(FISH_MARKET) == events - asteroids


def test_an_asteroid_destroys_units_within_1_leaves_rubble_and_destroys_cities():
    state = empty_state(chaos=True, cities=[[1, 0], [3, 0]])
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 0, 0)  # the centre
    state.setup_unit(BLUE, 0, -1, 1)  # distance 1
    state.setup_unit(BLUE, 0, -2, 1)  # distance 2: survives
    state.setup_ground("FISH", 0, -1)  # distance 1: becomes RUBBLE
    state.setup_ground("LAVA", 1, -1)  # distance 1: becomes RUBBLE
    state.setup_city_owner(1, 0, RED)
    assert "distance >= 3 from both capitals" in reason(state, "ASTEROID(2, -1)")
    play(state, "ASTEROID(0, 0)")
    assert state.units[RED] == {} and sorted(state.units[BLUE]) == [1]
    hit = [(0, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1), (1, 0)]
    assert {rq for rq in CELLS if state.terrain_at(*rq) == "RUBBLE"} == set(hit)
    assert state.rubble == {cell_of(*rq): RUBBLE_TURNS for rq in hit}, "cleared when 24 turns are done"
    assert state.city_owner[2] == -1, "a destroyed city is no one's"
    assert state.rp[RED] == 3, "no income from the destroyed city"
    assert state.score(RED) == 3
    assert state.current_player == RED
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 2, 0)
    assert "RUBBLE (impassable)" in reason(state, "MOVE(1, 1, 0)")


def test_rubble_lasts_24_turns_then_is_plain_and_a_destroyed_city_stays_destroyed():
    state = empty_state(chaos=True, cities=[[1, 0]])
    play(state, "ASTEROID(1, 0)")  # before turn 1 (turn count 0)
    while state.turn < RUBBLE_TURNS - 1 or state.current_player == CHANCE:
        play(state, "NO_EVENT" if state.current_player == CHANCE else "END_TURN")
    assert state.turn == RUBBLE_TURNS - 1 and state.terrain_at(1, 0) == "RUBBLE"  # the 24th turn
    play(state, "END_TURN")
    assert state.turn == RUBBLE_TURNS and state.terrain_at(1, 0) == "PLAIN" and state.rubble == {}
    assert state.current_player == CHANCE, "rubble clears before the roll"
    state.undo()
    assert state.terrain_at(1, 0) == "RUBBLE" and state.rubble, "undo restores the rubble"
    play(state, "END_TURN", "NO_EVENT")
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 2, 0)
    play(state, "MOVE(0, 1, 0)")  # passable again, but the city is gone for good
    assert state.city_owner[2] == -1 and state.income(RED) == 3 and not any(state.terrain_points[2:])


def test_a_second_asteroid_restarts_the_rubble_count():
    state = empty_state(chaos=True)
    play(state, "ASTEROID(0, 0)", "END_TURN", "END_TURN", "ASTEROID(0, 1)")
    assert state.rubble[cell_of(0, 0)] == 2 + RUBBLE_TURNS and state.rubble[cell_of(0, -1)] == RUBBLE_TURNS


def test_a_fish_market_puts_six_tokens_on_empty_plain_cells():
    state = Infinitron(chaos=True, seed=2).new_state()
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(BLUE, 0, 0, 0)
    rng = random.Random(1)
    action = state.sample_chance(rng)
    while action[0] != FISH_MARKET:
        action = state.sample_chance(rng)
    cells = action[1:]
    assert len(cells) == 6 == len(set(cells))
    text = state.action_to_str(action)
    assert text.startswith("FISH_MARKET((") and text.count("(") == 7
    city_cells = set(state.setup.cities)
    assert not city_cells & set(cells) and all(state.ground[c] == 0 and state.occ[c] < 0 for c in cells)
    state.apply_checked(action)
    assert all(state.ground[c] == 5 for c in cells)
    assert state.rp[RED] == 3


def test_fish_market_rules_are_checked():
    state = empty_state(chaos=True, cities=[[0, 0]])
    state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(BLUE, 0, 1, 1)
    five = "FISH_MARKET((0, 1), (0, 2), (0, 3), (0, 4), (0, 5))"
    assert "puts 6 fish tokens" in reason(state, five)
    assert "(0, 0) is not one" in reason(state, "FISH_MARKET((0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5))")
    assert "(1, 1) is not one" in reason(state, "FISH_MARKET((1, 1), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5))")
    assert reason(state, "FISH_MARKET((-1, 1), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5))") is None


def test_fish_market_with_fewer_than_six_free_cells_fills_them_all():
    state = empty_state(chaos=True)
    free = {(0, 0), (0, 1), (2, 2), (-3, 1)}
    for rq in CELLS:
        if rq not in free and rq not in state.city_cells():
            state.setup_ground("BLOCK", *rq)
    rng = random.Random(3)
    action = state.sample_chance(rng)
    while action[0] != FISH_MARKET:
        action = state.sample_chance(rng)
    assert state.action_to_str(action) == "FISH_MARKET((-3, 1), (0, 0), (0, 1), (2, 2))"
    assert state.is_legal(action)


def test_chaos_rolls_only_before_red_turns():
    state = empty_state(chaos=True)
    seen = []
    for _ in range(6):
        seen.append(state.current_player)
        if state.current_player == CHANCE:
            play(state, "NO_EVENT")
        else:
            play(state, "END_TURN")
    assert seen == [CHANCE, RED, BLUE, CHANCE, RED, BLUE]


def _drawn_fish_market(state):
    rng = random.Random(7)
    action = state.sample_chance(rng)
    while action[0] != FISH_MARKET:
        action = state.sample_chance(rng)
    return state.action_to_str(action)


@pytest.mark.parametrize("text", ["NO_EVENT", "ASTEROID(0, 0)", None])
def test_undo_of_a_chance_action_is_exact(text):
    state = empty_state(chaos=True, cities=[[0, 1]])
    state.setup_template(RED, 0, 1, 3, "MELEE", "NONE")
    state.setup_unit(RED, 0, 1, 0)
    text = text or _drawn_fish_market(state)
    before, key = state.copy(), state.key()
    play(state, text)
    assert state.current_player == RED and state.key() != key
    state.undo()
    assert state == before and state.key() == key and state.current_player == CHANCE
    assert state.rp == [0, 0] and state.units[RED] == before.units[RED]
