"""Ranking quality of round robin, Swiss and ladder on simulated games.

    python -m benchmarks.pairing [--sizes 32,64,128,300] [--reps 8,5,3,1] [--quick]

No processes: a field of n agents gets true Elo ratings drawn uniformly from
0-1500 by a seeded RNG, and a game between a and b is decided by the logistic
model (a's expected score 1 / (1 + 10^((b - a)/400))), with draws taking
``DRAW`` x 4p(1-p) of the probability (most draws between equals).

* round robin: every pair plays 2 games; ranked by score (with every pair
  playing the same number of games the score orders the agents as the joint
  Bradley-Terry fit does, and costs nothing);
* Swiss: mini-matches of 2 games (both colours) paired by
  ``referee.tournament.formats.pairing.pair_round``, for a few round counts; ranked by
  score, then Buchholz, then Sonneborn-Berger, and (the ", fit" rows) by the
  joint fit of the same games;
* ladder: batches from ``ladder_pairs`` on running ratings (an online Elo
  update, uncertainty 400/sqrt(games + 1)) until a game budget is spent;
  ranked by the joint fit ``referee.tournament.ratings.bradley_terry``;
* ladder (format): what ``format: ladder`` plays, ``schedule.ladder_state``
  (batches of n/2 single games paired from the joint fit of every game so
  far), ranked by the joint fit; only up to ``--format-max`` agents, since it
  refits every batch (an n x n inverse in pure Python);
* knockout: ``format: knockout``'s bracket (``referee.tournament.formats.bracket``),
  seeded in a random order (a class has no prior ranking), ties of 2 games
  plus up to two extra pairs; ranked by the round each agent reached (the
  winner first), within a round by the joint fit, and (", fit") by the joint
  fit of its games alone.

Reported per format and n: games played, % of the round robin's games, and
the Spearman correlation of the final ranking with the true order and with
the round robin's ranking, averaged over seeded repetitions.
"""
from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence

from referee.match import AgentEntry
from referee.tournament.ratings import bradley_terry
from referee.tournament.formats import bracket as brackets
from referee.tournament.formats.ladder import Ladder, LadderMemo, ladder_state
from referee.tournament.schedule import TournamentPlan
from referee.tournament.formats.pairing import Result, default_rounds, ladder_pairs, pair_round, scores, standings

DRAW = 0.2
SPREAD = 1500.0

Game = Callable[[str, str], float]


def field(size: int, rng: random.Random) -> dict[str, float]:
    """True Elo by agent name."""
    return {f"a{i:03d}": rng.uniform(0.0, SPREAD) for i in range(size)}


def game(truth: dict[str, float], rng: random.Random) -> Game:
    """A simulated game: a's score (1, 0.5 or 0) against b."""
    def play(a: str, b: str) -> float:
        p = 1.0 / (1.0 + 10.0 ** ((truth[b] - truth[a]) / 400.0))
        draw = DRAW * 4.0 * p * (1.0 - p)
        r = rng.random()
        if r < p - draw / 2:
            return 1.0
        return 0.5 if r < p + draw / 2 else 0.0
    return play


def spearman(first: Sequence[str], second: Sequence[str]) -> float:
    """Spearman's rank correlation of two orderings of the same names."""
    where = {name: i for i, name in enumerate(second)}
    n = len(first)
    squares = sum((i - where[name]) ** 2 for i, name in enumerate(first))
    return 1.0 - 6.0 * squares / (n * (n * n - 1))


def round_robin(names: list[str], play: Game) -> tuple[list[str], int]:
    """Ranking and games played."""
    results: list[Result] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            results.append((a, b, (play(a, b) + 1.0 - play(b, a)) / 2))
    points = scores(names, results)
    return sorted(names, key=lambda n: -points[n]), 2 * len(results)


def fitted(names: list[str], results: Sequence[Result]) -> list[str]:
    """Ranking by the joint Bradley-Terry fit of mini-match results (each counted as 2 games)."""
    tally: dict[tuple[str, str], tuple[int, int, int]] = {}
    for a, b, score in results:
        # A mini-match score of 1, 0.75, 0.5, 0.25, 0 is 2 games' wins, draws and losses.
        wins, draws = {1.0: (2, 0), 0.75: (1, 1), 0.5: (0, 2), 0.25: (0, 1), 0.0: (0, 0)}[score]
        w, d, l_ = tally.get((a, b), (0, 0, 0))
        tally[(a, b)] = (w + wins, d + draws, l_ + 2 - wins - draws)
    fit = bradley_terry(names, tally)
    return sorted(names, key=lambda n: -fit.ratings[n].elo) if fit.ratings else list(names)


