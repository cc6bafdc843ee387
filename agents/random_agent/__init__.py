"""A uniformly random legal action, seeded from the referee's ``seed`` if given."""
from .program import Agent

__all__ = ["Agent"]
