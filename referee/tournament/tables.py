"""Results as tables: on screen (tabulate), and as CSV and Markdown files.

Text cells are shown inert (:mod:`referee.agent_text`): a discovered
folder's name and its load error are the agent author's text.  On screen
and in Markdown a cell is one line with its control characters escaped
(and in Markdown ``|`` escaped); in CSV a text cell that a spreadsheet
would read as a formula gets a leading ``'``.
"""
from __future__ import annotations

import csv
import json
import re
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from collections.abc import Mapping, Sequence

from tabulate import tabulate

from ..agent_text import csv_cell, inert_line, markdown_cell
from ..records import memory_text
from .aggregate import AgentTotals, Results
from .journal import GAMES_FILE
from .sprt import ELO_MODEL, SprtSettings

#: Above this many agents the crosstable is only written to files, not printed.
SCREEN_CROSSTABLE_LIMIT = 10


@dataclass(frozen=True)
class Table:
    title: str
    stem: str  # file name without extension
    headers: list[str]
    rows: list[list[object]]
    #: Columns written to the files (CSV, Markdown, HTML) but left off the console, which has less room.
    files_only: tuple[str, ...] = ()
    #: A line shown under the title everywhere (the standings: the rule of their ranking).
    note: str = ""

    def on_screen(self) -> Table:
        """The table without its :attr:`files_only` columns."""
        if not self.files_only:
            return self
        keep = [i for i, header in enumerate(self.headers) if header not in self.files_only]
        return replace(
            self, headers=[self.headers[i] for i in keep], rows=[[row[i] for i in keep] for row in self.rows],
            files_only=(),
        )


TEXT_COLUMNS = ("agent", "opponent", "Red", "Blue", "higher seed", "lower seed", "result", "code", "reached",
                "limits")


def _tabulate(table: Table, style: str) -> str:
    """Numbers right-aligned; formatted as given (no re-parsing of "+12.0" or "3/4").

    Every text cell and header (the crosstable's are agent names) one inert
    line; for Markdown (``github``) also with ``|`` escaped.
    """
    align = ["left" if h in TEXT_COLUMNS else "right" for h in table.headers]
    shown = markdown_cell if style == "github" else inert_line
    headers = [shown(h) for h in table.headers]
    rows = [[shown(cell) if isinstance(cell, str) else cell for cell in row] for row in table.rows]
    return tabulate(rows, headers, tablefmt=style, disable_numparse=True, colalign=align)


def _elo(value: float | None) -> str:
    # round, then + 0.0: a rating of -0.04 shows as +0.0, never as -0.0
    return "—" if value is None else f"{round(value, 1) + 0.0:+.1f}"


def _ci(value: float | None, rated: bool) -> str:
    if not rated:
        return "—"
    return "±inf" if value is None else f"±{value:.1f}"


def rule_used(results: Results) -> str:
    """The one rule the standings were ranked by ("by points ..."): the format's, else the one the records allow."""
    return results.ranking_rule or results.order_rule()


def ranking_note(results: Results) -> str:
    """The line under the standings' title: the rule they were ranked by, official when a format's."""
    return f"Official ranking: {results.ranking_rule}." if results.ranking_rule else f"Ranked {results.order_rule()}."


