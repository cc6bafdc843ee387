"""What an agent's process inherits from the referee: a few environment variables, named here.

The referee's own environment may hold anything: tokens, passwords, paths
that say who runs it and where.  An agent gets only what Python and an agent
need (:data:`PASSED`), fixed values for the rest (:func:`agent_environment`),
and the variables the operator names (``--pass-env NAME``, ``pass_env:`` in a
tournament's YAML, or the ``REFEREE_PASS_ENV`` variable for wrappers that
cannot change the command line).  docs/referee.md lists them.
"""
from __future__ import annotations

import os
import re
import site
import sys
from collections.abc import Iterable, Mapping

#: Passed on when the referee has them: the locale and time zone (text
#: encoding and local time, as the user expects); ``PYTHONPATH`` (libraries the
#: operator put there; the agent host puts them on the agent's import path
#: itself); ``REFEREE_GAMES`` (plug-in games, which the agent host loads).
PASSED = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "REFEREE_GAMES")
#: Comma-separated names of more variables to pass on.
PASS_ENV_VAR = "REFEREE_PASS_ENV"
#: Where a sealed agent's home is: its private, writable /tmp.
SEALED_HOME = "/tmp"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def check_names(names: Iterable[str]) -> list[str]:
    """The names, checked to be environment variable names; raises ValueError naming a bad one."""
    checked = []
    for name in names:
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"{name!r} is not the name of an environment variable (letters, digits and _)")
        checked.append(name)
    return checked


def passed_names(pass_env: Iterable[str] = ()) -> list[str]:
    """Every variable an agent may inherit: the fixed list, ``pass_env`` and REFEREE_PASS_ENV's."""
    extra = [name.strip() for name in os.environ.get(PASS_ENV_VAR, "").split(",") if name.strip()]
    return list(dict.fromkeys([*PASSED, *pass_env, *extra]))


def agent_environment(sealed: bool, pass_env: Iterable[str] = ()) -> dict[str, str]:
    """The environment of an agent's process.

    ``PATH`` is the interpreter's folder and the system's; ``HOME`` is the
    sandbox's private /tmp when ``sealed``, else the referee's (an unsealed
    agent is trusted code running as the referee's user).
    """
    env = {name: os.environ[name] for name in passed_names(pass_env) if name in os.environ}
    env.setdefault("PATH", os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]))
    home = SEALED_HOME if sealed else os.environ.get("HOME")
    if home and "HOME" not in env:
        env["HOME"] = home
    return env


def library_path(env: Mapping[str, str]) -> list[str]:
    """Folders the agent imports libraries from besides the interpreter's own.

    The ``PYTHONPATH`` of ``env``, and the user's site-packages when this
    interpreter uses it (a student's ``pip install --user numpy``: a sealed
    agent's home is elsewhere, so its interpreter would not find it).
    """
    found = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    user_site = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user_site and user_site in sys.path and os.path.isdir(user_site):
        found.append(user_site)
    return list(dict.fromkeys(found))
