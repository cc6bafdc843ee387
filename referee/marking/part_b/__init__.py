"""``python -m referee autograde partB``: a gauntlet of a submitted agent against reference agents, marked.

    python -m referee autograde partB [--submission DIR] [--scheme FILE] [--results FILE] [--workers N]

The submission folder (default ``/autograder/submission``) holds the course's
top-level package ``agent/``.  Its agent plays every opponent of the marking
scheme ``games_per_opponent`` times, half as Red and half as Blue, each game
one :func:`referee.match.play_match` with both agents in their own sealed
processes under the scheme's limits (the course's: 180 CPU seconds and 250 MB
per agent per game), started in the submission folder.  The grader writes
Gradescope's ``results.json`` (default ``/autograder/results/results.json``),
every game's record beside it (``results.games.jsonl`` for ``results.json``:
``python -m referee replay FILE --game-index N`` replays one), and prints the
marks as a table.  Exit status 0 whenever results were written, whatever the
marks; 2 for a bad command line, scheme or submission folder.

Tests:

* one per opponent: the submission's score against it (a win 1, a draw ½,
  over the games) picks the highest band it reaches, worth that band's
  ``fraction`` of the opponent's ``marks``; without ``bands``, the marks are
  in proportion to the score;
* ``Loads and plays legally``: the agent loads, and in no game does it raise,
  crash, break the protocol or play an illegal action;
* ``Never exceeds the time limit`` and ``Never exceeds the memory limit``: no
  game lost by ``time_limit`` or ``space_limit``.

Each check also needs the agent to have played at least one action: one that
never got an action out has shown nothing.

The feedback of a game lost by the rules names its turning point in one
sentence (:mod:`.turning`): the first such game told for each opponent is
analysed by the referee's MCTS (:mod:`referee.analysis`) once every game is
over, within a time budget; an analysis that fails leaves the sentence out.

A submission that does not load plays no game: every test gets 0 and the
load test says why.  The leaderboard gets the submission's Elo: the joint
Bradley-Terry fit of all the games (:func:`referee.tournament.ratings.bradley_terry`),
relative to the mean rating of the reference agents.

The scheme (YAML; ``--scheme``, default ``/autograder/source/scheme.yaml``,
else :data:`DEFAULT_SCHEME`)::

    game: infexion            # default infexion
    game_options: {}          # the game's options, e.g. {n: 7} for Cachex
    agent: agent              # the submission's agent spec, found in the submission folder
    nested_agent: true        # use an agent/ found one folder down (a zipped folder); false: refuse it
    time_limit: 180           # CPU seconds per agent per game (0: none)
    space_limit: 250          # MB per agent (0: none)
    call_timeout: 600         # optional: wall seconds any one call may last
    games_per_opponent: 4     # even, >= 2: both colours equally
    seed: 0                   # every game's seed derives from it
    sandbox: auto             # auto, required or off
    visibility: visible       # of every test: hidden, after_due_date, after_published, visible
    opponents:
      - name: random          # default: the spec's last part
        spec: agents.random_agent
        options: {}           # keyword arguments of every call to the opponent
        time_limit: 18        # optional: its own limits (time_limit, space_limit); games at odds
        marks: 2
        bands:                # highest min_score reached gives fraction x marks
          - {min_score: 0.75, fraction: 1.0}
          - {min_score: 0.5, fraction: 0.5}
      - {name: quick-minimax, spec: agents.minimax, options: {max_move_time: 0.2}, marks: 3}
    checks:                   # marks of the three checks (default 1 each)
      plays_legally: 1
      time_limit: 1
      space_limit: 1
    turning_points:           # the turning point of lost games, in their feedback (these are the defaults)
      games: 1                # games lost by the rules analysed per opponent, the first told (0: none)
      iterations: 400         # MCTS simulations a position
      seconds: 60             # wall-clock budget of all the analyses together

A time-limited reference agent is made with its options (for the bundled
agents, ``max_move_time``, or ``depth`` for minimax): the limits are the same for both
players of a game.
"""
from __future__ import annotations

# The modules, in the order a submission goes through them; their public names are importable from here.
from .scheme import (
    BAND_FIELDS, CHECKS, DEFAULT_SCHEME, OPPONENT_FIELDS, SCHEME_FILE, SUBMISSION_NAME, TOP_FIELDS, Band, Opponent,
    Scheme, SchemeError, TurningPoints, load_scheme, parse_scheme,
)
from .submission import Found, Unplayed, find_agent, nested_note, unplayed
from .games import Game, gauntlet, match_settings, opponent_problems, play_games, write_games
from .marks import (
    DETAILED_GAMES, SHOWN_GAMES, UNLAWFUL, UNLAWFUL_OR_LIMIT, VERDICT_WORDS, Marking, check_tests, headline,
    not_won, opponent_test, play_again, stories, story, submission_elo,
)
from .turning import lost_by_the_rules, turning_points
from .command import PROG, games_file_for, main, mark, sandbox_state

__all__ = [
    "BAND_FIELDS", "CHECKS", "DEFAULT_SCHEME", "DETAILED_GAMES", "OPPONENT_FIELDS",
    "PROG", "SCHEME_FILE", "SHOWN_GAMES", "SUBMISSION_NAME", "TOP_FIELDS", "UNLAWFUL", "UNLAWFUL_OR_LIMIT",
    "VERDICT_WORDS", "Band", "Found", "Game", "Marking", "Opponent", "Scheme", "SchemeError", "TurningPoints",
    "Unplayed", "check_tests", "find_agent", "games_file_for", "gauntlet", "headline", "load_scheme",
    "lost_by_the_rules", "main", "mark", "match_settings", "nested_note", "not_won", "opponent_problems",
    "opponent_test", "parse_scheme", "play_again", "play_games", "sandbox_state", "stories", "story",
    "submission_elo", "turning_points", "unplayed", "write_games",
]
