"""MCTS: PUCT tree search with heuristic priors and tree reuse (see README.md)."""
from .program import Agent

__all__ = ["Agent"]
