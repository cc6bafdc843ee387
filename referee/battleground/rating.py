"""The battleground's ratings: which finished games count, the fit, and the leaderboard's order.

Pure functions (no I/O, no asyncio), all at module level so that the server can run them in a
``ProcessPoolExecutor``.  Two attacks on a rating of every finished game are closed here:

* **Farming**: a sock puppet that throws hundreds of games to a partner.  Only the first
  :data:`PER_PAIR` games of a pair of names in one :data:`PERIOD_HOURS` period count for the ratings
  (:func:`counted_results`); the rest add nothing.
* **Wiping**: a game between two fresh names used to leave the players unconnected, and the joint
  fit then refused to rate anyone.  :func:`fit_ratings` adds an anchor, a virtual player that every
  player has drawn once with, so every player is always on the one scale (see its docstring).

The leaderboard's wins, draws and losses still count every finished game: only the rating is protected.
"""
from __future__ import annotations

import datetime as _dt
import math
import operator
from typing import Any, TypeVar
from collections.abc import Iterable, Mapping, Sequence

from ..tournament.ratings import ELO_PER_NAT, Z95

#: Games of one pair of names that count per period.  A class's agents play a handful of games a pair
#: a day (a few colour-swapped pairs while testing an idea), which ten keeps whole; a puppet's hundreds
#: a day add nothing past the tenth.
PER_PAIR = 10
#: The period, in hours from the Unix epoch: 24 makes it the UTC day, which holds a class's session of
#: play and which anyone can read off the games' times.
PERIOD_HOURS = 24.0
#: Different opponents a player's counted games must be against before its rating is ranked among the
#: established ones (:func:`leaderboard_key`); before that it is provisional.
MIN_OPPONENTS = 3
#: The virtual player of :func:`fit_ratings`.  Angle brackets cannot be in a name ([A-Za-z0-9_.-]{1,32}), so
#: no player can be it.
ANCHOR = "<anchor>"

#: A finished game as the server keeps it: (red, blue, winner "RED"/"BLUE"/None for a draw, ended_at).
Result = tuple[str, str, str | None, str | None]
#: A counted game: (red, blue, winner).
Counted = tuple[str, str, str | None]
Pairs = Mapping[tuple[str, str], tuple[int, int, int]]
Row = TypeVar("Row", bound=Mapping[str, Any])


def _period(ended_at: str | None, seconds: float) -> int | None:
    """The number of the period a game ended in; None when its end time is unknown or unreadable."""
    if not ended_at:
        return None
    try:
        when = _dt.datetime.fromisoformat(ended_at)
    except ValueError:
        return None
    if when.tzinfo is None:
        # utc_now() always writes the offset; a bare time can only be UTC in this database.
        when = when.replace(tzinfo=_dt.timezone.utc)
    return math.floor(when.timestamp() / seconds)


def counted_results(results: Iterable[Result], per_pair: int = PER_PAIR,
                    period_hours: float = PERIOD_HOURS) -> list[Counted]:
    """The games that count for the ratings, in the order given, as (red, blue, winner).

    ``results`` are the finished games in the order they ended, each (red, blue, winner, ended_at),
    ``ended_at`` an ISO 8601 time as :func:`referee.core.utc_now` writes it.  Of the games of one
    pair of names, whichever of them played red, only the first ``per_pair`` that ended in one period
    count: periods are ``period_hours`` long from the Unix epoch, so the default is the UTC day.  A game
    whose end time is unknown (None: a row from before end times were kept; or unreadable) always
    counts: there is no period to charge it to, and the server writes an end time for every game it
    finishes, so no player can make its games' times unknown.

    The defaults (:data:`PER_PAIR` = 10 games a pair a UTC day) keep everything a class plays and cut a
    puppet to ten games a day.  Over many days a persistent farmer still gains, as a real rivalry would;
    the anchor of :func:`fit_ratings` then bounds what a pair that plays only each other can reach.
    """
    games = CountedGames(per_pair, period_hours)
    return [(red, blue, winner) for red, blue, winner, ended_at in results if games.add(red, blue, winner, ended_at)]


