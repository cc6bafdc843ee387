"""Referee overhead: a whole game's wall time, and one call's round trip.

    python -m benchmarks.referee [--games N] [--calls N] [--against DIR]

* Wall time of a full 343-action game between two random agents (which
  answer in microseconds), process start-up included, through
  :func:`referee.match.play_match`: everything ``python -m referee`` does
  but printing.
* The same game played in-process, agents called directly with no isolation:
  the baseline the isolation's cost is measured against.
* Round-trip latency of one call (``turn()`` on an agent that does nothing):
  median and 99th percentile.
* Each of these unsealed and sealed (``--sandbox off`` and ``auto``), one
  after the other, plus an agent's start-up time (process, sandbox, import,
  ``__init__``).
* The floor under that: a bare two-process echo over pipes with the same
  message, no referee code at all, measured in the same run.  On this
  machine's virtual CPUs the floor moves a lot with how busy the machine has
  just been (about 11 us when warm, 80 us after a quiet spell, when each
  wake-up waits for an idle CPU), so compare the call's latency with it.
* ``--against DIR``: only the sealed game, played in turn by this checkout
  and by the checkout in DIR (another version: ``git worktree add DIR REV``),
  each in processes of its own, so that both meet the same machine.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from referee.games.infexion import InfexionState
from referee.game import PlayerColor
from referee.game.actions import to_engine_action
from referee.hosting.process import HostedAgent
from referee.limits import Limits
from referee.hosting.sandbox import Sandbox, resolve
from referee.match import AgentEntry, MatchSettings, play_match


def find_full_length_seed() -> int:
    """A seed for which two random agents play all 343 actions."""
    for seed in range(100):
        if play_in_process(seed) == 343:
            return seed
    raise RuntimeError("no seed gives a 343-action game")


def play_in_process(seed: int) -> int:
    from agents.random_agent import Agent

    kwargs = {"seed": seed, "time_remaining": None, "space_limit": None, "space_remaining": None}
    agents = [Agent(color=PlayerColor.RED, **kwargs), Agent(color=PlayerColor.BLUE, **kwargs)]
    state = InfexionState()
    while not state.is_over:
        mover = state.current_player
        action = agents[mover].action(**kwargs)
        state.apply_checked(to_engine_action(action))
        if state.is_over:
            break
        for agent in agents:
            agent.turn(PlayerColor(mover), action, **kwargs)
    return state.turn


_ECHO = """
import os, sys
r, w = int(sys.argv[1]), int(sys.argv[2])
while True:
    data = os.read(r, 65536)
    if not data:
        break
    os.write(w, b'{"ok":true}\\n')
"""


def pipe_floor(message: bytes, calls: int) -> list[float]:
    """Round trips of a bare echo process over pipes (no referee code)."""
    import select
    import subprocess
    import sys

    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    child = subprocess.Popen(
        [sys.executable, "-c", _ECHO, str(to_child_r), str(from_child_w)], pass_fds=(to_child_r, from_child_w)
    )
    os.close(to_child_r)
    os.close(from_child_w)
    poller = select.poll()
    poller.register(from_child_r, select.POLLIN)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        os.write(to_child_w, message)
        poller.poll(1000)
        os.read(from_child_r, 65536)
        times.append(time.perf_counter() - start)
    os.close(to_child_w)
    child.wait()
    os.close(from_child_r)
    return sorted(times)


def start_up(sandbox: Sandbox) -> float:
    """Seconds from nothing to an agent constructed and ready for its first call."""
    begin = time.perf_counter()
    limits = Limits(time_limit=180, space_limit=250)
    agent = HostedAgent("RED", "benchmarks.noop_agent", "Agent", "infexion", {}, limits, sandbox=sandbox)
    agent.start()
    agent.wait_ready()
    agent.call({"op": "init", "module": "benchmarks.noop_agent", "class": "Agent", "color": "RED", "kwargs": {}})
    took = time.perf_counter() - begin
    agent.close()
    return took


def round_trips(sandbox: Sandbox, calls: int) -> list[float]:
    """Round trips of ``turn()`` on an agent that does nothing (frozen in between when sealed)."""
    limits = Limits(time_limit=180, space_limit=250)
    agent = HostedAgent("RED", "benchmarks.noop_agent", "Agent", "infexion", {}, limits, sandbox=sandbox)
    agent.start()
    agent.wait_ready()
    agent.call({"op": "init", "module": "benchmarks.noop_agent", "class": "Agent", "color": "RED", "kwargs": {}})
    rtts = []
    for _ in range(calls):
        start = time.perf_counter()
        agent.call(TURN)
        rtts.append(time.perf_counter() - start)
    agent.close()
    return sorted(rtts)


TURN = {
    "op": "turn",
    "color": "BLUE",
    "action": "SPREAD(3, 4, 0, 1)",
    "kwargs": {"time_remaining": 100.0, "space_limit": 250, "space_remaining": 240.0},
}


def _line(name: str, values: list[float], unit: float, fmt: str) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"  {name:<9} median {statistics.median(ordered) * unit:{fmt}}   best {ordered[0] * unit:{fmt}}   "
        f"worst {ordered[-1] * unit:{fmt}}   p99 {p99 * unit:{fmt}}"
    )


#: One sealed 343-action game, timed, with only what every version of the referee has; prints seconds.
_SEALED_GAME = """
import sys, time
from referee.limits import Limits
from referee.match import AgentEntry, MatchSettings, play_match
entry = AgentEntry("agents.random_agent")
settings = MatchSettings(seed=int(sys.argv[1]), limits=Limits(time_limit=180, space_limit=250), sandbox="required")
for _ in range(int(sys.argv[2])):
    begin = time.perf_counter()
    record = play_match(entry, entry, settings)
    took = time.perf_counter() - begin
    assert record.turns == 343 and record.error == {"RED": None, "BLUE": None}, record.message
    print(took)
