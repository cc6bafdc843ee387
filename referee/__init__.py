"""referee: refereeing and tournaments for two-player AI games."""
# The one place the version is written: pyproject.toml reads it from here
# (setuptools' dynamic version), so a source tree and an install agree.
__version__ = "0.1.0"
