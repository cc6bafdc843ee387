"""Shared helpers for the Infinitron tests: positions, a view of the state, the reference's twin."""
from __future__ import annotations

import random

from referee.games.base import BLUE, CHANCE, RED
from referee.games.infinitron import Infinitron, InfinitronState, parse_action
from referee.games.infinitron.engine import (
    ABILITY_NAMES,
    ALL_DEFINES,
    ARMOUR_LAYOUTS,
    CELLS,
    CLAIMED,
    DESTROYED,
    FISH,
    RANGE_NAMES,
    RUBBLE,
    STEPS,
    TERRAIN_NAMES,
    armour_text,
)

from . import reference

COLOUR = {RED: "r", BLUE: "b"}


def empty_state(**options) -> InfinitronState:
    """A new game with no neutral cities unless given (simplest to reason about)."""
    options.setdefault("cities", [])
    return Infinitron(**options).new_state()


def play(state: InfinitronState, *texts: str) -> None:
    """Apply commands given as text, checked (so an illegal one fails the test loudly)."""
    for text in texts:
        state.apply_checked(parse_action(text))


def reason(state: InfinitronState, text: str) -> str | None:
    return state.illegal_reason(parse_action(text))


def legal_texts(state: InfinitronState) -> set[str]:
    return {state.action_to_str(a) for a in state.legal_actions()}


def view(state: InfinitronState) -> dict:
    """Everything observable about a position, in the reference's terms."""
    units = {}
    for p in (RED, BLUE):
        for uid, (cell, hp, t) in state.units[p].items():
            units[(COLOUR[p], uid)] = (CELLS[cell], hp, t)
    ground = {}
    for cell, g in enumerate(state.ground):
        if g:
            ground[CELLS[cell]] = "FISH" if g == FISH else "RUBBLE" if g == RUBBLE else TERRAIN_NAMES[g]
    outcome = state.outcome
    return {
        "units": units,
        "ground": ground,
        "rp": (state.rp[RED], state.rp[BLUE]),
        "owners": [None if o < 0 else COLOUR[o] for o in state.city_owner],
        "destroyed": [bool(f & DESTROYED) for f in state.city_flags],
        "points": {i: p for i, p in enumerate(state.terrain_points) if p},
        "territories": [sorted(CELLS[c] for c in state.territory(i)) for i in range(len(state.setup.cities))],
        "rubble": {CELLS[c]: until for c, until in state.rubble.items()},
        "turn": state.turn,
        "commands": state.commands,
        "chance": state.current_player == CHANCE,
        "templates": {
            COLOUR[p]: [
                (t.hp, t.move, t.dmg, RANGE_NAMES[t.range], ABILITY_NAMES[t.ability], armour_text(t.armour))
                for t in state.templates[p]
            ]
            for p in (RED, BLUE)
        },
        "outcome": (
            None if outcome is None
            else (None if outcome.winner is None else COLOUR[outcome.winner], outcome.reason)
        ),
    }


def ref_view(ref: reference.RefGame) -> dict:
    ground = dict(ref.terrain)
    for cell in ref.fish:
        ground[cell] = "FISH"
    return {
        "units": {key: (u["cell"], u["hp"], u["t"]) for key, u in ref.units.items()},
        "ground": ground,
        "rp": (ref.rp["r"], ref.rp["b"]),
        "owners": [c["owner"] for c in ref.cities],
        "destroyed": [c["destroyed"] for c in ref.cities],
        "points": {i: p for i, p in ref.points.items() if p},
        "territories": [sorted(c["territory"]) for c in ref.cities],
        "rubble": dict(ref.rubble_until),
        "turn": ref.turn,
        "commands": ref.commands,
        "chance": ref.chance_due,
        "templates": {
            c: [(t["hp"], t["move"], t["dmg"], t["range"], t["ability"], t["armour"]) for t in ref.templates[c]]
            for c in "rb"
        },
        "outcome": ref.result(),
    }


