"""``format: ladder`` played for real (random agents in real processes, batch by batch), and its pairing rule."""
from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from referee.records import GameRecord
from referee.tournament import load_config, run
from referee.tournament.config import ConfigError, parse_config
from referee.tournament.lineup import build_lineup
from referee.tournament.formats.ladder import Ladder, LadderMemo, ladder_state
from referee.tournament.schedule import TournamentPlan
from referee.match import AgentEntry

from .commands import run as run_command
from .commands import start, table, wait_for_lines
from .procs import MARK, wait_until_gone
from .setups import LADDER
from .setups import LADDER_GAMES as GAMES

from tests.helpers import ROOT


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("ladder") / "ladder.yaml"
    path.write_text(LADDER)
    return load_config(path, agents_from=ROOT)


@pytest.fixture(scope="module")
def whole(config, tmp_path_factory):
    """The run that was never stopped: the reference of the resumed ones."""
    cwd = os.getcwd()
    os.chdir(ROOT)  # agents are imported from the project folder, as the command does
    try:
        return run(config, output=tmp_path_factory.mktemp("whole") / "out")
    finally:
        os.chdir(cwd)


def _records(path: Path) -> list[GameRecord]:
    return [GameRecord.from_json(line) for line in path.read_text().splitlines()]


def _games(records: list[GameRecord]) -> dict[int, tuple[int, str, str]]:
    """Each game's batch, Red and Blue, by index."""
    return {r.game_index: (r.extra["round"], r.name_of("RED"), r.name_of("BLUE")) for r in records if r.extra}


