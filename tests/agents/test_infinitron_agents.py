"""The bundled agents on Infinitron Skirmish: legal play, the real referee, captures, candidates."""
from __future__ import annotations

import importlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from agents.common.agent import OptionError
from agents.common.heuristics import heuristics_for
from agents.common.heuristics.infinitron import DEFAULT_PLAN, HORIZON_TURNS, InfinitronHeuristics
from referee.game.player import PlayerColor
from referee.games.base import BLUE, CHANCE, RED
from referee.games.infinitron import Infinitron, InfinitronState, action_to_str, parse_action
from referee.games.infinitron.engine import (
    ABILITY,
    BLOCK,
    BUILD,
    CHANCE_KINDS,
    CLAIM,
    DEFINE,
    END_TURN_ACTION,
    FACING,
    LAVA,
    MELEE,
    NO_EVENT_ACTION,
    REPAIR,
    TERRAIN,
    armour_text,
    cell_of,
    template_of,
)
from referee.infinitron import from_engine_action, to_engine_action
from tests.helpers import run_referee

COLORS = (PlayerColor.RED, PlayerColor.BLUE)
SEARCH_AGENTS = ("agents.greedy", "agents.minimax", "agents.mcts")


def make_agent(module: str, color: int, options: dict[str, Any], seed: int, **extra: Any) -> Any:
    """An agent built the way the referee builds it (same keyword arguments)."""
    game = Infinitron(**options)
    kwargs: dict[str, Any] = {"game": "infinitron", "game_options": options, "seed": seed, **game.agent_kwargs}
    if module != "agents.random_agent":
        kwargs["move_time"] = 0.005
    kwargs.update(extra)
    return importlib.import_module(module).Agent(color=COLORS[color], **kwargs)


def referee_kwargs(options: dict[str, Any], seed: int) -> dict[str, Any]:
    return {"game": "infinitron", "game_options": options, "seed": seed, "time_remaining": None}


def play(red: str, blue: str, options: dict[str, Any], seed: int) -> tuple[InfinitronState, list[tuple[int, ...]]]:
    """A game driven as referee.match drives it: every command checked before it is applied.

    Returns the final state and every action (chance included).
    """
    state = Infinitron(**options).new_state()
    chance = random.Random(f"chance:{seed}")
    agents = [make_agent(red, RED, options, seed), make_agent(blue, BLUE, options, seed)]
    played: list[tuple[int, ...]] = []
    while not state.is_over:
        mover = state.current_player
        if mover == CHANCE:
            action = state.sample_chance(chance)
            state.apply_checked(action)
            color = None
        else:
            reply = agents[mover].action(**referee_kwargs(options, seed))
            action = to_engine_action(reply)
            assert action is not None, f"{[red, blue][mover]} returned {reply!r}, not a command"
            reason = state.illegal_reason(action)
            assert reason is None, f"{[red, blue][mover]} played {action_to_str(action)}: {reason}"
            state.apply(action)
            color = COLORS[mover]
        played.append(action)
        if state.is_over:
            break
        told = from_engine_action(action)
        for agent in agents:
            agent.turn(color, told, **referee_kwargs(options, seed))
    return state, played


# Each pairing plays one seed; its chaos rolls bring both kinds of event within
# six turns (the rolls depend only on the seed, not on the agents), so events
# are really met.
@pytest.mark.parametrize("chaos", [False, True], ids=["calm", "chaos"])
@pytest.mark.parametrize(
    "red, blue, seed",
    [
        ("agents.random_agent", "agents.greedy", 2),
        ("agents.greedy", "agents.minimax", 10),
        ("agents.minimax", "agents.mcts", 35),
        ("agents.mcts", "agents.random_agent", 2),
    ],
)
def test_agents_only_give_legal_commands(red: str, blue: str, seed: int, chaos: bool) -> None:
    options = {"seed": seed, "chaos": chaos, "max_turns": 24}
    state, played = play(red, blue, options, seed)
    assert state.is_over
    commands = [a for a in played if a[0] not in CHANCE_KINDS]
    assert any(a != END_TURN_ACTION for a in commands), "nobody did anything but end turns"
    events = {a[0] for a in played if a[0] in CHANCE_KINDS and a != NO_EVENT_ACTION}
    if chaos:
        assert events, f"seed {seed} brought no chaos event before the game ended: pick another seed"
    else:
        assert len(commands) == len(played)


