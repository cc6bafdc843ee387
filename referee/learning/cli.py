"""``python -m referee learning-agent FOLDER``: an agent folder made of a trained policy or an OpenSpiel bot.

    python -m referee learning-agent agents/learned --policy model.npz
    python -m referee learning-agent agents/openspiel_mcts --mcts --simulations 200

The folder gets an ``__init__.py`` whose ``Agent`` is a :class:`referee.learning.agent.PolicyAgent` (with the
model copied beside it, as ``model.npz``) or a :class:`referee.learning.agent.MCTSAgent`; the referee then plays
it as any agent folder, sealed (docs/learning.md, "From an environment to a tournament").
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from ..arguments import ArgumentParser, whole_number
from ..exit_status import ExitStatus
from ..games import registration
from ..games.base import GameOptionError

#: What ``-h`` says the command does.
DESCRIPTION = ("Make an agent folder the referee plays: a policy trained on the learning environments, "
               "or OpenSpiel's MCTS bot.")
#: The model's name in the folder the command writes.
MODEL = "model.npz"

POLICY_TEMPLATE = '''"""A policy learned for {described}, played as an agent.

python -m referee learning-agent wrote this folder (docs/learning.md, "From an environment to a tournament"):
{model} beside this file is the policy, which the agent reads from its own folder, as a sealed agent may.
"""
from referee.learning.agent import PolicyAgent


class Agent(PolicyAgent):
    model = "{model}"
    # True: draw each action from the policy's probabilities (seeded by the referee) instead of the likeliest.
    sample = {sample}
'''

MCTS_TEMPLATE = '''"""OpenSpiel's MCTS bot as an agent, for every game.

python -m referee learning-agent wrote this folder (docs/learning.md, "From an environment to a tournament").
"""
from referee.learning.agent import MCTSAgent


class Agent(MCTSAgent):
    # Simulations per action at most: fewer when the referee's clock leaves less than 1/30 of it for them.
    simulations = {simulations}
    uct_c = {uct_c}
    rollouts = {rollouts}
    # Actions a rollout plays before it scores the position (None: to the game's end).
    rollout_length = {rollout_length}
'''


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="python -m referee learning-agent", description=DESCRIPTION)
    parser.add_argument("folder", metavar="FOLDER", help="the agent folder to write, e.g. agents/learned")
    kind = parser.add_mutually_exclusive_group(required=True)
    kind.add_argument("--policy", metavar="MODEL.npz",
                      help="a policy model written by MLPPolicy.save, copied into the folder")
    kind.add_argument("--mcts", action="store_true", help="OpenSpiel's MCTS bot with random rollouts")
    policy = parser.add_argument_group("with --policy")
    policy.add_argument("--sample", action="store_true",
                        help="draw each action from the policy's probabilities instead of playing the likeliest")
    mcts = parser.add_argument_group("with --mcts")
    mcts.add_argument("--simulations", type=whole_number("--simulations", 1), default=100, metavar="N",
                      help="simulations per action at most (default 100)")
    mcts.add_argument("--uct-c", type=float, default=2.0, metavar="C", help="exploration constant (default 2)")
    mcts.add_argument("--rollouts", type=whole_number("--rollouts", 1), default=1, metavar="N",
                      help="random games played to score a new position (default 1)")
    mcts.add_argument("--rollout-length", type=whole_number("--rollout-length", 1), metavar="N",
                      help="actions a rollout plays before it scores (default: to the game's end)")
    parser.add_argument("--force", action="store_true", help="write over an agent already in FOLDER")
    return parser


def play_command(folder: str, game: str, options: dict[str, Any]) -> str:
    """The ``python -m referee`` line that plays the agent in ``folder`` against the random agent."""
    words = ["python -m referee", "--game", game]
    for option in registration(game).options:
        value = options.get(option.name)
        if option.type is bool:
            words += [option.flags[0]] if value else []
        elif value is not None:
            words += [option.flags[0], str(value)]
    return " ".join([*words, folder, "agents.random_agent"])


def _policy_folder(folder: Path, source: str, sample: bool) -> str:
    """Check the model, write the folder; the line that plays it."""
    try:
        from .encoding import encoding
        from .policy import MLPPolicy, describe
    except ImportError as exc:
        raise ValueError(f"{exc}: this command needs the learning extra (pip install -e \".[learning]\")") from None
    policy = MLPPolicy.load(source)
    try:
        enc = encoding(policy.game, **policy.options)
    except GameOptionError as exc:
        raise ValueError(f"{source}: {exc}") from None
    size = 1
    for extent in enc.observation_shape:
        size *= extent
    policy.check(enc.name, enc.options, size, enc.num_actions)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, folder / MODEL)
    described = describe(policy.game, policy.options)
    (folder / "__init__.py").write_text(POLICY_TEMPLATE.format(described=described, model=MODEL, sample=sample))
    return play_command(str(folder), policy.game, policy.options)


def _mcts_folder(folder: Path, simulations: int, uct_c: float, rollouts: int, rollout_length: int | None) -> str:
    try:
        import open_spiel  # noqa: F401  (the agent imports it when it starts: say now if it cannot)
    except ImportError as exc:
        raise ValueError(f"{exc}: this command needs the learning extra (pip install -e \".[learning]\")") from None
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "__init__.py").write_text(MCTS_TEMPLATE.format(
        simulations=simulations, uct_c=uct_c, rollouts=rollouts, rollout_length=rollout_length))
    return f"python -m referee {folder} agents.random_agent (any game: add --game and its options)"


def main(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    if (folder / "__init__.py").exists() and not args.force:
        print(f"python -m referee learning-agent: error: {folder} already holds an agent (its __init__.py); "
              "--force writes over it", file=sys.stderr)
        return ExitStatus.USAGE
    try:
        if args.policy:
            play = _policy_folder(folder, args.policy, args.sample)
        else:
            play = _mcts_folder(folder, args.simulations, args.uct_c, args.rollouts, args.rollout_length)
    except (OSError, ValueError) as exc:
        print(f"python -m referee learning-agent: error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    print(f"wrote {folder}{'' if str(folder).endswith('/') else '/'}; play it: {play}")
    return ExitStatus.OK