def standings_table(results: Results) -> Table:
    """The one ranked table: the format's official ranking, and no other rank beside it.

    The format's own columns follow the agent (a Swiss's score and
    tie-breaks, how far a knockout's agents got); Elo is a column of values,
    never a second rank (two places for one agent invite disputes over which
    counts); with two agents, LOS and the draw ratio; last, the fingerprint
    of each agent's code.
    """
    two = results.head_to_head is not None
    # A game at odds: each agent's limits beside its name (its rating is of the agent at those limits).
    odds = len({agent.limits for agent in results.agents.values()}) > 1
    headers = ["rank", "agent", *(["limits"] if odds else []), *(column.header for column in results.columns)]
    headers += ["games", "wins", "draws", "losses", "points", "score %", "Elo", "95% CI"]
    if two:
        headers += ["LOS %", "draw %"]
    rows = []
    for rank, agent in results.ranking():
        rating = results.ratings.ratings.get(agent.name)
        row: list[object] = [rank, agent.name, *([agent.limits] if odds else []),
                             *(column.values.get(agent.name, "") for column in results.columns)]
        row += [
            agent.games, agent.wins, agent.draws, agent.losses, f"{agent.points:g}", f"{100 * agent.score:.1f}",
            _elo(rating.elo if rating else None), _ci(rating.ci95 if rating else None, rating is not None),
        ]
        if two:
            match = results.head_to_head
            assert match is not None  # two agents always have one
            los = match.los if agent.name == results.tested else 1 - match.los
            row += [f"{100 * los:.1f}", f"{100 * match.draw_ratio:.1f}"]
        rows.append([*row, code_text(agent)])
    return Table(
        "Standings", "standings", [*headers, "code"], rows, files_only=("code",), note=ranking_note(results)
    )


def code_text(agent: AgentTotals) -> str:
    """The fingerprint(s) of the code an agent's games were played with (docs/tournament.md); — if none recorded."""
    return ", ".join(sorted(agent.code)) or "—"


def rounds_table(results: Results) -> Table:
    """Each round's (batch's, tie's) pairings and results, and byes: who met whom, when (the format's listing)."""
    rows: list[list[object]] = [
        [row.round, row.red, row.blue or "—", row.result, ", ".join(str(i) for i in row.games)]
        for row in results.rounds
    ]
    return Table(results.rounds_title, "rounds", [*results.rounds_headers, "result", "games"], rows)


def crosstable(results: Results) -> Table:
    """Row agent's points / games against the column agent."""
    order = [a.name for a in results.standings()]
    rows = []
    for name in order:
        row: list[object] = [name]
        for opponent in order:
            pair = results.pairs.get((name, opponent))
            row.append("—" if name == opponent else (f"{pair.points:g}/{pair.games}" if pair else ""))
        rows.append(row)
    return Table("Crosstable (row's points / games against the column)", "crosstable", ["agent", *order], rows)


def pairs_table(results: Results) -> Table:
    """Each pairing from each side, overall and by colour."""
    order = [a.name for a in results.standings()]
    rows = []
    for name in order:
        for opponent in order:
            pair = results.pairs.get((name, opponent))
            if name == opponent or pair is None:
                continue
            red, blue = pair.as_red, pair.as_blue
            rows.append([
                name, opponent, pair.games, pair.wins, pair.draws, pair.losses, f"{pair.points:g}",
                f"{red['W']}-{red['D']}-{red['L']}", f"{blue['W']}-{blue['D']}-{blue['L']}",
            ])
    headers = ["agent", "opponent", "games", "wins", "draws", "losses", "points", "as Red W-D-L", "as Blue W-D-L"]
    return Table("Pairings", "pairs", headers, rows)


def endings_table(results: Results) -> Table:
    """How each agent's games ended; failures count for the agent that failed."""
    columns = list(results.ending_columns)
    rows = []
    for agent in results.standings():
        cpu = agent.cpu_per_move
        rows.append([
            agent.name, agent.games, *(agent.endings.get(c, 0) for c in columns),
            "—" if cpu is None else f"{1000 * cpu:.2f}", memory_text(agent.peak_memory_mb),
        ])
    headers = ["agent", "games", *(c.replace("_", " ") for c in columns), "CPU ms/move", "peak MB"]
    return Table(
        "Endings, CPU time per move and peak memory (MB above the interpreter's baseline)", "endings", headers, rows
    )


