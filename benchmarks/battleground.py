"""The battleground server under load: simulated clients with instant agents.

    python -m benchmarks.battleground [--clients 10,50,200] [--seconds 20] [--port 0] [--house] [--json]

For each number of clients, a real server (``python -m referee serve``, a
subprocess with a database of its own in a temporary folder, Infexion,
``-t 180 -s 250 --per-address 0``) and that many clients in this process
(asyncio, ``websockets``), speaking the protocol directly and paired two by
two on private channels, so that exactly clients/2 games run at once for the
whole measurement (each asks for 1000 games).  A client mirrors its game with
the project's engine and answers each ``play`` at once with a random legal
action: an "instant agent", so the server is as busy as it can be made.

Reported per run (after 3 s to connect and pair, over ``--seconds``):

* **the server's latency per move**, measured by the server itself
  (``GET /api/stats``: from an action's arrival to the opponent's ``play``
  sent, the action checked, applied and told to both sides).  The server
  keeps its last 20,000 moves; it is read every 2 s, and the figures are the
  median of the windows' p50 and the worst window's p99 (windows that lie
  wholly inside the measurement);
* **end to end**: from client A sending its ``action`` to its opponent B
  receiving its next ``play``, on this process's one clock: the server's
  part plus loopback plus this process's own event loop, which also runs
  every client's engine (an upper bound of the server's part; this
  process's CPU share is reported with it);
* moves per second and games finished per minute (the clients' count);
* clients connected and games running at once (the server's count,
  ``/api/stats`` and ``/api/games``; the clients' own count if those fail);
* the server's CPU share (of one core, from /proc) and memory (VmRSS at
  the end, VmHWM its peak);
* every game's ending: any game lost on time, disconnection, an illegal or
  unreadable action is listed (a move that was not answered).

``--house`` adds a run of 50 clients on a server with a house agent
(``--house greedy=agents.greedy --house-workers 2``) in four interleaved
phases: without house games, with two more clients playing the house's
greedy agent (channel ``greedy``; their agents are instant too), without,
with.  The 50 clients' moves are measured per phase, so the two conditions
are compared on one server under the same load.

Results are printed as a Markdown table (``--json``: also as JSON).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from referee.games import load_game
from referee.records import AGENT_FAILURE_REASONS

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
WARM_UP = 3.0  # seconds to connect and pair before measuring
POLL = 2.0  # seconds between two readings of the server's /api/stats
NOT_ANSWERED = set(AGENT_FAILURE_REASONS) | {"disconnected"}


# -- the server --------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """``python -m referee serve`` in a subprocess, in a temporary folder it removes when stopped."""

    def __init__(self, port: int, house: bool) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bg-bench-"))
        self.port = port or free_port()
        command = [sys.executable, "-m", "referee", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                   "--db", str(self.folder / "bg.sqlite"), "-t", "180", "-s", "250", "--per-address", "0"]
        if house:
            command += ["--house", "greedy=agents.greedy", "--house-workers", "2"]
        self.log = self.folder / "server.log"
        with open(self.log, "w") as out:  # a file, not a pipe: a pipe nobody reads would stop the server
            self.proc = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"the server did not accept a connection on port {self.port} within {timeout:g} s:"
                           f"\n{self.log_tail()}")

    def log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as reply:
            return json.load(reply)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def memory_mb(self) -> tuple[float, float]:
        """(VmRSS, VmHWM) in MB."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        found = {k: re.search(rf"^{k}:\s+(\d+) kB", status, re.M) for k in ("VmRSS", "VmHWM")}
        return tuple(int(m.group(1)) / 1024 if m else float("nan") for m in found.values())  # type: ignore[return-value]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


# -- the clients -------------------------------------------------------------------------------------------


@dataclass
class Tally:
    """What the clients saw in one phase of a run."""

    latency: list[float] = field(default_factory=list)  # end to end, seconds
    moves: int = 0
    games: int = 0
    endings: dict[str, int] = field(default_factory=dict)  # reasons of games not ended by the rules


