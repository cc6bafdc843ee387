"""Back to the referee (issue 50, item 3): ``python -m referee learning-agent`` makes an agent folder of OpenSpiel's
MCTS bot or of a trained policy, and the referee plays it sealed, as every agent, in each game.

The games are real: the command's folder, ``python -m referee`` with the sandbox required, the record.  The MCTS
bot runs 4 simulations of 4-action rollouts, so that a game takes a second or two; its opponent is the greedy
agent, which ends a game sooner than random play.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from referee.cli import main
from referee.game.player import PlayerColor
from referee.learning.agent import EncodedAgent, MCTSAgent
from referee.learning.encoding import encoding
from referee.learning.policy import MLPPolicy
from referee.records import GameRecord
from tests.helpers import run_referee
from tests.sandboxing import require_sandbox

import pyspiel  # noqa: F401

#: Each game's options on the command line, and the reasons its games end by its rules.
GAMES = {
    "cachex": (["--game", "cachex", "-n", "4"], {"connection"}),
    "infexion": (["--game", "infexion"], {"elimination", "turn_limit"}),
    "infinitron": (["--game", "infinitron", "--chaos"], {"capital", "turn_limit"}),
}


def sealed_game(folder: Path, *args: str) -> GameRecord:
    """One game from ``folder`` with the sandbox required; its record, checked that the referee succeeded."""
    record = folder / "game.json"
    proc = run_referee("--sandbox", "required", "-v", "0", "-t", "60", "-s", "250", "--record", str(record), *args,
                       cwd=folder, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return GameRecord.from_json(record.read_text())


@pytest.mark.parametrize("game", list(GAMES))
def test_openspiels_mcts_made_an_agent_folder_plays_a_whole_sealed_game(game, tmp_path, capsys):
    require_sandbox()
    assert main(["learning-agent", str(tmp_path / "os_mcts"), "--mcts", "--simulations", "4",
                 "--rollout-length", "4"]) == 0
    assert "play it: python -m referee" in capsys.readouterr().out
    options, reasons = GAMES[game]
    record = sealed_game(tmp_path, *options, "--seed", "1", "os_mcts", "agents.greedy")
    assert record.error["RED"] is None and record.error["BLUE"] is None, record.error
    assert record.reason in reasons, record.message
    assert record.sandbox is not None and record.sandbox["namespaces"] and record.sandbox["seccomp"]
    assert record.moves["RED"] >= 2  # it played, not only began


def test_a_model_for_another_board_is_refused_when_the_agent_starts_naming_both(tmp_path):
    require_sandbox()
    model = tmp_path / "cachex3.npz"
    enc = encoding("cachex", n=3)
    MLPPolicy.new("cachex", enc.options, 63, enc.num_actions, rng=np.random.default_rng(0)).save(model)
    assert main(["learning-agent", str(tmp_path / "small"), "--policy", str(model)]) == 0
    record = sealed_game(tmp_path, "--game", "cachex", "-n", "4", "small", "agents.random_agent")
    assert record.winner == "BLUE" and record.reason == "load_error"
    assert "trained for cachex (n=3) (63 observation values, 10 action integers), not for cachex (n=4)" in (
        record.error["RED"]["message"])


def test_the_command_checks_the_model_and_keeps_an_agent_already_there(tmp_path, capsys):
    enc = encoding("cachex", n=4)
    good = tmp_path / "good.npz"
    MLPPolicy.new("cachex", enc.options, 112, enc.num_actions, rng=np.random.default_rng(0)).save(good)
    folder = tmp_path / "agents" / "mine"
    assert main(["learning-agent", str(folder), "--policy", str(good)]) == 0
    assert capsys.readouterr().out.endswith(
        f"play it: python -m referee --game cachex -n 4 {folder} agents.random_agent\n")
    assert (folder / "model.npz").read_bytes() == good.read_bytes()
    # An agent there already is kept, unless asked.
    assert main(["learning-agent", str(folder), "--mcts"]) == 2
    assert "already holds an agent" in capsys.readouterr().err
    assert main(["learning-agent", str(folder), "--mcts", "--force"]) == 0
    assert "MCTSAgent" in (folder / "__init__.py").read_text()
    # A file that is not a model, and a model whose sizes do not fit its game, make no folder.
    (tmp_path / "notes.npz").write_text("not a model")
    wrong = tmp_path / "wrong.npz"
    MLPPolicy.new("cachex", enc.options, 100, enc.num_actions).save(wrong)
    for model, said in [(tmp_path / "notes.npz", "not a policy model"), (wrong, "100 observation values"),
                        (tmp_path / "missing.npz", "missing.npz")]:
        assert main(["learning-agent", str(tmp_path / "never"), "--policy", str(model)]) == 2
        assert said in capsys.readouterr().err
    assert not (tmp_path / "never").exists()


def test_the_command_needs_one_kind_of_agent(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["learning-agent", "somewhere"])
    assert stop.value.code == 2 and "--policy" in capsys.readouterr().err


# -- the agents in this process: what they see and what they choose ----------------------------------------------


class Lowest(EncodedAgent):
    """Plays the lowest legal integer: whatever it sees must match the encoding's view of the game."""

    def choose(self, **referee):
        return self.legal_indices()[0]


