"""The error of a tournament that cannot run as configured (its own module, so formats and the config share it)."""
from __future__ import annotations

from ..yaml_file import YamlFileError


class ConfigError(YamlFileError):
    """A config that cannot be run: one or more problems, each naming the file, line and field."""