def test_a_ladder_spends_its_budget_in_batches_and_lists_them(whole):
    assert whole.summary.total == GAMES and whole.summary.played == GAMES and not whole.summary.referee_failures
    games = _games(_records(whole.games_file))
    assert sorted(games) == list(range(GAMES))  # exactly the budget
    batches: dict[int, list[tuple[str, str]]] = {}
    for index in sorted(games):
        batch, red, blue = games[index]
        assert batch == index // 2
        batches.setdefault(batch, []).append((red, blue))
    assert [len(pairs) for _, pairs in sorted(batches.items())] == [2, 2, 1]
    for pairs in batches.values():
        agents = [name for pair in pairs for name in pair]
        assert len(agents) == len(set(agents))  # nobody twice in a batch
    # Batch 0 knows nothing: equal ratings, least-played first, names in order; later ones do not repeat it.
    assert batches[0] == [("a", "b"), ("c", "d")]
    assert not {frozenset(p) for p in batches[1]} & {frozenset(p) for p in batches[0]}
    # Standings from the joint fit; the crosstable leaves pairs that never met empty.
    assert whole.results.ranked_by == "Elo" and set(whole.results.agents) == set("abcde")
    crosstable = table(whole.output, "crosstable")
    assert any(cell == "" for row in crosstable[1:] for cell in row[1:])
    # Every batch's pairings and results are listed, in results.md and report.html.
    header, *rows = table(whole.output, "rounds")
    assert header == ["batch", "Red", "Blue", "result", "games"]
    assert [(int(r[0]), r[1], r[2], int(r[4])) for r in rows] == [
        (index // 2 + 1, red, blue, index) for index, (_, red, blue) in sorted(games.items())
    ]
    assert all(r[3] in ("1-0", "0.5-0.5", "0-1") for r in rows)
    markdown = (whole.output / "results.md").read_text()
    assert "## Batches: pairings and results" in markdown
    assert "**Official ranking: by Elo (the joint fit of every game), then score %, then name: the ladder" in markdown
    report = (whole.output / "report.html").read_text()
    assert '<table id="rounds" class="sortable">' in report and "Batches: pairings and results" in report


def test_a_ladder_stopped_then_killed_resumes_with_the_same_games_and_tables(config, whole, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "parts"
    first = run(config, output=out, limit=1)  # stops inside batch 0
    assert first.summary.played == 1
    expected = _games(_records(whole.games_file))
    assert _games(_records(out / "games.jsonl")) == {0: expected[0]}
    # Goes on inside batch 0, pairs batch 1 from records of two runs, and is killed in batch 1 or 2.
    mark = uuid.uuid4().hex
    proc = start(config.path, out, env={**os.environ, MARK: mark}, stdout=subprocess.DEVNULL, text=False)
    wait_for_lines(out / "games.jsonl", 3, proc)
    proc.kill()  # SIGKILL: no cleanup in the tournament process at all
    proc.wait()
    proc.stderr.close()
    assert wait_until_gone(mark) == []
    assert 3 <= len(_records(out / "games.jsonl")) < GAMES
    resumed = run_command(str(config.path), "-o", str(out), "--resume", "--workers", "2", "-q")
    assert resumed.returncode == 0, resumed.stderr
    records = _records(out / "games.jsonl")
    assert sorted(r.game_index for r in records) == list(range(GAMES))  # the budget, no game twice
    # Same seed, same games: random agents draw from the game's seed, so every result, and so
    # every later batch, is the same as in the run that was never stopped.
    assert _games(records) == expected
    for name in ("standings", "crosstable", "pairs", "rounds"):
        assert table(out, name) == table(whole.output, name), name


def _plan(names: str, games: int, batch: int) -> TournamentPlan:
    agents = tuple(AgentEntry(spec="agents.random_agent", name=n) for n in names)
    return TournamentPlan(name="t", agents=agents, format=Ladder(budget=games, batch=batch))


def test_ladder_batches_pair_neighbours_once_the_order_is_known():
    """Stronger always wins (by name, a best): informative games are between neighbours, not a mismatch.

    Batches of 3 of 8 agents leave the ladder a choice (batches of 4 would make
    every agent play every batch, the two ends included).
    """
    names = "abcdefgh"
    plan = _plan(names, 120, 3)
    winners: dict[int, str | None] = {}
    memo: LadderMemo = {}
    while len(winners) < plan.total_games:
        rounds, _ = ladder_state(plan, winners, memo)
        start = (len(rounds) - 1) * Ladder(budget=120, batch=3).round_games(plan)
        for offset, (red, blue) in enumerate(rounds[-1].pairs):
            winners[start + offset] = "RED" if red < blue else "BLUE"
    rounds, results = ladder_state(plan, winners, memo)
    assert len(rounds) == 40 and len(results) == 120
    # Uniform pairs of 8 agents are neighbours 7 times in 28; once the order is known, every game is.
    gaps = [abs(names.index(red) - names.index(blue)) for batch in rounds[10:] for red, blue in batch.pairs]
    assert set(gaps) == {1}
    # Colours: of the two, the one with fewer Reds than Blues so far plays Red (equal: either).
    balance = dict.fromkeys(names, 0)
    for red, blue, _ in results:
        assert balance[red] <= balance[blue]
        balance[red] += 1
        balance[blue] -= 1


def test_a_batch_is_a_function_of_the_batches_before_it():
    plan = _plan("abcdef", 9, 3)
    first, _ = ladder_state(plan, {})
    assert len(first) == 1
    # Batch 1 meets new opponents (the greedy choice alone would leave e and f, who met, to meet again).
    second = ladder_state(plan, dict.fromkeys(range(3), "RED"))[0][1]
    assert not {frozenset(p) for p in second.pairs} & {frozenset(p) for p in first[0].pairs}
    # Other results give another batch 2, the same results the same one, with or without a memo.
    wins = dict.fromkeys(range(6), "RED")
    others = {0: "RED", 1: "RED", 2: "RED", 3: "BLUE", 4: "RED", 5: None}
    memo: LadderMemo = {}
    assert ladder_state(plan, wins)[0] == ladder_state(plan, dict(wins), memo)[0] == ladder_state(plan, wins, memo)[0]
    assert len(memo) == 3
    assert {frozenset(p) for p in ladder_state(plan, wins)[0][2].pairs} != {
        frozenset(p) for p in ladder_state(plan, others)[0][2].pairs
    }
    # A game missing from batch 0 leaves batch 1 unpaired, whatever is recorded after it.
    assert len(ladder_state(plan, {0: "RED", 1: "RED", 3: "RED"})[0]) == 1


@pytest.mark.parametrize(
    ("old", "new", "message", "line"),
    [
        ("games: 5", "games: 0", "games: must be at least 1, not 0", 3),
        ("games: 5", "games: lots", "games: must be a whole number, not 'lots'", 3),
        ("games: 5\n", "", "format: a ladder needs 'games': how many games to play in all", 2),
        ("batch: 2", "batch: 3", "batch: must be at most 2 for 5 agents", 4),
        ("batch: 2", "batch: 0", "batch: must be at least 1, not 0", 4),
        ("batch: 2", "batch: 1.5", "batch: must be a whole number, not 1.5", 4),
        ("batch: 2", "games_per_pair: 2", "games_per_pair is not used by format: ladder", 4),
        ("format: ladder", "format: swiss", "games is only used by format: ladder", 3),
    ],
)
def test_bad_ladder_settings_are_refused_naming_the_file_line_and_key(tmp_path, old, new, message, line):
    text = LADDER.replace(old, new)
    with pytest.raises(ConfigError) as caught:
        parse_config(text, tmp_path / "ladder.yaml", agents_from=ROOT)
    assert message in str(caught.value) and f"ladder.yaml:{line}" in str(caught.value)


def test_batch_is_checked_against_the_agents_that_can_play(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = LADDER.replace("  - {name: e, spec: agents.random_agent}\n", "")
    text = text.replace("  - {name: d, spec: agents.random_agent}\n", "")
    text = text.replace("batch: 2\n", "")
    plan = build_lineup(parse_config(text, tmp_path / "ladder.yaml", agents_from=ROOT)).plan
    assert isinstance(plan.format, Ladder) and plan.format.round_games(plan) == 1
    assert plan.describe()["batch"] == 1 and plan.describe()["games"] == 5
    two = text.replace("  - {name: c, spec: agents.random_agent}\n", "")
    with pytest.raises(ConfigError, match="ladder.yaml:2: .*a ladder needs at least three agents"):
        build_lineup(parse_config(two, tmp_path / "ladder.yaml", agents_from=ROOT))
