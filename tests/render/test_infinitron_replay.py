"""Infinitron's HTML replay in a real browser: the figures, templates, territories, key and cell info.

One real game (greedy against random, with chaos: asteroids, a destroyed
city, captures, units destroyed on both sides) is played by the referee and
opened once.  Every expected value comes from replaying the record's actions
through the engine here, never from the page's data.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from referee.games import load_game
from referee.games.infinitron.engine import ABILITY_NAMES, CELLS, DESTROYED, RANGE_NAMES, InfinitronState
from referee.records import GameRecord

from tests.helpers import run_referee
from tests.support.pages import open_page

Cell = tuple[int, int]


@dataclass
class Game:
    """The record, its page, and what the engine says happened at each step."""

    record: GameRecord
    html_path: Path
    #: step -> the cells (before the step) of the units it destroyed, by side (0 RED, 1 BLUE).
    killed: dict[int, tuple[set[Cell], set[Cell]]] = field(default_factory=dict)
    #: step -> the cells of the cities it gave a player.
    captured: dict[int, set[Cell]] = field(default_factory=dict)


def state_after(record: GameRecord, steps: int) -> InfinitronState:
    state = load_game("infinitron", **record.game_options).new_state()
    for text in record.actions[:steps]:
        state.apply_checked(state.parse_action(text))
    return state


def unit_cells(state: InfinitronState) -> dict[tuple[int, int], Cell]:
    """(player, uid) -> the cell it stands on."""
    return {(p, uid): state.unit(p, uid)[0] for p in (0, 1) for uid in state.units[p]}


@pytest.fixture(scope="module")
def game(tmp_path_factory) -> Game:
    folder = tmp_path_factory.mktemp("infinitron")
    record_path, html_path = folder / "game.json", folder / "game.html"
    proc = run_referee(
        # Seed 3: units of both sides die, some after an asteroid destroyed a city (with the
        # varied army's fort, greedy lost no unit to random on seed 4).
        "--game", "infinitron", "--chaos", "-v", "0", "--seed", "3",
        # A fixed chance seed: chaos events are otherwise drawn from a secret of the run.
        "--chance-seed", "c", "--record", str(record_path), "--html", str(html_path),
        "agents.greedy", "agents.random_agent", timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    found = Game(GameRecord.from_json(record_path.read_text()), html_path)
    state = state_after(found.record, 0)
    for step, text in enumerate(found.record.actions, 1):
        units, owners = unit_cells(state), list(state.city_owner)
        state.apply_checked(state.parse_action(text))
        after = unit_cells(state)
        gone = [{c for (p, uid), c in units.items() if p == side and (p, uid) not in after} for side in (0, 1)]
        if gone[0] or gone[1]:
            found.killed[step] = (gone[0], gone[1])
        taken = {CELLS[state.setup.cities[i]] for i, o in enumerate(state.city_owner) if o >= 0 and o != owners[i]}
        if taken:
            found.captured[step] = taken
    return found


@pytest.fixture(scope="module")
def page(browser, game):
    """One page for the module's tests; each goes to the step it needs."""
    opened, problems, requests = open_page(browser, game.html_path)
    yield opened
    assert problems == [], "the page logged errors"
    assert requests == [game.html_path.as_uri()], "the page must not fetch anything"
    opened.close()


def go_to(page, step: int) -> None:
    page.eval_on_selector("#slider", f"s => {{ s.value = '{step}'; s.dispatchEvent(new Event('input')); }}")
    assert page.locator("#counter").inner_text().startswith(f"{step} /")


def cell(page, where: Cell):
    return page.locator(f'svg#board g.cell[data-r="{where[0]}"][data-q="{where[1]}"]')


def strokes(page) -> dict[Cell, str]:
    """Every board cell's outline colour as computed by the browser."""
    shown = page.eval_on_selector_all(
        "svg#board g.cell",
        "gs => gs.map(g => [g.dataset.r, g.dataset.q, getComputedStyle(g.querySelector('polygon')).stroke])",
    )
    return {(int(r), int(q)): stroke for r, q, stroke in shown}