def test_search_agents_beat_random_in_a_short_game() -> None:
    # Not a strength measurement (see the report for those): a sanity check
    # that the candidates lead somewhere, on a capped game.
    for red, blue in (("agents.minimax", "agents.random_agent"), ("agents.random_agent", "agents.mcts")):
        state, _ = play(red, blue, {"seed": 11, "max_turns": 60}, 11)
        search = RED if red != "agents.random_agent" else BLUE
        assert state.score(search) > state.score(1 - search)


def test_random_agent_is_uniform_over_every_legal_command_end_turn_included() -> None:
    options = {"cities": []}
    state = Infinitron(**options).new_state()
    state.setup_template(RED, 1, 1, 2, "MELEE", "NONE")
    state.setup_unit(RED, 0, 0, 0)
    state.rp[RED] = 0  # no DEFINE, no BUILD: a short list
    state.terrain_points = (0, 0)
    state.claiming = 0  # nor the capital's claims (rules 1.1)
    legal = set(state.legal_actions())
    assert END_TURN_ACTION in legal and len(legal) == 7  # six moves and END_TURN
    seen = set()
    for seed in range(200):
        agent = make_agent("agents.random_agent", RED, options, seed)
        agent.view.state = state.copy()
        seen.add(to_engine_action(agent.action(**referee_kwargs(options, seed))))
    assert seen == legal


# -- the real referee -----------------------------------------------------------------


