"""Hostile agents: each plays legal moves and mounts one attack on its
opponent, the referee, the records or the machine (tests/hosting/test_sealed.py).

Laid out like ``agents/``: one package per class of attack, sharing
``common/`` (imported relatively), so each agent needs only its own folder,
its parents' ``__init__.py`` and the sibling ``common/`` folder.

They are real attacks: run them only through the tests, which play them
from a copy of the referee's tree.  The agents that write files refuse to
write anywhere unless the copy's ``common/forbidden.py`` exists, and
never under a folder it names (the real checkout).
"""