class Clients:
    def __init__(self) -> None:
        self.tally: Tally | None = None  # None: not measuring
        self.sent: dict[int, float] = {}  # game id -> when its last action was sent
        self.in_game: set[int] = set()  # games some client of ours is playing
        self.connected = 0
        self.errors: list[str] = []
        self.games_ended = 0


async def client(port: int, name: str, channel: str, games: int, clients: Clients, stop: asyncio.Event,
                 seed: int, token: list[str | None]) -> None:
    """One client with an instant agent; plays until the server says ``done`` or ``stop`` is set."""
    rng = random.Random(seed)
    async with connect(f"ws://127.0.0.1:{port}/play", max_size=2 ** 22, compression=None,
                       open_timeout=30) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "name": name, "token": token[0],
                                  "channel": channel, "games": games, "client": "benchmarks.battleground"}))
        clients.connected += 1
        try:
            state = None
            async for raw in ws:
                message = json.loads(raw)
                kind = message["type"]
                if kind == "play" and state is not None:
                    sent = clients.sent.pop(message["id"], None)
                    tally = clients.tally
                    if sent is not None and tally is not None:
                        tally.latency.append(time.perf_counter() - sent)
                        tally.moves += 1
                    if stop.is_set():
                        return
                    action = state.action_to_str(rng.choice(state.legal_actions()))
                    clients.sent[message["id"]] = time.perf_counter()
                    await ws.send(json.dumps({"type": "action", "id": message["id"], "action": action,
                                              "cpu": 0, "memory_mb": 0}))
                elif kind == "turn" and state is not None:
                    state.apply_checked(state.parse_action(message["action"]))
                elif kind == "start":
                    state = load_game("infexion").new_state()
                    for _mover, text in message["actions"]:  # a resumed game's actions so far
                        state.apply_checked(state.parse_action(text))
                    clients.in_game.add(message["id"])
                    await ws.send(json.dumps({"type": "ready", "id": message["id"]}))
                elif kind == "end":
                    state = None
                    clients.in_game.discard(message["id"])
                    clients.sent.pop(message["id"], None)
                    clients.games_ended += 1
                    tally = clients.tally
                    if tally is not None:
                        tally.games += 1
                        reason = message["record"].get("reason")
                        if reason in NOT_ANSWERED:
                            tally.endings[reason] = tally.endings.get(reason, 0) + 1
                elif kind == "welcome" and message.get("token"):
                    token[0] = message["token"]
                elif kind == "done":
                    return
                elif kind in ("refused", "error"):
                    raise RuntimeError(f"{name}: the server sent {message}")
        finally:
            clients.connected -= 1


async def guarded(coroutine: Any, clients: Clients, name: str) -> None:
    try:
        await coroutine
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001  reported with the results
        clients.errors.append(f"{name}: {type(exc).__name__}: {exc}")


async def house_client(port: int, name: str, clients: Clients, stop: asyncio.Event, seed: int) -> None:
    """A student playing the house's greedy agent, a pair of games at a time, until ``stop``."""
    token: list[str | None] = [None]
    ignore = asyncio.Event()  # finish the pair even when stopped: no game left for the grace period
    while not stop.is_set():
        await client(port, name, "greedy", 2, clients, ignore, seed, token)
        seed += 1


# -- a run -------------------------------------------------------------------------------------------------


@dataclass
class Window:
    """The server's /api/stats at one time; ``moves`` its move counter."""

    moves: int
    p50: float | None
    p99: float | None
    window: int  # how many moves the percentiles cover


async def read_stats(server: Server) -> dict[str, Any] | None:
    try:
        return await asyncio.to_thread(server.get, "/api/stats")
    except (OSError, ValueError):
        return None


async def sample(server: Server, into: list[tuple[str, Window]], phase: list[str], since: dict[str, int]) -> None:
    """Read the server's latency every POLL seconds, keeping windows that lie wholly in one phase."""
    while True:
        await asyncio.sleep(POLL)
        stats = await read_stats(server)
        if not stats or not stats.get("latency_ms", {}).get("moves"):
            continue
        own = stats["latency_ms"]
        name = phase[0]
        if name and stats["moves"] - since.get(name, 1 << 62) >= own["moves"]:
            into.append((name, Window(stats["moves"], own["p50"], own["p99"], own["moves"])))


