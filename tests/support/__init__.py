"""Helpers the tests of several folders share (the tests of one folder keep theirs beside them).

- :mod:`tests.support.terminal`: a command on a pseudo-terminal, read as a person would see it.
- :mod:`tests.support.human_play`: ``python -m referee play``'s web server, its page, and the agents a game left.
- :mod:`tests.support.pages`: a local HTML page in the browser, and what its board shows.
"""