def test_a_whole_game_through_the_referee_ends_by_the_rules(tmp_path: Path) -> None:
    # -t 8: the agents spread their clock over the game, so a game takes at most
    # 16 s of CPU (at -t 20 it took 5 to 40 s, by how the searches went).
    record = tmp_path / "game.json"
    done = run_referee(
        "--game", "infinitron", "-t", "8", "-v", "0", "--seed", "5",
        "agents.minimax", "agents.mcts", "--record", str(record), timeout=600,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(record.read_text())
    assert result["reason"] in ("capital", "turn_limit"), result["message"]
    assert result["error"] == {"RED": None, "BLUE": None}
    assert all(result["time_used"][c] < 8 for c in ("RED", "BLUE"))


# -- captures on hand-made positions ---------------------------------------------------


def capture_position() -> InfinitronState:
    """Red to play; Blue's capital (-4, 2) has nobody in its territory; a Blue unit far off."""
    state = Infinitron(cities=[]).new_state()
    for player in (RED, BLUE):
        state.setup_template(player, 1, 2, 2, "MELEE", "NONE")  # 0: Move 2
        state.setup_template(player, 1, 1, 2, "MELEE", "NONE")  # 1: Move 1
        state.setup_template(player, 3, 3, 4, "MEDIUM", "NONE")  # 2: Move 3, 40 damage
    state.setup_unit(BLUE, 0, 3, 0)
    state.setup_unit(BLUE, 0, 2, 1)
    return state


def run_until_won(module: str, state: InfinitronState, limit: int) -> list[str]:
    """Let Red's agent play from ``state`` (its own copy) for up to ``limit`` commands."""
    agent = make_agent(module, RED, {"cities": []}, 1, move_time=0.3)
    agent.view.state = state.copy()
    texts = []
    for _ in range(limit):
        action = to_engine_action(agent.action(**referee_kwargs({"cities": []}, 1)))
        assert state.illegal_reason(action) is None
        state.apply(action)
        texts.append(action_to_str(action))
        if state.is_over:
            break
        agent.turn(PlayerColor.RED, from_engine_action(action))
    return texts


@pytest.mark.parametrize("module", SEARCH_AGENTS)
def test_an_open_capital_is_taken_at_once(module: str) -> None:
    state = capture_position()
    state.setup_unit(RED, 0, -2, 2)  # Move 2, two steps from the capital: a step at a time (rules 1.1)
    state.setup_unit(RED, 2, 0, 0)
    texts = run_until_won(module, state, 4)
    # Within the turn, the unit's two steps (other commands, a BUILD, may come between: rules 1.1).
    assert [t for t in texts if t.startswith("MOVE")] == ["MOVE(0, -3, 2)", "MOVE(0, -4, 2)"]
    assert state.outcome is not None and state.outcome.winner == RED and state.outcome.reason == "capital"


@pytest.mark.parametrize("module", ["agents.minimax", "agents.mcts"])
def test_the_last_defender_is_killed_then_the_capital_taken(module: str) -> None:
    state = capture_position()
    state.setup_unit(BLUE, 0, -3, 1, hp=20)  # alone in the capital's territory, one hit from death
    state.setup_unit(RED, 0, -2, 0)  # next to it: 20 damage kills it
    state.setup_unit(RED, 0, -3, 2)  # a step from the capital
    texts = run_until_won(module, state, 4)
    assert state.outcome is not None and state.outcome.winner == RED, texts
    # Within the turn (a BUILD by its own open capital may come first: it ends nothing).
    assert [t for t in texts if not t.startswith("BUILD")] == ["ATTACK(0, -3, 1)", "MOVE(1, -4, 2)"]


@pytest.mark.parametrize("module", ["agents.minimax", "agents.mcts"])
def test_a_unit_in_the_way_is_moved_then_the_capital_taken(module: str) -> None:
    # BLOCK all round: the capital is reached only along (-2, 2) -> (-3, 2) -> (-4, 2).
    state = capture_position()
    for r, q in ((-4, 3), (-5, 3), (-5, 2), (-4, 1), (-3, 1), (-3, 3), (-2, 1)):
        state.setup_ground("BLOCK", r, q)
    state.setup_unit(RED, 1, -2, 2)  # Move 1, on the corridor: cannot reach the capital
    state.setup_unit(RED, 2, -1, 2)  # Move 3, behind it: three steps once the corridor is free
    assert state.illegal_reason(parse_action("MOVE(1, -2, 2)")) is not None
    texts = run_until_won(module, state, 6)
    assert state.outcome is not None and state.outcome.winner == RED, texts
    # Out of the corridor (onto (-3, 2) it would block it still), then the three steps (rules 1.1).
    moves = [t for t in texts if t.startswith("MOVE")]
    assert moves[0] in ("MOVE(0, -2, 3)", "MOVE(0, -1, 1)")
    assert moves[1:] == ["MOVE(1, -2, 2)", "MOVE(1, -3, 2)", "MOVE(1, -4, 2)"]


@pytest.mark.parametrize("module", ["agents.greedy", "agents.minimax"])
def test_a_walled_in_capital_makes_room_to_build(module: str) -> None:
    # Asteroids can leave a capital with every build cell taken by its own
    # units and BLOCK all round: one must step into the one free cell, (5, -4),
    # or the RP never become units.  (Not MCTS: a build is worth only ~100
    # here, within the noise of its averages, and it may put it off.)
    state = Infinitron(cities=[]).new_state()
    for text in DEFAULT_PLAN:  # all four templates: no DEFINE to offer
        state.setup_template(RED, *parse_action(text)[1:])
    for r, q in ((4, -1), (3, -1), (3, -2), (5, -2), (3, -3), (4, -4), (5, -5)):
        state.setup_ground("BLOCK", r, q)
    for r, q in ((4, -2), (4, -3), (5, -3)):  # the capital and its two open neighbours
        state.setup_unit(RED, 0, r, q)
    state.rp[RED] = 12
    state.terrain_points = (0, 0)
    assert not [a for a in state.legal_actions() if a[0] == BUILD]
    agent = make_agent(module, RED, {"cities": []}, 1, move_time=0.2)
    agent.view.state = state.copy()
    for _ in range(9):  # the six claims of Red's first turn (rules 1.1) may come first
        action = to_engine_action(agent.action(**referee_kwargs({"cities": []}, 1)))
        assert state.illegal_reason(action) is None
        state.apply(action)
        if action == END_TURN_ACTION:
            break
        agent.turn(PlayerColor.RED, from_engine_action(action))
    assert len(state.units[RED]) == 4


# -- the heuristics on their own --------------------------------------------------------


def test_pruned_candidates_are_few_legal_and_end_the_turn_full_lists_are_every_command() -> None:
    game = Infinitron(seed=4)
    h = InfinitronHeuristics(game)
    state = game.new_state()
    rng = random.Random(1)
    for _ in range(300):  # random play through positions of every kind
        if state.is_over:
            break
        if state.current_player == CHANCE:
            state.apply(state.sample_chance(rng))
            continue
        legal = state.legal_actions()
        pruned = h.ordered_actions(state, rng, prune=True)
        assert END_TURN_ACTION in pruned
        assert len(pruned) <= h.candidates + 1 and len(set(pruned)) == len(pruned)
        assert set(pruned) <= set(legal)
        full = h.ordered_actions(state, rng, prune=False)
        assert sorted(full) == sorted(legal)
        assert set(h.tactical_actions(state)) <= set(legal)
        state.apply(legal[int(rng.random() * len(legal))])


def test_only_known_options_are_taken() -> None:
    game = Infinitron()
    assert isinstance(heuristics_for(game), InfinitronHeuristics)
    with pytest.raises(TypeError):
        InfinitronHeuristics(game, adavnce=3)
    with pytest.raises(OptionError, match="heuristics"):
        make_agent("agents.minimax", RED, {}, 1, heuristics={"adavnce": 3})
    with pytest.raises(ValueError):
        InfinitronHeuristics(game, plan=["END_TURN"])
    with pytest.raises(ValueError, match="army"):
        InfinitronHeuristics(game, army="random")
    assert make_agent("agents.minimax", RED, {}, 1, heuristics={"advance": 30}).heuristics.advance == 30


def test_ending_a_quiet_turn_is_not_a_gain() -> None:
    # Equal incomes, nothing on the board: the mover's value may not rise by
    # ending the turn, or the searches would end turns instead of acting.
    h = InfinitronHeuristics()
    state = Infinitron(cities=[]).new_state()
    state.apply(parse_action("END_TURN"))  # Blue's first turn: both have had 3 RP
    before = h.evaluate(state)
    state.apply(parse_action("END_TURN"))
    assert -h.evaluate(state) <= before


def test_chance_samples_are_the_no_event_roll_and_a_turn_counts_several_commands() -> None:
    h = InfinitronHeuristics()
    state = Infinitron(chaos=True).new_state()
    assert state.current_player == CHANCE
    samples = h.chance_samples(state, random.Random(0))
    assert samples == [NO_EVENT_ACTION] and all(state.is_legal(a) for a in samples)
    state.apply(NO_EVENT_ACTION)
    # Several commands a turn, over the turns the clock is shared across.
    assert h.moves_left(state) > 4 * HORIZON_TURNS
    # Near the turn limit only the turns that remain count.
    late = Infinitron(max_turns=6).new_state()
    assert h.moves_left(late) < h.moves_left(state) / 10


# -- the varied army (issue 22) and the fixed one ------------------------------------------


def candidates(h: InfinitronHeuristics, state: InfinitronState, kind: int) -> list[tuple[int, ...]]:
    """The commands of one kind among the heuristics' scored candidates, best first."""
    return [a for _, a in h.scored_actions(state) if a[0] == kind]


def quiet_position(**options: Any) -> InfinitronState:
    """Red to play on a map without neutral cities; no terrain points, no claims open."""
    state = Infinitron(cities=[], **options).new_state()
    state.terrain_points = (0, 0)
    state.claiming = 0
    return state


def test_a_damaged_friend_next_to_a_healer_is_healed_an_unhurt_one_is_not() -> None:
    state = quiet_position()
    healer = state.setup_template(RED, 3, 2, 3, "MEDIUM", "HEAL1")
    state.setup_unit(RED, healer, 0, 0)
    state.setup_unit(RED, healer, 0, 1, hp=30)  # 50 HP short: HEAL1 gives back 20
    state.setup_unit(RED, healer, 1, 0)  # unhurt
    state.rp[RED] = 5
    heals = candidates(InfinitronHeuristics(), state, ABILITY)
    assert (ABILITY, 0, cell_of(0, 1)) in heals and (ABILITY, 1, cell_of(0, 1)) in heals
    assert all(a[2] == cell_of(0, 1) for a in heals)
    assert all(state.is_legal(a) for a in heals)
    # Without the RP a heal costs, none; and the fixed army never uses an ability.
    state.rp[RED] = 0
    assert candidates(InfinitronHeuristics(), state, ABILITY) == []
    state.rp[RED] = 5
    assert candidates(InfinitronHeuristics(army="fixed"), state, ABILITY) == []


def test_a_blast_goes_on_a_cluster_of_enemies_not_where_it_hurts_own_units_more() -> None:
    state = quiet_position()
    blaster = state.setup_template(RED, 3, 2, 3, "MEDIUM", "BLAST1")
    state.setup_unit(RED, blaster, 0, 0)
    enemy = state.setup_template(BLUE, 0, 1, 3, "MELEE", "NONE")  # 20 HP: BLAST1 kills
    for r, q in ((-2, 2), (-3, 2), (-2, 3)):  # three together, two cells off
        state.setup_unit(BLUE, enemy, r, q)
    # Own expensive units around a lone enemy: blasting there would cost more than it gains.
    state.setup_unit(BLUE, enemy, 3, -2)
    state.setup_unit(RED, blaster, 2, -2, hp=20)
    state.setup_unit(RED, blaster, 2, -1, hp=20)
    state.rp[RED] = 5
    blasts = candidates(InfinitronHeuristics(), state, ABILITY)
    assert blasts, "no blast proposed"
    best = blasts[0]
    hit = {best[2]} | _ring(best[2])
    assert sum(1 for c in hit if state.occ[c] >= 0 and state.occ[c] & 1 == BLUE) == 3
    assert all(state.is_legal(a) for a in blasts)
    near_own = {cell_of(2, -2), cell_of(2, -1), cell_of(3, -2)}
    assert not any(a[2] in near_own for a in blasts)


def _ring(cell: int) -> set[int]:
    """The six neighbours of a cell (those at hex distance 1)."""
    from referee.games.infinitron.geometry import DISTANCE

    return {c for c in range(91) if DISTANCE[cell * 91 + c] == 1}


def test_the_varied_army_defines_ranged_ability_and_swift_templates_the_fixed_one_the_old_plan() -> None:
    def plan(h: InfinitronHeuristics, state: InfinitronState) -> list[tuple[int, ...]]:
        """The DEFINEs proposed one after the other, the army growing so that each next one is due."""
        state = state.copy()
        defines = []
        for _ in range(4):
            state.rp[RED] = 40
            offered = candidates(h, state, DEFINE)
            assert len(offered) == 1 and state.is_legal(offered[0])
            defines.append(offered[0])
            state.apply(offered[0])
            while len(state.units[RED]) < 2 * len(state.templates[RED]) - 1:
                state.setup_unit(RED, 0, *[(4, -1), (3, -1), (3, -2), (4, -3), (5, -3), (5, -2), (2, 0)][
                    len(state.units[RED])])
        return defines

    state = quiet_position()
    varied = [template_of(a[1:]) for a in plan(InfinitronHeuristics(), state)]
    assert any(t.damage and t.range != MELEE and t.max_range >= 3 for t in varied)  # LONG or beyond
    assert any(t.ability in (1, 2) for t in varied)  # a HEAL: no enemy swarm here
    assert any(t.swift for t in varied)
    # The capital's fort: Move 0, 100 HP, 50 damage at SUPER range (up to 5).
    assert any(t.move == 0 and t.max_hp == 100 and t.damage == 50 and t.range == 4 for t in varied)
    # Against a swarm, a BLAST instead of the HEAL.
    swarm = state.copy()
    far = swarm.setup_template(BLUE, 1, 1, 2, "LONG", "NONE")
    for r, q in ((-4, 3), (-3, 3), (-5, 4), (-5, 3), (-4, 4), (-3, 1), (-2, 1), (-5, 2), (-3, 4)):
        swarm.setup_unit(BLUE, far, r, q)
    varied = [template_of(a[1:]) for a in plan(InfinitronHeuristics(), swarm)]
    assert any(t.ability in (3, 4) for t in varied)
    # army: fixed is 1.0's plan, whatever the enemy fields.
    old = [
        "DEFINE(1, 2, 2, MELEE, NONE)",
        "DEFINE(3, 0, 3, MEDIUM, NONE)",
        "DEFINE(3, 2, 4, MEDIUM, NONE)",
        "DEFINE(4, 3, 5, MEDIUM, NONE)",
    ]
    for position in (state, swarm):
        assert [action_to_str(a) for a in plan(InfinitronHeuristics(army="fixed"), position)] == old


def test_with_the_armour_option_templates_are_armoured_towards_the_enemy() -> None:
    state = quiet_position(armour=True)
    (define,) = candidates(InfinitronHeuristics(), state, DEFINE)
    assert state.is_legal(define) and len(define) == 7 and define[6]
    layout = armour_text(define[6])
    red_cap, blue_cap = cell_of(4, -2), cell_of(-4, 2)
    for side in FACING[red_cap * 91 + blue_cap]:
        assert layout[side] == "+" and layout[(side + 3) % 6] == "-"
    # Without the option, no armour (the sixth field would be illegal).
    (plain,) = candidates(InfinitronHeuristics(), quiet_position(), DEFINE)
    assert len(plain) == 6


def test_terrain_goes_on_the_enemys_approach_inside_own_territory_and_never_walls_off() -> None:
    # Red's first turn: claims first (those nearer Blue first), then the 6 terrain points.
    state = Infinitron(cities=[]).new_state()
    h = InfinitronHeuristics()
    while claims := candidates(h, state, CLAIM):
        assert all(a[0] != TERRAIN for _, a in h.scored_actions(state)[: len(claims)])
        state.apply(claims[0])
    territory = state.territory(0)
    assert len(territory) == 12
    terrain = candidates(h, state, TERRAIN)
    assert terrain and all(state.is_legal(a) for a in terrain)
    assert {a[1] for a in terrain} & {BLOCK, LAVA}
    red_cap, blue_cap = cell_of(4, -2), cell_of(-4, 2)
    from referee.games.infinitron.geometry import DISTANCE

    for a in terrain:
        assert a[2] in territory
        if a[1] in (BLOCK, LAVA):  # on the approach: nearer Blue's capital than Red's capital is
            assert DISTANCE[a[2] * 91 + blue_cap] < DISTANCE[red_cap * 91 + blue_cap]
    # A BLOCK that would wall off a capital is never proposed: row r = 2 all BLOCK but (2, -2),
    # a cell of Red's territory, the one way between the capitals.
    walled = Infinitron(cities=[]).new_state()
    walled.claiming = 0
    walled.setup_territory(0, [(4, -1), (3, -1), (3, -2), (4, -3), (5, -3), (5, -2), (2, -2)])
    for q in range(-5, 4):
        if q != -2:
            walled.setup_ground("BLOCK", 2, q)
    gap = cell_of(2, -2)
    assert not walled.is_legal((TERRAIN, BLOCK, gap)) and walled.is_legal((TERRAIN, LAVA, gap))
    proposed = candidates(h, walled, TERRAIN)
    assert (TERRAIN, BLOCK, gap) not in proposed and any(a[2] == gap for a in proposed)
    # The fixed army spends terrain on REPAIR only.
    assert {a[1] for a in candidates(InfinitronHeuristics(army="fixed"), state, TERRAIN)} == {REPAIR}


def test_heuristics_options_reach_an_agent() -> None:
    agent = make_agent("agents.mcts", RED, {}, 1, heuristics={"army": "fixed"})
    assert agent.heuristics.varied is False
    assert make_agent("agents.minimax", RED, {}, 1).heuristics.varied is True


def test_minimax_sizes_its_table_by_infinitron_keys_so_it_fits_a_third_of_the_space_limit() -> None:
    def deep_size(o: Any) -> int:
        inner = o.values() if isinstance(o, dict) else o if isinstance(o, (tuple, list, frozenset, set)) else ()
        return sys.getsizeof(o) + sum(deep_size(x) for x in inner)

    state, _ = play("agents.greedy", "agents.greedy", {"seed": 7}, seed=7)
    # The declared entry size is what a real key takes, within a factor of two.
    size = deep_size(state.key())
    assert size <= InfinitronHeuristics.table_entry_bytes <= 2 * size
    limited = make_agent("agents.minimax", RED, {"seed": 7}, 7, space_limit=250)
    assert limited.search.table_entries * InfinitronHeuristics.table_entry_bytes <= 250_000_000 / 3
    unlimited = make_agent("agents.minimax", RED, {"seed": 7}, 7)
    assert unlimited.search.table_entries * InfinitronHeuristics.table_entry_bytes <= 120_000_000
    # Infexion's small keys keep the table Infexion had.
    infexion = importlib.import_module("agents.minimax").Agent(
        color=COLORS[RED], game="infexion", time_remaining=None, space_limit=250
    )
    assert infexion.search.table_entries == 250_000_000 // 3 // 300


def test_an_open_capital_gets_a_defender_rather_than_waiting_for_the_fort() -> None:
    def position(enemy_at: tuple[int, int]) -> InfinitronState:
        state = quiet_position()
        state.setup_template(RED, 1, 2, 2, "MELEE", "NONE")  # raider, 4
        state.setup_template(RED, 4, 0, 5, "SUPER", "NONE")  # the fort, 11
        raider = state.setup_template(BLUE, 1, 2, 2, "MELEE", "NONE")
        state.setup_unit(BLUE, raider, *enemy_at)
        state.rp[RED] = 10  # one short of the fort
        return state

    ring = _ring(cell_of(4, -2))
    near = position((1, -1))  # three steps from Red's capital: there in two turns
    builds = candidates(InfinitronHeuristics(), near, BUILD)
    assert builds and all(a[2] in ring and near.is_legal(a) for a in builds)
    # The fixed army saves up for its guard; with the enemy far off the varied one does too.
    assert candidates(InfinitronHeuristics(army="fixed"), near, BUILD) == []
    assert candidates(InfinitronHeuristics(), position((-4, 4)), BUILD) == []


@pytest.mark.parametrize("module", SEARCH_AGENTS)
def test_a_clock_into_its_margin_ends_the_turn_unsearched(module: str) -> None:
    """Long armour games (2,000+ commands) at a 2 s limit were lost on time: each command's own costs
    ate the 1 s margin. Half-way into the margin, an agent ends its turn; above it, it plays its turn."""
    options = {"seed": 3}
    first = {}
    for left in (0.6, 0.4):
        agent = make_agent(module, RED, options, seed=1, time_remaining=2.0)  # the margin: 1 s of 2
        reply = agent.action(**{**referee_kwargs(options, 1), "time_remaining": left})
        first[left] = to_engine_action(reply)
    assert first[0.4] == END_TURN_ACTION
    assert first[0.6] != END_TURN_ACTION and Infinitron(**options).new_state().illegal_reason(first[0.6]) is None
