from .program import Agent

__all__ = ["Agent"]