def reference_twin(state: InfinitronState) -> reference.RefGame:
    """A reference game in the same position as a freshly set-up engine state."""
    neutral = [CELLS[c] for c in state.setup.cities[2:]]
    setup = state.setup
    ref = reference.RefGame(
        neutral, chaos=setup.chaos, max_turns=setup.max_turns, armour=setup.armour, rules=setup.rules
    )
    v = view(state)
    ref.units = {key: {"cell": cell, "hp": hp, "t": t} for key, (cell, hp, t) in v["units"].items()}
    ref.terrain = {c: g for c, g in v["ground"].items() if g != "FISH"}
    ref.fish = {c for c, g in v["ground"].items() if g == "FISH"}
    ref.rp = {"r": v["rp"][0], "b": v["rp"][1]}
    ref.rubble_until = dict(v["rubble"])
    for c, owner, territory, flags in zip(ref.cities, v["owners"], v["territories"], state.city_flags):
        c["owner"] = owner
        c["territory"] = set(territory)
        c["claimed"] = c["claimed"] or bool(flags & CLAIMED)
    ref.points = dict(v["points"])
    ref.claim_open = {i for i in range(len(ref.cities)) if state.claiming >> i & 1}
    ref.templates = {
        c: [dict(zip(("hp", "move", "dmg", "range", "ability", "armour"), t)) for t in v["templates"][c]]
        for c in "rb"
    }
    ref.next_number = {"r": state.next_uid[RED], "b": state.next_uid[BLUE]}
    ref.turn = state.turn
    ref.chance_due = state.current_player == CHANCE
    return ref


def rich_state(
    seed: int, chaos: bool = False, max_turns: int = 343, armour: bool = False, rules: str = "1.2"
) -> InfinitronState:
    """A random mid-game-like position: templates (armoured ones with ``armour``), units,
    terrain, rubble, fish, cities held with shaped territories, RP.

    Built with the set-up helpers at the start of Red's first turn, so it
    has the capital's terrain points and claims too.
    """
    rng = random.Random(seed)
    neutral_seed = rng.randrange(1000)
    state = Infinitron(seed=neutral_seed, chaos=chaos, max_turns=max_turns, armour=armour, rules=rules).new_state()
    city_cells = set(state.city_cells())
    for p in (RED, BLUE):
        for _ in range(rng.randint(1, 4)):
            spec = rng.choice(ALL_DEFINES)[1:]
            layout = armour_text(rng.choice(ARMOUR_LAYOUTS)) if armour and rng.random() < 0.7 else "000000"
            state.setup_template(
                p, spec[0], spec[1], spec[2], RANGE_NAMES[spec[3]], ABILITY_NAMES[spec[4]], layout
            )
        state.rp[p] = rng.randint(0, 25)
    free = [rq for rq in CELLS]
    rng.shuffle(free)
    for rq in free[: rng.randint(0, 18)]:
        if rq not in city_cells:
            kind = rng.choice(["BLOCK", "LAVA", "LAVA", "REPAIR", "LABEL", "LABEL", "FISH", "RUBBLE"])
            state.setup_ground(kind, *rq, rubble_turns=rng.randint(1, 24))
    cells = [rq for rq in CELLS if state.terrain_at(*rq) not in ("BLOCK", "RUBBLE")]
    rng.shuffle(cells)
    for p in (RED, BLUE):
        for _ in range(rng.randint(0, 8)):
            r, q = cells.pop()
            t = rng.randrange(len(state.templates[p]))
            max_hp = state.templates[p][t].max_hp
            state.setup_unit(p, t, r, q, hp=rng.choice([max_hp, max_hp, max(10, max_hp - 10), 20, 10]))
    taken = set(state.territory(0) | state.territory(1))
    for i, rq in enumerate(state.city_cells()[2:], start=2):
        state.setup_city_owner(*rq, rng.choice([None, None, RED, BLUE]))
        if state.city_owner[i] >= 0:  # a held city was captured once: it has a shaped territory
            state.city_flags[i] |= CLAIMED  # its terrain points were given
            grown: list[int] = []
            for _ in range(rng.randint(0, 8)):
                edge = [
                    n for c in [state.setup.cities[i], *grown] for _, n in STEPS[c]
                    if n not in taken and state.setup.city_at[n] < 0
                ]
                if not edge:
                    break
                grown.append(rng.choice(edge))
                taken.add(grown[-1])
            state.setup_territory(i, [CELLS[c] for c in grown])
    return state
