"""``python -m referee autograde report RESULTS_DIR... [-o OUTDIR]``: a cohort's marks from its results.json files.

Every ``results.json`` under the given folders is one submission, named by
its folder relative to the given one. The marks go to ``marks.csv`` (one row
a submission: name, total, each test's score) and ``marks.html`` (per test and
for the total: a histogram of the scores, the mean, the median and how many
got full marks; self-contained, no network), with a summary table printed.
A file that cannot be read or is not in Gradescope's format is listed with the
reason and left out.

Who submitted comes from the results' ``extra_data.users`` (the grader copies
Gradescope's submission metadata there), else from a
``submission_metadata.json`` beside the results; when any submission has
them, ``marks.csv`` gets the columns ``students``, ``sid`` and ``email``
(several submitters joined by ``; ``).  Part B results say what the agents
ran under (``extra_data.sandbox``): ``marks.csv`` gets a ``sandbox`` column,
and submissions graded unsealed or partly sealed are named in the summary
and the page (one that played no game says ``none: no game played``, and is
not named).
"""
from __future__ import annotations

import csv
import functools
import html
import json
import statistics
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from referee.agent_text import csv_cell, inert_line
from referee.arguments import ArgumentParser
from referee.marking.gradescope import NO_GAME_SANDBOX, as_number, problems, submission_users, user_entries
from ..exit_status import ExitStatus

RESULTS_NAME = "results.json"
METADATA_NAME = "submission_metadata.json"
#: The marks.csv column of each submitter field.
USER_COLUMNS = {"name": "students", "sid": "sid", "email": "email"}
#: Scores with at most this many distinct values get a bar each; more are binned.
MAX_BARS = 12


@dataclass(frozen=True)
class Submission:
    """One submission's marks, as its results.json gives them."""

    name: str
    total: float
    scores: dict[str, float]
    max_scores: dict[str, float]
    users: tuple[dict[str, str], ...] = ()  # who submitted: name, email, sid
    sandbox: str | None = None  # sealed, partly sealed, unsealed or NO_GAME_SANDBOX (Part B); None: not said

    def user_field(self, key: str) -> str:
        """One field of every submitter, joined (a group submits once)."""
        return "; ".join(user[key] for user in self.users if user.get(key))


@dataclass(frozen=True)
class Column:
    """One test (or the total) across the cohort."""

    name: str
    max_score: float
    scores: tuple[float, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.scores) if self.scores else 0.0

    @property
    def full_marks(self) -> int:
        return sum(1 for score in self.scores if score >= self.max_score)


def find_results(folders: list[Path]) -> list[tuple[str, Path]]:
    """Every results.json under ``folders`` with its submission's name, in name order."""
    found: dict[str, Path] = {}
    for folder in folders:
        for path in sorted(folder.rglob(RESULTS_NAME)):
            relative = path.parent.relative_to(folder).as_posix()
            name = folder.name if relative == "." else relative
            if len(folders) > 1 and relative != ".":
                name = f"{folder.name}/{relative}"
            found.setdefault(name, path)
    return sorted(found.items())