class CountedGames:
    """:func:`counted_results`'s rule one game at a time, for a server that adds its games as they end: each
    pair's tallies of its counted games (:attr:`pairs`, as :func:`pair_tallies` gives them).

    Games are added in the order they ended, so only the current period's counts are kept.
    """

    def __init__(self, per_pair: int = PER_PAIR, period_hours: float = PERIOD_HOURS):
        if per_pair < 0 or not period_hours > 0:
            raise ValueError(f"per_pair must be >= 0 and period_hours > 0, not {per_pair} and {period_hours}")
        self.per_pair = per_pair
        self.seconds = period_hours * 3600.0
        self.pairs: dict[tuple[str, str], tuple[int, int, int]] = {}
        self._period: int | None = None
        self._used: dict[tuple[str, str], int] = {}

    def add(self, red: str, blue: str, winner: str | None, ended_at: str | None) -> bool:
        """Add a finished game; whether it counts for the ratings."""
        a, b = sorted((red, blue))
        period = _period(ended_at, self.seconds)
        if period is not None:
            if period != self._period:
                self._period, self._used = period, {}
            if self._used.get((a, b), 0) >= self.per_pair:
                return False
            self._used[(a, b)] = self._used.get((a, b), 0) + 1
        _tally(self.pairs, red, blue, winner)
        return True


def _tally(pairs: dict[tuple[str, str], tuple[int, int, int]], red: str, blue: str, winner: str | None) -> None:
    """Add a game to its pair's (wins, draws, losses) of the pair's alphabetically first name."""
    a, b = sorted((red, blue))
    wins, draws, losses = pairs.get((a, b), (0, 0, 0))
    if winner is None:
        draws += 1
    elif (winner == "RED") == (a == red):
        wins += 1
    else:
        losses += 1
    pairs[(a, b)] = (wins, draws, losses)


def pair_tallies(results: Iterable[Counted]) -> dict[tuple[str, str], tuple[int, int, int]]:
    """Each pair's (wins, draws, losses) of its alphabetically first name, as :func:`fit_ratings` reads them."""
    pairs: dict[tuple[str, str], tuple[int, int, int]] = {}
    for red, blue, winner in results:
        _tally(pairs, red, blue, winner)
    return pairs


