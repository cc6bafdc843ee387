"""What can go wrong with an agent: one exception type per verdict reason, and their list."""
from __future__ import annotations


class AgentFailure(Exception):
    """An agent failed; the game ends with its opponent as the winner."""

    reason = "agent_error"

    def __init__(self, message: str, traceback: str = "", output: str = "", detail: str = ""):
        super().__init__(message + detail)
        self.message = message + detail
        self._said, self._detail = message, detail
        self.traceback = traceback
        #: The tail of what the agent printed, when it may explain the failure.
        self.output = output

    def locate(self, where: str) -> None:
        """Say in which call it happened (``action() on turn 12``), before any detail."""
        self.message = f"{self._said}, in {where}{self._detail}"


class AgentLoadError(AgentFailure):
    """The agent could not be imported or constructed."""

    reason = "load_error"


class AgentRaised(AgentFailure):
    """``action()`` or ``turn()`` raised an exception."""

    reason = "agent_error"


class AgentIllegalAction(AgentFailure):
    """The agent returned something that is not a legal action now."""

    reason = "illegal_action"


class AgentTimeout(AgentFailure):
    """The agent ran out of CPU time, or the wall-clock watchdog fired."""

    reason = "time_limit"


class AgentOutOfMemory(AgentFailure):
    """The agent went over its memory limit (or raised MemoryError)."""

    reason = "space_limit"


class AgentOutputLimit(AgentFailure):
    """The agent printed more than the referee reads from an agent in a game."""

    reason = "output_limit"


class AgentCrashed(AgentFailure):
    """The agent's process died (exit, signal)."""

    reason = "agent_crashed"


class AgentDisconnected(AgentFailure):
    """A remote agent's connection dropped and it did not come back within the grace period (the battleground)."""

    reason = "disconnected"


class AgentProtocolError(AgentFailure):
    """The agent's process sent something that is not a valid reply."""

    reason = "protocol_error"


#: Every way an agent fails, with the column of the tournament's endings
#: table that counts it (in the table's order).  Records, the endings table
#: and the verdicts all read this list.
FAILURES: tuple[tuple[type[AgentFailure], str], ...] = (
    (AgentTimeout, "time"),
    (AgentOutOfMemory, "memory"),
    (AgentOutputLimit, "output"),
    (AgentIllegalAction, "illegal"),
    (AgentCrashed, "crash"),
    (AgentRaised, "error"),
    (AgentProtocolError, "error"),
    (AgentLoadError, "error"),
    (AgentDisconnected, "crash"),
)
#: The verdict reasons of an agent's failure (the game is a forfeit).
AGENT_FAILURE_REASONS: tuple[str, ...] = tuple(dict.fromkeys(kind.reason for kind, _ in FAILURES))
#: Verdict reason -> its column in the endings table.
FAILURE_COLUMNS: dict[str, str] = {kind.reason: column for kind, column in FAILURES}
