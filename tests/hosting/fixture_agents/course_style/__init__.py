# Laid out as the course's template agent: the package re-exports Agent.
from .program import Agent as Agent