def test_an_encoded_agent_keeps_the_position_in_step_from_the_referees_reports():
    kwargs = {"game": "cachex", "game_options": {"n": 4}, "seed": 3}
    red, blue = Lowest(PlayerColor.RED, **kwargs), Lowest(PlayerColor.BLUE, **kwargs)
    enc = encoding("cachex", n=4)
    state = enc.new_state()
    while not state.is_over:
        mover = (red, blue)[state.current_player]
        assert mover.observation() == enc.observation(state, mover.me)
        assert mover.legal_indices() == enc.legal_indices(state)
        answer = mover.action()
        for agent in (red, blue):
            agent.turn(PlayerColor(state.current_player), answer)
        state.apply(enc.action(state, enc.legal_indices(state)[0]))
    assert red.state.is_over and red.state.outcome == state.outcome


def test_the_base_asks_for_choose_and_finds_its_own_folder():
    with pytest.raises(NotImplementedError, match="choose"):
        EncodedAgent(PlayerColor.RED, game="cachex", game_options={"n": 3}).choose()
    assert Lowest.folder() == Path(__file__).parent


def test_the_mcts_budget_follows_the_clock_it_is_given():
    agent = MCTSAgent(PlayerColor.RED, game="cachex", game_options={"n": 3}, seed=1)
    assert agent.budget(None) == agent.simulations  # no clock: its simulations
    assert agent.budget(60.0) == agent.probe  # a clock but no rate yet: a probe's worth
    agent.rate = 300.0  # simulations a CPU second
    assert agent.budget(60.0) == min(agent.simulations, 300 * 60 // agent.moves_ahead)
    assert agent.budget(3.0) == 30 and agent.budget(3.0, wall_remaining=1.0) == 10
    assert agent.budget(0.0) == 1  # at least one
    with pytest.raises(ValueError, match="cities"):
        MCTSAgent(PlayerColor.RED, game="infinitron", game_options={"cities": [[0, 3]]})


def test_the_agent_module_keeps_numpy_to_one_thread_unless_told():
    # Sealed, an agent has 64 processes and threads in all: numpy's OpenBLAS would start one a CPU as it loads.
    code = "import os, referee.learning.agent, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == "1", done.stderr
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**env, "OPENBLAS_NUM_THREADS": "2"})
    assert done.stdout.strip() == "2", done.stderr


def test_a_policy_round_trips_through_its_file_and_chooses_among_the_legal(tmp_path):
    rng = np.random.default_rng(0)
    policy = MLPPolicy.new("cachex", {"n": 4}, 112, 17, hidden=(8, 8), rng=rng, activation="tanh")
    policy.save(tmp_path / "p.npz")
    again = MLPPolicy.load(tmp_path / "p.npz")
    observation = rng.random(112)
    assert np.allclose(again.logits(observation), policy.logits(observation))
    assert (again.game, again.options, again.activation) == ("cachex", {"n": 4}, "tanh")
    assert again.logits(np.stack([observation, observation])).shape == (2, 17)
    legal = [3, 5, 16]
    assert again.choose(observation, legal) == legal[int(np.argmax(policy.logits(observation)[legal]))]
    assert {again.choose(observation, legal, rng) for _ in range(50)} <= set(legal)
    assert np.isclose(again.probabilities(observation, legal).sum(), 1.0)
    with np.load(tmp_path / "p.npz") as data:
        assert sorted(data.files) == ["activation", "b0", "b1", "b2", "game", "options", "w0", "w1", "w2"]
        assert json.loads(str(data["options"])) == {"n": 4}


def test_a_sealed_agent_is_shown_the_learning_modules_it_plays_through_not_the_environments(tmp_path):
    from referee.hosting.mounts import REFEREE_ROOT, bwrap_command

    args = bwrap_command("bwrap", ["true"], tmp_path, "agents.random_agent")
    shown = {args[i + 2] for i, arg in enumerate(args) if arg == "--ro-bind"}
    learning = REFEREE_ROOT / "learning"
    for module in ("__init__", "agent", "arrays", "base", "encoding", "infinitron_encoding", "openspiel", "policy"):
        assert str(learning / f"{module}.py") in shown
    for module in ("pettingzoo", "gymnasium", "cli"):
        assert str(learning / f"{module}.py") not in shown
    assert str(learning) not in shown