@dataclass(frozen=True)
class Unfinished:
    """A run that ended before its schedule did (stopped, or games the referee failed): its report says so first.

    ``total`` is the schedule's length, or with ``exact`` False the most the
    format may play (a knockout plays only the games its ties need);
    ``resume`` is the command that goes on; ``why`` what stopped the run, if
    known ("stopped by SIGTERM").
    """

    recorded: int
    total: int
    resume: str
    exact: bool = True
    why: str = ""

    def lines(self, results: Results) -> list[str]:
        """What the report says at its top, before :data:`RESUME` and the command: how far the run got, and the
        rule that ranked it so far."""
        of = f"{self.total}" if self.exact else f"at most {self.total}"
        why = f" ({self.why})" if self.why else ""
        return [
            f"UNFINISHED: {self.recorded} of {of} games played{why}. These tables are of those games only, "
            "not the tournament's result.",
            # Part of a schedule may be ranked by another rule than the whole (Elo, not points): say which.
            f"The standings so far are ranked {rule_used(results)}.",
        ]


#: Before an unfinished run's command (its paths and agents are relative to that folder).
RESUME = "To resume, run from the folder the tournament was started in:"


def sandbox_warning(results: Results) -> str | None:
    """A warning when some games ran with their agents unsealed (docs/referee.md, 'The sandbox')."""
    if not results.unsealed:
        return None
    return (
        f"WARNING: {results.unsealed} of {results.games} games ran with the agents UNSEALED (no sandbox, or "
        "not frozen between calls): an agent could have reached its opponent, the referee or these records, "
        "so those results cannot be trusted against hostile agents."
    )


@dataclass(frozen=True)
class LeftOut:
    """A discovered folder that could not be loaded: left out, or kept in to forfeit (``on_error: forfeit``)."""

    name: str
    folder: str
    error: str
    kept: bool

    @property
    def status(self) -> str:
        return "kept in: forfeits its games" if self.kept else "left out"

    @property
    def one_line(self) -> str:
        """The error on one line (a table cell or a console line wants one), not yet made inert."""
        return re.sub(r"\s*\n\s*", " ", self.error.strip())


LEFT_OUT_TITLE = "Left out / failed to load"
LEFT_OUT_NOTE = (
    "These discovered folders could not be loaded as agents. Those left out played no game and appear in no "
    "other table; those kept in (on_error: forfeit) lost every game. Each line says what is wrong, so its "
    "author can fix it."
)


def left_out_of(meta: Mapping[str, Any]) -> tuple[LeftOut, ...]:
    """The broken agents a ``tournament.json`` records (its ``broken_agents``): they are not in games.jsonl."""
    entries = meta.get("broken_agents") or []
    return tuple(
        LeftOut(str(e.get("name", "")), str(e.get("folder", "")), str(e.get("error", "")), bool(e.get("kept")))
        for e in entries
        if isinstance(e, dict)
    )


def read_left_out(path: Path) -> tuple[LeftOut, ...]:
    """:func:`left_out_of` the ``tournament.json`` at ``path`` (none if it cannot be read)."""
    try:
        meta = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    return left_out_of(meta) if isinstance(meta, dict) else ()


def left_out_table(left_out: Sequence[LeftOut]) -> Table:
    rows: list[list[object]] = [[b.folder, b.name, b.status, b.one_line] for b in left_out]
    return Table(
        f"{LEFT_OUT_TITLE} ({len(left_out)})", "left_out", ["folder", "agent", "status", "what is wrong"], rows
    )


def left_out_text(left_out: Sequence[LeftOut]) -> str | None:
    """The section the console shows after the tables (None when every folder loaded)."""
    if not left_out:
        return None
    lines = [f"{LEFT_OUT_TITLE}: {len(left_out)} discovered folder{'s' if len(left_out) != 1 else ''}"]
    # The folder's name and its error are its author's: shown inert, one line each.
    lines += [f"  {inert_line(b.folder)} ({b.status}): {inert_line(b.one_line)}" for b in left_out]
    return "\n".join(lines)


def _code(text: object) -> str:
    """``text`` as a Markdown code span inside a table cell (one inert line, no backtick to end the span)."""
    return "`" + markdown_cell(text).replace("`", "'") + "`"