def summarize(label: str, tally: Tally, elapsed: float, windows: list[Window], cpu: float, own_cpu: float,
              memory: tuple[float, float], running: int, running_from: str, connected: int) -> dict[str, Any]:
    latency = sorted(tally.latency)

    def pick(values: list[float], share: float) -> float | None:
        return values[int(share * (len(values) - 1))] if values else None

    p50s = [w.p50 for w in windows if w.p50 is not None]
    p99s = [w.p99 for w in windows if w.p99 is not None]
    return {
        "run": label, "connected": connected, "running": running, "running_from": running_from,
        "seconds": round(elapsed, 2), "moves": tally.moves, "moves_per_s": tally.moves / elapsed,
        "games": tally.games, "games_per_min": tally.games * 60 / elapsed,
        "p50_ms": 1000 * (pick(latency, 0.5) or float("nan")), "p99_ms": 1000 * (pick(latency, 0.99) or float("nan")),
        "server_p50_ms": statistics.median(p50s) if p50s else None, "server_p99_ms": max(p99s) if p99s else None,
        "server_windows": len(windows), "server_cpu_pct": 100 * cpu / elapsed,
        "benchmark_cpu_pct": 100 * own_cpu / elapsed, "rss_mb": memory[0], "hwm_mb": memory[1],
        "not_answered": dict(tally.endings),
    }


async def games_running(server: Server, clients: Clients) -> tuple[int, str]:
    """Games being played: the server's count (``/api/games``), else the clients'."""
    try:
        return len((await asyncio.to_thread(server.get, "/api/games"))["running"]), "server"
    except (OSError, ValueError, KeyError, TypeError):
        return len(clients.in_game), "clients"


async def run(server: Server, count: int, phases: list[tuple[str, bool]], seconds: float) -> list[dict[str, Any]]:
    """``count`` clients in pairs; each phase measured for ``seconds`` (with house games when its flag is set)."""
    clients, visitors, stop = Clients(), Clients(), asyncio.Event()
    tasks = [asyncio.create_task(guarded(client(server.port, f"c{i}", f"pair{i // 2}", 1000, clients, stop, i,
                                                [None]), clients, f"c{i}"))
             for i in range(count)]
    phase = [""]
    since: dict[str, int] = {}
    windows: list[tuple[str, Window]] = []
    sampler = asyncio.create_task(sample(server, windows, phase, since))
    results = []
    try:
        for number, (label, house) in enumerate(phases):
            key = str(number)  # phases may share a label
            house_stop, house_tasks = asyncio.Event(), []
            if house:  # the house games' clients: counted apart, not in the phase's figures
                house_tasks = [asyncio.create_task(guarded(house_client(server.port, f"h{number}-{i}", visitors,
                                                                        house_stop, 1000 + 100 * number + i),
                                                           visitors, f"h{number}-{i}"))
                               for i in range(2)]
            await asyncio.sleep(WARM_UP)
            if clients.errors or visitors.errors:
                raise RuntimeError("clients failed:\n  " + "\n  ".join((clients.errors + visitors.errors)[:10]))
            stats = await read_stats(server)
            since[key] = stats["moves"] if stats else 1 << 62
            phase[0] = key
            tally = Tally()
            clients.tally = tally
            cpu0, own0, t0 = server.cpu_seconds(), time.process_time(), time.monotonic()
            await asyncio.sleep(seconds / 2)
            running, source = await games_running(server, clients)
            stats = await read_stats(server)
            connected = stats["connections"] if stats else clients.connected
            await asyncio.sleep(max(0.0, seconds / 2 - (time.monotonic() - t0 - seconds / 2)))
            stats = await read_stats(server)  # the window that ends with the phase
            clients.tally, phase[0] = None, ""
            elapsed = time.monotonic() - t0
            cpu, own_cpu = server.cpu_seconds() - cpu0, time.process_time() - own0
            if stats and stats["latency_ms"]["moves"] and stats["moves"] - since[key] >= stats["latency_ms"]["moves"]:
                own = stats["latency_ms"]
                windows.append((key, Window(stats["moves"], own["p50"], own["p99"], own["moves"])))
            mine = [w for name, w in windows if name == key]
            if not mine and stats and stats["latency_ms"]["moves"]:  # a slow phase: its last moves, warm-up included
                own = stats["latency_ms"]
                mine = [Window(stats["moves"], own["p50"], own["p99"], own["moves"])]
            result = summarize(label, tally, elapsed, mine, cpu, own_cpu, server.memory_mb(), running, source,
                               connected)
            if house:
                result["house_games"] = visitors.games_ended
                house_stop.set()  # each finishes its pair of games, then leaves
                await asyncio.wait_for(asyncio.gather(*house_tasks), 120)
                visitors.games_ended = 0
            results.append(result)
        if clients.errors or visitors.errors:
            raise RuntimeError("clients failed:\n  " + "\n  ".join((clients.errors + visitors.errors)[:10]))
        return results
    finally:
        stop.set()
        for task in [sampler, *tasks]:
            task.cancel()
        await asyncio.gather(sampler, *tasks, return_exceptions=True)


