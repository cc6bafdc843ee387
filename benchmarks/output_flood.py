"""What an agent that floods its output costs the referee: its own CPU, per MB it reads (issue 46).

    python -m benchmarks.output_flood [--baseline DIR] [--repeats 3] [-t 3] [--writers 6]
                                      [--sandbox required]

Everything an agent prints goes through one pipe that the referee reads in
its own process, outside every agent's cgroup: CPU the agent's clock never
sees, taken in a tournament from the game beside.  Each game here is one
``python -m referee`` run (in a wrapper that writes the referee process's
own CPU time, ``getrusage(RUSAGE_SELF)``, user + system, when it exits):

* ``flood``: ``tests.hosting.hostile.flood:Floods`` (``--writers`` helpers
  and its own process writing 1 MB blocks to stdout and stderr without a
  pause, from its first action) against the random agent, under ``-t``;
* ``flood, no limit``: the same with the output limit lifted
  (``REFEREE_OUTPUT_LIMIT=0``): it loses on time, as before the limit, and
  shows what reading costs the referee per MB now;
* ``quiet``: ``tests.hosting.fixture_agents.misbehave:CpuLoop`` (loops
  without printing until its time runs out) against the random agent: the
  referee's CPU for a game without output (start-up, imports, polling),
  subtracted from the flood's without a limit (as long a game) to give the
  CPU per MB read;
* ``chatty``: ``tests.hosting.hostile.flood:Chatty`` (honest: the board and
  a few lines at every call) against the random agent, at ``-v 2``: how
  much an honest agent that talks prints in a whole game.

The MB read is what the verdict's message says the agent printed (``printed
more than 16 MB of output``, ``; it printed 5200.0 MB during the call``), or
for ``chatty`` what the console showed of it.
``--baseline DIR`` also plays each game with the referee of another
checkout (``git worktree add /tmp/base HEAD``), with the agents of this one:
the numbers before a change.

On this 2-core machine (2026-11-29, at 6d5f036 and the change of issue 46;
other sessions' tests running beside it, load average 3 to 9), sealed,
``-t 3``, 6 writers, median of 5, referee CPU in seconds:

=============  ===============  ============  =======  =========  =====  =========
referee        game             verdict       MB read  ref. CPU   user   ms per MB
=============  ===============  ============  =======  =========  =====  =========
baseline       quiet            time_limit          0      0.243   0.21
baseline       flood            time_limit      13812      3.973   1.02      0.270
this change    quiet            time_limit          0      0.169   0.13
this change    flood            output_limit       16      0.162   0.13
this change    flood, no limit  time_limit      20472      3.498   0.30      0.163
this change    chatty           turn_limit        0.6      0.410   0.29
=============  ===============  ============  =======  =========  =====  =========

The limit makes a flood cost the referee no more than a game without output
(16 MB at the rates above: 3 to 6 ms).  Reading 1 MB at a time from a 1 MB
pipe cut the referee's user CPU a MB from 0.06 to 0.01 ms; the rest is the
kernel's copy, which varies with the load: other runs gave 0.22 to 0.33 ms a
MB for the baseline and 0.16 to 0.36 for this change.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOOD = "tests.hosting.hostile.flood:Floods"
QUIET = "tests.hosting.fixture_agents.misbehave:CpuLoop"
CHATTY = "tests.hosting.hostile.flood:Chatty"
RANDOM = "agents.random_agent"
#: The environment variable that lifts the output limit (``referee.hosting.process.OUTPUT_LIMIT_ENV``).
LIMIT_ENV = "REFEREE_OUTPUT_LIMIT"
#: Runs the referee of ROOT (argv[1]) with argv[3:], then writes its own CPU seconds to argv[2].
WRAPPER = (
    "import atexit, json, resource, runpy, sys, time\n"
    "root, out = sys.argv[1], sys.argv[2]\n"
    "sys.path.insert(0, root)\n"
    "start = time.monotonic()\n"
    "def done():\n"
    "    usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    with open(out, 'w') as f:\n"
    "        json.dump({'user': usage.ru_utime, 'system': usage.ru_stime, 'wall': time.monotonic() - start}, f)\n"
    "atexit.register(done)\n"
    "sys.argv = ['referee', *sys.argv[3:]]\n"
    "runpy.run_module('referee', run_name='__main__', alter_sys=True)\n"
)
PRINTED = re.compile(r"printed (?:more than )?([0-9.]+) MB")
SHOWN = "  RED | "


@dataclass
class Run:
    reason: str
    message: str
    cpu: float  # the referee process's own CPU seconds (user + system)
    user: float
    system: float
    wall: float
    shown: int  # bytes of RED's output the console showed

    @property
    def read_mb(self) -> float:
        found = PRINTED.search(self.message)
        return float(found.group(1)) if found else self.shown / 2**20


def play(root: Path, red: str, seconds: float, sandbox: str, env: dict[str, str], writers: int, verbosity: int) -> Run:
    """One game of ``red`` against the random agent, with the referee of ``root``, agents from this checkout."""
    with tempfile.TemporaryDirectory() as folder:
        record, usage = Path(folder) / "record.json", Path(folder) / "usage.json"
        command = [
            sys.executable, "-c", WRAPPER, str(root), str(usage), "-v", str(verbosity), "--record", str(record),
            "--sandbox", sandbox, "-t", f"{seconds:g}", "--red-option", f"writers={writers}", red, RANDOM,
        ]
        proc = subprocess.run(command, cwd=ROOT, env=dict(os.environ, **env), capture_output=True, text=True,
                              timeout=120)
        if proc.returncode != 0 or not record.exists():
            raise RuntimeError(f"the referee of {root} failed ({proc.returncode}): {proc.stderr[-2000:]}")
        data = json.loads(record.read_text())
        spent = json.loads(usage.read_text())
    error = (data.get("error") or {}).get("RED") or {}
    shown = sum(len(line) + 1 - len(SHOWN) for line in proc.stdout.splitlines() if line.startswith(SHOWN))
    return Run(data["reason"], error.get("message") or "", spent["user"] + spent["system"], spent["user"],
               spent["system"], spent["wall"], shown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", type=Path, default=None, metavar="DIR",
                        help="also play with the referee of this checkout (the numbers before a change)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("-t", type=float, default=3.0, dest="seconds", help="the agents' CPU seconds")
    parser.add_argument("--writers", type=int, default=6, help="helpers writing beside the agent's own process")
    parser.add_argument("--sandbox", default="required", choices=("required", "auto", "off"))
    args = parser.parse_args()
    roots = [("this checkout", ROOT)]
    if args.baseline is not None:
        if not (args.baseline / "referee" / "__main__.py").is_file():
            parser.error(f"--baseline: {args.baseline} is not a checkout of this project")
        roots.insert(0, ("baseline", args.baseline.resolve()))
    games = [("quiet", QUIET, {}, 0), ("flood", FLOOD, {}, 0), ("flood, no limit", FLOOD, {LIMIT_ENV: "0"}, 0),
             ("chatty", CHATTY, {}, 2)]
    print(f"sandbox {args.sandbox}, -t {args.seconds:g}, {args.writers} writers, median of {args.repeats}; "
          "referee CPU = the referee process's own user + system seconds")
    print(f"{'referee':14} {'game':16} {'verdict':14} {'MB read':>9} {'ref. CPU s':>10} {'user':>6} {'sys':>6} "
          f"{'wall s':>7} {'ms per MB':>9}")
    for label, root in roots:
        quiet_cpu = 0.0
        for name, red, env, verbosity in games:
            if label == "baseline" and (env or name == "chatty"):
                continue  # the baseline knows no limit to lift, and prints as much of an honest agent
            runs = [play(root, red, args.seconds, args.sandbox, env, args.writers, verbosity)
                    for _ in range(args.repeats)]
            time.sleep(0.5)
            cpu = statistics.median(run.cpu for run in runs)
            read = statistics.median(run.read_mb for run in runs)
            if name == "quiet":
                quiet_cpu = cpu
            # Only a game as long as the quiet one (the agent's whole clock) has the same CPU besides reading.
            timed_out = all(run.reason == "time_limit" for run in runs)
            per_mb = f"{1000 * (cpu - quiet_cpu) / read:9.3f}" if read and timed_out else f"{'':9}"
            reasons = "/".join(sorted({run.reason for run in runs}))
            print(f"{label:14} {name:16} {reasons:14} {read:9.1f} {cpu:10.3f} "
                  f"{statistics.median(run.user for run in runs):6.2f} "
                  f"{statistics.median(run.system for run in runs):6.2f} "
                  f"{statistics.median(run.wall for run in runs):7.2f} {per_mb}")


if __name__ == "__main__":
    main()
