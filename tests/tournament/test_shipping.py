"""Packing the agents' folders for the workers (no Dask here: plain files and real agent processes)."""
from __future__ import annotations

import io
import zipfile

import pytest

import referee
from referee.match import AgentEntry, MatchSettings, check_agent, play_match
from referee.tournament.shipping import ShippingError, pack_agents, unpack

from .setups import RANDOM_AGENT, make_project


def names_in(archive: bytes) -> set[str]:
    return set(zipfile.ZipFile(io.BytesIO(archive)).namelist())


def test_the_top_level_folder_of_each_agent_is_packed_without_caches(tmp_path):
    root = make_project(tmp_path / "project")
    (root / "solo.py").write_text(
        RANDOM_AGENT.replace('(Path(__file__).parent / "name.txt").read_text().strip()', '"solo"')
    )
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "big.bin").write_bytes(b"x" * 1000)  # not named by any agent: stays here
    bundle = pack_agents(
        [("a", "players.alpha"), ("b", "players/beta:Agent"), ("s", "solo"), ("r", "referee.game")], root
    )
    assert bundle.roots == ("players/", "solo.py")  # the referee is the workers' own, never shipped
    assert names_in(bundle.archive) == {
        "players/__init__.py", "players/alpha/__init__.py", "players/alpha/name.txt",
        "players/beta/__init__.py", "players/beta/name.txt", "solo.py",
    }
    assert bundle.files == 6 and bundle.describe().startswith("players/, solo.py (6 files, ")


def test_an_agent_whose_package_is_not_here_cannot_be_shipped(tmp_path):
    root = make_project(tmp_path / "project")
    with pytest.raises(ShippingError, match=r"^agent 'bob' \(submissions\.bob\): ship_agents sends the folder of its "
                       r"package, but there is no submissions/ \(or submissions\.py\) in .*project; run the tournament "
                       r"from the folder that holds it$"):
        pack_agents([("alpha", "players.alpha"), ("bob", "submissions.bob")], root)


def test_unpacking_gives_the_folders_back_and_keeps_a_complete_copy(tmp_path):
    root = make_project(tmp_path / "project")
    bundle = pack_agents([("a", "players.alpha")], root)
    target = tmp_path / "worker" / "copy"
    unpack(bundle.archive, target)
    assert (target / "players" / "alpha" / "name.txt").read_text() == "alpha\n"
    assert not (target / "players" / "alpha" / "__pycache__").exists()
    assert [p.name for p in target.parent.iterdir()] == ["copy"]  # no partial folder left behind
    (target / "players" / "alpha" / "name.txt").write_text("changed\n")
    unpack(bundle.archive, target)  # a copy that is there is complete: left as it is
    assert (target / "players" / "alpha" / "name.txt").read_text() == "changed\n"


def test_agents_start_in_agent_dir_and_import_from_there(tmp_path):
    folder = make_project(tmp_path / "copy")
    alpha, beta = AgentEntry("players.alpha", "alpha"), AgentEntry("players.beta", "beta")
    here = MatchSettings(seed=4)  # this process's working directory: no players package
    assert "No module named 'players'" in check_agent(alpha, here)
    record = play_match(alpha, beta, MatchSettings(seed=4, agent_dir=str(folder)))
    assert record.reason not in ("load_error", "agent_error", "protocol_error"), record.error
    assert record.turns > 0


def test_an_agent_started_elsewhere_runs_under_this_referee(tmp_path):
    # It must import the same referee as the process that starts it, even when
    # that one came from a checkout in the working directory, not an installed package.
    probe = tmp_path / "copy" / "probe"
    probe.mkdir(parents=True)
    (probe / "__init__.py").write_text(
        "import os, referee\n"
        "class Agent:\n"
        "    def __init__(self, color, **kwargs):\n"
        "        raise RuntimeError(f'referee={referee.__file__} cwd={os.getcwd()}')\n"
    )
    problem = check_agent(AgentEntry("probe"), MatchSettings(agent_dir=str(tmp_path / "copy")))
    assert f"referee={referee.__file__} cwd={tmp_path / 'copy'}" in problem
