"""Agents' code fingerprints: what they cover, and what a run does with records of code that has changed.

The runs here use stand-in games (tests/tournament/fakes.py); the whole
story through the command, with real agents edited between runs, is in
test_cli.py.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from referee.match import AgentEntry
from referee.tournament.agent_code import AgentsChanged, code_hash, code_hashes
from referee.tournament.executor import LocalExecutor
from referee.tournament.journal import FolderLock
from referee.tournament.runner import OutputFolder, run_plan
from referee.tournament.formats.swiss import Swiss
from referee.tournament.schedule import TournamentPlan

from . import fakes


def package(root: Path, name: str, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / name / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_fingerprint_covers_the_package_files_and_only_them(tmp_path):
    package(tmp_path, "subs", {"__init__.py": ""})
    package(tmp_path / "subs", "alice", {"__init__.py": "from .program import Agent\n", "program.py": "x = 1\n"})
    first = code_hash("subs.alice", tmp_path)
    assert first == code_hash("subs/alice", tmp_path) == code_hash("subs.alice:Agent", tmp_path)
    assert len(first) == 16
    # Byte code, caches and version control are not the agent's code; nor is a neighbour.
    package(tmp_path / "subs" / "alice", "__pycache__", {"program.cpython-311.pyc": "junk"})
    package(tmp_path / "subs" / "alice", ".git", {"HEAD": "ref"})
    (tmp_path / "subs" / "alice" / "old.pyc").write_text("junk")
    package(tmp_path / "subs", "bob", {"__init__.py": ""})
    assert code_hash("subs.alice", tmp_path) == first
    # An edit, a data file, a sub-folder's file and a rename each change it.
    seen = {first}
    for change in (
        lambda a: (a / "program.py").write_text("x = 2\n"),
        lambda a: (a / "weights.txt").write_text("0.5\n"),
        lambda a: package(a, "lib", {"util.py": "y = 1\n"}),
        lambda a: (a / "weights.txt").rename(a / "weights.csv"),
    ):
        change(tmp_path / "subs" / "alice")
        seen.add(code_hash("subs.alice", tmp_path))
    assert len(seen) == 5
    # A common package beside the agents is shown to them by the sandbox, so it is theirs too.
    before = code_hash("subs.alice", tmp_path)
    package(tmp_path / "subs", "common", {"__init__.py": "", "search.py": "depth = 3\n"})
    with_common = code_hash("subs.alice", tmp_path)
    (tmp_path / "subs" / "common" / "search.py").write_text("depth = 4\n")
    assert len({before, with_common, code_hash("subs.alice", tmp_path)}) == 3
    # A module file is its own code; a missing package has the fingerprint of no files.
    (tmp_path / "bot.py").write_text("class Agent: ...\n")
    bot = code_hash("bot", tmp_path)
    (tmp_path / "bot.py").write_text("class Agent: pass\n")
    assert code_hash("bot", tmp_path) != bot
    assert code_hash("subs.nobody", tmp_path) == code_hash("nothing.at.all", tmp_path)


def test_the_bundled_agents_share_agents_common():
    root = Path(__file__).resolve().parents[2]
    codes = code_hashes([AgentEntry("agents.minimax", "mm"), AgentEntry("agents/mcts", "mcts")], root)
    assert set(codes) == {"mm", "mcts"} and codes["mm"] != codes["mcts"]


CODE = {"a": "a" * 16, "b": "b" * 16, "c": "c" * 16, "d": "d" * 16, "e": "e" * 16}


def plan(names: str = "abc", **kwargs) -> TournamentPlan:
    agents = tuple(AgentEntry(f"pkg.{x}", x) for x in names)
    return TournamentPlan(name="t", agents=agents, code={x: CODE[x] for x in names}, **kwargs)


def play(p: TournamentPlan, folder: Path, **opening) -> tuple[OutputFolder, int]:
    """Open the folder as the command does (``opening``: fresh, replay_changed) and play what is not recorded."""
    output = OutputFolder(folder, p)
    with FolderLock(folder):
        done, recorded = output.open(**opening)
        summary = run_plan(p, output, done, recorded, LocalExecutor(1), play=fakes.play_by_seed, progress=False)
    return output, summary.played


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_records_carry_the_fingerprints_and_a_changed_agent_stops_the_run_untouched(tmp_path):
    p = plan()
    play(p, tmp_path)
    records = lines(tmp_path / "games.jsonl")
    assert len(records) == 6
    for record in records:
        assert record["extra"]["code_hash"] == {n: CODE[n] for n in (record["red_name"], record["blue_name"])}
    assert json.loads((tmp_path / "tournament.json").read_text())["code"] == {n: CODE[n] for n in "abc"}

    changed = replace(p, code={**p.code, "b": "f" * 16})
    assert changed.fingerprint == p.fingerprint  # the plan is the same: only b's games are stale
    before = {name: (tmp_path / name).read_bytes() for name in ("games.jsonl", "tournament.json")}
    with pytest.raises(AgentsChanged) as info:
        play(changed, tmp_path)
    [change] = info.value.changes
    assert (change.name, change.recorded, change.current, change.games) == ("b", ("b" * 16,), "f" * 16, 4)
    assert "b (pkg.b): code bbbbbbbbbbbbbbbb in 4 recorded games, ffffffffffffffff now" in str(info.value)
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert not (tmp_path / "superseded.jsonl").exists()


def test_replay_changed_sets_aside_the_changed_agents_games_and_plays_them_again(tmp_path):
    p = plan()
    play(p, tmp_path)
    (tmp_path / "replays").mkdir()
    for index in range(6):
        (tmp_path / "replays" / f"game-{index}.html").write_text("old")
    untouched = [r for r in lines(tmp_path / "games.jsonl") if "b" not in (r["red_name"], r["blue_name"])]
    changed = replace(p, code={**p.code, "b": "f" * 16})
    output, played = play(changed, tmp_path, replay_changed=True)
    assert played == 4
    assert any("the code of b changed: its 4 recorded games were set aside" in note for note in output.notes)
    aside = lines(tmp_path / "superseded.jsonl")
    assert len(aside) == 4 and all("b" in (r["red_name"], r["blue_name"]) for r in aside)
    assert all(r["extra"]["code_hash"]["b"] == "b" * 16 for r in aside)
    records = lines(tmp_path / "games.jsonl")
    assert sorted(r["extra"]["game_index"] for r in records) == list(range(6))
    assert [r for r in records if "b" not in (r["red_name"], r["blue_name"])] == untouched
    assert all(r["extra"]["code_hash"].get("b", "f" * 16) == "f" * 16 for r in records)
    # The replays of the games played again are gone (the report writes them anew); the others stay.
    kept = sorted(int(page.stem.split("-")[1]) for page in (tmp_path / "replays").iterdir())
    assert kept == sorted(r["extra"]["game_index"] for r in untouched)
    meta = json.loads((tmp_path / "tournament.json").read_text())
    assert meta["code"]["b"] == "f" * 16
    assert [(s["why"], s["games"], s["agents"]) for s in meta["superseded"]] == [
        ("code changed", 4, {"b": {"then": ["b" * 16], "now": "f" * 16}})
    ]
    # Nothing is left to replay.
    assert play(changed, tmp_path)[1] == 0


def test_fresh_sets_every_record_aside_and_plays_the_schedule_again(tmp_path):
    p = plan()
    play(p, tmp_path)
    old = (tmp_path / "games.jsonl").read_text()
    output, played = play(p, tmp_path, fresh=True)
    assert played == 6 and (tmp_path / "superseded.jsonl").read_text() == old
    assert any("--fresh: the 6 recorded games were set aside" in note for note in output.notes)


def test_in_a_swiss_the_later_rounds_are_played_again_too(tmp_path):
    # Round r + 1 is paired from round r's results: replaying a changed agent's
    # games of round r may change them, and with them every later pairing.
    p = plan("abcde", format=Swiss(rounds=3), games_per_pair=2)
    play(p, tmp_path)
    records = lines(tmp_path / "games.jsonl")
    first = min(r["extra"]["round"] for r in records if "e" in (r["red_name"], r["blue_name"]))
    changed = replace(p, code={**p.code, "e": "f" * 16})
    output, played = play(changed, tmp_path, replay_changed=True)
    expected = {
        r["extra"]["game_index"] for r in records
        if "e" in (r["red_name"], r["blue_name"]) or r["extra"]["round"] > first
    }
    theirs = [r for r in records if "e" in (r["red_name"], r["blue_name"])]
    assert first < 2 and len(expected) > len(theirs)  # later rounds' games of the others too
    assert played == len(expected)
    assert {r["extra"]["game_index"] for r in lines(tmp_path / "superseded.jsonl")} == expected
    assert any(f"its {len(theirs)} recorded games and {len(expected) - len(theirs)} of later rounds" in n
               for n in output.notes)
    assert len(lines(tmp_path / "games.jsonl")) == p.total_games


def test_records_from_before_fingerprints_are_adopted_with_a_note_then_checked(tmp_path):
    p = plan()
    play(p, tmp_path)
    path = tmp_path / "games.jsonl"
    legacy = lines(path)
    for record in legacy:
        del record["extra"]["code_hash"]
    path.write_text("".join(json.dumps(r) + "\n" for r in legacy))
    meta = json.loads((tmp_path / "tournament.json").read_text())
    del meta["code"]
    (tmp_path / "tournament.json").write_text(json.dumps(meta))
    output, played = play(p, tmp_path)
    assert played == 0
    assert any("its 6 games were recorded before the agents' code was fingerprinted" in n for n in output.notes)
    # From now on the code they are taken for is tournament.json's: a change is caught.
    with pytest.raises(AgentsChanged):
        play(replace(p, code={**p.code, "a": "f" * 16}), tmp_path)