def left_out_markdown(left_out: Sequence[LeftOut]) -> list[str]:
    """The section's Markdown lines (none when every folder loaded)."""
    if not left_out:
        return []
    table = left_out_table(left_out)
    # Folders and errors as code, or __init__.py would render as a bold "init"; a '|' would end its cell.
    rows = [
        [_code(folder), markdown_cell(name), status, _code(error)] for folder, name, status, error in table.rows
    ]
    text = tabulate(rows, table.headers, tablefmt="github", disable_numparse=True)
    return [f"## {table.title}", "", f"**{LEFT_OUT_NOTE}**", "", text, ""]


def summary_lines(results: Results, sprt: SprtSettings | None = None) -> list[str]:
    lines = [f"{results.games} games, {len(results.agents)} agents.", *results.notes]
    match = results.head_to_head
    if match is not None:
        other = next(name for name in results.agents if name != results.tested)
        ci = "±inf" if match.ci95 is None else f"±{match.ci95:.1f}"
        lines.append(
            f"{results.tested} vs {other}: Elo difference {match.elo:+.1f} {ci} (95%), "
            f"LOS {100 * match.los:.1f}%, draw ratio {100 * match.draw_ratio:.1f}%"
        )
    paired = results.paired
    if paired is not None:
        ci = "±inf" if paired.ci95 is None else f"±{paired.ci95:.1f}"
        left_out = f"; {results.unpaired} games outside a complete pair left out" if results.unpaired else ""
        virtual = "; one virtual drawn pair added, since one agent won every pair" if paired.regularised else ""
        lines.append(
            f"Pentanomial, {paired.pairs} colour-swapped pairs scoring 0/½/1/1½/2: "
            f"{'/'.join(str(n) for n in paired.counts)}: Elo difference {paired.elo:+.1f} {ci} (95%){left_out}{virtual}"
        )
    if results.ratings.note:
        lines.append(f"Ratings: {results.ratings.note}.")
    if results.sprt is not None and sprt is not None:
        state = results.sprt
        pentanomial = (
            f"; pentanomial LLR {state.pentanomial_llr:.2f} over {state.pairs} pairs "
            "(reported, not used for the verdict)"
            if state.pentanomial_llr is not None
            else ""
        )
        lines.append(
            f"SPRT ({ELO_MODEL} Elo: elo0 {sprt.elo0:g}, elo1 {sprt.elo1:g}, alpha {sprt.alpha:g}, beta {sprt.beta:g}) "
            f"after {state.wins + state.draws + state.losses} games: {state.describe()}{pentanomial}"
        )
    return lines


def all_tables(results: Results) -> list[Table]:
    rounds = [rounds_table(results)] if results.rounds else []
    tables = [standings_table(results), crosstable(results), pairs_table(results), endings_table(results)]
    return [*tables, *rounds]


def render(results: Results, sprt: SprtSettings | None = None, left_out: Sequence[LeftOut] = ()) -> str:
    """What the command prints; the folders that failed to load come last, where it is read."""
    section = [text] if (text := left_out_text(left_out)) else []
    if not results.games:
        return "\n\n".join(["No games recorded yet.", *section])
    parts = []
    for table in all_tables(results):
        # The round listing is as long as the games: the files have it.
        if table.stem in ("pairs", "rounds") or (
            table.stem == "crosstable" and len(results.agents) > SCREEN_CROSSTABLE_LIMIT
        ):
            continue
        note = f"\n{table.note}" if table.note else ""
        parts.append(f"{table.title}{note}\n{_tabulate(table.on_screen(), 'simple')}")
    parts.append("\n".join(summary_lines(results, sprt)))
    warning = sandbox_warning(results)
    return "\n\n".join(parts + ([warning] if warning else []) + section)


HOW_PLAYED_TITLE = "How it was played"
ANALYSIS_TITLE = "A game's analysis"
#: Said before the analysis's command: where the path it names is read from, and what it gives.
ANALYSIS_NOTE = ("Where a game was won and lost, judged by the referee's engine (docs/analysis.md); run from the "
                 "folder the tournament was started in:")


