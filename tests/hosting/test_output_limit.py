"""Output costs the agent (issue 46): an agent that floods its stdout and stderr is stopped on
``output_limit`` before the referee spends more than a few milliseconds of its own CPU reading it.

What an agent prints goes through one pipe the referee reads in its own process, outside every
agent's cgroup: six processes writing as fast as they can made the referee read gigabytes (3.7 s
of its CPU for an agent's 3 s, ``benchmarks/output_flood.py``).  Real games through the real
command line, from a copy of the tree (as test_sealed.py), with tests/hosting/hostile/flood/;
the defence is shown to be what stops the flood: with the limit lifted
(``REFEREE_OUTPUT_LIMIT=0``) the referee reads on until the agent's clock runs out.
"""
from __future__ import annotations

import re

import pytest

from referee import records
from referee.battleground.protocol import failure_reason
from referee.hosting.failures import AGENT_FAILURE_REASONS, FAILURE_COLUMNS, AgentOutputLimit
from referee.hosting.process import OUTPUT_LIMIT, OUTPUT_LIMIT_ENV
from referee.hosting.monitor import MB
from referee.marking.part_b.marks import UNLAWFUL_OR_LIMIT, VERDICT_WORDS
from referee.match import STOPPED_IN_A_CALL
from referee.tournament.aggregate import aggregate

from .hostile.flood import WRITERS
from .hostile_runs import HOSTILE, RANDOM, RULE_ENDINGS, Game, play
from tests.sandboxing import require_sandbox

FLOODS = f"{HOSTILE}.flood:Floods"
CHATTY = f"{HOSTILE}.flood:Chatty"
LIMIT = f"{OUTPUT_LIMIT / MB:g} MB"
PRINTED_IN_THE_CALL = re.compile(r"; it printed ([0-9.]+) MB during the call")


def red_error(game: Game) -> dict:
    assert game.code == 0 and game.record is not None, game.context()
    return game.record["error"]["RED"] or {}


@pytest.mark.parametrize("sealed", [True, False], ids=["sealed", "unsealed"])
def test_an_agent_that_floods_its_output_loses_on_output_limit(tree, tmp_path, seed, sealed):
    """Six helpers and the agent write 1 MB blocks to stdout and stderr from its first action(), and
    never return.  Expected: RED loses on ``output_limit`` in that call, long before its 3 s are
    spent, with the amount and the limit said, and its stack then (where it printed)."""
    if sealed:
        require_sandbox()
    game = play(tree, tmp_path, FLOODS, RANDOM, "-t", "3", seed=seed, sealed=sealed)
    error = red_error(game)
    assert (game.record["winner"], game.record["reason"]) == ("BLUE", "output_limit"), game.context()
    assert error["message"] == (
        f"printed more than {LIMIT} of output (the limit is {LIMIT} a game), in action() on turn 1"
    ), error["message"]
    assert game.report_with("writers")["writers"] == WRITERS
    assert game.record["time_used"]["RED"] < 3.0, game.record["time_used"]
    assert "hostile/flood/__init__.py" in error["traceback"], error["traceback"]
    assert "flood flood" in error["output_tail"]  # what it printed last is kept, as for any failure


def test_without_the_limit_the_referee_reads_until_the_agents_time_runs_out(tree, tmp_path, seed):
    """The same flood with the limit lifted: the agent loses on time after its 0.5 s, and the referee
    has read far more than the limit meanwhile (the call's message says how much).  So the test
    above can fail."""
    require_sandbox()
    game = play(tree, tmp_path, FLOODS, RANDOM, "-t", "0.5", seed=seed, env={OUTPUT_LIMIT_ENV: "0"})
    error = red_error(game)
    assert game.record["reason"] == "time_limit", game.context()
    printed = PRINTED_IN_THE_CALL.search(error["message"])
    assert printed is not None and float(printed.group(1)) > 4 * OUTPUT_LIMIT / MB, error["message"]


def test_an_honest_agent_that_prints_at_every_call_plays_on(tree, tmp_path, seed):
    """The board and a few lines of thought in each call (about 0.6 MB a game): a normal game,
    its output shown as usual."""
    require_sandbox()
    game = play(tree, tmp_path, CHATTY, RANDOM, seed=seed)
    assert red_error(game) == {} and game.record["reason"] in RULE_ENDINGS, game.context()
    assert game.out.count("RED | considering SPAWN(") > 10, game.out[-2000:]


def test_the_limit_is_for_the_whole_game(tree, tmp_path, seed):
    """With a limit of 50 KB (for this test), the same honest agent goes over it only after many
    calls of 1 KB each: the verdict lands in a later call, and says the limit."""
    game = play(tree, tmp_path, CHATTY, RANDOM, seed=seed, sealed=False, env={OUTPUT_LIMIT_ENV: "0.05"})
    error = red_error(game)
    assert (game.record["winner"], game.record["reason"]) == ("BLUE", "output_limit"), game.context()
    message = error["message"]
    assert message.startswith("printed more than 0.05 MB of output (the limit is 0.05 MB a game), in "), message
    assert int(re.search(r"turn (\d+)", message).group(1)) > 10, message


def test_the_verdict_is_known_wherever_verdicts_are_read():
    """Records, the tournament's endings table (its own column), the battleground's ``failed``,
    the verdict's place (which call) and the marking's words all know ``output_limit``."""
    assert AgentOutputLimit.reason == "output_limit" and "output_limit" in records.REASONS
    assert FAILURE_COLUMNS["output_limit"] == "output" and "output" in aggregate([]).ending_columns
    assert failure_reason({"reason": "output_limit"}) == "output_limit"
    assert AgentOutputLimit in STOPPED_IN_A_CALL
    assert set(VERDICT_WORDS) == set(AGENT_FAILURE_REASONS) and "output_limit" in UNLAWFUL_OR_LIMIT