def fit_ratings(names: Iterable[str], pairs: Pairs) -> dict[str, tuple[float, float | None]]:
    """Name -> (Elo, half-width of its 95 % interval or None), for every player who has played a game in ``pairs``.

    ``pairs[(a, b)] = (wins, draws, losses)`` of a against b, as for
    :func:`referee.tournament.ratings.bradley_terry`; ``names`` may list players with no game (they get
    no rating: the leaderboard shows them unrated).

    The fit is the Bradley-Terry fit (a draw half a win) with an **anchor**: a virtual player, fixed at
    0 Elo, that every player who has played is credited with one draw against.  Why this rather than
    fitting each connected group separately: separate fits put the groups on scales that cannot be
    compared, yet the leaderboard ranks them in one list: after one game, two fresh names would sit at
    -+95 (bradley_terry's 1-0 with its virtual draw) among the league as if they were measured on its
    scale.  The anchor is a weak prior (one game's worth) that

    * joins every player to every other, so a game between two fresh names can never leave anyone
      unrated, and a player is rated as soon as it has one game;
    * keeps every rating finite (no one has won or lost all its games once it has drawn the anchor), so
      no extra virtual draws are needed, as bradley_terry adds to every pairing when some player won or
      lost everything (which moved every rating when a newcomer lost its first game);
    * shrinks small samples towards 0: one win against a fresh name is worth +131, and a pair who play
      only each other (a puppet and its partner) reach only what their games against each other justify
      with one draw each against the anchor (10 wins: -+290; 200 wins: -+529).

    The ratings are the maximum-likelihood ones of bradley_terry with the anchor as a player, centred on
    the anchor: 0 is the rating of a player who drew its only game against it (with many players, about
    their mean).  They are computed here by Newton's method rather than by bradley_terry's MM iterations,
    which need thousands of iterations (seconds, for a class) once the virtual draws no longer pull the
    players who win or lose nearly everything towards the others; Newton needs about ten.

    Each interval is the 95 % interval of the player's rating were its opponents' known (as Elo and Glicko
    take them): 1.96 / sqrt(its Fisher information), its games' p (1 - p) summed, the anchor's draw
    included, so never 0 and wide for few games.  Not relative to the players' mean (as bradley_terry's
    are): a farmed pair, rated only through the anchor, would then widen everyone's interval by half (the
    league of the tests: +-148 to +-237).  Not bradley_terry's sandwich intervals either: they rest on the
    observed spread of the scores, 0 for a player whose games were all draws (a fresh name's one draw would
    show as 0 +- 0).  It leaves out how little is known of the opponents, so it is narrow for a player whose
    opponents have few games; and it counts a draw as half a win, so it is wide for one who draws often.
    """
    if ANCHOR in set(names):
        raise ValueError(f"{ANCHOR!r} is the anchor's name, not a player's")
    played: set[str] = set()
    for (a, b), (wins, draws, losses) in pairs.items():
        if ANCHOR in (a, b):
            raise ValueError(f"{ANCHOR!r} is the anchor's name, not a player's")
        if min(wins, draws, losses) < 0:
            raise ValueError(f"{a} against {b}: negative counts {(wins, draws, losses)}")
        if wins + draws + losses > 0:
            played.update((a, b))
    order = sorted(played)
    index = {name: i for i, name in enumerate(order)}
    # (player, opponent or None for the anchor, games, the player's points): one edge a pairing.
    edges: list[_Edge] = [(index[a], index[b], float(w + d + lost), w + d / 2.0)
                          for (a, b), (w, d, lost) in sorted(pairs.items()) if w + d + lost > 0]
    edges += [(i, None, 1.0, 0.5) for i in range(len(order))]
    theta = _maximum_likelihood(len(order), edges)
    _, information = _derivatives(theta, edges)
    # The information is >= the anchor's p (1 - p) > 0, unless a rating is so extreme that p rounds to 1.
    return {name: (theta[i] * ELO_PER_NAT, Z95 * ELO_PER_NAT / math.sqrt(information[i][i])
                   if information[i][i] > 0 else None) for i, name in enumerate(order)}


#: (player, opponent or None for the anchor, games, the player's points): the games of one pairing.
_Edge = tuple[int, "int | None", float, float]
#: Newton stops when no log-strength moves by more than this (6e-8 Elo).
_TOLERANCE = 1e-9
_MAX_STEPS = 200