def measure(count: int, phases: list[tuple[str, bool]], seconds: float, port: int, house: bool) -> list[dict[str, Any]]:
    server = Server(port, house)
    try:
        server.wait_ready()
        return asyncio.run(run(server, count, phases, seconds))
    except Exception as exc:
        raise SystemExit(f"benchmark failed ({count} clients): {exc}\n--- the server's log:\n{server.log_tail()}") \
            from exc
    finally:
        server.stop()


# -- the report --------------------------------------------------------------------------------------------


def row(result: dict[str, Any]) -> str:
    def ms(value: float | None, digits: int) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    running = f"{result['running']}" + ("" if result["running_from"] == "server" else " (clients' count)")
    return (f"| {result['run']} | {result['connected']} | {running} | {result['moves_per_s']:.0f} | "
            f"{result['games_per_min']:.0f} | {ms(result['server_p50_ms'], 2)} / {ms(result['server_p99_ms'], 2)} | "
            f"{result['p50_ms']:.1f} / {result['p99_ms']:.1f} | {result['server_cpu_pct']:.0f} | "
            f"{result['benchmark_cpu_pct']:.0f} | {result['rss_mb']:.0f} / {result['hwm_mb']:.0f} |")


HEADER = ("| clients | connected | games at once | moves/s | games/min | server's latency p50 / p99 (ms) "
          "| end to end p50 / p99 (ms) | server CPU % | benchmark CPU % | server RSS / peak (MB) |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clients", default="10,50,200", help="comma-separated client counts (default 10,50,200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measurement per run (default 20)")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default 0: a free one)")
    parser.add_argument("--house", action="store_true",
                        help="also 50 clients without and with two games against a house agent, interleaved")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    args = parser.parse_args()
    try:
        counts = [int(n) for n in args.clients.split(",") if n.strip()]
    except ValueError:
        parser.error(f"--clients: {args.clients!r} is not a comma-separated list of numbers")
    if any(n < 2 or n % 2 for n in counts):
        parser.error("--clients: each count must be even and at least 2 (clients play in pairs)")
    print(f"# benchmarks.battleground, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, "
          f"{args.seconds:g} s a run", flush=True)
    print(HEADER, flush=True)
    results = []
    for count in counts:
        for result in measure(count, [(str(count), False)], args.seconds, args.port, False):
            results.append(result)
            print(row(result), flush=True)
    if args.house:
        phases = [("50", False), ("50 + 2 v. house greedy", True), ("50", False), ("50 + 2 v. house greedy", True)]
        for result in measure(50, phases, args.seconds / 2, args.port, True):
            results.append(result)
            print(row(result), flush=True)
    for result in results:
        if result["not_answered"]:
            print(f"! {result['run']}: games not ended by the rules: {result['not_answered']}")
    if args.json:
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