"""


def side_by_side(baseline: str, rounds: int) -> None:
    """Sealed games of this checkout and of ``baseline``, a few at a time in turn."""
    import subprocess
    import sys
    from pathlib import Path

    here = str(Path(__file__).resolve().parent.parent)
    seed = find_full_length_seed()
    walls: dict[str, list[float]] = {here: [], baseline: []}
    for _ in range(rounds):
        for root in walls:
            out = subprocess.run(
                [sys.executable, "-c", _SEALED_GAME, str(seed), "3"], cwd=root, check=True, capture_output=True,
                text=True, env=dict(os.environ, PYTHONPATH=root),
            ).stdout
            walls[root] += [float(line) for line in out.split()]
    print(f"a whole sealed 343-action game, {3 * rounds} games each, in turn:")
    for root, name in ((baseline, "baseline"), (here, "this")):
        print(_line(name, walls[root], 1, ".3f") + f"  s  ({root})")
    change = statistics.median(walls[here]) / statistics.median(walls[baseline]) - 1
    print(f"  this checkout's median is {change:+.1%} of the baseline's")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.referee", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--against", metavar="DIR", help="time sealed games against the checkout in DIR only")
    args = parser.parse_args(argv)
    if args.against:
        side_by_side(os.path.abspath(args.against), args.games)
        return

    # Unsealed and sealed (whatever "auto" gives here), interleaved so that
    # the machine's drift affects both alike.
    modes = {"unsealed": resolve("off"), "sealed": resolve("auto")}
    print(f"sealed here means: {modes['sealed'].describe()}")
    seed = find_full_length_seed()
    entry = AgentEntry("agents.random_agent")
    walls: dict[str, list[float]] = {name: [] for name in modes}
    starts: dict[str, list[float]] = {name: [] for name in modes}
    for _ in range(args.games):
        for name, sandbox in modes.items():
            settings = MatchSettings(
                seed=seed,
                limits=Limits(time_limit=180, space_limit=250),
                sandbox="off" if name == "unsealed" else "auto",
            )
            begin = time.perf_counter()
            record = play_match(entry, entry, settings)
            walls[name].append(time.perf_counter() - begin)
            assert record.turns == 343 and record.error == {"RED": None, "BLUE": None}, record.message
            starts[name].append(start_up(sandbox))
    inproc = []
    for _ in range(args.games):
        begin = time.perf_counter()
        play_in_process(seed)
        inproc.append(time.perf_counter() - begin)
    rtts = {name: round_trips(sandbox, args.calls) for name, sandbox in modes.items()}
    floor = pipe_floor(json.dumps(TURN).encode() + b"\n", args.calls)

    print(f"full 343-action game, 2 agent processes (-t 180 -s 250), {args.games} games each:")
    for name in modes:
        print(_line(name, walls[name], 1, ".3f") + "  s")
    print(f"  same game in-process, no isolation (baseline): median {statistics.median(inproc):.3f} s")
    print(f"one agent's start-up (process, sandbox, import, __init__), {args.games} each:")
    for name in modes:
        print(_line(name, starts[name], 1e3, ".1f") + "  ms")
    print(f"one call's round trip over {args.calls} calls:")
    for name in modes:
        print(_line(name, rtts[name], 1e6, ".0f") + "  us")
    print(_line("bare pipe", floor, 1e6, ".0f") + "  us  (two processes echoing, no referee code: the floor)")


if __name__ == "__main__":
    main()
