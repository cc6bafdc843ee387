"""The play page: one self-contained HTML document (inline CSS and JavaScript, no network beyond its own server).

It draws the board as the HTML replays do (the same frames, the same hex
geometry, the replays' CSS from :func:`referee.render.html_replay.board_style`)
and talks to the JSON API of :mod:`.web`.  Text from the server (agent names,
reasons, messages) is only ever inserted with ``textContent``.  The page's
skeleton, CSS and script are kept in ``assets/``.
"""
from __future__ import annotations

import functools
from importlib import resources

from ..render.html_replay import board_script, board_style


@functools.cache
def _asset(name: str) -> str:
    """The text of ``assets/<name>`` beside this module, as the page serves it (read once per process)."""
    return resources.files(__package__).joinpath(f"assets/{name}").read_text(encoding="utf-8")


def page_html() -> str:
    """The whole page; the game, players and board come from ``GET /api/state``."""
    return (
        _asset("page.html")
        .replace("__STYLE__", board_style() + _asset("page.css"))
        .replace("__SCRIPT__", board_script() + _asset("page.js"))
    )