def swiss(names: list[str], play: Game, rounds: int) -> tuple[list[str], list[str], int]:
    """Rankings (score, Buchholz, Sonneborn-Berger; the joint fit) and games played."""
    results: list[Result] = []
    met: set[frozenset[str]] = set()
    colours = {name: "" for name in names}
    byes: list[str] = []
    for _ in range(rounds):
        current = scores(names, results, byes)
        pairing = pair_round(names, current, met, colours, byes)
        if pairing.bye:
            byes.append(pairing.bye)
        for red, blue in pairing.pairs:
            # Both colours in each mini-match: the colour record stays even.
            results.append((red, blue, (play(red, blue) + 1.0 - play(blue, red)) / 2))
            met.add(frozenset((red, blue)))
    return standings(names, results, byes), fitted(names, results), 2 * len(results)


def ladder(names: list[str], play: Game, budget: int) -> tuple[list[str], int]:
    """Ranking (joint fit) and games played, batches of single games until ``budget``."""
    elo = {name: 0.0 for name in names}
    games = {name: 0 for name in names}
    tally: dict[tuple[str, str], tuple[int, int, int]] = {}
    played = 0
    previous: list[tuple[str, str]] = []
    while played < budget:
        ratings = {n: (elo[n], 400.0 / math.sqrt(games[n] + 1)) for n in names}
        batch = ladder_pairs(ratings, budget - played, avoid={frozenset(p) for p in previous})
        if not batch:
            break
        for a, b in batch:
            score = play(a, b)
            expected = 1.0 / (1.0 + 10.0 ** ((elo[b] - elo[a]) / 400.0))
            # K shrinks with experience: large early moves, then settling.
            for name, delta in ((a, score - expected), (b, expected - score)):
                elo[name] += 400.0 / (games[name] + 4) * delta
                games[name] += 1
            w, d, l_ = tally.get((a, b), (0, 0, 0))
            tally[(a, b)] = (w + (score == 1.0), d + (score == 0.5), l_ + (score == 0.0))
        played += len(batch)
        previous = batch
    fit = bradley_terry(names, tally)
    if not fit.ratings:  # no joint scale: fall back on the running ratings
        return sorted(names, key=lambda n: -elo[n]), played
    return sorted(names, key=lambda n: -fit.ratings[n].elo), played


def ladder_format(names: list[str], play: Game, budget: int) -> tuple[list[str], int]:
    """Ranking (joint fit) and games played by ``format: ladder``'s own pairing, batch by batch."""
    agents = tuple(AgentEntry(spec="agents.random_agent", name=name) for name in names)
    ladder = Ladder(budget=budget)
    plan = TournamentPlan(name="bench", agents=agents, format=ladder)
    winners: dict[int, str | None] = {}
    memo: LadderMemo = {}
    while len(winners) < budget:
        rounds, _ = ladder_state(plan, winners, memo)
        start = (len(rounds) - 1) * ladder.round_games(plan)
        for offset, (red, blue) in enumerate(rounds[-1].pairs):
            score = play(red, blue)
            winners[start + offset] = "RED" if score == 1.0 else "BLUE" if score == 0.0 else None
    _, results = ladder_state(plan, winners, memo)
    tally: dict[tuple[str, str], tuple[int, int, int]] = {}
    for red, blue, score in results:
        w, d, l_ = tally.get((red, blue), (0, 0, 0))
        tally[(red, blue)] = (w + (score == 1.0), d + (score == 0.5), l_ + (score == 0.0))
    fit = bradley_terry(names, tally)
    if not fit.ratings:  # too few games to connect the field: by score, as the standings then rank
        points = scores(names, results)
        return sorted(names, key=lambda n: -points[n]), len(results)
    return sorted(names, key=lambda n: -fit.ratings[n].elo), len(results)


