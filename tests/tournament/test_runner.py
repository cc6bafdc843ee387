"""Running a plan into a folder: recording, resuming, refusing, stopping early."""
from __future__ import annotations

import json

import pytest

from referee.match import AgentEntry
from referee.tournament.aggregate import GameSummary, aggregate
from referee.tournament.journal import FolderLock, JournalError
from referee.tournament.runner import OutputFolder, run_plan
from referee.tournament.schedule import TournamentPlan
from referee.tournament.sprt import H1_ACCEPTED, SprtSettings
from referee.tournament.tables import render

from . import fakes


def plan(n: int = 3, games_per_pair: int = 4, names=None, **kwargs) -> TournamentPlan:
    names = names or [f"a{i}" for i in range(n)]
    return TournamentPlan(name="t", agents=tuple(AgentEntry(f"pkg.{x}", x) for x in names), games_per_pair=games_per_pair, **kwargs)


def run(p: TournamentPlan, folder, play=fakes.play_by_seed, **kwargs):
    output = OutputFolder(folder, p)
    with FolderLock(folder):
        done, recorded = output.open()
        summary = run_plan(p, output, done, recorded, workers=2, play=play, progress=False, **kwargs)
    return summary, list(output.games.records())


def test_every_game_is_recorded_once_with_its_context(tmp_path):
    p = plan()
    summary, records = run(p, tmp_path)
    assert summary.played == summary.recorded == summary.total == 12
    assert sorted(r.extra["game_index"] for r in records) == list(range(12))
    assert {r.extra["config_hash"] for r in records} == {p.fingerprint}
    meta = json.loads((tmp_path / "tournament.json").read_text())
    assert meta["fingerprint"] == p.fingerprint and meta["plan"]["games_per_pair"] == 4
    again, records_again = run(p, tmp_path)
    assert again.played == 0 and records_again == records


def test_a_resumed_run_gives_the_tables_of_a_whole_one(tmp_path):
    p = plan()
    run(p, tmp_path / "whole")
    first, _ = run(p, tmp_path / "parts", limit=5)
    assert first.played == 5
    rest, _ = run(p, tmp_path / "parts")
    assert rest.played == 7

    def tables(folder):
        return render(aggregate(GameSummary.of(r) for r in OutputFolder(folder, p).games.records()))

    assert tables(tmp_path / "parts") == tables(tmp_path / "whole")


def test_a_folder_of_another_config_is_refused(tmp_path):
    run(plan(games_per_pair=2), tmp_path)
    with pytest.raises(JournalError) as info:
        run(plan(games_per_pair=4), tmp_path)
    message = str(info.value)
    assert "different tournament" in message and "games_per_pair: 2 then, 4 now" in message


def test_records_of_another_config_in_games_jsonl_are_refused(tmp_path):
    run(plan(games_per_pair=2), tmp_path)
    (tmp_path / "tournament.json").unlink()
    with pytest.raises(JournalError, match=r"games\.jsonl:1: this game belongs to another tournament"):
        run(plan(games_per_pair=4), tmp_path)


def test_a_torn_line_is_repaired_and_its_game_replayed(tmp_path):
    p = plan()
    run(p, tmp_path, limit=4)
    path = tmp_path / "games.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:40])  # the 4th write was cut short
    output = OutputFolder(tmp_path, p)
    with FolderLock(tmp_path):
        done, _ = output.open()
    assert len(done) == 3 and any("incomplete last line" in n for n in output.notes)
    summary, records = run(p, tmp_path)
    assert summary.played == 9 and sorted(r.extra["game_index"] for r in records) == list(range(12))


def test_referee_failures_are_not_recorded_and_are_retried(tmp_path):
    p = plan()
    summary, records = run(p, tmp_path, play=fakes.play_or_fail)
    assert len(summary.referee_failures) == 1 and "game 1:" in summary.referee_failures[0]
    assert 1 not in {r.extra["game_index"] for r in records} and len(records) == 11
    again, records = run(p, tmp_path)
    assert again.played == 1 and len(records) == 12


def test_sprt_stops_early_and_stays_decided(tmp_path):
    p = plan(names=["strong", "weak"], games_per_pair=200)
    sprt = SprtSettings(elo0=0, elo1=50)
    summary, records = run(p, tmp_path, play=fakes.play_strong_first, sprt=sprt)
    assert summary.sprt.verdict == H1_ACCEPTED
    # About 22 straight wins reach the bound; a couple more may have been running.
    assert 22 <= len(records) <= 26 < p.total_games
    again, records_again = run(p, tmp_path, play=fakes.play_strong_first, sprt=sprt)
    assert again.played == 0 and again.sprt.verdict == H1_ACCEPTED and len(records_again) == len(records)
