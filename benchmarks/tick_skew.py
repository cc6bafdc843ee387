"""How far ahead the kernel's RLIMIT_CPU clock runs of a process's exact CPU time on a busy machine.

    python -m benchmarks.tick_skew [--limit 6] [--pollers 12] [--hogs 3]

Starts one CPU-bound process with ``RLIMIT_CPU`` set to ``--limit`` seconds,
beside processes that wake every few milliseconds for a short burst (as a
referee polling its agents does) and plain CPU hogs, and reads the victim's
exact CPU time (``/proc/PID/schedstat``, what the referee's cgroup count
agrees with) until the kernel kills it.  The kernel checks the limit against
CPU time sampled at timer ticks, charged to whichever process is running at
the tick; a process that shares its CPU with short sleepers is charged for
their time too, so it is killed early.  This is why the referee's backstop
(:data:`referee.hosting.process.BACKSTOP_FACTOR`) is far above the budget.
On the 2-core project machine (2026-11-27): killed at 5.30 s of 6 (12 pollers,
3 hogs) and 5.31 s (6 pollers, 6 hogs); alone it runs to 6.0 s.
"""
from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

POLLER = """
import time
while True:
    start = time.perf_counter()
    while time.perf_counter() - start < {burst}:
        pass
    time.sleep({sleep})
"""


def exact_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tick_skew", description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=6, help="the victim's RLIMIT_CPU in seconds (default 6)")
    parser.add_argument("--pollers", type=int, default=12, help="processes waking every 10 ms for 2 ms (default 12)")
    parser.add_argument("--hogs", type=int, default=3, help="plain CPU-bound processes (default 3)")
    args = parser.parse_args(argv)
    limit = args.limit

    def set_limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit))

    victim = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=set_limit)
    others = [
        subprocess.Popen([sys.executable, "-c", POLLER.format(burst=0.002, sleep=0.01)]) for _ in range(args.pollers)
    ]
    others += [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
    started = time.monotonic()
    last = 0.0
    try:
        while victim.poll() is None:
            try:
                last = exact_cpu(victim.pid)
            except (OSError, ValueError):
                break
            time.sleep(0.005)
        victim.wait()
    finally:
        for proc in [victim, *others]:
            proc.kill()
            proc.wait()
    print(
        f"RLIMIT_CPU {limit} s; {args.pollers} pollers, {args.hogs} hogs: killed (status {victim.returncode}) "
        f"at {last:.2f} s of exact CPU time, {time.monotonic() - started:.1f} s of wall time; "
        f"the tick clock ran {100 * (limit / last - 1) if last else 0:.1f} % ahead"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