def key_colour(page, mark: str) -> str:
    return page.evaluate(f"getComputedStyle(document.querySelector('#step-key .key.{mark}')).borderTopColor")


def main_step(game: Game) -> int:
    """A step that destroyed a BLUE unit after a city was destroyed, with units on both sides still."""
    for step in sorted(game.killed):
        state = state_after(game.record, step)
        if (game.killed[step][1] and state.units[0] and state.units[1]
                and any(flags & DESTROYED for flags in state.city_flags)):
            return step
    pytest.fail("the game has no such step; the seed or the agents changed")


def test_figures_templates_and_turn_match_the_engine(page, game):
    step = main_step(game)
    go_to(page, step)
    state = state_after(game.record, step)
    turn = page.locator("#turn").inner_text()
    # The turn being played, as the text view counts it (``turn`` counts the turns completed).
    assert turn.startswith(f"Turn {state.turn + 1} of {state.setup.max_turns}: "), turn
    for side, p in (("red", 0), ("blue", 1)):
        row = page.locator(f"#figures tr.{side}")
        assert row.locator(".rp").inner_text() == str(state.rp[p])
        assert row.locator(".income").inner_text() == str(state.income(p))
        assert row.locator(".score").inner_text() == str(state.score(p))
        expected = []
        for n, t in enumerate(state.templates[p]):
            reach = str(t.min_range) if t.min_range == t.max_range else f"{t.min_range}\u2013{t.max_range}"
            expected.append([str(n), str(t.max_hp), str(t.move), str(t.damage) if t.damage else "none",
                             f"{RANGE_NAMES[t.range]} {reach}" if t.damage else "\u2014",
                             ABILITY_NAMES[t.ability], str(t.cost)])
        assert expected, f"{side} has no templates at step {step}"
        shown = page.eval_on_selector_all(
            f"table.templates.{side} tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText))"
        )
        assert shown == expected
    assert page.locator("#templates").is_visible()
    # The figures change over the game: the first step shows the start's.
    go_to(page, 0)
    start = state_after(game.record, 0)
    assert page.locator("#figures tr.red .score").inner_text() == str(start.score(0))
    assert page.locator("table.templates.red tbody tr").count() == 0


def test_territories_are_drawn_in_their_holders_colours(page, game):
    step = main_step(game)
    go_to(page, step)
    state = state_after(game.record, step)
    whose: dict[Cell, set[str]] = {}
    for city in range(len(state.setup.cities)):
        if state.city_flags[city] & DESTROYED:
            continue
        owner = ("red", "blue")[state.city_owner[city]] if state.city_owner[city] >= 0 else "neutral"
        for c in state.territory(city):
            whose.setdefault(CELLS[c], set()).add(owner)
    assert {"red", "blue"} <= set().union(*whose.values())
    # What each outline means is read from the board key, as a person would.
    key = dict(page.eval_on_selector_all(
        "#board-key .key-item",
        "items => items.map(i => [i.dataset.territory, getComputedStyle(i.querySelector('polygon.terr')).stroke])",
    ))
    assert len({key["red"], key["blue"], key["neutral"], key["blue red"]}) == 4

    def expected_colour(owners: set[str]) -> str:
        if {"red", "blue"} <= owners:
            return key["blue red"]
        return key[next(o for o in ("red", "blue", "neutral") if o in owners)]

    drawn = page.eval_on_selector_all(
        "svg#board polygon.terr",
        "ps => ps.map(p => [p.dataset.r, p.dataset.q, getComputedStyle(p).stroke])",
    )
    outlined = {(int(r), int(q)): stroke for r, q, stroke in drawn if stroke != "none"}
    assert outlined == {c: expected_colour(owners) for c, owners in whose.items()}


def test_destroyed_units_and_captured_cities_are_marked_as_in_the_legend(page, game):
    legend = page.locator("#step-key").inner_text()
    assert "taken from the opponent" not in legend and "destroyed this step" in legend
    killed_colour, captured_colour = key_colour(page, "killed"), key_colour(page, "captured")
    assert killed_colour != captured_colour
    red_step = min(s for s, (red, _) in game.killed.items() if red)
    blue_step = min(s for s, (_, blue) in game.killed.items() if blue)
    for step in (red_step, blue_step):  # either side's loss is marked alike
        go_to(page, step)
        red, blue = game.killed[step]
        assert {c for c, s in strokes(page).items() if s == killed_colour} == red | blue
    assert game.captured, "the game has no capture"
    step = min(game.captured)
    go_to(page, step)
    assert {c for c, s in strokes(page).items() if s == captured_colour} == game.captured[step]