def knockout(names: list[str], play: Game, rng: random.Random) -> tuple[list[str], list[str], int]:
    """Rankings (round reached, then the fit; the fit alone) and games played by a randomly seeded bracket."""
    seeds = list(names)
    rng.shuffle(seeds)
    winners: dict[int, str | None] = {}
    while True:
        bracket = brackets.state(seeds, 2, winners)
        pending = sorted(i for i in bracket.games if i not in winners)
        if not pending:
            break
        for index in pending:
            red, blue, _ = bracket.games[index]
            score = play(red, blue)
            winners[index] = "RED" if score == 1.0 else "BLUE" if score == 0.0 else None
    tally: dict[tuple[str, str], tuple[int, int, int]] = {}
    for index, winner in winners.items():
        red, blue, _ = bracket.games[index]
        w, d, l_ = tally.get((red, blue), (0, 0, 0))
        tally[(red, blue)] = (w + (winner == "RED"), d + (winner is None), l_ + (winner == "BLUE"))
    fit = bradley_terry(names, tally)
    elo = {n: fit.ratings[n].elo if fit.ratings else 0.0 for n in names}
    reached = dict.fromkeys(names, 0)
    for tie in bracket.ties:
        for name in (tie.high, tie.low):
            if name is not None:
                reached[name] = max(reached[name], tie.round + (tie.winner == name))
    by_round = sorted(names, key=lambda n: (-reached[n], -elo[n]))
    return by_round, sorted(names, key=lambda n: -elo[n]), len(winners)


def measure(size: int, rep: int, format_max: int = 128) -> list[tuple[str, tuple[int, float, float]]]:
    """One seeded field of ``size``: (format, (games, rho vs truth, rho vs round robin)) per format."""
    rng = random.Random(1000 * size + rep)
    truth = field(size, rng)
    names = list(truth)
    true_order = sorted(names, key=lambda n: -truth[n])
    play = game(truth, rng)
    rr, rr_games = round_robin(names, play)
    runs: list[tuple[str, tuple[list[str], int]]] = [("round robin", (rr, rr_games))]
    base = default_rounds(size)
    for rounds in sorted({base, 2 * base, 3 * base}):
        if rounds < size:
            by_score, by_fit, played = swiss(names, play, rounds)
            runs.append((f"swiss {rounds} rounds", (by_score, played)))
            runs.append((f"swiss {rounds} rounds, fit", (by_fit, played)))
    for share in (0.05, 0.10, 0.15):
        runs.append((f"ladder {share:.0%} budget", ladder(names, play, int(share * size * (size - 1)))))
    by_round, by_fit, played = knockout(names, play, rng)
    runs += [("knockout", (by_round, played)), ("knockout, fit", (by_fit, played))]
    if size <= format_max:
        for share in (0.05, 0.10, 0.15):
            budget = int(share * size * (size - 1))
            runs.append((f"ladder (format) {share:.0%}", ladder_format(names, play, budget)))
    return [(label, (played, spearman(ranking, true_order), spearman(ranking, rr)))
            for label, (ranking, played) in runs]


def main(argv: Sequence[str] | None = None) -> None:
    """Print the quality table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="32,64,128,300")
    parser.add_argument("--reps", default="6,4,2,1", help="repetitions per size")
    parser.add_argument("--quick", action="store_true", help="one repetition each, sizes 32 and 64")
    parser.add_argument("--format-max", type=int, default=128, help="largest field for the ladder (format) rows")
    args = parser.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    reps = [int(x) for x in args.reps.split(",")]
    if args.quick:
        sizes, reps = [32, 64], [1, 1]
    start = time.monotonic()
    print(f"{'n':>4} {'format':<27} {'games':>7} {'% RR':>6} {'rho true':>9} {'rho RR':>7}")
    for size, repeats in zip(sizes, reps + [reps[-1]] * len(sizes)):
        rows: dict[str, list[tuple[int, float, float]]] = {}
        all_games = size * (size - 1)
        for rep in range(repeats):
            for label, row in measure(size, rep, args.format_max):
                rows.setdefault(label, []).append(row)
        for label, values in rows.items():
            played = sum(v[0] for v in values) / len(values)
            rho_true = sum(v[1] for v in values) / len(values)
            rho_rr = sum(v[2] for v in values) / len(values)
            print(f"{size:>4} {label:<27} {played:>7.0f} {100 * played / all_games:>5.1f}% "
                  f"{rho_true:>9.3f} {rho_rr:>7.3f}", flush=True)
    print(f"({time.monotonic() - start:.0f} s)")


if __name__ == "__main__":
    main()
