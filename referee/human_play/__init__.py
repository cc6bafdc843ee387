"""``python -m referee play [options] AGENT``: a person plays one game against an agent, in the terminal or a browser.

The command and the terminal's game loop are in :mod:`.cli`; what both ways
of playing share (the hosted agent, the clocks, the record) in
:mod:`.session`; the ``--web`` server in :mod:`.web` and its page in :mod:`.page`.
"""