def test_the_board_key_matches_the_cells_it_names(page, game):
    step = main_step(game)
    go_to(page, step)
    state = state_after(game.record, step)
    key = page.eval_on_selector_all(
        "#board-key .key-item",
        "items => items.map(i => [i.dataset.kinds, i.dataset.owner, i.innerText.trim(), "
        "getComputedStyle(i.querySelector('g.cell polygon')).fill])",
    )
    texts = {kinds: text for kinds, owner, text, _ in key if not owner}
    for kinds, text in (("block", "BLOCK"), ("lava", "LAVA"), ("repair", "REPAIR"), ("label", "LABEL"),
                        ("fish", "fish"), ("rubble", "RUBBLE"), ("city", "city"), ("city destroyed", "destroyed")):
        assert text in texts[kinds]
    assert any("capital" in text for kinds, *_, text, _ in key if kinds == "city capital")
    grounds = ("block", "lava", "repair", "label", "fish", "rubble", "city destroyed")
    fills = {kinds: fill for kinds, owner, _, fill in key if kinds in grounds}
    assert len(set(fills.values())) == len(grounds), "two key entries look alike"
    # A cell of each ground (no city, no unit on it) is drawn as its key entry.
    cities = {CELLS[c] for c in state.setup.cities}
    occupied = set(unit_cells(state).values())
    drawn = page.eval_on_selector_all(
        "svg#board g.cell",
        "gs => gs.map(g => [g.dataset.r, g.dataset.q, getComputedStyle(g.querySelector('polygon')).fill])",
    )
    fill_at = {(int(r), int(q)): fill for r, q, fill in drawn}
    seen = set()
    for where in CELLS:
        ground = state.terrain_at(*where)
        if ground != "PLAIN" and where not in cities and where not in occupied:
            assert fill_at[where] == fills[ground.lower()], f"{where} is {ground}"
            seen.add(ground)
    assert len(seen) >= 3, f"only {seen} on the board: too few grounds to check the key against"
    destroyed = [CELLS[c] for i, c in enumerate(state.setup.cities) if state.city_flags[i] & DESTROYED]
    assert destroyed
    for c in destroyed:
        if c not in occupied:
            # Under an asteroid's RUBBLE (1.1), the cell shows the rubble until it clears.
            expected = "rubble" if state.terrain_at(*c) == "RUBBLE" else "city destroyed"
            assert fill_at[c] == fills[expected], f"{c} is a destroyed city on {state.terrain_at(*c)}"


def test_pointing_at_a_unit_shows_its_template_and_hp(page, game):
    step = main_step(game)
    go_to(page, step)
    state = state_after(game.record, step)
    info = page.locator("#cell-info")

    def described(p: int, uid: int) -> list[str]:
        (r, q), hp, t = state.unit(p, uid)
        number = state.units[p][uid][2]
        return [f"{('RED', 'BLUE')[p]} unit {uid} at ({r}, {q})", f"template {number}",
                f"HP {hp} of {t.max_hp}", f"Move {t.move}", f"ability {ABILITY_NAMES[t.ability]}", f"cost {t.cost}"]

    red_uid, blue_uid = next(iter(state.units[0])), next(iter(state.units[1]))
    cell(page, state.unit(0, red_uid)[0]).hover()  # a real mouse move onto the cell
    for part in described(0, red_uid):
        assert part in info.inner_text()
    cell(page, state.unit(1, blue_uid)[0]).click()  # a click keeps it shown ...
    page.mouse.move(1, 1)  # ... after the pointer leaves the board
    text = info.inner_text()
    assert text.startswith("Kept: ")
    for part in described(1, blue_uid):
        assert part in text
    cell(page, state.unit(1, blue_uid)[0]).click()  # a second click lets it go
    page.mouse.move(1, 1)
    assert "unit" not in info.inner_text()


