"""The battleground server under load: simulated clients with instant agents.

    python -m benchmarks.battleground [--clients 10,50,200] [--seconds 20] [--house]

For each number of clients, a real server (``python -m referee serve``, a
subprocess, its own database) and that many clients in this process, paired
two by two on private channels, so that clients/2 Infexion games run at once
for the whole measurement.  A client mirrors its game with the project's
engine and answers each ``play`` at once with a random legal action.

Reported per run:

* **the server's latency per move**, measured by the server itself
  (``GET /api/stats``, over its last 20,000 moves): from an action's arrival
  to the opponent's request (``play``) sent, after the action was checked,
  applied and told to both sides;
* **end to end**: from client A sending its ``action`` to its opponent B
  receiving that ``play``, on this process's one clock: the server's part
  plus loopback and this process's own event loop (which also plays every
  client's instant agent: an upper bound);
* moves per second and games finished per minute;
* the server's CPU share (of one core) and its memory (VmRSS, VmHWM);
* games running at once, read from ``GET /api/games`` halfway through.

``--house`` adds a run of 50 clients with two more playing the house's greedy
agent (``--house greedy=agents.greedy``; its games run in processes of their
own), to see whether house games slow the server's other games.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect

from referee.games import load_game

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


class Stats:
    def __init__(self) -> None:
        self.sent: dict[int, float] = {}  # game id -> when its last action was sent
        self.latency: list[float] = []
        self.moves = 0
        self.games = 0
        self.measuring = False


async def client(port: int, name: str, channel: str, stats: Stats, stop: asyncio.Event, seed: int) -> None:
    rng = random.Random(seed)
    async with connect(f"ws://127.0.0.1:{port}/play", max_size=2 ** 22, compression=None) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "name": name, "token": None,
                                  "channel": channel, "games": 1000, "client": "benchmark"}))
        state = None
        async for raw in ws:
            message = json.loads(raw)
            kind = message["type"]
            if kind == "start":
                state = load_game("infexion").new_state()
                for _mover, text in message["actions"]:
                    state.apply_checked(state.parse_action(text))
                await ws.send(json.dumps({"type": "ready", "id": message["id"]}))
            elif kind == "turn" and state is not None:
                state.apply_checked(state.parse_action(message["action"]))
            elif kind == "play" and state is not None:
                sent = stats.sent.pop(message["id"], None)
                if sent is not None and stats.measuring:
                    stats.latency.append(time.perf_counter() - sent)
                    stats.moves += 1
                if stop.is_set():
                    return
                action = state.action_to_str(rng.choice(state.legal_actions()))
                stats.sent[message["id"]] = time.perf_counter()
                await ws.send(json.dumps({"type": "action", "id": message["id"], "action": action,
                                          "cpu": 0, "memory_mb": 0}))
            elif kind == "end":
                state = None
                if stats.measuring:
                    stats.games += 1
            elif kind in ("refused", "error"):
                raise RuntimeError(f"{name}: {message}")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_mb(pid: int) -> tuple[float, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    read = {k: int(re.search(rf"{k}:\s+(\d+)", status).group(1)) / 1024 for k in ("VmRSS", "VmHWM")}  # type: ignore[union-attr]
    return read["VmRSS"], read["VmHWM"]


def start_server(folder: str, house: bool) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, "-m", "referee", "serve", "--port", "0", "--host", "127.0.0.1",
               "--db", f"{folder}/bg.sqlite", "-t", "180", "-s", "250", "--per-address", "0"]
    if house:
        command += ["--house", "greedy=agents.greedy", "--house-workers", "2", "--sandbox", "auto"]
    server = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    line = server.stderr.readline()
    found = re.search(r"http://[^:]+:(\d+)/", line)
    if not found:
        server.kill()
        raise SystemExit(f"the server did not start: {line}{server.stderr.read()}")
    return server, int(found.group(1))


def games_running(port: int, folder: str) -> int:
    """Games being played: from the API (the server's own count), else from its database."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=10) as reply:
            return len(json.load(reply)["running"])
    except (OSError, ValueError, KeyError):
        with sqlite3.connect(f"{folder}/bg.sqlite") as db:
            return int(db.execute("SELECT COUNT(*) FROM games WHERE status = 'running'").fetchone()[0])


async def house_client(port: int, name: str, stop: asyncio.Event, seed: int) -> None:
    """A student playing the house's greedy agent, game after game."""
    stats = Stats()
    await client(port, name, "greedy", stats, stop, seed)


async def run(clients: int, seconds: float, house: bool = False) -> dict[str, float]:
    folder = tempfile.mkdtemp(prefix="bg-bench-")
    server, port = start_server(folder, house)
    try:
        stats, stop = Stats(), asyncio.Event()
        tasks = [asyncio.create_task(client(port, f"c{i}", f"pair{i // 2}", stats, stop, i)) for i in range(clients)]
        if house:
            tasks += [asyncio.create_task(house_client(port, f"h{i}", stop, 1000 + i)) for i in range(2)]
        await asyncio.sleep(3)  # everyone connected and paired
        stats.measuring = True
        cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
        await asyncio.sleep(seconds / 2)
        running = games_running(port, folder)
        await asyncio.sleep(seconds / 2)
        stats.measuring = False
        elapsed, cpu = time.monotonic() - t0, cpu_seconds(server.pid) - cpu0
        rss, hwm = memory_mb(server.pid)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/stats", timeout=10) as reply:
            own = json.load(reply)["latency_ms"]
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        latency = sorted(stats.latency)
        return {
            "clients": clients + (2 if house else 0), "running": running,
            "moves_per_s": stats.moves / elapsed, "games_per_min": stats.games * 60 / elapsed,
            "p50_ms": 1000 * statistics.median(latency), "p99_ms": 1000 * latency[int(0.99 * (len(latency) - 1))],
            "server_p50_ms": own["p50"], "server_p99_ms": own["p99"],
            "cpu_pct": 100 * cpu / elapsed, "rss_mb": rss, "hwm_mb": hwm,
        }
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        subprocess.run(["rm", "-rf", folder], check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="10,50,200", help="comma-separated client counts")
    parser.add_argument("--seconds", type=float, default=20.0, help="measurement per run")
    parser.add_argument("--house", action="store_true", help="also 50 clients with and without house games")
    args = parser.parse_args()
    runs = [(int(n), False) for n in args.clients.split(",")]
    if args.house:
        runs += [(50, False), (50, True)]
    print("| clients | games at once | moves/s | games/min | server's latency p50 / p99 (ms) "
          "| end to end p50 / p99 (ms) | server CPU % | server RSS / peak (MB) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for clients, house in runs:
        result = asyncio.run(run(clients, args.seconds, house))
        label = f"{result['clients']:.0f}" + (" (2 v. house greedy)" if house else "")
        print(f"| {label} | {result['running']:.0f} | {result['moves_per_s']:.0f} | {result['games_per_min']:.0f} | "
              f"{result['server_p50_ms']:.2f} / {result['server_p99_ms']:.2f} | "
              f"{result['p50_ms']:.1f} / {result['p99_ms']:.1f} | {result['cpu_pct']:.0f} | "
              f"{result['rss_mb']:.0f} / {result['hwm_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
