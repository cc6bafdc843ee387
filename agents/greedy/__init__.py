"""Greedy: the best-looking action one ply ahead (see README.md)."""
from .program import Agent

__all__ = ["Agent"]
