"""The error of a tournament that cannot run as configured (its own module, so formats and the config share it)."""
from __future__ import annotations


class ConfigError(ValueError):
    """A config that cannot be run: one or more problems, each naming the file, line and field."""

    def __init__(self, *problems: str):
        super().__init__("\n".join(problems))
        self.problems: list[str] = list(problems)
