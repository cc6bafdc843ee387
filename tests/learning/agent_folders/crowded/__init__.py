"""An agent that takes every process and thread its sandbox allows, then imports numpy (tests/learning/
test_numpy_sealed.py): with ``learning_first`` it imports ``referee.learning.agent`` before, as a learned agent's
folder does.  Once numpy is in, it lets its threads go and plays random actions."""
from __future__ import annotations

import threading
from typing import Any

from agents.random_agent import Agent as RandomAgent


class Agent(RandomAgent):
    def __init__(self, color: Any, **referee: Any):
        super().__init__(color, **referee)
        release = threading.Event()
        held = []
        while True:  # until the pids limit refuses one more
            thread = threading.Thread(target=release.wait, daemon=True)
            try:
                thread.start()
            except RuntimeError:
                break
            held.append(thread)
        try:
            if referee.get("learning_first"):
                import referee.learning.agent  # noqa: F401
            import numpy  # noqa: F401
        finally:
            release.set()
            for thread in held:
                thread.join()
