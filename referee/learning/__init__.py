"""The games where learners already are: OpenSpiel games, PettingZoo and Gymnasium environments.

:mod:`.encoding` is pure Python and gives every bridge the same fixed action integers, chance outcomes
and observation planes.  The bridges import their toolkit (``pip install -e ".[learning]"``); nothing
outside this package imports them, so the referee runs without (docs/learning.md).
"""
