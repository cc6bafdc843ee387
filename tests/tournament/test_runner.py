"""Running a plan into a folder: recording, resuming, refusing, stopping early."""
from __future__ import annotations

import json
import re

import pytest

from referee.match import AgentEntry
from referee.tournament.aggregate import GameSummary, aggregate
from referee.tournament.checks import RecordsRefused
from referee.tournament.executor import LocalExecutor
from referee.tournament.journal import FolderLock, JournalError
from referee.tournament.runner import OutputFolder, run_plan
from referee.tournament.schedule import TournamentPlan
from referee.tournament.sprt import H1_ACCEPTED, SprtSettings
from referee.tournament.tables import render

from . import fakes


def plan(n: int = 3, games_per_pair: int = 4, names=None, **kwargs) -> TournamentPlan:
    names = names or [f"a{i}" for i in range(n)]
    return TournamentPlan(
        name="t", agents=tuple(AgentEntry(f"pkg.{x}", x) for x in names), games_per_pair=games_per_pair, **kwargs
    )


def run(p: TournamentPlan, folder, play=fakes.play_by_seed, **kwargs):
    output = OutputFolder(folder, p)
    with FolderLock(folder):
        done, recorded = output.open()
        summary = run_plan(p, output, done, recorded, LocalExecutor(2), play=play, progress=False, **kwargs)
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


def edit_lines(path, edit) -> list[str]:
    """Rewrite games.jsonl through ``edit(list of record dicts) -> list of record dicts``."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(d) + "\n" for d in edit(lines)))
    return lines


def refusal(p, folder) -> RecordsRefused:
    with pytest.raises(RecordsRefused) as info:
        run(p, folder)
    return info.value


def test_a_record_outside_the_schedule_is_refused_by_line(tmp_path):
    p = plan()
    run(p, tmp_path)

    def move(lines):
        lines[2]["extra"]["game_index"] = 12
        return lines

    edit_lines(tmp_path / "games.jsonl", move)
    error = refusal(p, tmp_path)
    assert [b.line for b in error.bad] == [3]
    assert "games.jsonl:3: game index 12 is outside the schedule (games 0 to 11)" in str(error)
    assert f"sed -i.bak 3d {tmp_path / 'games.jsonl'}" in str(error) and "--resume" in str(error)


def test_a_record_whose_agents_are_not_the_scheduled_ones_is_refused(tmp_path):
    p = plan()
    run(p, tmp_path)

    def swap_colours(lines):  # the same game with the colours swapped: Red's win becomes the other agent's
        line = lines[0]
        line["red"], line["blue"] = line["blue"], line["red"]
        line["red_name"], line["blue_name"] = line["blue_name"], line["red_name"]
        return lines

    edit_lines(tmp_path / "games.jsonl", swap_colours)
    message = str(refusal(p, tmp_path))
    assert "games.jsonl:1: game " in message and "as Red against" in message and "but this record has" in message


def test_a_record_with_another_seed_or_game_is_refused(tmp_path):
    p = plan()
    run(p, tmp_path)

    def change(lines):
        lines[0]["seed"] += 1
        lines[1]["game"] = "cachex"
        return lines

    edit_lines(tmp_path / "games.jsonl", change)
    error = refusal(p, tmp_path)
    assert [b.line for b in error.bad] == [1, 2]
    assert "in the schedule, but this record has" in error.bad[0].problem and "of cachex" in error.bad[1].problem
    assert "sed -i.bak '1d;2d'" in str(error)


def test_a_record_with_another_round_is_refused(tmp_path):
    # The round pairs colour-swapped games for the pentanomial figures.
    p = plan()
    run(p, tmp_path)

    def move_round(lines):
        lines[2]["extra"]["round"] += 1
        return lines

    edit_lines(tmp_path / "games.jsonl", move_round)
    error = refusal(p, tmp_path)
    assert [b.line for b in error.bad] == [3]
    found = re.search(r"is in round (\d+) of the schedule, but this record says (\d+)", error.bad[0].problem)
    assert found and int(found[2]) == int(found[1]) + 1, error.bad[0].problem


def test_two_records_of_one_game_with_different_results_are_both_refused(tmp_path):
    p = plan()
    run(p, tmp_path)

    def add_a_flipped_copy(lines):
        copy = json.loads(json.dumps(lines[4]))
        copy["winner"] = "BLUE" if copy["winner"] != "BLUE" else "RED"
        return lines + [copy]

    lines = edit_lines(tmp_path / "games.jsonl", add_a_flipped_copy)
    error = refusal(p, tmp_path)
    index = lines[4]["extra"]["game_index"]
    assert [b.line for b in error.bad] == [5, 13]  # which one is genuine cannot be told
    assert f"game {index} is recorded on line 5 too, with another result" in str(error)
    assert "sed -i.bak '5d;13d'" in str(error)


def test_an_identical_duplicate_is_kept_once(tmp_path):
    p = plan()
    run(p, tmp_path)
    edit_lines(tmp_path / "games.jsonl", lambda lines: lines + lines[:2])
    summary, records = run(p, tmp_path)
    assert summary.played == 0 and summary.recorded == 12 and len(records) == 14
    assert aggregate(OutputFolder(tmp_path, p).final_records()).games == 12


def test_the_end_of_a_run_checks_the_file_again(tmp_path):
    # A line written during the run (here: before the run's first game)
    # is caught when the records are read for the tables.
    p = plan()
    run(p, tmp_path, limit=3)
    output = OutputFolder(tmp_path, p)
    with FolderLock(tmp_path):
        done, recorded = output.open()
        with open(tmp_path / "games.jsonl", "a") as other:
            other.write("not a record\n")
        run_plan(p, output, done, recorded, LocalExecutor(1), play=fakes.play_by_seed, progress=False)
        with pytest.raises(RecordsRefused) as info:
            output.final_records()
    assert [b.line for b in info.value.bad] == [4]
    assert "tables were not written" in str(info.value)
    assert len([line for line in (tmp_path / "games.jsonl").read_text().splitlines() if line.startswith("{")]) == 12


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