def shown_path(path: Path) -> str:
    """``path`` as a report's commands name it: as the run was given it (from the folder it was started in), an
    absolute path inside that folder made relative to it, so that a report names no machine's folders needlessly."""
    if not path.is_absolute():
        return str(path)
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # elsewhere (or no working folder any more): the path as given
        return str(path)


def analyse_command(games_file: str, index: int | str) -> str:
    """The command that analyses game ``index`` of ``games_file`` into a page of its own."""
    return f"python -m referee analyse {shlex.quote(games_file)} --game-index {index} --html game-{index}.html"


def analysis_markdown(folder: Path) -> list[str]:
    """The command that analyses any one game of the tournament in ``folder``, at the end of ``results.md``."""
    command = analyse_command(shown_path(folder / GAMES_FILE), "N")
    return [f"## {ANALYSIS_TITLE}", "", f"{ANALYSIS_NOTE} {_code(command)} (N: the game's index, as report.html "
                                        "lists the games)."]


def how_played_markdown(played: Sequence[tuple[str, str]]) -> list[str]:
    """The report's settings block in Markdown (none without lines)."""
    if not played:
        return []
    return [f"## {HOW_PLAYED_TITLE}", "", *(f"- **{label}**: {markdown_cell(text)}" for label, text in played)]


def unfinished_markdown(unfinished: Unfinished | None, results: Results) -> list[str]:
    """The unfinished run's box at the top of ``results.md`` (none for a finished run)."""
    if unfinished is None:
        return []
    said = [f"> **{markdown_cell(line)}**  " for line in unfinished.lines(results)]
    return [*said, f"> {RESUME} {_code(unfinished.resume)}", ""]


def write_files(
    results: Results, folder: Path, title: str, sprt: SprtSettings | None = None, left_out: Sequence[LeftOut] = (),
    played: Sequence[tuple[str, str]] = (), unfinished: Unfinished | None = None,
) -> list[Path]:
    """CSV per table, SPRT trajectory, and one Markdown report; returns the paths.

    ``played``: the lines of "How it was played" (:func:`.provenance.how_played`), after the standings;
    ``unfinished``: said first, when the run ended before its schedule did.
    """
    folder.mkdir(parents=True, exist_ok=True)
    # A Swiss's second ranked table, as runs before the one official ranking wrote it: it would contradict it.
    (folder / "swiss.csv").unlink(missing_ok=True)
    written = []
    warning = sandbox_warning(results)
    markdown = [f"# {title}", "", *unfinished_markdown(unfinished, results)]
    markdown += [f"> **{warning}**", ""] if warning else []
    markdown += [f"{line}  " for line in summary_lines(results, sprt)]
    if left_out:  # before the tables: a student whose agent is missing looks for why
        markdown += ["", *left_out_markdown(left_out)]
    for table in all_tables(results):
        path = folder / f"{table.stem}.csv"
        with open(path, "w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow([csv_cell(h) for h in table.headers])
            writer.writerows([csv_cell(cell) for cell in row] for row in table.rows)
        written.append(path)
        markdown += ["", f"## {table.title}", "", *([f"**{table.note}**", ""] if table.note else [])]
        markdown.append(_tabulate(table, "github"))
        if table.stem == "standings" and played:
            markdown += ["", *how_played_markdown(played)]
    if results.sprt_trajectory:
        path = folder / "sprt.csv"
        lower, upper = sprt.bounds if sprt else (None, None)
        with open(path, "w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(["games", "game_index", "llr", "lower", "upper"])
            writer.writerows(
                [n, index, f"{llr:.4f}", f"{lower:.4f}", f"{upper:.4f}"] for n, index, llr in results.sprt_trajectory
            )
        written.append(path)
    if results.games:
        markdown += ["", *analysis_markdown(folder)]
    path = folder / "results.md"
    path.write_text("\n".join(markdown) + "\n", encoding="utf-8")
    written.append(path)
    return written
