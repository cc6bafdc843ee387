"""Showing games: the terminal commentary (and, later, HTML replays)."""
