"""An analysis in words: the graph of Red's chances as text, the marked decisions, the turning point."""
from __future__ import annotations

from .review import INACCURACY, Judged
from .runner import Analysis

#: The text graph's size: rows from 100 % down to 0 %, and at most this many columns.
GRAPH_ROWS, GRAPH_COLUMNS = 11, 72


def percent(chance: float) -> str:
    return f"{100 * chance:.0f}%"


def label(analysis: Analysis, judged: Judged) -> str:
    """Where a decision is: its action's number (1-based, as the console counts), or its turn's."""
    decision = judged.decision
    if len(decision.actions) == 1 and all(len(j.decision.actions) == 1 for j in analysis.judged):
        return f"action {decision.start + 1}"
    turn = analysis.judged.index(judged) + 1
    return f"turn {turn} (action {decision.start + 1})" if decision.end == decision.start + 1 else (
        f"turn {turn} (actions {decision.start + 1}-{decision.end})")


def graph(analysis: Analysis) -> list[str]:
    """Red's chance of winning along the game, one ``*`` a column, ``-`` at 50 %."""
    curve = analysis.red_curve()
    columns = min(GRAPH_COLUMNS, len(curve))
    # Each column shows the point nearest its place along the game (the first and the last point included).
    picked = [curve[round(i * (len(curve) - 1) / max(1, columns - 1))] for i in range(columns)]
    rows = []
    for row in range(GRAPH_ROWS):
        level = 1.0 - row / (GRAPH_ROWS - 1)
        cells = "".join("*" if round(red * (GRAPH_ROWS - 1)) == GRAPH_ROWS - 1 - row else
                        "-" if row == GRAPH_ROWS // 2 else " " for _, red in picked)
        rows.append(f"{percent(level):>5} |{cells}")
    rows.append(f"{'':>5} +{'-' * columns}")
    rows.append(f"{'':>7}from the first action (left) to the end, after {picked[-1][0]} actions (right)")
    return rows


def summary(analysis: Analysis) -> str:
    """The analysis for a terminal: what was analysed and how, the graph, the marks, the turning point."""
    record = analysis.record
    names = f"RED {record.name_of('RED')} v BLUE {record.name_of('BLUE')}"
    lines = [
        f"Analysis of {record.game}: {names}: {record.message or record.reason} ({len(record.actions)} actions)",
        f"Engine: {analysis.settings.describe()}. Red's chance of winning along the game:",
        "",
        *graph(analysis),
        "",
    ]
    if analysis.cut_short:
        lines += [f"The game did not end by the rules ({analysis.cut_short}): its last decision is judged by the "
                  "engine's view of the last position.", ""]
    marked = [j for j in analysis.judged if j.severity is not None]
    if marked:
        lines.append("Marked decisions (the mover's chance of winning after it; after the engine's decision instead):")
        width = max(len(label(analysis, j)) for j in marked)
        for j in marked:
            lines.append(f"  {label(analysis, j):<{width}}  {j.color:<4}  {j.severity:<10}  {j.played}: "
                         f"{percent(j.after)}; {j.better or 'the same'}: {percent(j.engine_after)}")
    else:
        lines.append(f"No decision cost its side {percent(INACCURACY)} or more of its chance of winning.")
    if analysis.turning is not None:
        lines += ["", "Turning point: " + turning_sentence(analysis, analysis.turning)]
    return "\n".join(lines)


def turning_sentence(analysis: Analysis, judged: Judged, you: str | None = None) -> str:
    """One sentence on the turning point; ``you``: the loser's colour when speaking to its author."""
    who = "you" if you == judged.color else judged.color
    whose = "your" if who == "you" else f"{judged.color}'s"
    said = (f"on {label(analysis, judged)} {who} played {judged.played} ({whose} chance of winning after it: "
            f"{percent(judged.after)})")
    if judged.better is not None:
        said += f"; the engine's {judged.better} would have left it at {percent(judged.engine_after)}"
    return said + "."