def read_submission(name: str, path: Path) -> Submission | str:
    """The submission in ``path``, or why it cannot be used."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return f"is not JSON ({exc})"
    wrong = problems(data)
    if wrong:
        return "is not in Gradescope's format: " + "; ".join(wrong)
    scores: dict[str, float] = {}
    max_scores: dict[str, float] = {}
    for index, test in enumerate(data.get("tests", [])):
        test_name = test.get("name", f"test {index + 1}")
        scores[test_name] = float(test.get("score", 0))
        max_scores[test_name] = float(test.get("max_score", test.get("score", 0)))
    total = float(data["score"]) if "score" in data else sum(scores.values())
    extra = data.get("extra_data") or {}
    users = user_entries(extra.get("users"))
    if not users:
        users, _ = submission_users(path.with_name(METADATA_NAME))
    sandbox = extra.get("sandbox")
    return Submission(name, total, scores, max_scores, users, sandbox if isinstance(sandbox, str) else None)


def columns(submissions: list[Submission]) -> list[Column]:
    """The total, then every test in the order it first appears, each over the submissions that have it."""
    names: dict[str, None] = {}
    for submission in submissions:
        names.update(dict.fromkeys(submission.scores))
    result = [Column(
        "Total",
        max((sum(s.max_scores.values()) for s in submissions), default=0.0),
        tuple(s.total for s in submissions),
    )]
    for name in names:
        having = [s for s in submissions if name in s.scores]
        result.append(Column(
            name, max(s.max_scores[name] for s in having), tuple(s.scores[name] for s in having),
        ))
    return result


def write_csv(submissions: list[Submission], tests: list[str], path: Path) -> None:
    """``marks.csv``; names, submitters and test names (from files a submission's run wrote) as safe cells.

    The submitters' columns appear when any submission names them, the
    sandbox's when any says what its agents ran under.
    """
    users = [key for key in USER_COLUMNS if any(s.user_field(key) for s in submissions)]
    sandbox = any(s.sandbox for s in submissions)
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        head = ["name", *(USER_COLUMNS[key] for key in users), *(["sandbox"] if sandbox else []), "total", *tests]
        writer.writerow([csv_cell(cell) for cell in head])
        for submission in submissions:
            writer.writerow([
                csv_cell(submission.name), *(csv_cell(submission.user_field(key)) for key in users),
                *([csv_cell(submission.sandbox or "")] if sandbox else []), as_number(submission.total),
                *(as_number(submission.scores[t]) if t in submission.scores else "" for t in tests),
            ])


def not_sealed(submissions: list[Submission]) -> list[Submission]:
    """The submissions whose games were played unsealed or partly sealed (their results are weaker).

    One that played no game is not among them: no agent of it ran, sealed or not.
    """
    return [s for s in submissions if s.sandbox is not None and s.sandbox not in ("sealed", NO_GAME_SANDBOX)]


def bars(column: Column) -> list[tuple[str, int]]:
    """The histogram of a column: (label, count) from low scores to high."""
    distinct = sorted(set(column.scores) | {0.0, column.max_score})
    if len(distinct) <= MAX_BARS:
        return [(f"{as_number(value)}", column.scores.count(value)) for value in distinct]
    top = max(column.max_score, max(column.scores))
    width = top / 10 if top > 0 else 1.0
    counts = [0] * 10
    for score in column.scores:
        counts[min(int(max(score, 0.0) / width), 9)] += 1
    return [(f"{as_number(i * width)}–{as_number((i + 1) * width)}", count) for i, count in enumerate(counts)]


def histogram_svg(column: Column) -> str:
    """An inline SVG bar chart of ``bars(column)``, each bar labelled with its score and count."""
    data = bars(column)
    bar_width, gap, height, label = 44, 8, 120, 34
    tallest = max((count for _, count in data), default=0) or 1
    width = len(data) * (bar_width + gap) + gap
    parts = [f'<svg class="histogram" width="{width}" height="{height + label}" '
             f'viewBox="0 0 {width} {height + label}" role="img">']
    for index, (text, count) in enumerate(data):
        x = gap + index * (bar_width + gap)
        bar_height = round((height - 18) * count / tallest)
        y = height - bar_height
        parts.append(
            f'<g class="bin" data-label="{html.escape(text)}" data-count="{count}">'
            f'<rect class="bar" x="{x}" y="{y}" width="{bar_width}" height="{bar_height}"></rect>'
            f'<text class="count" x="{x + bar_width / 2}" y="{y - 4}">{count}</text>'
            f'<text class="label" x="{x + bar_width / 2}" y="{height + 16}">{html.escape(text)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


@functools.cache
def _asset(name: str) -> str:
    """The text of ``assets/<name>`` beside this module, as the page serves it (read once per process)."""
    return resources.files(__package__).joinpath(f"assets/{name}").read_text(encoding="utf-8")


def write_html(
    cols: list[Column], skipped: list[tuple[str, str]], path: Path, unsealed: list[Submission] | None = None,
) -> None:
    count = len(cols[0].scores)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>Marks</title>',
        f"<style>{_asset('marks.css')}</style></head><body>",
        f"<h1>Marks: {count} submission{'s' if count != 1 else ''}</h1>",
    ]
    if unsealed:
        parts.append(f'<section class="unsealed"><p>{len(unsealed)} of {count} submissions were graded without '
                     "a full sandbox: their agents were not kept apart from their opponents and the grader.</p><ul>")
        parts += [f"<li>{html.escape(s.name)}: {html.escape(s.sandbox or '')}</li>" for s in unsealed]
        parts.append("</ul></section>")
    parts.append('<table id="summary"><thead><tr><th>test</th><th>max</th><th>mean</th><th>median</th>'
                 "<th>full marks</th><th>submissions</th></tr></thead><tbody>")
    for col in cols:
        parts.append(
            f"<tr><td>{html.escape(col.name)}</td><td>{as_number(col.max_score)}</td>"
            f"<td>{as_number(round(col.mean, 2))}"
            f"</td><td>{as_number(col.median)}</td><td>{col.full_marks}</td><td>{len(col.scores)}</td></tr>"
        )
    parts.append("</tbody></table>")
    for col in cols:
        parts.append(
            f'<section class="test" data-test="{html.escape(col.name)}"><h2>{html.escape(col.name)}</h2>'
            f"<p>out of {as_number(col.max_score)}: mean {as_number(round(col.mean, 2))}, "
            f"median {as_number(col.median)}, full marks {col.full_marks} of {len(col.scores)}</p>"
            f"{histogram_svg(col)}</section>"
        )
    if skipped:
        parts.append('<section class="skipped"><h2>Left out</h2><ul>')
        parts += [f"<li>{html.escape(name)}: {html.escape(reason)}</li>" for name, reason in skipped]
        parts.append("</ul></section>")
    parts.append("</body></html>\n")
    path.write_text("\n".join(parts), encoding="utf-8")


def summary_table(cols: list[Column]) -> str:
    from tabulate import tabulate

    rows = [
        [inert_line(col.name), as_number(col.max_score), as_number(round(col.mean, 2)), as_number(col.median),
         f"{col.full_marks}/{len(col.scores)}"]
        for col in cols
    ]
    return tabulate(rows, headers=["test", "max", "mean", "median", "full marks"], tablefmt="simple")


def main(argv: list[str]) -> int:
    parser = ArgumentParser(
        prog="python -m referee autograde report",
        description="A cohort's marks (marks.csv, marks.html) from a folder of results.json files.",
    )
    parser.add_argument("folders", nargs="+", type=Path, metavar="RESULTS_DIR",
                        help="folders holding one results.json per submission (in sub-folders)")
    parser.add_argument("-o", "--output", type=Path, default=Path("."), metavar="OUTDIR",
                        help="where to write marks.csv and marks.html (default: here)")
    args = parser.parse_args(argv)
    missing = [folder for folder in args.folders if not folder.is_dir()]
    if missing:
        print(f"autograde report: error: no such folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return ExitStatus.USAGE
    found = find_results(args.folders)
    submissions: list[Submission] = []
    skipped: list[tuple[str, str]] = []
    for name, path in found:
        read = read_submission(name, path)
        if isinstance(read, str):
            skipped.append((name, f"{path} {read}"))
        else:
            submissions.append(read)
    for name, reason in skipped:
        print(f"autograde report: left out {inert_line(name)}: {inert_line(reason)}", file=sys.stderr)
    if not submissions:
        where = " ".join(map(str, args.folders))
        why = f"none of the {len(found)} {RESULTS_NAME} files could be used" if found else f"no {RESULTS_NAME} found"
        print(f"autograde report: error: {why} under {where}", file=sys.stderr)
        return ExitStatus.USAGE
    cols = columns(submissions)
    try:
        args.output.mkdir(parents=True, exist_ok=True)
        write_csv(submissions, [col.name for col in cols[1:]], args.output / "marks.csv")
        write_html(cols, skipped, args.output / "marks.html", not_sealed(submissions))
    except OSError as exc:
        print(f"autograde report: error: cannot write to {args.output}: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    print(summary_table(cols))
    unsealed = not_sealed(submissions)
    if unsealed:
        print(f"{len(unsealed)} of {len(submissions)} submissions were graded without a full sandbox: "
              + ", ".join(f"{inert_line(s.name)} ({s.sandbox})" for s in unsealed))
    print(f"{len(submissions)} submissions; left out {len(skipped)}. "
          f"Wrote {args.output / 'marks.csv'} and {args.output / 'marks.html'}.")
    return 0
