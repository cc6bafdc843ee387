"""Showing games: the referee's commentary in a terminal (:mod:`.terminal`),
and recorded games replayed step by step (:mod:`.frames`) in a self-contained
HTML page (:mod:`.html_replay`), as ``python -m referee replay`` and the
tournament report show them.
"""