def test_last_step_shows_the_final_units_terrain_and_cities(page, game):
    state = state_after(game.record, len(game.record.actions))
    expected_units = set()
    for player, owner in ((0, "red"), (1, "blue")):
        for uid in state.units[player]:
            position, hp, _ = state.unit(player, uid)
            expected_units.add((position, owner, f"{uid}:{hp}"))
    expected_blocks = {c for c in CELLS if state.terrain_at(*c) == "BLOCK"}
    assert page.locator("svg#board g.cell").count() == 91
    page.keyboard.press("End")
    shown = page.eval_on_selector_all(
        "svg#board g.cell",
        "gs => gs.map(g => [g.dataset.r, g.dataset.q, g.dataset.owner, g.dataset.kind || '', "
        "g.querySelector('text.power').textContent])",
    )
    units = {((int(r), int(q)), owner, text) for r, q, owner, kind, text in shown if "unit" in kind.split()}
    blocks = {(int(r), int(q)) for r, q, owner, kind, text in shown if "block" in kind.split()}
    cities = [(owner, kind) for r, q, owner, kind, text in shown if "city" in kind.split()]
    assert units == expected_units
    assert blocks == expected_blocks
    assert len(cities) == len(state.city_cells())
    assert "CHANCE" in page.locator("#moves").inner_text()
    result = page.locator("#result").inner_text()
    assert game.record.reason in result and (game.record.winner or "Draw") in result


def test_the_drawn_board_and_the_text_board_put_the_same_capital_on_top(page, game):
    """docs/infinitron.md, "Which way up": Red's capital on top, on the page as in the terminal."""
    go_to(page, 0)
    # Where the browser put each side's capital: the middle of its hexagon, in pixels down the page.
    drawn = dict(page.eval_on_selector_all(
        'svg#board g.cell[data-kind~="capital"]',
        "gs => gs.map(g => { const b = g.querySelector('polygon').getBoundingClientRect();"
        " return [g.dataset.owner, b.top + b.height / 2]; })",
    ))
    assert sorted(drawn) == ["blue", "red"], drawn
    # Which row of the text board shows each: at the start only the capitals are held, their ground drawn R and
    # B (a cell is its ground's letter, then a unit's label if one stands there), after the row's "r= 4 q=-5.. 1".
    board = [line for line in state_after(game.record, 0).render().splitlines() if line.startswith("r=")]
    cells = [re.sub(r"^r=\s*-?\d+ q=\s*-?\d+\.\.\s*-?\d+", "", line).split() for line in board]
    text_row = {}
    for owner, letter in (("red", "R"), ("blue", "B")):
        [text_row[owner]] = [i for i, row in enumerate(cells) if any(cell[0] == letter for cell in row)]
    assert text_row["red"] != text_row["blue"] and drawn["red"] != drawn["blue"]
    assert (drawn["red"] < drawn["blue"]) == (text_row["red"] < text_row["blue"]), (drawn, text_row)
    assert drawn["red"] < drawn["blue"], "Red's capital on top, as docs/infinitron.md says"


def test_a_terrain_the_rules_add_is_drawn_under_its_own_name():
    """RUBBLE (rules 1.1) reaches the page as the ``rubble`` kind its key entry styles, once terrain_at names it."""
    from referee.games.infinitron.frames import BOARD_KEY, infinitron_frames

    where = next(c for c in CELLS if c not in InfinitronState().city_cells())  # plain ground today

    class WithRubble(InfinitronState):
        """Today's rules, with one cell reported as RUBBLE."""

        def terrain_at(self, r: int, q: int) -> str:
            return "RUBBLE" if (r, q) == where else super().terrain_at(r, q)

    frames = infinitron_frames([], WithRubble())
    kinds = {CELLS[entry[0]]: entry[1].split() for entry in frames.boards[0]}
    assert kinds[where] == ["rubble"]
    assert "rubble" not in sum((k for c, k in kinds.items() if c != where), [])
    assert any(kinds == "rubble" for kinds, *_ in BOARD_KEY)
