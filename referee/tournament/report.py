"""``report.html``: a tournament's story on one self-contained page.

The standings, the crosstable (each cell coloured by the row agent's score
against the column agent), how each agent's games ended, and the list of
games with links to their replays.  Like every table, it is a function of
``games.jsonl`` alone, but for the discovered folders that failed to load,
which never played and are listed first from ``tournament.json``.

Games are numbered by their index in the tournament's schedule (the
record's ``extra.game_index``, as in the tournament's messages and
``sprt.csv``), not by their line in ``games.jsonl``, where they appear in the
order they finished; they are listed in index order.  ``python -m referee
replay games.jsonl --game-index N`` means the same N.

Replays are generated alongside (``replays/game-N.html``) for tournaments of
up to :data:`REPLAY_LIMIT` games whose game has a replay viewer; a bigger
tournament's report gives instead the command that writes any one replay on
demand (``python -m referee replay games.jsonl --game-index N --html ...``).
Existing replay files are kept (game N of a folder is always the same game),
so a resumed run only adds the new games'.

Each game with a winner offers its analysis (where it was won and lost,
docs/analysis.md): the command that writes it, ``python -m referee analyse
games.jsonl --game-index N --html game-N.html``, folded under the game's
"analyse"; the report never analyses a game itself (a whole game takes
tens of seconds).  Commands name ``games.jsonl`` as the run was given it
(:func:`~.tables.shown_path`).
"""
from __future__ import annotations

import base64
import functools
import hashlib
import html
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from collections.abc import Iterable, Mapping, Sequence

from ..agent_text import inert
from ..records import GameRecord
from ..render.frames import ReplayError, has_viewer
from ..render.html_replay import replay_html
from .aggregate import Results
from .journal import GamesFile
from .sprt import SprtSettings
from .tables import (
    ANALYSIS_NOTE, HOW_PLAYED_TITLE, LEFT_OUT_NOTE, RESUME, TEXT_COLUMNS, LeftOut, Table, Unfinished, all_tables,
    analyse_command, left_out_table, sandbox_warning, shown_path, summary_lines,
)

REPLAY_LIMIT = 500


def _cell(value: object) -> str:
    return html.escape(str(value))


def _score_colour(score: float) -> str:
    """Red (0%) through white (50%) to green (100%)."""
    if score >= 0.5:
        t = (score - 0.5) * 2
        r, g, b = 255 - int(120 * t), 255 - int(40 * t), 255 - int(120 * t)
    else:
        t = (0.5 - score) * 2
        r, g, b = 255 - int(20 * t), 255 - int(130 * t), 255 - int(130 * t)
    return f"rgb({r},{g},{b})"


def _table_html(table: Table) -> str:
    # Text (names, limits, results) reads from the left, numbers line up on the right: each cell says which.
    kinds = [' class="text"' if header in TEXT_COLUMNS else "" for header in table.headers]
    head = "".join(f"<th{kind}>{_cell(h)}</th>" for h, kind in zip(table.headers, kinds))
    body = "".join(
        "<tr>" + "".join(f"<td{kind}>{_cell(v)}</td>" for v, kind in zip(row, kinds)) + "</tr>" for row in table.rows
    )
    return f'<table id="{table.stem}" class="sortable"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


@functools.cache
def _asset(name: str) -> str:
    """The text of ``assets/<name>`` beside this module, as the page serves it (read once per process)."""
    return resources.files(__package__).joinpath(f"assets/{name}").read_text(encoding="utf-8")


def _script() -> str:
    """Sorting the tables by any column (click a header; again to reverse) and finding agents in the standings
    by name.  Inline and self-contained: the page works offline, from a file, with nothing fetched.  Without
    scripts the tables are shown as written (the search box stays hidden)."""
    return _asset("report.js")


@functools.cache
def _script_hash() -> str:
    """The page's policy allows this script and no other, inline or fetched."""
    return "sha256-" + base64.b64encode(hashlib.sha256(_script().encode()).digest()).decode()


def _crosstable_html(results: Results) -> str:
    order = [a.name for a in results.standings()]
    head = "<th>agent</th>" + "".join(f"<th>{_cell(name)}</th>" for name in order)
    rows = []
    for name in order:
        cells = [f"<th>{_cell(name)}</th>"]
        for opponent in order:
            pair = results.pairs.get((name, opponent))
            if name == opponent:
                cells.append('<td class="self">&mdash;</td>')
            elif pair is None or pair.games == 0:
                cells.append("<td></td>")
            else:
                score = pair.points / pair.games
                cells.append(
                    f'<td class="score" data-score="{score:.4f}" style="background:{_score_colour(score)}" '
                    f'title="{_cell(name)} vs {_cell(opponent)}: {pair.wins}-{pair.draws}-{pair.losses}">'
                    f"{pair.points:g}/{pair.games}</td>"
                )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table id="crosstable"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _result_text(record: GameRecord) -> str:
    if record.winner is None:
        return "draw"
    return f"{record.name_of(record.winner)} ({record.winner}) wins"


