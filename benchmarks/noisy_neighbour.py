"""Whether an agent that keeps every CPU busy in its calls makes an honest agent of another game lose on time.

    python -m benchmarks.noisy_neighbour [--repeats 2] [--think 0.3] [--moves 8] [-t T] [--grace 1]
                                         [--long-limit 60] [--mode sessions] [--spinners 60]
                                         [--spin-seconds 2] [--keep | --no-keep]

Plays two games at once, each in a process of its own (as a tournament's two
workers do), sealed (``--sandbox required``):

* game B, the one watched: ``tests.hosting.hostile.spin:Computes`` (honest,
  one thread: ``--think`` CPU seconds of work in each of its first
  ``--moves`` actions) against the random agent, under ``-t`` (default
  twice its CPU need, so that with a fair share of the machine it finishes
  with half its clock left) and a small ``--grace``;
* game A, beside it, played again and again until game B ends, one of:

  - ``random``: the random agent against itself (the baseline: a fair
    neighbour);
  - ``spinner``: ``tests.hosting.hostile.spin:Spins`` (as many busy helpers
    as the pids limit allows, spinning through ``--spin-seconds`` of each
    of its calls, in ``--mode`` threads, processes or sessions, kept from
    call to call unless ``--no-keep``) against the random agent, under the
    same limits as game B.  Its clock runs out after a few calls, and the
    next game A starts: between two games the honest agent has the CPU;
  - ``spin-t60``: the same with ``--long-limit`` CPU seconds, as in a
    tournament with a long clock (``-t 180``), where a spinner keeps both
    CPUs busy for half its clock without a break.

Each repeat plays the three in turn.  For the honest agent the table gives
its verdict, its CPU seconds, the CPU and wall seconds of its thinking
calls and their ratio (about 1 on a machine that gives it a core), the
worst single call's ratio, and the watchdog's headroom: the least wall
seconds a call had left.  The watchdog lets a call last the agent's
remaining CPU time + the grace + its wait for a CPU up to
``WAIT_PER_CPU_SECOND`` (10) wall seconds per CPU second, so a call that
waits more than that per CPU second eats into the rest, and loses once it
is spent.  The load average is printed with every row (the spinner's
helpers count in it).

On this 2-core machine (2026-11-28, at ced6ebc, another session's tests
running beside it: load average 26 to 52, the spinner's helpers counted),
with the defaults: beside a fair neighbour the honest agent got 1.3 to 1.8
wall seconds per CPU second; beside the spinner of the same ``-t 4.8``,
9.2 and 10.2 (worst call 10.6), and it finished with 3.4 s of headroom;
beside the ``-t 60`` spinner it lost its first thinking call on time in
both repeats: 8.3 s of wall for 0.26 s of CPU, 7.9 s of it waiting for a
CPU.  (Earlier, busier: 3.4 beside the fair neighbour, 12.2 and 12.5
beside the spinner, the same losses.)  With one clock for both games,
``--think 3 --long-limit 48`` (``-t 48``), it lost its first call beside
either spinner: 74.7 s of wall for 2.58 s of CPU.  With ``--no-keep`` it
finished (worst call 13 and 21).  With each agent in a v1 ``cpu`` cgroup
of its own (equal ``cpu.shares``; tried in a copy of the referee): 1.1 to
1.2 beside either spinner, 1.2 to 1.3 beside the fair neighbour.
``--mode processes`` and ``threads`` did no harm (2.5 to 3.3 at a busier
time, as beside the fair neighbour then): the kernel's autogroups
(``/proc/sys/kernel/sched_autogroup_enabled``) share the CPU between
sessions first, and only helpers in sessions of their own escape them.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import signal
import time
from typing import Any

from referee.hosting.failures import AgentFailure
from referee.hosting.process import WAIT_PER_CPU_SECOND, CallStats
from referee.limits import Limits
from referee.match import AgentEntry, MatchObserver, MatchSettings, play_match

SPIN = "tests.hosting.hostile.spin"
RANDOM = AgentEntry("agents.random_agent")
#: The honest agent's game: a seed whose game outlasts its thinking moves.
SEED = 1
#: Honest calls shorter than this (in CPU seconds) are its quick moves after the thinking ones.
THINKING = 0.05


class CallLog(MatchObserver):
    """The honest agent's thinking calls, and the wall of a call that failed.

    For each thinking call: its CPU and wall seconds and the watchdog's
    headroom, the wall seconds it had left: its remaining CPU time at the
    call's start + the grace + its wait for a CPU (here wall - CPU: the agent
    has one thread) up to :data:`WAIT_PER_CPU_SECOND` per CPU second, less
    its wall.
    """

    def __init__(self, color: int, limits: Limits):
        self.color = color
        self.limits = limits
        self.used = 0.0  # CPU seconds of its calls so far
        self.calls: list[tuple[float, float, float]] = []
        self.failed_wall: float | None = None
        self.last = time.monotonic()

    def call(self, color: int, stats: CallStats, output: str) -> None:
        if color == self.color:
            if stats.op == "action" and stats.cpu >= THINKING and self.limits.time_limit is not None:
                remaining = self.limits.time_limit - self.used
                credit = min(max(0.0, stats.wall - stats.cpu), WAIT_PER_CPU_SECOND * stats.cpu)
                headroom = remaining + self.limits.wall_grace + credit - stats.wall
                self.calls.append((stats.cpu, stats.wall, headroom))
            self.used += stats.cpu
        self.last = time.monotonic()

    def failed(self, color: int, failure: AgentFailure) -> None:
        if color == self.color:
            self.failed_wall = time.monotonic() - self.last  # since the call before: about this call's wall


def neighbour(spinner: dict[str, Any] | None, limits: Limits, started: Any, results: Any) -> None:
    """Game A, again and again until interrupted (SIGINT): the spinner (its options) or random against random."""
    # Python leaves SIGINT ignored in a process started with it ignored (a shell's background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    red = AgentEntry(f"{SPIN}:Spins", options=spinner) if spinner is not None else RANDOM
    games, verdicts = 0, []
    try:
        while True:
            started.set()
            record = play_match(red, RANDOM, MatchSettings(seed=1000 + games, limits=limits, sandbox="required"))
            games += 1
            verdicts.append(record.reason)
    except KeyboardInterrupt:  # game B is over; play_match has stopped its agents
        pass
    results.put({"games": games, "time_limit": verdicts.count("time_limit")})


def honest_game(think: float, moves: int, limits: Limits, results: Any) -> None:
    """Game B: the honest agent (RED) against random; its calls and verdict."""
    honest = AgentEntry(f"{SPIN}:Computes", options={"think": think, "think_moves": moves})
    log = CallLog(0, limits)
    record = play_match(honest, RANDOM, MatchSettings(seed=SEED, limits=limits, sandbox="required"), log)
    lost = record.error["RED"] is not None
    results.put(
        {
            "verdict": f"lost: {record.reason}" if lost else "finished",
            "message": record.message if lost else "",
            "cpu": record.time_used["RED"],
            "calls": log.calls,
            "failed_wall": log.failed_wall,
        }
    )


def play(spinner: dict[str, Any] | None, think: float, moves: int, limits: Limits, beside: Limits) -> dict[str, Any]:
    """Game B under ``limits`` with game A under ``beside`` next to it, each in its own process
    (spawned, as the tournament's workers are)."""
    context = multiprocessing.get_context("spawn")
    started, results = context.Event(), context.Queue()
    side = context.Process(target=neighbour, args=(spinner, beside, started, results))
    side.start()
    started.wait(60)
    time.sleep(0.3)  # the neighbour's agents are up and its first call has begun
    main = context.Process(target=honest_game, args=(think, moves, limits, results))
    main.start()
    outcome = None
    try:
        while outcome is None:
            try:
                outcome = results.get(timeout=1)
            except queue.Empty:
                if not main.is_alive():
                    raise RuntimeError(f"game B's process ended without a result (exit code {main.exitcode})") from None
        main.join()
    finally:
        assert side.pid is not None
        os.kill(side.pid, signal.SIGINT)  # stop game A now (its clean-up runs), not at its end
    outcome.update(results.get(timeout=120))
    side.join()
    return outcome


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _row(scenario: str, repeat: int, outcome: dict[str, Any]) -> str:
    calls = outcome["calls"]
    cpu = sum(c for c, _, _ in calls)
    wall = sum(w for _, w, _ in calls)
    worst = max((w / c for c, w, _ in calls), default=0.0)
    least = min((h for _, _, h in calls), default=float("nan"))
    failed = outcome["failed_wall"]
    lost = f"after {failed:.1f} s" if failed is not None else ""
    return (
        f"{scenario:<10} {repeat:>2}  {outcome['verdict']:<17} {lost:<12} {outcome['cpu']:6.2f} {len(calls):>3} "
        f"{cpu:6.2f} {wall:7.2f} {wall / cpu if cpu else 0:8.1f} {worst:6.1f} {least:8.1f} {outcome['games']:>3} "
        f"{outcome['time_limit']:>4}   {_load()}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.noisy_neighbour", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--think", type=float, default=0.3, help="honest CPU seconds per thinking move (default 0.3)")
    parser.add_argument("--moves", type=int, default=8, help="honest thinking moves (default 8)")
    parser.add_argument("-t", "--time-limit", type=float, help="CPU seconds per agent per game (default: 2 x its need)")
    parser.add_argument("--grace", type=float, default=1.0, help="the watchdog's grace (default 1 s)")
    parser.add_argument("--long-limit", type=float, default=60.0, help="the spinner's clock in the last scenario")
    parser.add_argument("--mode", choices=("threads", "processes", "sessions"), default="sessions")
    parser.add_argument("--spinners", type=int, default=60)
    parser.add_argument("--spin-seconds", type=float, default=2.0)
    parser.add_argument(
        "--keep",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the spinner keeps its helpers from call to call (frozen in between), or starts them at each call",
    )
    args = parser.parse_args(argv)
    limit = args.time_limit or round(2 * args.think * args.moves, 1)
    limits = Limits(time_limit=limit, space_limit=250, wall_grace=args.grace)
    long_clock = Limits(time_limit=args.long_limit, space_limit=250, wall_grace=args.grace)
    spinner = {
        "spinners": args.spinners, "spin_seconds": args.spin_seconds, "spin_mode": args.mode, "spin_keep": args.keep
    }
    scenarios = [
        ("random", None, limits),
        ("spinner", spinner, limits),
        (f"spin-t{args.long_limit:g}", spinner, long_clock),
    ]
    print(
        f"honest: {args.think:g} CPU s x {args.moves} moves; -t {limit:g} --grace {args.grace:g}; "
        f"spinner: {args.spinners} helpers in {args.mode}{' (kept)' if args.keep else ''}, "
        f"{args.spin_seconds:g} s a call; {os.cpu_count()} CPUs"
    )
    print(
        f"{'beside':<10} {'#':>2}  {'honest verdict':<17} {'(its call)':<12} {'CPU s':>6} {'n':>3} {'think':>6} "
        f"{'wall s':>7} {'wall/CPU':>8} {'worst':>6} {'headroom':>8} {'A':>3} {'A-tl':>4}   load"
    )
    messages = []
    for repeat in range(1, args.repeats + 1):
        for scenario, options, beside in scenarios:
            outcome = play(options, args.think, args.moves, limits, beside)
            print(_row(scenario, repeat, outcome), flush=True)
            if outcome["message"]:
                messages.append(f"{scenario} {repeat}: {outcome['message']}")
    print(
        "CPU s: the honest agent's whole game; n, think, wall s: its thinking calls that returned, their CPU and wall "
        "seconds;\nworst: the highest wall/CPU of one call; headroom: the least wall seconds a call had left before "
        "the watchdog;\nA: games played beside it, A-tl: of them lost on time; "
        "load: the load average after the row (1, 5, 15 min)"
    )
    for message in messages:
        print(message)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