def _logistic(x: float) -> float:
    """1 / (1 + e^-x), without overflow for any x."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_logistic(x: float) -> float:
    """log(1 / (1 + e^-x)), without overflow for any x."""
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _log_likelihood(theta: Sequence[float], edges: Sequence[_Edge]) -> float:
    return math.fsum(
        points * _log_logistic(x) + (games - points) * _log_logistic(-x)
        for x, games, points in ((theta[i] - (0.0 if j is None else theta[j]), n, w) for i, j, n, w in edges)
    )


def _derivatives(theta: Sequence[float], edges: Sequence[_Edge]) -> tuple[list[float], list[list[float]]]:
    """The gradient of the log-likelihood in the log-strengths, and the Fisher information (minus its Hessian)."""
    size = len(theta)
    gradient = [0.0] * size
    information = [[0.0] * size for _ in range(size)]
    for i, j, games, points in edges:
        p = _logistic(theta[i] - (0.0 if j is None else theta[j]))
        weight = games * p * (1.0 - p)
        gradient[i] += points - games * p
        information[i][i] += weight
        if j is not None:
            gradient[j] -= points - games * p
            information[j][j] += weight
            information[i][j] -= weight
            information[j][i] -= weight
    return gradient, information


def _maximum_likelihood(size: int, edges: Sequence[_Edge]) -> list[float]:
    """The log-strengths (the anchor's 0) that maximise the likelihood, by Newton's method with step halving.

    The anchor's draws make the log-likelihood strictly concave with a finite maximum, so Newton's
    method, halving a step until it does not lower the likelihood, converges from 0."""
    theta = [0.0] * size
    current = _log_likelihood(theta, edges)
    for _ in range(_MAX_STEPS):
        gradient, information = _derivatives(theta, edges)
        lower = _cholesky(information)
        if lower is None:
            # Only rounding can make it singular (a rating so extreme that p (1 - p) is 0): as good as it gets.
            break
        step = _solve(lower, gradient)
        for _halving in range(60):
            trial = [t + d for t, d in zip(theta, step)]
            value = _log_likelihood(trial, edges)
            # Near the maximum a step can lose a rounding error's worth of likelihood: taken all the same.
            if value >= current - 1e-12 * (1.0 + abs(current)):
                break
            step = [d / 2.0 for d in step]
        theta, current = trial, value
        if max((abs(d) for d in step), default=0.0) < _TOLERANCE:
            break
    return theta


def _cholesky(matrix: Sequence[Sequence[float]]) -> list[list[float]] | None:
    """The lower triangular L with L L' = ``matrix`` (symmetric); None if it is not positive definite."""
    size = len(matrix)
    lower: list[list[float]] = []
    for i in range(size):
        row = [0.0] * size
        for j in range(i + 1):
            other = row if j == i else lower[j]
            rest = matrix[i][j] - sum(map(operator.mul, row[:j], other[:j]))
            if j < i:
                row[j] = rest / lower[j][j]
            elif rest <= 0.0:
                return None
            else:
                row[j] = math.sqrt(rest)
        lower.append(row)
    return lower


def _solve(lower: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float]:
    """x with L L' x = ``vector``: forward, then back substitution."""
    size = len(lower)
    y = [0.0] * size
    for i in range(size):
        y[i] = (vector[i] - sum(map(operator.mul, lower[i][:i], y[:i]))) / lower[i][i]
    x = [0.0] * size
    for i in reversed(range(size)):
        x[i] = (y[i] - sum(lower[j][i] * x[j] for j in range(i + 1, size))) / lower[i][i]
    return x


def ratings_of(results: Iterable[Result], per_pair: int = PER_PAIR,
               period_hours: float = PERIOD_HOURS) -> dict[str, tuple[float, float | None]]:
    """:func:`fit_ratings` of the :func:`counted_results` of finished games (red, blue, winner, ended_at)."""
    counted = counted_results(results, per_pair, period_hours)
    return fit_ratings([], pair_tallies(counted))


def standings_of(results: Iterable[Result], per_pair: int = PER_PAIR,
                 period_hours: float = PERIOD_HOURS) -> dict[str, tuple[float, float | None, int]]:
    """Name -> (Elo, 95 % half-width, how many different opponents its counted games were against)."""
    games = CountedGames(per_pair, period_hours)
    for result in results:
        games.add(*result)
    return fit_standings(games.pairs)


def fit_standings(pairs: Pairs) -> dict[str, tuple[float, float | None, int]]:
    """:func:`standings_of` from the counted games' pair tallies (what a server sends its fitting process)."""
    opponents: dict[str, set[str]] = {}
    for a, b in pairs:
        opponents.setdefault(a, set()).add(b)
        opponents.setdefault(b, set()).add(a)
    return {name: (elo, interval, len(opponents.get(name, ())))
            for name, (elo, interval) in fit_ratings([], pairs).items()}


def leaderboard_key(row: Mapping[str, Any]) -> tuple[bool, bool, float, int, str]:
    """Sort key of a leaderboard row ({"name", "rating" (None when unrated), "provisional", "games", ...}).

    Established players first (rated, against at least :data:`MIN_OPPONENTS` different opponents), by rating
    (highest first), then games (most first), then name; then the provisional ones in the same order; then the
    unrated ones by games and name.  A rating earned against one or two opponents, however high, is ranked after
    every established one: a pair that only plays itself (a sock puppet throwing games to its partner) cannot
    top the board.
    """
    rating = row.get("rating")
    return (rating is None, bool(row.get("provisional")), 0.0 if rating is None else -float(rating),
            -int(row.get("games") or 0), str(row["name"]))


def leaderboard_order(rows: Iterable[Row]) -> list[Row]:
    """The leaderboard's rows in :func:`leaderboard_key` order (a new list)."""
    return sorted(rows, key=leaderboard_key)
