"""The report's "How it was played" lines for each format, and for a folder played over several runs.

One real run checks them end to end (tests/render/test_report_html.py);
here they are computed from plans and records made up for the purpose.
"""
from __future__ import annotations

from dataclasses import replace

from referee.build_info import RefereeBuild
from referee.limits import Limits
from referee.match import AgentEntry
from referee.tournament.aggregate import NO_SANDBOX_RECORDED, aggregate
from referee.tournament.provenance import duration_text, how_played
from referee.tournament.formats.gauntlet import Gauntlet
from referee.tournament.formats.knockout import Knockout
from referee.tournament.formats.ladder import Ladder
from referee.tournament.formats.swiss import Swiss
from referee.tournament.schedule import TournamentPlan
from referee.tournament.sprt import SprtSettings

from .fakes import make_record

AGENTS = tuple(AgentEntry(f"pkg.{x}", x) for x in "abcdef")
SEALED = {"namespaces": True, "accounting": "cgroup-v2", "frozen": True, "seccomp": True, "unprivileged": True}


def record(started: str, duration: float, version: str, sandbox: dict | None):
    return replace(make_record("a", "b", "RED"), started_at=started, duration=duration, referee_version=version,
                   sandbox=sandbox)


def test_each_format_says_its_settings():
    def said(**plan) -> str:
        described = TournamentPlan(name="t", agents=AGENTS, **plan).describe()
        return dict(how_played(described, plan.pop("sprt", None), {}, aggregate([])))["Format"]

    assert said(format=Gauntlet("a", 0), games_per_pair=4) == (
        "gauntlet: a plays each of the 5 others 4 games, both colours equally"
    )
    assert said(format=Swiss(rounds=3)) == (
        "Swiss: 3 rounds among the 6 agents, each pairing a mini-match of 2 games, both colours equally"
    )
    assert said(format=Ladder(budget=30, batch=2)) == (
        "ladder: a budget of 30 games among the 6 agents, in batches of 2, each paired from the ratings so far"
    )
    assert said(format=Knockout()) == (
        "knockout: a seeded bracket of the 6 agents, each tie 2 games, then up to 2 extra pairs while level, then "
        "the higher seed goes through"
    )
    two = TournamentPlan(name="t", agents=AGENTS[:2], games_per_pair=200).describe()
    sprt = SprtSettings(elo0=0, elo1=10)
    assert dict(how_played(two, sprt, {}, aggregate([])))["Format"] == (
        "round robin: each pair of the 2 agents plays 200 games, both colours equally; SPRT (logistic Elo) elo0 0, "
        "elo1 10, alpha 0.05, beta 0.05"
    )


def test_a_folder_played_over_several_runs_and_referees_says_so():
    plan = TournamentPlan(
        name="t", agents=AGENTS[:2], game="cachex", game_options={"n": 5}, sandbox="off",
        limits=Limits(time_limit=None, space_limit=100, wall_grace=2), pass_env=("OMP_NUM_THREADS",),
    )
    records = [
        record("2026-11-27T23:59:00+00:00", 90, "0.1.0", SEALED),
        record("2026-11-28T00:10:00+00:00", 30, "0.1.0", SEALED),
        record("2026-11-28T00:20:00+00:00", 5, "0.2.0", None),
    ]
    meta = {
        "runs": [
            {"started": "2026-11-27T23:58:00+00:00", "seconds": 100.0, "played": 2, "cores": 2, "where": "2 workers"},
            {"started": "2026-11-28T00:19:00+00:00", "seconds": 3700.0, "played": 1, "cores": 8, "where": "8 workers"},
        ],
        "superseded": [{"at": "2026-11-28T00:19:00+00:00", "why": "code changed", "games": 1,
                        "agents": {"b": {"then": ["1"], "now": "2"}}}],
    }
    said = dict(how_played(plan.describe(), None, meta, aggregate(records)))
    assert said["Game"] == "cachex (n=5)"
    assert said["Limits"] == (
        "no time limit; 100 MB of memory per agent; wall grace 2 s beyond the CPU time left; agents inherit "
        "OMP_NUM_THREADS"
    )
    assert said["Played"] == "2026-11-27 23:59 to 2026-11-28 00:20 UTC; 1 h 3 min of wall time over 2 runs (resumed)"
    assert said["Machine"] == "2 cores; games run by 2 workers; then 8 cores; games run by 8 workers"
    assert said["Referee"] == "version 0.1.0 (2 games); 0.2.0 (1 game) (python -m referee --version)"
    assert said["Sandbox"].startswith("off; the games ran sealed: namespaces, accounting by cgroup-v2, ")
    assert said["Sandbox"].endswith(f"(2 games); {NO_SANDBOX_RECORDED} (1 game)")
    assert said["Agents' code"] == (
        "each agent's fingerprint is in the standings' code column; 1 game played again on "
        "2026-11-28T00:19:00+00:00: the code of b changed (the old records are in superseded.jsonl)"
    )
    assert [duration_text(s) for s in (4.25, 200, 7260)] == ["4.2 s", "3 min 20 s", "2 h 1 min"]


def test_the_referee_line_names_the_code_of_each_run_and_of_the_report():
    first = RefereeBuild("0.1.0", "1a2b3c4", False, "git", "3.11.7 (CPython)", "Linux-6.1-x86_64")
    second = replace(first, commit="5d6e7f8", modified=True)
    records = [record("2026-11-28T00:10:00+00:00", 30, "0.1.0", SEALED)]
    runs = [{"played": 1, "referee": build.as_dict()} for build in (first, first, second)]
    said = dict(how_played(TournamentPlan(name="t", agents=AGENTS[:2]).describe(), None, {"runs": runs},
                           aggregate(records), current=second))["Referee"]
    assert said == (
        "version 0.1.0 (python -m referee --version); the games played by 0.1.0 at commit 1a2b3c4, Python 3.11.7 "
        "(CPython), Linux-6.1-x86_64; then 0.1.0 at commit 5d6e7f8 (modified: uncommitted changes in referee/), "
        "Python 3.11.7 (CPython), Linux-6.1-x86_64"
    )
    # Runs recorded before builds were: the report names the referee that wrote it, as that.
    said = dict(how_played(TournamentPlan(name="t", agents=AGENTS[:2]).describe(), None, {"runs": [{"played": 1}]},
                           aggregate(records), current=first))["Referee"]
    assert said == ("version 0.1.0 (python -m referee --version); this report written by 0.1.0 at commit 1a2b3c4, "
                    "Python 3.11.7 (CPython), Linux-6.1-x86_64")