#: Games listed in the report (all are in games.jsonl).
LISTED_GAMES = 2000
#: How much of a failed agent's message the games list shows (the whole of it is the cell's tooltip).
WHY_SHOWN = 90


def failure_text(record: GameRecord) -> str:
    """What the failing agent's error says (the record's ``error`` message), ``""`` when no agent failed.

    A game both agents failed names each side's.  The text is the agent's
    own (its exception's message): control characters are escaped here, and
    the page escapes the rest.
    """
    said = [
        (color, message) for color, entry in record.error.items()
        if isinstance(entry, Mapping) and isinstance(message := entry.get("message"), str) and message.strip()
    ]
    if len(said) == 1:
        return inert(said[0][1].strip())
    return "; ".join(f"{record.name_of(color)} ({color}): {inert(message.strip())}" for color, message in said)


def _shortened(text: str) -> str:
    """One line of at most :data:`WHY_SHOWN` characters, cut at a word where one is near, marked by an ellipsis."""
    line = " ".join(text.split())
    if len(line) <= WHY_SHOWN:
        return line
    cut = line[: WHY_SHOWN - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > WHY_SHOWN // 2 else cut).rstrip(" ,;:") + "…"


@dataclass(frozen=True)
class GameRow:
    """What the report lists of one game (small: no action list)."""

    index: int
    red: str
    blue: str
    result: str
    reason: str
    turns: int
    replay: str | None
    #: The failing agent's error message (:func:`failure_text`), "" when neither failed.
    why: str = ""
    #: A winner after at least one action: a game with a turning point to analyse.
    decided: bool = False


def _write_replay(record: GameRecord, index: int, replays: Path) -> str | None:
    path = replays / f"game-{index}.html"
    if not path.exists():
        try:
            page = replay_html(record)
        except ReplayError:
            return None  # a record that cannot be replayed gets no link, not a broken one
        tmp = path.with_suffix(".tmp")
        tmp.write_text(page, encoding="utf-8")
        tmp.replace(path)
    return f"replays/{path.name}"


def game_rows(records: Iterable[GameRecord], folder: Path, with_replays: bool) -> tuple[list[GameRow], int]:
    """Rows for the first :data:`LISTED_GAMES` games by game index (writing
    their replays if asked) and the number of games, reading the records one
    at a time.

    A game recorded twice (e.g. after merging two folders' files) is listed
    once, as the tables count it.  A record without a game index (not written
    by a tournament) is numbered by its position.
    """
    rows: list[GameRow] = []
    seen: set[int] = set()
    replays = folder / "replays"
    for position, record in enumerate(records):
        index = record.game_index if record.game_index is not None else position
        if index in seen:
            continue
        seen.add(index)
        link = None
        if with_replays and has_viewer(record.game):
            replays.mkdir(exist_ok=True)
            link = _write_replay(record, index, replays)
        rows.append(
            GameRow(index, record.name_of("RED"), record.name_of("BLUE"), _result_text(record), record.reason,
                    record.turns, link, failure_text(record), record.winner is not None and bool(record.actions))
        )
        # Keep only the rows that can still be listed: memory stays bounded for huge files.
        if len(rows) > 2 * LISTED_GAMES:
            rows = sorted(rows, key=lambda row: row.index)[:LISTED_GAMES]
    return sorted(rows, key=lambda row: row.index)[:LISTED_GAMES], len(seen)


def _left_out_html(left_out: Sequence[LeftOut]) -> str:
    """The folders that failed to load, before the standings: the place a student looks for their agent."""
    if not left_out:
        return ""
    table = left_out_table(left_out)
    return (
        f'<section class="left-out" id="left-out"><h2>{_cell(table.title)}</h2>'
        f"<p>{_cell(LEFT_OUT_NOTE)}</p>{_table_html(table)}</section>"
    )


def _how_played_html(played: Sequence[tuple[str, str]]) -> str:
    """The settings the games were played under, and the facts of the runs (none without lines)."""
    if not played:
        return ""
    items = "".join(f"<dt>{_cell(label)}</dt><dd>{_cell(text)}</dd>" for label, text in played)
    return f'<section id="how-played"><h2>{HOW_PLAYED_TITLE}</h2><dl>{items}</dl></section>'


def _unfinished_html(unfinished: Unfinished | None, results: Results) -> str:
    """An unfinished run's box, first on the page: its tables are not the tournament's result (none when finished)."""
    if unfinished is None:
        return ""
    said = "".join(f"<p><strong>{_cell(line)}</strong></p>" for line in unfinished.lines(results))
    resume = f"<p>{RESUME} <code>{_cell(unfinished.resume)}</code></p>"
    return f'<section class="unfinished" id="unfinished">{said}{resume}</section>'


def _reason_html(row: GameRow) -> str:
    """The ending's reason; after a failure, what the failing agent's error said (shortened; all of it on hover)."""
    if not row.why:
        return _cell(row.reason)
    return f'{_cell(row.reason)} <span class="why" title="{_cell(row.why)}">{_cell(_shortened(row.why))}</span>'


def _analyse_html(row: GameRow, games_file: str) -> str:
    """A decided game's analysis command, folded (a click shows it, a second selects it whole for copying)."""
    if not row.decided:
        return ""
    command = analyse_command(games_file, row.index)
    return f'<details class="analyse"><summary>analyse</summary><code>{_cell(command)}</code></details>'


def report_html(
    results: Results,
    rows: list[GameRow],
    total_games: int,
    title: str,
    games_file: str = "games.jsonl",
    sprt: SprtSettings | None = None,
    left_out: Sequence[LeftOut] = (),
    played: Sequence[tuple[str, str]] = (),
    unfinished: Unfinished | None = None,
) -> str:
    tables = {t.stem: t for t in all_tables(results)}
    summary = "".join(f"<li>{_cell(line)}</li>" for line in summary_lines(results, sprt))
    unsealed = sandbox_warning(results)
    warning = f'<p class="warning" id="unsealed">{_cell(unsealed)}</p>' if unsealed else ""
    lines = []
    for row in rows:
        replay = f'<a href="{html.escape(row.replay)}">replay</a>' if row.replay else ""
        lines.append(
            f'<tr><td>{row.index}</td><td class="text">{_cell(row.red)}</td><td class="text">{_cell(row.blue)}</td>'
            f'<td class="text">{_cell(row.result)}</td><td class="text">{_reason_html(row)}</td><td>{row.turns}</td>'
            f'<td class="text">{replay}{_analyse_html(row, games_file)}</td></tr>'
        )
    notes = []
    if total_games > len(rows):
        notes.append(
            f"The first {len(rows)} of {total_games} games (by game index) are listed; "
            f"all are in {html.escape(games_file)}."
        )
    if rows and not any(row.replay for row in rows):
        notes.append(
            "Replays are written on demand: "
            f"<code>python -m referee replay {html.escape(games_file)} --game-index N --html game-N.html</code> "
            "(N: the game column below)"
        )
    if any(row.decided for row in rows):
        notes.append(
            f'<span id="analysis-note">{_cell(ANALYSIS_NOTE)} <code>{_cell(analyse_command(games_file, "N"))}</code> '
            "(N: the game column below; each game with a winner gives its own under <em>analyse</em>)</span>"
        )
    note = "".join(f"<p>{n}</p>" for n in notes)
    rounds = f'<h2>{_cell(tables["rounds"].title)}</h2>{_table_html(tables["rounds"])}' if "rounds" in tables else ""
    games_table = (
        '<table id="games" class="sortable"><thead><tr><th>game</th><th class="text">RED</th><th class="text">BLUE</th>'
        '<th class="text">result</th><th class="text">reason</th><th>actions</th><th></th></tr></thead>'
        f"<tbody>{''.join(lines)}</tbody></table>"
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src '{_script_hash()}'">
<title>{_cell(title)}</title>
<style>{_asset('report.css')}</style>
</head>
<body>
<h1>{_cell(title)}</h1>
{_unfinished_html(unfinished, results)}
{warning}
<ul class="summary">{summary}</ul>
{_left_out_html(left_out)}
<h2>Standings</h2>
<p class="rule" id="ranking-rule">{_cell(tables["standings"].note)}</p>
<p id="find" hidden><label>Find an agent <input type="search" id="standings-search" autocomplete="off"></label>
<span id="standings-count"></span> <small>(click a column's title to sort by it, again to reverse)</small></p>
{_table_html(tables["standings"])}
{_how_played_html(played)}
<h2>Crosstable <small>(row agent's points / games against the column agent)</small></h2>
{_crosstable_html(results)}
<h2>How the games ended <small>(peak MB: memory above the interpreter's baseline)</small></h2>
{_table_html(tables["endings"])}
<h2>Pairings by colour</h2>
{_table_html(tables["pairs"])}
{rounds}
<h2>Games</h2>
{note}
{games_table}
<script>{_script()}</script>
</body>
</html>
"""


def write_report(
    results: Results,
    games: GamesFile,
    folder: Path,
    title: str,
    sprt: SprtSettings | None = None,
    left_out: Sequence[LeftOut] = (),
    played: Sequence[tuple[str, str]] = (),
    unfinished: Unfinished | None = None,
) -> list[Path]:
    """Write ``report.html`` (and, for a small tournament, the replays).

    ``left_out``: the folders that failed to load, from ``tournament.json``
    (:func:`~referee.tournament.tables.read_left_out`): they are not in games.jsonl.
    ``played``: the lines of "How it was played" (:func:`.provenance.how_played`).
    ``unfinished``: said first, when the run ended before its schedule did.
    """
    with_replays = sum(1 for _ in games.records()) <= REPLAY_LIMIT
    rows, total = game_rows(games.records(), folder, with_replays)
    path = folder / "report.html"
    page = report_html(results, rows, total, title, shown_path(games.path), sprt, left_out, played, unfinished)
    path.write_text(page, encoding="utf-8")
    return [path]
