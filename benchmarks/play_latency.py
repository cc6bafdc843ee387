"""How long the agent's reply takes to appear on the play page, over the agent's own thinking time.

    python -m benchmarks.play_latency [--moves N] [--sandbox off|auto|both] [--agent SPEC]

Starts ``python -m referee play --web --no-open --port 0 AGENT`` as the page
would use it, and for each of the person's actions times what the page does:
``POST /api/action`` (the person's action applied, the agent told of it), then
``GET /api/state?wait=1`` (answered once the agent's reply is played and the
whole state, replay frames included, is rebuilt).  The agent's own CPU seconds
for that reply come from the state's clock, so the difference is the
referee's cost: HTTP, three agent calls (told the person's action, asked, told
its own), the state's JSON.  The person plays the first legal action each
time; a new game starts when one ends.
"""
from __future__ import annotations

import argparse
import json
import re
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def call(url: str, method: str = "GET", body: dict[str, Any] | None = None) -> dict[str, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        answer: dict[str, Any] = json.loads(response.read())
        return answer


def measure(agent: str, sandbox: str, moves: int) -> dict[str, float]:
    """Milliseconds per reply: round trip, the agent's CPU, and their difference (medians and 90th percentiles)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "play", "--web", "--no-open", "--port", "0", "--sandbox", sandbox,
         "--seed", "1", agent], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    assert proc.stdout is not None
    base = ""
    for line in proc.stdout:
        found = re.search(r"playing on (http://127\.0\.0\.1:\d+)/", line)
        if found:
            base = found[1]
            break
    try:
        round_trips: list[float] = []
        cpu: list[float] = []
        state_only: list[float] = []
        state = call(base + "/api/state")
        while len(round_trips) < moves:
            if state["result"]:
                state = call(base + "/api/new", "POST", {"as": "red"})
                continue
            agent_color = "BLUE"
            before = state["clocks"][agent_color]["used"]
            start = time.perf_counter()
            call(base + "/api/action", "POST", {"action": state["legal"][0]})
            state = call(base + "/api/state?wait=1")
            round_trips.append(time.perf_counter() - start)
            cpu.append(state["clocks"][agent_color]["used"] - before)
            start = time.perf_counter()
            call(base + "/api/state")
            state_only.append(time.perf_counter() - start)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    over = [t - c for t, c in zip(round_trips, cpu)]

    def ms(values: list[float], q: int) -> float:
        return round(1000 * (statistics.median(values) if q == 50 else statistics.quantiles(values, n=10)[8]), 2)

    return {
        "round_trip_ms_median": ms(round_trips, 50), "round_trip_ms_p90": ms(round_trips, 90),
        "agent_cpu_ms_median": ms(cpu, 50),
        "overhead_ms_median": ms(over, 50), "overhead_ms_p90": ms(over, 90),
        "get_state_ms_median": ms(state_only, 50),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.play_latency", description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=60, help="the person's actions timed per sandbox (default 60)")
    parser.add_argument("--sandbox", choices=("off", "auto", "both"), default="both")
    parser.add_argument("--agent", default="agents.random_agent")
    args = parser.parse_args(argv)
    for sandbox in ("off", "auto") if args.sandbox == "both" else (args.sandbox,):
        print(json.dumps({"agent": args.agent, "sandbox": sandbox, "moves": args.moves,
                          **measure(args.agent, sandbox, args.moves)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
