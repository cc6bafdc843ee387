"""benchmarks/analysis_quality.py at its smallest: the games, the playouts and the tables add up (no timing)."""
from __future__ import annotations

import json
import random

import pytest

from benchmarks.analysis_quality import CATEGORIES, KINDS, QUICK, SEVERITY_NAMES, agreement, bootstrap, main, quality


def test_the_quick_run_writes_tables_whose_counts_add_up(tmp_path, capsys):
    path = tmp_path / "quality.json"
    assert main(["--quick", "--workers", "1", "--json", str(path)]) == 0
    printed = capsys.readouterr().out
    document = json.loads(path.read_text())
    games, config = document["games"], document["config"]
    assert [(g["kind"], g["index"]) for g in games] == [(kind, 0) for kind in KINDS]
    for game in games:
        chosen = [item["category"] for item in game["items"]]
        assert all(chosen.count(category) <= QUICK.marks for category in CATEGORIES)
        for item in game["items"]:
            assert 0 <= item["decision"] < game["decisions"] and item["mover"] in ("RED", "BLUE")
            assert item["playouts"] == QUICK.playouts
            for arm in ("played_points", "suggested_points"):
                assert 0 <= item[arm] <= item["playouts"] and (2 * item[arm]).is_integer()
            if item["category"] != "baseline":  # one of the game's marks, costing at least an inaccuracy's
                assert game["marks"][item["category"]] >= 1 and item["cost"] >= 0.1 - 1e-9
            assert item["suggested"] != item["played"]  # the engine's decision differs from the one played
        # The first game of each kind is analysed twice (QUICK.agreement == 1).
        assert game["agreement"] is not None and len(game["agreement"]["first"]) == sum(game["marks"].values())
    rows = {(row["kind"], row["category"]): row for row in document["quality"]}
    assert set(rows) == {(kind, category) for kind in (*KINDS, "all") for category in CATEGORIES}
    for (kind, category), row in rows.items():
        items = [item for g in games if kind in ("all", g["kind"]) for item in g["items"]
                 if item["category"] == category]
        assert row["decisions"] == len(items)
        assert row["playouts"] == sum(2 * item["playouts"] for item in items)
        assert row["low"] is None  # one game a kind: too few for an interval
    assert sum(rows[("all", c)]["decisions"] for c in CATEGORIES) == sum(len(g["items"]) for g in games)
    any_marks = {row["kind"]: row for row in document["agreement"] if row["severity"] == "any"}
    for kind in KINDS:
        game = next(g for g in games if g["kind"] == kind)
        both = game["agreement"]
        assert any_marks[kind]["marks"] == len(both["first"]) + len(both["second"])
        assert any_marks[kind]["same"] <= any_marks[kind]["also"] <= any_marks[kind]["marks"]
    assert config["games"] == QUICK.games and "| all | blunder |" in printed and "with the same severity" in printed


def test_agreement_counts_each_runs_marks_against_the_other():
    game = {"kind": "cachex", "decisions": 10,
            "agreement": {"first": [[1, "blunder"], [4, "inaccuracy"]], "second": [[1, "mistake"], [7, "blunder"]]}}
    rows = {(row.kind, row.severity): row for row in agreement([game], ["cachex"])}
    assert [(rows["cachex", s].marks, rows["cachex", s].also, rows["cachex", s].same) for s in SEVERITY_NAMES] == [
        (1, 0, 0), (1, 1, 0), (2, 1, 0)]
    assert (rows["all", "any"].marks, rows["all", "any"].also, rows["all", "any"].same) == (4, 2, 0)


def test_the_interval_is_over_games_and_a_row_without_decisions_is_empty():
    # Every game alike: any resample has the same mean.
    assert bootstrap([[0.5, 0.0]] * 6, random.Random(1), resamples=50) == pytest.approx((0.25, 0.25))
    games = [{"kind": "infexion", "index": i, "items": [
        {"category": "blunder", "cost": 0.4, "playouts": 4, "played_points": 1.0, "suggested_points": 3.0}]}
        for i in range(5)]
    rows = {(row.kind, row.category): row for row in quality(games, ["infexion"])}
    blunder = rows["infexion", "blunder"]
    assert (blunder.decisions, blunder.games, blunder.played, blunder.suggested) == (5, 5, 0.25, 0.75)
    assert blunder.low == pytest.approx(0.5) and blunder.high == pytest.approx(0.5)
    assert rows["infexion", "mistake"].decisions == 0 and rows["infexion", "mistake"].low is None
