"""A course-protocol agent folder for the tests: it always plays the last of the legal actions."""
from .program import Agent

__all__ = ["Agent"]
