"""Plug-ins named in an environment variable, ``name=module[:Attribute],...``: the one parser and loader that the
games' registry (``REFEREE_GAMES``, :mod:`referee.games`) and the tournament formats' (``REFEREE_FORMATS``,
:mod:`referee.tournament.formats`) share.  Each says its errors in its own exception (a game option's, a
config's)."""
from __future__ import annotations

import os
from collections.abc import Callable
from importlib import import_module
from typing import Any

#: Makes the exception a registry raises from its message.
Problem = Callable[[str], Exception]


def named_in(variable: str, problem: Problem, shape: str, needs_attribute: bool = False) -> dict[str, str]:
    """``variable``'s entries as name -> import path, in its order; an entry that is not ``name=path`` (with a
    ``:Attribute`` when ``needs_attribute``) raises ``problem`` saying it is not ``shape``."""
    found = {}
    for entry in filter(None, (e.strip() for e in os.environ.get(variable, "").split(","))):
        name, sep, path = entry.partition("=")
        if not sep or not name.strip() or not path.strip() or (needs_attribute and ":" not in path):
            raise problem(f"{variable}: {entry!r} is not {shape}")
        found[name.strip()] = path.strip()
    return found


def load_named(kind: str, name: str, path: str, problem: Problem, attribute: str = "") -> Any:
    """The object ``path`` (``module:Attribute``) names, or ``attribute`` of the module a plain ``path`` names;
    a module that cannot be imported, or lacks it, raises ``problem`` naming the ``kind`` and ``name``."""
    module_name, _, named = path.partition(":")
    try:
        return getattr(import_module(module_name), named or attribute)
    except (ImportError, AttributeError) as exc:
        raise problem(f"{kind} {name!r} ({path}) cannot be loaded: {exc}") from None
