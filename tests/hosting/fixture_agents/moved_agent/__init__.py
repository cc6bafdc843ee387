# Written as the course's template folder "agent/", then moved: the absolute
# import of its old name fails.
from agent.program import Agent  # noqa: F401
