"""A policy learned for cachex (n=4), played as an agent.

python -m referee learning-agent wrote this folder (docs/learning.md, "From an environment to a tournament"):
model.npz beside this file is the policy, which the agent reads from its own folder, as a sealed agent may.
"""
from referee.learning.agent import PolicyAgent


class Agent(PolicyAgent):
    model = "model.npz"
    # True: draw each action from the policy's probabilities (seeded by the referee) instead of the likeliest.
    sample = False
