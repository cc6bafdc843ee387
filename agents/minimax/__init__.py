"""Minimax: iterative-deepening alpha-beta with a transposition table (see README.md)."""
from .program import Agent

__all__ = ["Agent"]
