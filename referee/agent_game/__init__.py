"""``python -m referee [options] RED BLUE``: one refereed game between two agents (the command is in :mod:`.cli`).

The game itself is :func:`referee.match.play_match`; this package parses the
command line around it and shows the game.
"""
