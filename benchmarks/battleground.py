"""The battleground server under load: simulated clients with instant agents.

    python -m benchmarks.battleground [--clients 10,50,200] [--seconds 20] [--port 0] [--house] [--json]
        [--server-root DIR]
    python -m benchmarks.battleground --attack [--clients 200] [--spectators 50] [--seconds 20] [--think 1]
        [--pages-rate 100] [--start-timeout 10] [--attackers all|none|NAME,...] [--json]

For each number of clients, a real server (``python -m referee serve``, a
subprocess with a database of its own in a temporary folder, Infexion,
``-t 180 -s 250``, and no cap on one address's connections, names or a
pair's games: ``--per-address 0 --open-per-address 0 --names-per-hour 0
--pair-games-per-hour 0``) and that many clients in this process
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

``--server-root DIR`` runs the server from another checkout, the clients from
this one: a baseline measured by the same clients (``git worktree add
../referee-base COMMIT``; the options its server does not know are left out).
Alternate the two, run after run: this machine's load moves the figures by
more than most changes do.

``--house`` adds a run of 50 clients on a server with a house agent
(``--house greedy=agents.greedy --house-workers 2``) in four interleaved
phases: without house games, with two more clients playing the house's
greedy agent (channel ``greedy``; their agents are instant too), without,
with.  The 50 clients' moves are measured per phase, so the two conditions
are compared on one server under the same load.

``--attack`` runs the server under attack instead (``run_attack``, which
tests/battleground/test_under_attack.py runs at a small size): ``--clients``
honest clients as above (200: 100 games at once), ``--spectators`` readers
that poll as the game page does (``GET /api/games/ID`` every second, its
``/frames`` when the game moved on, another game when it is over, and the
front page ``/`` every 5 s), and one attacker of each kind, each a class of
its own below (its docstring says what it tries), for the whole measurement:

* ``void``: 401-digit ``cpu``, ``SPAWN(<5000 digits>, 0)``, ``NaN`` ``cpu``,
  one game after the other, against an honest client on a private channel;
* ``storm``: joins a game, never says ``ready``, comes back with its token
  as fast as it can (at most 2000 times a game);
* ``offclock``: drops and comes back after each of its moves (during its
  opponent's turn: that honest client thinks 0.2 s a move), and thinks
  ``--think`` s before ``ready``;
* ``pages``: GETs of the heaviest pages (frames, replays of the longest
  games) 5 after each of its moves and in a flood of 4 tasks, at most
  ``--pages-rate`` a second;
* ``pile``: 64 KiB well-formed actions during its opponent's turn, 150 a
  second (within the server's rate), for 2 s every other turn (quiet in the
  others, to tell its memory from the rest of the run's);
* ``ratings``: two fresh names, one throwing every game to the other;
* ``sockets``: up to 200 raw TCP connections that never finish the
  WebSocket handshake (silent, or slowloris), reopened as they close;
* ``double``: two logins with one name and token while waiting;
* ``latepong``: answers the server's pings 0.45 s late (websockets' sans-I/O
  protocol over a stream of its own), thinking 0.2 s a move.

Every simulated host speaks from a loopback address of its own (127.x.y.z
to 127.0.0.1), as the server counts connections and requests per address.
The server runs with ``--start-timeout 10`` (this command's option of the
same name), so that the storm's games end within the run; its other
settings are its defaults, per-address caps included. ``--attackers NAMES`` runs only some
of them (``none``: the honest clients and spectators alone), for control
runs that tell which attack costs what. Reported: the honest clients' row as
above (the server's latency under attack); how the games between honest
clients ended (by a rule, or on time_limit, disconnected, protocol_error,
load_error, aborted: must be none), the server's peak memory and
descriptors and the tracebacks in its log; the spectators' requests; and
for each attacker what it achieved (games voided or lost, seconds thought
and charged, memory added, connections held, the rating reached) and
whether it was contained, by the bounds documented with the constants
(``PILE_BOUND_MB``, ``OFFCLOCK_SLACK``, ``LATEPONG_SLACK``,
``PAGES_FACTOR``, ``SOCKET_SLACK``).

Results are printed as a Markdown table (``--json``: also as JSON).
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import functools
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Mapping, Sequence

from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from referee.battleground.protocol import PLAY_PATH
from referee.games import load_game, rule_reasons
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


def known_options(root: Path, options: Sequence[str]) -> list[str]:
    """``options`` (pairs of ``--name value``) less those the server of ``root`` does not know: a baseline from
    before an option runs as it did then."""
    if root == ROOT:
        return list(options)
    usage = subprocess.run([sys.executable, "-m", "referee", "serve", "--help"], cwd=root, capture_output=True,
                           text=True, timeout=60).stdout
    pairs = zip(options[::2], options[1::2])
    return [part for name, value in pairs if f"{name} " in usage for part in (name, value)]


class Server:
    """``python -m referee serve`` in a subprocess, in a temporary folder it removes when stopped."""

    #: The checkout the server runs from: this one, or a baseline's (``--server-root``).
    root = ROOT

    def __init__(self, port: int, house: bool, extra: Sequence[str] = ()) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bg-bench-"))
        self.port = port or free_port()
        self.db = self.folder / "bg.sqlite"
        command = [sys.executable, "-m", "referee", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                   "--db", str(self.db), "-t", "180", "-s", "250", *known_options(self.root, extra)]
        if house:
            command += ["--house", "greedy=agents.greedy", "--house-workers", "2"]
        self.log = self.folder / "server.log"
        with open(self.log, "w") as out:  # a file, not a pipe: a pipe nobody reads would stop the server
            self.proc = subprocess.Popen(command, cwd=self.root, stdout=out, stderr=subprocess.STDOUT,
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

    def terminate(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def stop(self) -> None:
        self.terminate()
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
    # Throughput, not the caps: every client is on 127.0.0.1, and a pair plays game after game.
    server = Server(port, house, ["--per-address", "0", "--open-per-address", "0", "--names-per-hour", "0",
                                  "--pair-games-per-hour", "0"])
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


# -- under attack (--attack) -------------------------------------------------------------------------------
#
# Every simulated host speaks from a loopback address of its own (127.x.y.z, always to 127.0.0.1): the server
# counts connections and requests per address, and 200 students or 50 readers are 250 hosts, not one. Each
# attacker is one host.

HONEST_NET, OPPONENT_NET, SPECTATOR_NET, ATTACKER_NET, MONITOR_NET = 1, 2, 3, 4, 5


def loopback(net: int, index: int) -> str:
    """The ``index``-th loopback address of group ``net`` (127.net.x.y)."""
    return f"127.{net}.{index // 250}.{index % 250 + 1}"


#: The pile attacker is contained when its bursts grew the server's memory by less than this (MB) in all, over
#: what the same number of quiet turns grew it (the rest of the run grows it too: 45 -> 85 MB in 20 s at 200
#: clients and 50 readers without any attacker): what one connection may legitimately hold (the WebSocket
#: library's queue of 64 frames of 64 KiB, 4 MiB; the kernel's socket buffers; the allocator's slack). A server
#: that kept the unasked messages would grow by what was sent: about 19 MB a burst, so the bound is below one
#: burst's worth (the server from before the fix: +21 MB at its first burst).
PILE_BOUND_MB = 16.0
#: Small messages the pile sends after each burst, twice, each time followed by a ping: more than the frames the
#: server's WebSocket library queues before it stops reading (64; it reads on once fewer than 16 wait).  One
#: round is not enough: the library parses all it has read, fillers and flush and ping, answers the ping and
#: only then stops reading, with fillers still queued.  The second round's ping is read only once the queue
#: drained below 16, the last of the first round's flush: by the second pong every filler has been taken
#: (and dropped) by the server.
FLUSH_MESSAGES = 70
#: Per move, how much of the offclock attacker's thinking on its own turn (once it has seen its opponent's move)
#: may go uncharged (s): the loopback round trip and the loops' lag.
OFFCLOCK_SLACK = 0.1
#: Per move, how much of the latepong attacker's thinking may go uncharged (s): the round trip the server may
#: fairly take off a move on loopback (a few ms; its ping's late answer is no round trip).
LATEPONG_SLACK = 0.02
#: The server's own p99 latency target (docs/battleground.md, "Scale and speed"), ms: reported beside the pages
#: attacker (the p99 under attack is every attacker's and the machine's doing, not the pages' alone).
PAGES_TARGET_MS = 50.0
#: The pages attacker is contained when its opponent, whose clock runs while the pages it asks for right after
#: each move are built, is charged no more a move than this many times the honest games' median, plus
#: PAGES_MARGIN_MS: a server that built pages on its event loop charged it for every build (commit 61d4752: five
#: GETs of a long game's frames after each move made an honest opponent lose on time).
PAGES_FACTOR = 2.0
PAGES_MARGIN_MS = 10.0
#: How long past the server's hello timeout an unfinished handshake may stay open (s): the server's loop lag.
SOCKET_SLACK = 5.0
#: The server's --hello-timeout (its default, which the attack runs keep).
HELLO_TIMEOUT = 10.0
#: An idle connection's longest wait for a message before a client gives it up (s).
IDLE = 120.0


@dataclass
class AttackConfig:
    """The sizes and rates of an attack run (``run_attack``)."""

    clients: int = 200  # honest clients, in pairs on private channels
    spectators: int = 50
    seconds: float = 20.0  # the measurement, after WARM_UP
    port: int = 0
    warm_up: float = WARM_UP
    start_timeout: float = 10.0  # the server's --start-timeout: the storm's games end within the run
    think: float = 1.0  # offclock: seconds it sleeps before each ready
    pages_rate: float = 100.0  # pages: requests a second at most, all its tasks together
    pages_flood: int = 4  # pages: concurrent flooding tasks
    pile_rate: float = 150.0  # pile: messages a second (the server refills 200 a second)
    pile_burst: float = 2.0  # pile: seconds of each burst (its opponent waits that long to move)
    void_rate: float = 5.0  # void: attempts a second at most
    void_max: int = 1000
    storm_max: int = 2000  # storm: returns per game at most
    sockets: int = 200  # sockets: raw connections at once at most
    ratings_games: int = 1000  # ratings: games thrown at most
    double_rounds: int = 200
    latepong_think: float = 0.2  # latepong: seconds it thinks a move
    pong_delay: float = 0.45  # latepong: how late it answers each ping
    attackers: str = "all"  # which: "all", "none", or names separated by commas (control runs)


@dataclass
class AttackerReport:
    name: str
    tries: str  # what it tries, in a line
    achieved: str  # what it achieved, in a line
    contained: bool | None  # None: could not be judged (said in ``achieved``)
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass
class AttackResults:
    """What ``run_attack`` measured (the benchmark prints it; tests/battleground/test_under_attack.py asserts it)."""

    config: dict[str, Any]
    run: dict[str, Any]  # the honest clients over the measurement, as a plain run's row
    honest_endings: dict[str, int]  # games between two honest clients, the whole run: "normal" or the reason
    honest_running: int  # honest games still being played at the end (not counted)
    honest_drops: int  # honest connections lost (each client comes back with its token)
    honest_errors: list[str]  # refused / error messages an honest client received, and client failures
    spectators: dict[str, Any]
    server: dict[str, Any]  # peak RSS and descriptors, the log's tracebacks
    tracebacks: list[str]
    attackers: dict[str, AttackerReport]

    @property
    def honest_failures(self) -> dict[str, int]:
        """Honest games not ended by the rules (reason -> games); must be empty."""
        return {k: v for k, v in self.honest_endings.items() if k != "normal"}


def ending(status: str | None, reason: str | None) -> str:
    """``normal`` for a finished game ended by the rules, ``aborted``, ``running``, or the reason it ended on."""
    if status in ("aborted", "running"):
        return str(status)
    return "normal" if reason in rule_reasons() else str(reason)


def status_of(record: Mapping[str, Any]) -> str:
    mark = (record.get("extra") or {}).get("battleground") or {}
    status = mark.get("status")
    if status in ("running", "finished", "aborted"):
        return str(status)
    return "running" if record.get("reason") == "unfinished" else "finished"


def outcome(record: Mapping[str, Any] | None, color: str | None) -> str:
    """A game's result from ``color``'s side: ``lost (REASON)``, ``won (REASON)``, ``draw``, ``aborted``,
    ``running`` or ``no record``."""
    if record is None:
        return "no record"
    status = status_of(record)
    if status != "finished":
        return status
    winner = record.get("winner")
    if winner is None:
        return "draw"
    return f"{'won' if winner == color else 'lost'} ({record.get('reason')})"


def charged(record: Mapping[str, Any] | None, color: str | None) -> tuple[float, int]:
    """The wall seconds the server charged ``color`` in the game (its record) and the moves it made."""
    if record is None or color is None:
        return 0.0, 0
    wall = ((record.get("extra") or {}).get("battleground") or {}).get("wall_used") or {}
    return float(wall.get(color) or 0.0), int((record.get("moves") or {}).get(color) or 0)


@functools.lru_cache(maxsize=1)
def _rules() -> Any:
    return load_game("infexion")


def mirror(start: Mapping[str, Any]) -> Any:
    """The game of a ``start`` message, its actions so far applied."""
    state = _rules().new_state()
    for _mover, text in start["actions"]:
        state.apply_checked(state.parse_action(text))
    return state


def legal(state: Any, rng: random.Random) -> str:
    return str(state.action_to_str(rng.choice(state.legal_actions())))


def illegal(state: Any) -> str:
    """A well-formed action against the rules in this position (a spread from a cell the mover does not hold)."""
    moves = set(state.legal_actions())
    for r in range(7):
        for q in range(7):
            text = f"SPREAD({r}, {q}, 0, 1)"
            if state.parse_action(text) not in moves:
                return text
    return "SPAWN(0, 0)"  # (never reached: the mover cannot hold all 49 cells and move)


def hello(name: str, token: str | None, channel: str, games: int = 1000) -> str:
    return json.dumps({"type": "hello", "protocol": 1, "name": name, "token": token, "channel": channel,
                       "games": games, "client": "benchmarks.battleground --attack"})


def action(game: int, text: str) -> str:
    return json.dumps({"type": "action", "id": game, "action": text, "cpu": 0, "memory_mb": 0})


def ready(game: int) -> str:
    return json.dumps({"type": "ready", "id": game})


def ws_connect(port: int, source: str) -> Any:
    """A WebSocket connection to the server's /play from loopback address ``source`` (no proxy)."""
    return connect(f"ws://127.0.0.1:{port}{PLAY_PATH}", max_size=2 ** 22, compression=None, open_timeout=30,
                   close_timeout=2, proxy=None, local_addr=(source, 0))


async def receive(ws: Any, timeout: float = IDLE) -> dict[str, Any]:
    message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
    if not isinstance(message, dict):
        raise ValueError(f"the server sent {str(message)[:80]}")
    return message


async def receive_unless(ws: Any, stop: asyncio.Event, timeout: float = IDLE) -> dict[str, Any] | None:
    """The next message, or None once ``stop`` is set before it comes: the run is over, nothing to wait for."""
    message = asyncio.ensure_future(receive(ws, timeout))
    halted = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait((message, halted), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (message, halted):
            task.cancel()
        await asyncio.gather(message, halted, return_exceptions=True)
    return None if message.cancelled() else message.result()


def rss_mb(pid: int) -> float:
    found = re.search(r"^VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(found.group(1)) / 1024 if found else float("nan")


def percentile(values: Sequence[float], share: float) -> float | None:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))] if ordered else None


class Limiter:
    """At most ``rate`` passes a second, shared by every task that waits on it (slots in order of asking)."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.next = time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        slot = max(now, self.next)
        self.next = slot + self.interval
        if slot > now:
            await asyncio.sleep(slot - now)


# -- HTTP, as a browser's fetch does it --------------------------------------------------------------------


async def http_get(port: int, path: str, source: str) -> tuple[int, bytes]:
    """One GET on a connection of its own (the server closes it after its answer): status and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        first, *lines = head.split("\r\n")
        status = int(first.split()[1])
        length = None
        for line in lines:
            key, _, value = line.partition(":")
            if key.strip().lower() == "content-length":
                length = int(value)
        body = await reader.readexactly(length) if length is not None else await reader.read(1 << 26)
        return status, body
    finally:
        writer.close()


@dataclass
class Requests:
    """GETs from one loopback address, and how they went."""

    port: int
    source: str
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    failures: int = 0
    received: int = 0  # bytes

    async def get(self, path: str, timeout: float = 30.0) -> tuple[int, bytes] | None:
        start = time.perf_counter()
        try:
            status, body = await asyncio.wait_for(http_get(self.port, path, self.source), timeout)
        except (OSError, asyncio.TimeoutError, ValueError, IndexError, EOFError, asyncio.LimitOverrunError):
            self.failures += 1
            return None
        self.latencies.append(time.perf_counter() - start)
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.received += len(body)
        return status, body

    async def json(self, path: str, tries: int = 20) -> Any:
        """The JSON at ``path`` (None on a 404 or failure); a 429 or 503 is tried again after 0.5 s."""
        for _ in range(tries):
            got = await self.get(path, 10.0)
            if got is not None and got[0] == 200:
                try:
                    return json.loads(got[1])
                except ValueError:
                    return None
            if got is not None and got[0] not in (429, 503):
                return None
            await asyncio.sleep(0.5)
        return None


def request_figures(requests: Sequence[Requests], seconds: float) -> dict[str, Any]:
    latencies = [x for r in requests for x in r.latencies]
    statuses: dict[str, int] = {}
    for r in requests:
        for status, count in r.statuses.items():
            statuses[str(status)] = statuses.get(str(status), 0) + count
    answered = len(latencies)

    def ms(value: float | None) -> float | None:
        return None if value is None else round(1000 * value, 2)

    return {"requests": answered, "per_s": round(answered / seconds, 1) if seconds else None,
            "p50_ms": ms(percentile(latencies, 0.5)), "p99_ms": ms(percentile(latencies, 0.99)),
            "max_ms": ms(max(latencies) if latencies else None), "statuses": statuses,
            "failures": sum(r.failures for r in requests), "mb": round(sum(r.received for r in requests) / 2 ** 20, 1)}


class GameLists:
    """The server's running and finished games (``GET /api/games``), read every 2 s: what readers pick from."""

    def __init__(self, requests: Requests) -> None:
        self.requests = requests
        self.running: list[dict[str, Any]] = []
        self.finished: list[dict[str, Any]] = []

    async def run(self, stop: asyncio.Event) -> None:
        for _ in range(100_000):
            if stop.is_set():
                return
            found = await self.requests.json("/api/games", tries=1)
            if isinstance(found, dict):
                self.running = list(found.get("running") or [])
                self.finished = list(found.get("finished") or [])
            await asyncio.sleep(2.0)


class Spectator:
    """Someone watching a game's page (referee/battleground/assets/game-page.js): ``GET /api/games/ID`` every
    second and ``/api/games/ID/frames`` when the game moved on; another running game when it is over; and the
    front page (assets/front-page.js: ``GET /`` every 5 s)."""

    def __init__(self, index: int, requests: Requests, lists: GameLists) -> None:
        self.index, self.requests, self.lists = index, requests, lists

    async def run(self, stop: asyncio.Event) -> None:
        game: int | None = None
        shown = -1
        tick = time.monotonic()
        front = tick + self.index % 5
        for _ in range(100_000):
            if stop.is_set():
                return
            if game is None and self.lists.running:
                running = self.lists.running
                game, shown = running[self.index % len(running)]["id"], -1
            if game is not None:
                got = await self.requests.get(f"/api/games/{game}")
                if got is not None and got[0] == 200:
                    record = json.loads(got[1])
                    if len(record.get("actions") or []) != shown:
                        frames = await self.requests.get(f"/api/games/{game}/frames")
                        if frames is not None and frames[0] == 200:
                            shown = len(record.get("actions") or [])
                    if status_of(record) != "running":
                        game = None
                elif got is not None and got[0] == 404:
                    game = None
            if time.monotonic() >= front:
                await self.requests.get("/")
                front += 5.0
            tick += 1.0
            await asyncio.sleep(max(0.0, tick - time.monotonic()))


# -- the honest side ---------------------------------------------------------------------------------------


class Honest:
    """A client with an instant agent (as a plain run's), that comes back with its token when its connection
    drops, as the bundled client does. ``think``: seconds it thinks a move; ``gate``: it moves only while the
    event is set; ``once``: it leaves after its ``done``. With ``clients``, its moves count in the run's figures."""

    def __init__(self, port: int, name: str, channel: str, source: str, *, seed: int, clients: Clients | None = None,
                 games: int = 1000, think: float = 0.0, gate: asyncio.Event | None = None, once: bool = False,
                 halt: asyncio.Event | None = None) -> None:
        self.port, self.name, self.channel, self.source = port, name, channel, source
        #: Set at the run's end: the client leaves at its next message. (A cancellation alone is not enough: in
        #: Python 3.11, asyncio.wait_for swallows one that comes as its wait ends, and the client played on.)
        self.halt = halt or asyncio.Event()
        self.rng = random.Random(seed)
        self.clients = clients
        self.games, self.think, self.gate, self.once = games, think, gate, once
        self.token: str | None = None
        self.started: list[int] = []
        #: Each game's end this client was told: id, its colour, ending (``normal`` or the reason), charge a move.
        self.ended: list[dict[str, Any]] = []
        self.drops = 0
        self.errors: list[str] = []

    async def run(self) -> None:
        delay = 0.25
        for _ in range(100):
            if self.halt.is_set():
                return
            try:
                if await self.session():
                    if self.once:
                        return
                    delay = 0.25
                    continue
            except asyncio.CancelledError:
                raise
            except (WebSocketException, OSError, asyncio.TimeoutError):
                self.drops += 1
            except Exception as exc:  # noqa: BLE001  a client's own failure: reported, and it comes back
                self.errors.append(f"{self.name}: {type(exc).__name__}: {exc}")
            await asyncio.sleep(delay)
            delay = min(4.0, 2 * delay)

    async def session(self) -> bool:
        """One connection: True when the server said ``done``, False after a ``refused`` or ``error``."""
        clients = self.clients
        async with ws_connect(self.port, self.source) as ws:
            await ws.send(hello(self.name, self.token, self.channel, self.games))
            if clients is not None:
                clients.connected += 1
            try:
                state, color = None, None
                for _ in range(10_000_000):
                    if self.halt.is_set():
                        return True
                    message = await receive(ws)
                    kind = message.get("type")
                    if kind == "play" and state is not None:
                        game = message["id"]
                        tally = clients.tally if clients is not None else None
                        sent = clients.sent.pop(game, None) if clients is not None else None
                        if sent is not None and tally is not None:
                            tally.latency.append(time.perf_counter() - sent)
                            tally.moves += 1
                        if self.gate is not None and not self.gate.is_set():
                            with contextlib.suppress(asyncio.TimeoutError):
                                await asyncio.wait_for(self.gate.wait(), 60)
                        if self.think:
                            await asyncio.sleep(self.think)
                        text = legal(state, self.rng)
                        if clients is not None:
                            clients.sent[game] = time.perf_counter()
                        await ws.send(action(game, text))
                    elif kind == "turn" and state is not None:
                        state.apply_checked(state.parse_action(message["action"]))
                    elif kind == "start":
                        state, color = mirror(message), message["color"]
                        self.started.append(message["id"])
                        if clients is not None:
                            clients.in_game.add(message["id"])
                        await ws.send(ready(message["id"]))
                    elif kind == "end":
                        state = None
                        record = message["record"]
                        wall, moves = charged(record, color)
                        self.ended.append({"id": message["id"], "color": color, "moves": moves, "wall": wall,
                                           "ending": ending(status_of(record), record.get("reason"))})
                        if clients is not None:
                            clients.in_game.discard(message["id"])
                            clients.sent.pop(message["id"], None)
                            clients.games_ended += 1
                            if clients.tally is not None:
                                clients.tally.games += 1
                    elif kind == "welcome" and message.get("token"):
                        self.token = message["token"]
                    elif kind == "done":
                        return True
                    elif kind in ("refused", "error"):
                        self.errors.append(f"{self.name}: the server sent {json.dumps(message)[:200]}")
                        return False
                return False
            finally:
                if clients is not None:
                    clients.connected -= 1


# -- the attackers -----------------------------------------------------------------------------------------


@dataclass
class AttackContext:
    """What the attackers share: the server, the run's settings and figures, and the honest clients."""

    port: int
    pid: int
    db: Path
    config: AttackConfig
    lists: GameLists
    reader: Requests  # the benchmark's own reading of the results
    honest: list[Honest] = field(default_factory=list)
    measured: dict[str, Any] = field(default_factory=dict)  # the run's row (the server's p99 under attack)
    opponents: int = 0
    halt: asyncio.Event = field(default_factory=asyncio.Event)  # the run is over: every client leaves

    async def record(self, game: int) -> dict[str, Any] | None:
        """The game's record: a finished one's from the server's database (the record of truth, and no page
        worker between), a running one's as it stands from ``GET /api/games/ID`` (answered on the loop)."""
        kept = await asyncio.to_thread(stored_record, self.db, game)
        if kept is not None:
            return kept
        found = await self.reader.json(f"/api/games/{game}", tries=6)
        return found if isinstance(found, dict) else None

    async def final_record(self, game: int, deadline: float) -> dict[str, Any] | None:
        """The game's record once it is over (or as it stands at ``deadline``)."""
        for _ in range(1000):
            record = await self.record(game)
            if record is None or status_of(record) != "running" or time.monotonic() >= deadline:
                return record
            await asyncio.sleep(0.5)
        return None


class Attacker:
    """One attacker: ``run`` for the whole measurement (until ``stop``), then ``report``."""

    name = ""
    tries = ""

    def __init__(self, ctx: AttackContext, number: int) -> None:
        self.ctx, self.config = ctx, ctx.config
        self.source = loopback(ATTACKER_NET, number)
        self.rng = random.Random(number)
        self.opponents: list[Honest] = []  # its honest opponents, started with the honest clients
        self.failures: list[str] = []  # what went wrong on the attacker's own side

    def opponent(self, channel: str, **options: Any) -> Honest:
        self.ctx.opponents += 1
        honest = Honest(self.ctx.port, f"opp-{self.name}", channel, loopback(OPPONENT_NET, self.ctx.opponents),
                        seed=1000 + self.ctx.opponents, halt=self.ctx.halt, **options)
        self.opponents.append(honest)
        return honest

    def failed(self, exc: BaseException) -> None:
        if len(self.failures) < 20:
            self.failures.append(f"{type(exc).__name__}: {exc}"[:200])

    async def run(self, stop: asyncio.Event) -> None:
        raise NotImplementedError

    async def report(self, deadline: float) -> AttackerReport:
        raise NotImplementedError

    def said(self, achieved: str, contained: bool | None, **figures: Any) -> AttackerReport:
        if self.failures:
            figures["attacker_failures"] = self.failures
        return AttackerReport(self.name, self.tries, achieved, contained, figures)


class Void(Attacker):
    """Plays a game on a private channel against an honest client and, when asked to move (at once, or after
    one or two legal moves), sends what once crashed the game's task: an ``action`` whose ``cpu`` is a
    401-digit integer (raw JSON text: the server's float() overflowed); in its next game the action
    ``SPAWN(<5000 digits>, 0)`` (int() refuses past 4300 digits); in the next, ``"cpu": NaN``; and again.
    A crash voids the game (aborted, no result) where the attacker should lose it."""

    name = "void"
    tries = "crash the game's task (a 401-digit cpu, SPAWN(<5000 digits>, 0), a NaN cpu): a void game, not a loss"
    KINDS = ("cpu: 401 digits", "SPAWN(<5000 digits>, 0)", "cpu: NaN")

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.opponent("void")
        self.attempts: list[dict[str, Any]] = []  # id, color, payload, then outcome

    @staticmethod
    def payload(kind: int, game: int, legal_text: str) -> str:
        """The attack's message, as raw JSON text (json.dumps could write neither the digits nor the NaN)."""
        head = f'{{"type": "action", "id": {game}, "action": '
        if kind == 0:
            return head + f'"{legal_text}", "cpu": {"9" * 401}, "memory_mb": 1}}'
        if kind == 1:
            return head + f'"SPAWN({"1" * 5000}, 0)", "cpu": 0.1, "memory_mb": 1}}'
        return head + f'"{legal_text}", "cpu": NaN, "memory_mb": 1}}'

    async def run(self, stop: asyncio.Event) -> None:
        token: str | None = None
        pace = Limiter(self.config.void_rate)
        for _ in range(10_000):
            if stop.is_set() or len(self.attempts) >= self.config.void_max:
                return
            try:
                async with ws_connect(self.ctx.port, self.source) as ws:
                    await ws.send(hello(self.name, token, "void"))
                    state, game, color, first = None, None, None, 0
                    for _ in range(100_000):
                        # Its opponent may be done meanwhile: a wait for a game that will not come ends with the run.
                        message = await receive_unless(ws, stop, 30)
                        if message is None:
                            return
                        kind = message["type"]
                        if kind == "welcome":
                            token = message.get("token") or token
                        elif kind == "start":
                            state, game, color = mirror(message), message["id"], message["color"]
                            first = len(self.attempts) % 3  # legal moves before the attack: 0, 1 or 2
                            await ws.send(ready(message["id"]))
                        elif kind == "turn" and state is not None:
                            state.apply_checked(state.parse_action(message["action"]))
                        elif kind == "play" and state is not None and message["id"] == game:
                            if stop.is_set():
                                return
                            text = legal(state, self.rng)
                            if first > 0:
                                first -= 1
                                await ws.send(action(game, text))
                                continue
                            await pace.wait()
                            which = len(self.attempts) % len(self.KINDS)
                            self.attempts.append({"id": game, "color": color, "payload": self.KINDS[which]})
                            await ws.send(self.payload(which, game, text))
                            state = None
                        elif kind == "end":
                            state = None
                        elif kind == "done":
                            break
            except ConnectionClosed:
                pass  # the server closes on a violation: the next game on a new connection
            except (WebSocketException, OSError, asyncio.TimeoutError, ValueError, KeyError) as exc:
                self.failed(exc)
            await asyncio.sleep(0.02)

    async def report(self, deadline: float) -> AttackerReport:
        by: dict[str, int] = {}
        for attempt in self.attempts:
            attempt["outcome"] = outcome(await self.ctx.final_record(attempt["id"], deadline), attempt["color"])
            by[attempt["outcome"]] = by.get(attempt["outcome"], 0) + 1
        lost = sum(n for what, n in by.items() if what.startswith("lost"))
        kinds = {kind: sum(1 for a in self.attempts if a["payload"] == kind) for kind in self.KINDS}
        voided = len(self.attempts) - lost
        achieved = (f"{len(self.attempts)} games attacked ({', '.join(f'{k}: {n}' for k, n in kinds.items())}): "
                    + ", ".join(f"{n} {what}" for what, n in sorted(by.items(), key=lambda x: -x[1]))
                    + f"; games voided or not lost: {voided}")
        return self.said(achieved, bool(self.attempts) and voided == 0, attempts=len(self.attempts),
                         lost=lost, outcomes=by, kinds=kinds,
                         not_lost=[a for a in self.attempts if not a["outcome"].startswith("lost")][:20])


class Storm(Attacker):
    """Joins a game on a private channel against an honest client, never says ``ready``, and comes back with
    its token as fast as it can (closing, reconnecting, ``hello``; at most ``storm_max`` returns a game, then
    it holds its connection silent). Each return makes the server send the game again: a server that renewed
    the start-up allowance at each return never ends the game; one that nested a wait per return failed
    (RecursionError) and voided it."""

    name = "storm"
    tries = "never ready, reconnect with its token as fast as it can: renew the start-up allowance or nest waits"

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.opponent("storm")
        self.games: dict[int, dict[str, Any]] = {}  # id -> color, returns, seen (monotonic)
        self.connections = 0

    async def run(self, stop: asyncio.Event) -> None:
        token: list[str | None] = [None]
        for _ in range(self.config.storm_max * 100):
            if stop.is_set():
                return
            try:
                async with ws_connect(self.ctx.port, self.source) as ws:
                    self.connections += 1
                    await ws.send(hello(self.name, token[0], "storm"))
                    game = await self._game(ws, token)
                    if game is None:
                        continue
                    entry = self.games[game]
                    if entry["returns"] < self.config.storm_max:
                        entry["returns"] += 1
                        continue  # closed on leaving the block: and back at once
                    await self._hold(ws, game, stop)  # its returns spent: silent until the game ends
            except ConnectionClosed:
                pass
            except (WebSocketException, OSError, asyncio.TimeoutError, ValueError, KeyError) as exc:
                self.failed(exc)
                await asyncio.sleep(0.1)

    async def _game(self, ws: Any, token: list[str | None]) -> int | None:
        """The id of the game the server starts (or sends again) on this connection; None if none comes."""
        deadline = time.monotonic() + 30
        for _ in range(1000):
            message = await receive(ws, max(0.01, deadline - time.monotonic()))
            kind = message["type"]
            if kind == "welcome":
                token[0] = message.get("token") or token[0]
            elif kind == "start":
                game = message["id"]
                self.games.setdefault(game, {"color": message["color"], "returns": 0, "seen": time.monotonic()})
                return int(game)
            elif kind in ("done", "refused", "error"):
                return None
        return None

    async def _hold(self, ws: Any, game: int, stop: asyncio.Event) -> None:
        deadline = time.monotonic() + self.config.start_timeout + 60
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                message = await receive(ws, 1.0)
            except asyncio.TimeoutError:
                continue
            if message["type"] == "end" and message["id"] == game:
                return

    async def report(self, deadline: float) -> AttackerReport:
        allowance = self.config.start_timeout
        rows = []
        for game, entry in sorted(self.games.items()):
            record = await self.ctx.final_record(game, deadline)
            held = (record or {}).get("duration") if record and status_of(record) != "running" else None
            age = time.monotonic() - entry["seen"]
            rows.append({"id": game, "returns": entry["returns"], "outcome": outcome(record, entry["color"]),
                         "held_s": held, "age_s": round(age, 1)})
        ended = [r for r in rows if r["outcome"] != "running"]
        lost = [r for r in ended if r["outcome"] == "lost (load_error)"]
        # A game still running counts against containment once it is well past its allowance.
        overdue = [r for r in rows if r["outcome"] == "running" and r["age_s"] > allowance + 10]
        returns = sum(r["returns"] for r in rows)
        longest = max((r["returns"] for r in rows), default=0)
        held = [r["held_s"] for r in lost if r["held_s"] is not None]
        achieved = (f"{len(rows)} games, {returns} returns (at most {longest} in a game); "
                    f"{len(lost)} of {len(ended)} ended lost by it on load_error after "
                    f"{min(held, default=0):.1f}-{max(held, default=0):.1f} s (allowance {allowance:g} s)"
                    + "".join(f", {r['outcome']}" for r in ended if r not in lost)
                    + (f"; {len(overdue)} still held past the allowance" if overdue else ""))
        contained = bool(ended) and len(lost) == len(ended) and not overdue
        return self.said(achieved, contained, games=rows, returns=returns)


class _Thinker(Attacker):
    """What offclock and latepong share: each game's thinking (``thought`` before each action sent), and what
    the server charged for it (its record's ``wall_used``)."""

    slack = 0.0

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.games: dict[int, dict[str, Any]] = {}  # id -> color, thought (s so far), at (thought at each action)

    def game(self, start: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
        """The entry of the game ``start`` is about; whether it is new."""
        entry = self.games.get(start["id"])
        if entry is not None:
            return entry, False
        entry = self.games[start["id"]] = {"color": start["color"], "thought": 0.0, "at": []}
        return entry, True

    async def report(self, deadline: float) -> AttackerReport:
        thought = paid = 0.0
        moves = 0
        rows = []
        for game, entry in sorted(self.games.items()):
            record = await self.ctx.record(game)  # as it stands: a game this long is still being played
            wall, made = charged(record, entry["color"])
            made = min(made, len(entry["at"]))
            mine = entry["at"][made - 1] if made else 0.0
            thought, paid, moves = thought + mine, paid + wall, moves + made
            rows.append({"id": game, "moves": made, "thought_s": round(mine, 2), "charged_s": round(wall, 2),
                         "outcome": outcome(record, entry["color"])})
        contained = moves > 0 and thought > 0 and paid >= thought - self.slack * moves
        achieved = (f"thought {thought:.1f} s on its own turns over {moves} moves, charged {paid:.1f} s "
                    f"({'all of it' if paid >= thought else f'{thought - paid:.1f} s free'}); its games: "
                    + ", ".join(f"{r['id']} {r['outcome']}" for r in rows[-3:]))
        return self.said(achieved, contained, thought_s=round(thought, 3), charged_s=round(paid, 3), moves=moves,
                         games=rows, **self.extra())

    def extra(self) -> dict[str, Any]:
        return {}


class Offclock(_Thinker):
    """Plays a game against an honest client that thinks 0.2 s a move, and after each of its own actions
    closes its connection, comes back at once (``hello`` with its token: back during its opponent's turn) and
    sleeps ``think`` s after the game's ``start`` before saying ``ready``, reading meanwhile. A server that
    resumed a returner (sent it the game, waited for its ``ready``) before asking it to move, and started its
    clock only then, let it think off the clock: whatever it thought after its opponent moved. Its thinking
    that the server must charge is the part of each sleep on its own turn: after its opponent's move (which
    it sees in the ``start``'s actions, or as a ``turn`` during the sleep)."""

    name = "offclock"
    tries = "drop and return after each of its moves, thinking before `ready`: think off the clock"
    slack = OFFCLOCK_SLACK

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.opponent("offclock", think=0.2)
        self.returns = 0
        self.slept = 0.0

    async def think(self, ws: Any, state: Any, entry: dict[str, Any], game: int) -> str | None:
        """Its sleep before ``ready``, reading: ``play`` when it was asked to move meanwhile, ``end`` when the
        game ended meanwhile, else None. The part of it on its own turn (once its opponent had moved: in the
        ``start``'s actions, or its ``turn`` came meanwhile) is counted in ``entry``."""
        mine = 0 if entry["color"] == "RED" else 1
        began = time.perf_counter()
        end = began + self.config.think
        own: float | None = began if state.current_player == mine else None
        said: str | None = None
        for _ in range(10_000):
            left = end - time.perf_counter()
            if left <= 0:
                break
            try:
                message = await receive(ws, left)
            except asyncio.TimeoutError:
                break
            if message["type"] == "turn":
                state.apply_checked(state.parse_action(message["action"]))
                if own is None and not state.is_over and state.current_player == mine:
                    own = time.perf_counter()
            elif message["type"] == "play" and message["id"] == game:
                said = "play"
                own = own or time.perf_counter()
            elif message["type"] == "end" and message["id"] == game:
                said = "end"
                break
        finished = time.perf_counter()
        self.slept += finished - began
        if own is not None and said != "end":
            entry["thought"] += finished - own
        return said

    async def run(self, stop: asyncio.Event) -> None:
        token: str | None = None
        for _ in range(20_000):
            if stop.is_set():
                return
            try:
                async with ws_connect(self.ctx.port, self.source) as ws:
                    await ws.send(hello(self.name, token, "offclock"))
                    state, entry, game = None, None, None
                    for _ in range(100_000):
                        message = await receive(ws)
                        kind = message["type"]
                        asked = False
                        if kind == "welcome":
                            token = message.get("token") or token
                        elif kind == "start":
                            state, game = mirror(message), message["id"]
                            entry, new = self.game(message)
                            said = None
                            if not new:  # back in its game: it thinks before saying ready
                                self.returns += 1
                                said = await self.think(ws, state, entry, game)
                            if said == "end":
                                state = None
                                continue
                            await ws.send(ready(game))
                            asked = said == "play"  # asked while it thought: its answer now
                        elif kind == "turn" and state is not None:
                            state.apply_checked(state.parse_action(message["action"]))
                        elif kind == "play" and state is not None and message["id"] == game:
                            asked = True
                        elif kind == "end":
                            state = None
                        elif kind == "done":
                            break
                        if asked and state is not None and entry is not None and game is not None:
                            if stop.is_set():
                                return
                            entry["at"].append(entry["thought"])
                            await ws.send(action(game, legal(state, self.rng)))
                            break  # away at once (the block closes the connection), and back
            except ConnectionClosed:
                pass
            except (WebSocketException, OSError, asyncio.TimeoutError, ValueError, KeyError) as exc:
                self.failed(exc)
                await asyncio.sleep(0.1)

    def extra(self) -> dict[str, Any]:
        return {"returns": self.returns, "slept_s": round(self.slept, 2), "think_s": self.config.think}


class Pages(Attacker):
    """Plays a game against an honest client and, right after each of its own moves (while its opponent's
    clock runs), fires 5 GETs at the heaviest pages: ``/api/games/ID/frames`` of its own game and of the
    longest running and finished games, and ``/games/ID/replay`` of the longest finished ones; besides, a
    steady flood of ``pages_flood`` concurrent tasks at the same pages; all within ``pages_rate`` requests a
    second. Pages built on the event loop stall every game, and charge its opponent for the wait.
    Contained: its opponent is charged a move no more than :data:`PAGES_FACTOR` times the honest games'
    median (plus :data:`PAGES_MARGIN_MS`); the server's p99 and the readers' answers meanwhile are reported."""

    name = "pages"
    tries = "after each of its moves and in a flood, GET the heaviest pages: stall the loop on its opponent's clock"

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.opponent("pages")
        self.requests = Requests(ctx.port, self.source)
        self.games: dict[int, str] = {}  # id -> its colour
        self.current: int | None = None
        self.began = self.ended = 0.0

    def targets(self) -> list[str]:
        def longest(games: list[dict[str, Any]]) -> list[int]:
            return [g["id"] for g in sorted(games, key=lambda g: -(g.get("turns") or 0))[:5]]

        finished, running = longest(self.ctx.lists.finished), longest(self.ctx.lists.running)
        own = [self.current] if self.current is not None else []
        return ([f"/api/games/{g}/frames" for g in finished + running + own]
                + [f"/games/{g}/replay" for g in finished])

    async def hit(self, limiter: Limiter, path: str) -> None:
        await limiter.wait()
        await self.requests.get(path)

    async def flood(self, stop: asyncio.Event, limiter: Limiter) -> None:
        for _ in range(1_000_000):
            if stop.is_set():
                return
            paths = self.targets()
            if not paths:
                await asyncio.sleep(0.5)
                continue
            await self.hit(limiter, self.rng.choice(paths))

    async def run(self, stop: asyncio.Event) -> None:
        limiter = Limiter(self.config.pages_rate)
        self.began = time.monotonic()
        flood = [asyncio.create_task(self.flood(stop, limiter)) for _ in range(self.config.pages_flood)]
        try:
            await self.play(stop, limiter)
        finally:
            self.ended = time.monotonic()
            for task in flood:
                task.cancel()
            await asyncio.gather(*flood, return_exceptions=True)

    async def play(self, stop: asyncio.Event, limiter: Limiter) -> None:
        token: str | None = None
        for _ in range(1000):
            if stop.is_set():
                return
            try:
                async with ws_connect(self.ctx.port, self.source) as ws:
                    await ws.send(hello(self.name, token, "pages"))
                    state = None
                    for _ in range(100_000):
                        message = await receive(ws)
                        kind = message["type"]
                        if kind == "welcome":
                            token = message.get("token") or token
                        elif kind == "start":
                            state, self.current = mirror(message), message["id"]
                            self.games[message["id"]] = message["color"]
                            await ws.send(ready(message["id"]))
                        elif kind == "turn" and state is not None:
                            state.apply_checked(state.parse_action(message["action"]))
                        elif kind == "play" and state is not None:
                            if stop.is_set():
                                return
                            await ws.send(action(message["id"], legal(state, self.rng)))
                            own = f"/api/games/{message['id']}/frames"
                            others = self.targets()
                            paths = [own] + [self.rng.choice(others) for _ in range(4)]
                            await asyncio.gather(*(self.hit(limiter, path) for path in paths))
                        elif kind == "end":
                            state = None
                        elif kind == "done":
                            break
            except ConnectionClosed:
                pass
            except (WebSocketException, OSError, asyncio.TimeoutError, ValueError, KeyError) as exc:
                self.failed(exc)
                await asyncio.sleep(0.1)

    async def report(self, deadline: float) -> AttackerReport:
        figures = request_figures([self.requests], max(1e-9, self.ended - self.began))
        opponent_wall = opponent_moves = 0.0
        for game, color in sorted(self.games.items()):
            wall, moves = charged(await self.ctx.record(game), "BLUE" if color == "RED" else "RED")
            opponent_wall, opponent_moves = opponent_wall + wall, opponent_moves + moves
        per_move = 1000 * opponent_wall / opponent_moves if opponent_moves else None
        honest = [g["wall"] / g["moves"] for h in self.ctx.honest for g in h.ended if g["moves"]]
        honest_ms = 1000 * statistics.median(honest) if honest else None
        p99 = self.ctx.measured.get("server_p99_ms")
        readers = self.ctx.measured.get("readers") or {}
        contained = (None if per_move is None or honest_ms is None
                     else per_move <= PAGES_FACTOR * honest_ms + PAGES_MARGIN_MS)
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(figures["statuses"].items()))
        achieved = (f"{figures['requests']} requests ({figures['per_s']}/s; {statuses}; {figures['failures']} failed), "
                    f"answered in p50 {figures['p50_ms']} / p99 {figures['p99_ms']} / max {figures['max_ms']} ms; "
                    f"its opponent charged {per_move or 0:.1f} ms a move (honest games: {honest_ms or 0:.1f}); "
                    f"the server's p99 under all attacks {p99 if p99 is None else round(p99, 1)} ms (target "
                    f"{PAGES_TARGET_MS:g}); the spectators' "
                    f"requests meanwhile p99 {readers.get('p99_ms')} ms, {readers.get('statuses')}")
        return self.said(achieved, contained, requests=figures, opponent_ms_a_move=per_move,
                         honest_ms_a_move=honest_ms, games=len(self.games))


class Pile(Attacker):
    """Plays a game against an honest client and, during every other turn of its opponent's, sends ``action``
    messages of 64 KiB, well-formed (its game's id, an action text of 65,000 characters), ``pile_rate`` a
    second (the server refills 200 a second), for ``pile_burst`` s; in the other turns it stays quiet as long.
    Then a ping, whose pong says the server's WebSocket layer has read everything before it. Its opponent
    moves only after that (it is held for the turn), so every message was sent, and had reached the server,
    before the server asked the pile for its next move. A server that queued the messages until the sender's
    turn grew by every byte (35 -> 205 MB in 18 s), and played the first one at its turn.

    The server's memory is read (VmRSS, and its page cache's size from ``/api/stats``, which the readers fill
    meanwhile) before and after each turn: the pile's cost is what its burst turns added less what its quiet
    turns added (scaled to as many turns), so that what the rest of the run adds cancels out. Contained: less
    than :data:`PILE_BOUND_MB`, and no message taken for the pile's next action."""

    name = "pile"
    tries = "during its opponent's turn send 64 KiB well-formed actions within the rate limit: make them pile up"

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.gate = asyncio.Event()
        self.gate.set()
        self.opponent("pile", gate=self.gate)
        self.sent = self.bytes = 0
        #: What each turn added to the server's memory (MB, its page cache's growth taken off), bursts and quiet.
        self.bursts: list[float] = []
        self.quiet: list[float] = []
        self.first: float | None = None  # the server's RSS before the first turn (MB)
        self.highest = 0.0
        self.games: dict[int, str] = {}
        #: Games in which the opponent was let move before a burst was known to be through (see run()).
        self.unmeasured: set[int] = set()
        #: The game whose last of the opponent's turns was a burst known to be through, and how many times the
        #: server then asked the pile to move: each a check that no filler was taken for that move.
        self.flushed: int | None = None
        self.checks = 0

    @staticmethod
    def filler(game: int) -> str:
        head = f'{{"type": "action", "id": {game}, "action": "'
        tail = '", "cpu": 0.0, "memory_mb": 0.0}'
        return head + "x" * (64 * 1024 - 16 - len(head) - len(tail)) + tail

    async def run(self, stop: asyncio.Event) -> None:
        token: str | None = None
        try:
            for _ in range(1000):
                if stop.is_set():
                    return
                try:
                    async with ws_connect(self.ctx.port, self.source) as ws:
                        await ws.send(hello(self.name, token, "pile"))
                        state = None
                        for _ in range(100_000):
                            message = await receive(ws)
                            kind = message["type"]
                            if kind == "welcome":
                                token = message.get("token") or token
                            elif kind == "start":
                                state = mirror(message)
                                self.games[message["id"]] = message["color"]
                                await ws.send(ready(message["id"]))
                            elif kind == "turn" and state is not None:
                                state.apply_checked(state.parse_action(message["action"]))
                            elif kind == "play" and state is not None:
                                if self.flushed == message["id"]:
                                    self.checks += 1
                                self.flushed = None
                                if stop.is_set():
                                    return
                                self.gate.clear()
                                # Until its flush and pong are done, a failure here (its connection, the
                                # server's stats under load) lets the opponent move while fillers may still
                                # wait in the server's queue: such a game does not measure what is asked.
                                self.unmeasured.add(message["id"])
                                await ws.send(action(message["id"], legal(state, self.rng)))
                                if await self.turn(ws, message["id"], stop):
                                    self.unmeasured.discard(message["id"])
                                self.gate.set()
                            elif kind == "end":
                                state = None
                            elif kind == "done":
                                break
                except ConnectionClosed:
                    pass
                except (WebSocketException, OSError, asyncio.TimeoutError, ValueError, KeyError) as exc:
                    self.failed(exc)
                    await asyncio.sleep(0.1)
                finally:
                    self.gate.set()
        finally:
            self.gate.set()

    async def memory(self) -> float:
        """The server's RSS less its page cache (MB)."""
        stats = await self.ctx.reader.json("/api/stats", tries=3)
        pages = stats.get("pages") if isinstance(stats, dict) else None
        rss = rss_mb(self.ctx.pid)
        self.highest = max(self.highest, rss)
        if self.first is None:
            self.first = rss
        return rss - float((pages or {}).get("cache_bytes") or 0) / 2 ** 20

    async def turn(self, ws: Any, game: int, stop: asyncio.Event) -> bool:
        """One of its opponent's turns: a burst (every other one) or as long quiet; then a ping.  False when the
        run's end cut it short: its fillers were not flushed, so the game measures nothing."""
        burst = len(self.quiet) >= len(self.bursts)
        self.flushed = None
        before = await self.memory()
        began = time.monotonic()
        filler = self.filler(game) if burst else ""
        for i in range(int(self.config.pile_rate * self.config.pile_burst)):
            if stop.is_set():
                return False
            wait = began + i / self.config.pile_rate - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if burst:
                await ws.send(filler)
                self.sent += 1
                self.bytes += len(filler)
        # A pong says the server's WebSocket layer has read every frame before the ping, but some may still wait
        # in its queue for the server to take them: two rounds of small messages it drops (a ready of no game)
        # push every filler through first, so that none is still in flight when the server asks (FLUSH_MESSAGES).
        for _ in range(2 if burst else 1):
            for _ in range(FLUSH_MESSAGES if burst else 0):
                await ws.send(ready(0))
            pong = await ws.ping()
            await asyncio.wait_for(pong, 60)
        (self.bursts if burst else self.quiet).append(await self.memory() - before)
        if burst:
            self.flushed = game
        return True

    async def report(self, deadline: float) -> AttackerReport:
        growth = None
        if self.bursts and self.quiet:
            growth = sum(self.bursts) - sum(self.quiet) * len(self.bursts) / len(self.quiet)
        results, played = [], 0
        for game, color in sorted(self.games.items()):
            record = await self.ctx.record(game)
            results.append(outcome(record, color))
            # A filler taken for its action: sent during the opponent's turn, before the server's play.
            if record is not None and record.get("reason") == "protocol_error" and "xxxxxxxx" in str(
                    record.get("message")) and game not in self.unmeasured:
                played += 1
        sent_mb = self.bytes / 2 ** 20
        contained = None if growth is None else growth < PILE_BOUND_MB and not played
        shown = ", ".join(f"{n} {what}" for what, n in collections.Counter(results).most_common()) or "none"
        achieved = (f"{self.sent} messages ({sent_mb:.0f} MB) in {len(self.bursts)} bursts of "
                    f"{self.config.pile_burst:g} s; they added {growth or 0:+.1f} MB to the server over as many "
                    f"quiet turns (+{sum(self.bursts):.1f} MB in bursts, +{sum(self.quiet):.1f} MB in "
                    f"{len(self.quiet)} quiet turns; bound {PILE_BOUND_MB:g}); its RSS {self.first or 0:.0f} -> "
                    f"at most {self.highest:.0f} MB; "
                    f"a message sent before the server's play was played as its action in {played} of its "
                    f"{len(results)} games ({shown}; {self.checks} moves asked right after a burst)")
        return self.said(achieved, contained, sent=self.sent, sent_mb=round(sent_mb, 1),
                         growth_mb=None if growth is None else round(growth, 1),
                         bursts_mb=[round(x, 1) for x in self.bursts], quiet_mb=[round(x, 1) for x in self.quiet],
                         rss_first_mb=self.first, rss_highest_mb=round(self.highest, 1), filler_played=played,
                         games=results, unmeasured=sorted(self.unmeasured), checks=self.checks)


class Ratings(Attacker):
    """Two fresh names (``farm-a``, ``farm-b``) play each other on a private channel, as fast as they can;
    ``farm-b`` throws every game (an illegal action at its first turn). A rating fitted from every finished
    game puts ``farm-a`` at the top of the leaderboard; a pair that plays only each other could leave the joint
    fit unable to rate anyone. Contained: ``farm-a`` is rated, no higher than the fit of
    ``referee.battleground.rating.PER_PAIR`` straight wins gives (the games of a pair a day that count), and
    every honest player with a finished game is rated."""

    name = "ratings"
    tries = "two fresh names, one throwing every game to the other, as fast as they can: farm a rating"

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.thrown = 0
        self.played = 0
        self.last_end = self.stopped = 0.0

    async def run(self, stop: asyncio.Event) -> None:
        enough = asyncio.Event()
        self.last_end = time.monotonic()
        try:
            await asyncio.gather(self.side("farm-a", True, stop, enough), self.side("farm-b", False, stop, enough))
        finally:
            self.stopped = time.monotonic()

    async def side(self, name: str, wins: bool, stop: asyncio.Event, enough: asyncio.Event) -> None:
        token: str | None = None
        for _ in range(1000):
            if stop.is_set() or enough.is_set():
                return
            try:
                async with ws_connect(self.ctx.port, self.source) as ws:
                    await ws.send(hello(name, token, "farm"))
                    state, color = None, None
                    for _ in range(1_000_000):
                        if stop.is_set() or enough.is_set():
                            return
                        try:
                            message = await receive(ws, 1.0)
                        except asyncio.TimeoutError:
                            continue
                        kind = message["type"]
                        if kind == "welcome":
                            token = message.get("token") or token
                        elif kind == "start":
                            state, color = mirror(message), message["color"]
                            await ws.send(ready(message["id"]))
                        elif kind == "turn" and state is not None:
                            state.apply_checked(state.parse_action(message["action"]))
                        elif kind == "play" and state is not None:
                            text = legal(state, self.rng) if wins else illegal(state)
                            await ws.send(action(message["id"], text))
                        elif kind == "end" and not wins:
                            state = None
                            self.played += 1
                            self.last_end = time.monotonic()
                            if message["record"].get("winner") not in (color, None):
                                self.thrown += 1
                            if self.thrown >= self.config.ratings_games:
                                enough.set()
                        elif kind == "end":
                            state = None
                        elif kind == "done":
                            break
            except ConnectionClosed:
                pass
            except (WebSocketException, OSError, asyncio.TimeoutError, ValueError, KeyError) as exc:
                self.failed(exc)
                await asyncio.sleep(0.1)

    @staticmethod
    def cap() -> tuple[float | None, int | None]:
        """The rating ``PER_PAIR`` straight wins over a fresh name give in the anchored fit, and ``PER_PAIR``."""
        try:
            from referee.battleground.rating import PER_PAIR, ratings_of
            from referee.core import utc_now
        except ImportError:
            return None, None
        now = utc_now()
        fit = ratings_of([("farm-a", "farm-b", "RED", now)] * PER_PAIR)
        return fit["farm-a"][0], PER_PAIR

    async def report(self, deadline: float) -> AttackerReport:
        board: list[dict[str, Any]] = []
        rating: Any = "unread"
        # The fit runs in a worker as games end: read until the farmer's rating stands still (a few reads).
        for _ in range(20):
            found = await self.ctx.reader.json("/api/leaderboard")
            board = found if isinstance(found, list) else []
            row = next((r for r in board if r.get("name") == "farm-a"), None)
            now = None if row is None else row.get("rating")
            if now == rating and now is not None or time.monotonic() >= deadline:
                rating = now
                break
            rating = now
            await asyncio.sleep(1.0)
        row = next((r for r in board if r.get("name") == "farm-a"), None) or {}
        honest = {h.name for h in self.ctx.honest}
        played = [r for r in board if r.get("name") in honest and r.get("games")]
        rated = [r for r in played if r.get("rating") is not None]
        top = max((r["rating"] for r in rated), default=None)
        cap, per_pair = self.cap()
        contained: bool | None
        if cap is None:
            contained = None
        else:
            contained = (rating is not None and isinstance(rating, (int, float)) and rating <= cap + 1
                         and len(rated) == len(played))
        shown = "no rating" if rating is None else f"{rating} ± {row.get('interval')}"
        idle = self.stopped - self.last_end
        unpaired = f" (then none in its last {idle:.0f} s: the server paired them no more)" if idle > 3 else ""
        achieved = (f"{self.thrown} games thrown of {self.played}{unpaired}; farm-a: {shown}"
                    f"{' (provisional)' if row.get('provisional') else ''}, rank {row.get('rank')} of {len(board)}, "
                    f"W/D/L {row.get('wins')}/{row.get('draws')}/{row.get('losses')}; cap ({per_pair} wins) "
                    f"{'-' if cap is None else round(cap)}; honest players rated: {len(rated)} of {len(played)} "
                    f"(best {top})")
        return self.said(achieved, contained, thrown=self.thrown, idle_s=round(idle, 1), rating=rating, row=row,
                         cap=None if cap is None else round(cap, 1), honest_rated=len(rated),
                         honest_played=len(played), best_honest=top)


class Sockets(Attacker):
    """Opens raw TCP connections to the server's port that never complete the WebSocket handshake: half say
    nothing, half send a request line and then one header line every 2 s (slowloris); at most ``sockets`` at
    once, opening another as each closes. Connections held open use up the server's descriptors and memory.
    Contained: none stays open longer than the server's hello timeout (plus its loop's lag)."""

    name = "sockets"
    tries = "hold open raw TCP connections that never finish the handshake (silent, slowloris): use up descriptors"

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.opened = self.refused = self.connect_failed = self.gave_up = 0
        self.open: dict[int, float] = {}  # slot -> when its connection opened
        self.lifetimes: list[float] = []  # of the connections the server closed
        self.held_long: list[float] = []  # of those it never closed
        self.at_end: list[float] = []  # the ages of those open when the attack stopped
        self.held = 0  # the most connections open for more than 1 s at once

    async def run(self, stop: asyncio.Event) -> None:
        slots = [asyncio.create_task(self.slot(i, stop)) for i in range(self.config.sockets)]
        try:
            for _ in range(100_000):
                if stop.is_set():
                    break
                now = time.monotonic()
                self.held = max(self.held, sum(1 for t in self.open.values() if now - t > 1.0))
                await asyncio.sleep(0.5)
        finally:
            self.at_end = [time.monotonic() - t for t in self.open.values()]
            for task in slots:
                task.cancel()
            await asyncio.gather(*slots, return_exceptions=True)

    async def slot(self, index: int, stop: asyncio.Event) -> None:
        slow = index % 2 == 1
        for _ in range(10_000):
            if stop.is_set():
                return
            began = time.monotonic()
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", self.ctx.port, local_addr=(self.source, 0)), 10)
            except (OSError, asyncio.TimeoutError):
                self.connect_failed += 1
                await asyncio.sleep(0.2)
                continue
            self.opened += 1
            self.open[index] = began
            closed = False
            try:
                if slow:
                    writer.write(b"GET /play HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                limit = 3 * HELLO_TIMEOUT + 10
                while time.monotonic() - began < limit:
                    try:
                        if not await asyncio.wait_for(reader.read(4096), 2.0):
                            closed = True  # by the server
                            break
                    except asyncio.TimeoutError:
                        if slow:
                            writer.write(b"X-Slow: 1\r\n")
                else:
                    self.gave_up += 1  # it held the connection as long as it meant to: the server never closed it
                    self.held_long.append(time.monotonic() - began)
            except OSError:
                closed = True  # reset by the server
            finally:
                self.open.pop(index, None)
                writer.close()
            lived = time.monotonic() - began
            if closed:
                self.lifetimes.append(lived)
            if closed and lived < 0.5:  # closed at once: the server's share for this address is full
                self.refused += 1
                await asyncio.sleep(0.2)

    async def report(self, deadline: float) -> AttackerReport:
        closed = [x for x in self.lifetimes if x >= 0.5]
        longest = max(closed + self.at_end + self.held_long, default=0.0)
        bound = HELLO_TIMEOUT + SOCKET_SLACK
        stats = await self.ctx.reader.json("/api/stats") or {}
        contained = self.opened > 0 and longest <= bound
        achieved = (f"{self.opened} connections opened, at most {self.held} open at once for over 1 s (as it saw "
                    f"them: the server's accept queue included); {self.refused} closed by the server within 0.5 s, "
                    f"the others after "
                    f"{percentile(closed, 0.5) or 0:.1f} s (median); the longest open {longest:.1f} s (hello "
                    f"timeout {HELLO_TIMEOUT:g} s); "
                    f"server's peak descriptors {self.ctx.measured.get('peak_fds')}")
        return self.said(achieved, contained, opened=self.opened, held=self.held, refused_at_once=self.refused,
                         longest_s=round(longest, 2), gave_up=self.gave_up, connect_failed=self.connect_failed,
                         server_sockets=stats.get("sockets"))


class Double(Attacker):
    """Logs in twice with the same name and token while waiting for an opponent: one ``hello`` after the
    other, or both at once (alternate rounds), on a channel of its own each round; then an honest client
    joins it and the game is played. Two places in the lobby would pair the name with itself or play two
    games at once; a replaced connection left in the lobby would keep a ghost's place. Contained: each round
    one of the two connections is closed by the server, one game is played, and it ends by the rules."""

    name = "double"
    tries = "log in twice with one name and token while waiting: two places, a game against itself, a ghost"

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.rounds: list[dict[str, Any]] = []
        self.token: str | None = None
        self.opp_token: str | None = None
        ctx.opponents += 1
        self.opp_source = loopback(OPPONENT_NET, ctx.opponents)

    async def run(self, stop: asyncio.Event) -> None:
        for number in range(self.config.double_rounds):
            if stop.is_set():
                return
            try:
                await self.round(number, stop)
            except (WebSocketException, OSError, asyncio.TimeoutError, ValueError, KeyError) as exc:
                self.failed(exc)
            await asyncio.sleep(0.2)

    async def side(self, ws: Any, seen: dict[str, Any], stop: asyncio.Event) -> None:
        """One of the two connections: its welcome, and the game if it is the one that gets it."""
        state = None
        try:
            for _ in range(100_000):
                message = await receive(ws, 60)
                kind = message["type"]
                if kind == "welcome":
                    self.token = message.get("token") or self.token
                    seen["welcome"] = True
                elif kind == "start":
                    seen.setdefault("starts", []).append(message["id"])
                    state = mirror(message)
                    await ws.send(ready(message["id"]))
                elif kind == "turn" and state is not None:
                    state.apply_checked(state.parse_action(message["action"]))
                elif kind == "play" and state is not None:
                    await ws.send(action(message["id"], legal(state, self.rng)))
                elif kind == "end":
                    state = None
                    seen["record"] = message["record"]
                elif kind in ("done", "refused", "error"):
                    seen[kind] = message.get("message") or message.get("reason")
        except ConnectionClosed:
            pass
        seen["closed"] = ws.close_code
        seen["closed_at"] = time.monotonic()

    async def round(self, number: int, stop: asyncio.Event) -> None:
        channel = f"double-{number}"
        at_once = number % 2 == 1 and self.token is not None
        seen: list[dict[str, Any]] = [{}, {}]
        first = await ws_connect(self.ctx.port, self.source)
        second = None
        tasks: list[asyncio.Task[None]] = []
        try:
            if at_once:
                second = await ws_connect(self.ctx.port, self.source)
                await asyncio.gather(first.send(hello(self.name, self.token, channel, 1)),
                                     second.send(hello(self.name, self.token, channel, 1)))
                tasks = [asyncio.create_task(self.side(ws, s, stop)) for ws, s in ((first, seen[0]), (second, seen[1]))]
            else:
                await first.send(hello(self.name, self.token, channel, 1))
                tasks.append(asyncio.create_task(self.side(first, seen[0], stop)))
                for _ in range(100):  # its welcome (and token) before the second login
                    if "welcome" in seen[0] or tasks[0].done():
                        break
                    await asyncio.sleep(0.05)
                second = await ws_connect(self.ctx.port, self.source)
                await second.send(hello(self.name, self.token, channel, 1))
                tasks.append(asyncio.create_task(self.side(second, seen[1], stop)))
            for _ in range(50):  # the server closes one of the two (5 s at most)
                if any("closed" in s for s in seen):
                    break
                await asyncio.sleep(0.1)
            replaced = [s.get("closed") for s in seen if "closed" in s]
            opponent = Honest(self.ctx.port, "opp-double", channel, self.opp_source, seed=number, games=1, once=True,
                              halt=self.ctx.halt)
            opponent.token = self.opp_token
            try:
                await asyncio.wait_for(opponent.run(), 60)
            except asyncio.TimeoutError:
                pass
            self.opp_token = opponent.token
            await asyncio.wait(tasks, timeout=10)
            starts = [game for s in seen for game in s.get("starts", [])]
            ends = [e["ending"] for e in opponent.ended]
            records = [s["record"] for s in seen if "record" in s]
            against_itself = sum(1 for r in records if r.get("red") == r.get("blue"))
            self.rounds.append({"round": number, "at_once": at_once, "replaced": replaced, "starts": len(starts),
                                "opponent_games": len(opponent.started), "endings": ends,
                                "against_itself": against_itself,
                                "refused": [s.get("refused") for s in seen if s.get("refused")]})
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for ws in (first, second):
                if ws is not None:
                    await ws.close()

    async def report(self, deadline: float) -> AttackerReport:
        rounds = self.rounds
        clean = [r for r in rounds if len(r["replaced"]) == 1 and r["starts"] == 1 and r["opponent_games"] == 1
                 and r["endings"] == ["normal"] and not r["against_itself"]]
        replaced = sum(1 for r in rounds if len(r["replaced"]) == 1)
        one_game = sum(1 for r in rounds if r["starts"] == 1 and r["opponent_games"] == 1)
        normal = sum(1 for r in rounds if r["endings"] == ["normal"])
        at_once = sum(1 for r in rounds if r["at_once"])
        achieved = (f"{len(rounds)} rounds ({at_once} with both logins at once): one connection replaced in "
                    f"{replaced}, exactly one game in {one_game}, ended by the rules in {normal}; games against "
                    f"itself {sum(r['against_itself'] for r in rounds)}")
        return self.said(achieved, bool(rounds) and len(clean) == len(rounds), rounds=len(rounds), clean=len(clean),
                         not_clean=[r for r in rounds if r not in clean][:10])


class LateSocket:
    """A WebSocket client that answers pings late. websockets has no switch for its automatic pongs (its
    sans-I/O ``Protocol`` queues a PONG for each PING as ``receive_data`` reads it), so this client drives the
    sans-I/O ``ClientProtocol`` over an asyncio stream of its own: the bytes ``receive_data`` queues, which
    are only ever pongs (and a close's answer), are written ``delay`` s later; its own frames at once."""

    def __init__(self, port: int, source: str, delay: float) -> None:
        self.port, self.source, self.delay = port, source, delay
        self.protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}{PLAY_PATH}"), max_size=2 ** 22)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.messages: collections.deque[str] = collections.deque()
        self.fragments: list[bytes] = []
        self.pings = 0
        self.closed = False

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", self.port, local_addr=(self.source, 0)), 30)
        self.protocol.send_request(self.protocol.connect())
        self.write(self.protocol.data_to_send())
        deadline = time.monotonic() + 30
        while self.protocol.state is State.CONNECTING:
            await self.feed(max(0.01, deadline - time.monotonic()))
        if self.protocol.handshake_exc is not None:
            raise self.protocol.handshake_exc

    def write(self, chunks: list[bytes]) -> None:
        writer = self.writer
        if writer is None or writer.is_closing():
            return
        for chunk in chunks:
            if chunk:
                writer.write(chunk)
            elif writer.can_write_eof():
                writer.write_eof()

    async def feed(self, timeout: float) -> None:
        assert self.reader is not None
        data = await asyncio.wait_for(self.reader.read(1 << 16), timeout)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        replies = self.protocol.data_to_send()  # nothing was sent since the last call: the pongs, a close's answer
        closing = not data
        for event in self.protocol.events_received():
            if not isinstance(event, Frame):
                continue  # the handshake's response
            if event.opcode is Opcode.PING:
                self.pings += 1
            elif event.opcode is Opcode.CLOSE:
                closing = True
            elif event.opcode in (Opcode.TEXT, Opcode.CONT):
                self.fragments.append(bytes(event.data))
                if event.fin:
                    self.messages.append(b"".join(self.fragments).decode())
                    self.fragments = []
        if closing:
            self.write(replies)
            self.closed = True
        elif replies:
            asyncio.get_running_loop().call_later(self.delay, self.write, replies)

    async def recv(self, timeout: float = IDLE) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while not self.messages:
            if self.closed:
                raise ConnectionError("the server closed the connection")
            await self.feed(max(0.01, deadline - time.monotonic()))
        message = json.loads(self.messages.popleft())
        if not isinstance(message, dict):
            raise ValueError(f"the server sent {str(message)[:80]}")
        return message

    async def send(self, text: str) -> None:
        self.protocol.send_text(text.encode())
        self.write(self.protocol.data_to_send())

    async def close(self) -> None:
        if self.writer is None:
            return
        with contextlib.suppress(Exception):
            if not self.closed:
                self.protocol.send_close(1000)
                self.write(self.protocol.data_to_send())
        self.writer.close()


class LatePong(_Thinker):
    """Plays a game against an honest client, thinking ``latepong_think`` s a move, over a WebSocket that
    answers each of the server's pings ``pong_delay`` s late (:class:`LateSocket`): a server that took the
    measured round trip (up to 0.5 s) off each move's wall time let it think that long for free every move."""

    name = "latepong"
    tries = "answer the server's pings late: inflate the round trip the server takes off each move's wall time"
    slack = LATEPONG_SLACK

    def __init__(self, ctx: AttackContext, number: int) -> None:
        super().__init__(ctx, number)
        self.opponent("latepong")
        self.pings = 0

    async def run(self, stop: asyncio.Event) -> None:
        token: str | None = None
        for _ in range(100):
            if stop.is_set():
                return
            ws = LateSocket(self.ctx.port, self.source, self.config.pong_delay)
            try:
                await ws.open()
                await ws.send(hello(self.name, token, "latepong"))
                state, entry, game = None, None, None
                for _ in range(100_000):
                    message = await ws.recv()
                    kind = message["type"]
                    if kind == "welcome":
                        token = message.get("token") or token
                    elif kind == "start":
                        state, game = mirror(message), message["id"]
                        entry, _ = self.game(message)
                        await ws.send(ready(game))
                    elif kind == "turn" and state is not None:
                        state.apply_checked(state.parse_action(message["action"]))
                    elif kind == "play" and state is not None and entry is not None and message["id"] == game:
                        if stop.is_set():
                            return
                        began = time.perf_counter()
                        await asyncio.sleep(self.config.latepong_think)
                        entry["thought"] += time.perf_counter() - began
                        entry["at"].append(entry["thought"])
                        await ws.send(action(game, legal(state, self.rng)))
                    elif kind == "end":
                        state = None
                    elif kind == "done":
                        break
            except (WebSocketException, OSError, asyncio.TimeoutError, ValueError, KeyError) as exc:
                self.failed(exc)
                await asyncio.sleep(0.5)
            finally:
                self.pings += ws.pings
                await ws.close()

    def extra(self) -> dict[str, Any]:
        return {"pings_answered_late": self.pings, "pong_delay_s": self.config.pong_delay,
                "think_s": self.config.latepong_think}


ATTACKERS: tuple[type[Attacker], ...] = (Void, Storm, Offclock, Pages, Pile, Ratings, Sockets, Double, LatePong)


# -- an attack run -----------------------------------------------------------------------------------------


def stored_record(db: Path, game: int) -> dict[str, Any] | None:
    """A game's record as the server keeps it once the game is over (None while it runs)."""
    with contextlib.closing(sqlite3.connect(str(db), timeout=30)) as conn:
        row = conn.execute("SELECT status, record FROM games WHERE id = ?", (game,)).fetchone()
    if row is None or row[0] == "running" or not row[1]:
        return None
    record = json.loads(row[1])
    if isinstance(record, dict) and row[0] == "aborted":  # (the record of an aborted game says so already)
        record.setdefault("extra", {}).setdefault("battleground", {})["status"] = "aborted"
    return record if isinstance(record, dict) else None


def game_rows(db: Path) -> list[tuple[str, str, str, str | None]]:
    """Every game in the server's database: (red, blue, status, reason)."""
    with contextlib.closing(sqlite3.connect(str(db), timeout=30)) as conn:
        return list(conn.execute("SELECT red, blue, status, reason FROM games"))


def tracebacks(log: str) -> list[str]:
    """Each traceback in the server's log, as the line before it and its exception's line."""
    found = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            before = lines[i - 1].strip() if i else ""
            last = next((x for x in lines[i + 1:] if x and not x.startswith((" ", "\t", "Traceback"))), "?")
            found.append(f"{before} -> {last}"[:300])
    return found


async def watch(pid: int, into: dict[str, Any], stop: asyncio.Event) -> None:
    """The server's open file descriptors, every 0.5 s: the most at once."""
    for _ in range(1_000_000):
        if stop.is_set():
            return
        with contextlib.suppress(OSError):
            into["peak_fds"] = max(into.get("peak_fds", 0), len(os.listdir(f"/proc/{pid}/fd")))
        await asyncio.sleep(0.5)


async def attack(server: Server, config: AttackConfig) -> AttackResults:
    """The honest clients, spectators and attackers against ``server``; measured as a plain run's phase."""
    port, pid = server.port, server.proc.pid
    clients = Clients()
    ctx = AttackContext(port, pid, server.db, config, GameLists(Requests(port, loopback(MONITOR_NET, 1))),
                        Requests(port, loopback(MONITOR_NET, 2)))
    ctx.honest = [Honest(port, f"c{i}", f"pair{i // 2}", loopback(HONEST_NET, i), seed=i, clients=clients,
                         halt=ctx.halt) for i in range(config.clients)]
    attackers = [kind(ctx, number) for number, kind in enumerate(ATTACKERS, 1) if kind in chosen(config.attackers)]
    readers = [Spectator(j, Requests(port, loopback(SPECTATOR_NET, j)), ctx.lists) for j in range(config.spectators)]
    stop_attack, stop_watch = asyncio.Event(), asyncio.Event()
    watched: dict[str, Any] = {"peak_fds": 0}
    phase: list[str] = [""]
    since: dict[str, int] = {}
    windows: list[tuple[str, Window]] = []
    background: list[asyncio.Task[Any]] = []
    attacks: list[asyncio.Task[Any]] = []

    async def guard(attacker: Attacker) -> None:
        try:
            await attacker.run(stop_attack)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001  the attacker's own failure: in its report
            attacker.failed(exc)

    try:
        background += [asyncio.create_task(h.run()) for h in ctx.honest]
        background += [asyncio.create_task(o.run()) for a in attackers for o in a.opponents]
        background += [asyncio.create_task(ctx.lists.run(ctx.halt)),
                       asyncio.create_task(watch(pid, watched, stop_watch)),
                       asyncio.create_task(sample(server, windows, phase, since))]
        await asyncio.sleep(0.5)
        attacks = [asyncio.create_task(guard(a)) for a in attackers]
        background += [asyncio.create_task(r.run(stop_watch)) for r in readers]
        await asyncio.sleep(config.warm_up)

        stats = await read_stats(server)
        since["attack"] = stats["moves"] if stats else 1 << 62
        phase[0] = "attack"
        tally = Tally()
        clients.tally = tally
        cpu0, own0, t0 = server.cpu_seconds(), time.process_time(), time.monotonic()
        await asyncio.sleep(config.seconds / 2)
        running, source = await games_running(server, clients)
        stats = await read_stats(server)
        connected = stats["connections"] if stats else clients.connected
        await asyncio.sleep(max(0.0, t0 + config.seconds - time.monotonic()))
        stats = await read_stats(server)
        clients.tally, phase[0] = None, ""
        elapsed = time.monotonic() - t0
        cpu, own_cpu = server.cpu_seconds() - cpu0, time.process_time() - own0
        if stats and stats["latency_ms"]["moves"] and stats["moves"] - since["attack"] >= stats["latency_ms"]["moves"]:
            own = stats["latency_ms"]
            windows.append(("attack", Window(stats["moves"], own["p50"], own["p99"], own["moves"])))
        mine = [w for name, w in windows if name == "attack"]
        if not mine and stats and stats["latency_ms"]["moves"]:
            own = stats["latency_ms"]
            mine = [Window(stats["moves"], own["p50"], own["p99"], own["moves"])]
        label = f"{config.clients} + {config.spectators} spectators + {len(attackers)} attackers"
        result = summarize(label, tally, elapsed, mine, cpu, own_cpu, server.memory_mb(), running, source, connected)
        ctx.measured.update(result, peak_fds=watched["peak_fds"])

        # The attackers stop; their last games end (the storm's at its allowance) while the rest plays on.
        stop_attack.set()
        stop_watch.set()
        spectating = request_figures([r.requests for r in readers], elapsed + config.warm_up)
        ctx.measured["readers"] = spectating
        _, late = await asyncio.wait(attacks, timeout=10) if attacks else (set(), set())
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
        deadline = time.monotonic() + config.start_timeout + 5
        reports = {}
        for attacker in attackers:
            try:
                reports[attacker.name] = await asyncio.wait_for(attacker.report(deadline), 120)
            except Exception as exc:  # noqa: BLE001  said in the table, never the run's end
                reports[attacker.name] = AttackerReport(attacker.name, attacker.tries,
                                                        f"no report: {type(exc).__name__}: {exc}", None)
        rss, hwm = server.memory_mb()
        honest_names = {h.name for h in ctx.honest}
        endings: dict[str, int] = {}
        still = 0
        for red, blue, status, reason in await asyncio.to_thread(game_rows, server.db):
            if red in honest_names and blue in honest_names:
                kind = ending(status, reason)
                if kind == "running":
                    still += 1
                else:
                    endings[kind] = endings.get(kind, 0) + 1
        return AttackResults(
            config=dataclasses.asdict(config), run=result, honest_endings=endings, honest_running=still,
            honest_drops=sum(h.drops for h in ctx.honest),
            honest_errors=[e for h in ctx.honest for e in h.errors][:20],
            spectators={"readers": config.spectators, **spectating},
            server={"rss_mb": round(rss, 1), "peak_mb": round(hwm, 1), "peak_fds": watched["peak_fds"]},
            tracebacks=[], attackers=reports,
        )
    finally:
        ctx.halt.set()
        stop_attack.set()
        stop_watch.set()
        # Cancelled, and again: a cancellation asyncio.wait_for swallowed (Python 3.11) is sent once more.
        for _ in range(12):
            pending = [task for task in [*attacks, *background] if not task.done()]
            if not pending:
                break
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=5)


def chosen(names: str) -> list[type[Attacker]]:
    """The attackers ``names`` picks: ``all``, ``none``, or names separated by commas."""
    if names.strip() == "all":
        return list(ATTACKERS)
    wanted = {name.strip() for name in names.split(",") if name.strip() and name.strip() != "none"}
    unknown = wanted - {kind.name for kind in ATTACKERS}
    if unknown:
        raise ValueError(f"no attacker named {', '.join(sorted(unknown))} (the attackers: "
                         f"{', '.join(kind.name for kind in ATTACKERS)})")
    return [kind for kind in ATTACKERS if kind.name in wanted]


def run_attack(clients: int = 200, spectators: int = 50, seconds: float = 20.0, **options: Any) -> AttackResults:
    """A real server under ``clients`` honest clients, ``spectators`` readers and one attacker of each kind
    (:data:`ATTACKERS`), measured for ``seconds``; ``options``: the rest of :class:`AttackConfig`.

    Raises RuntimeError (with the server's log) when the run itself fails; an attack that works is a result.
    """
    config = AttackConfig(clients=clients, spectators=spectators, seconds=seconds, **options)
    if config.clients < 2 or config.clients % 2:
        raise ValueError("clients: an even number, at least 2 (they play in pairs)")
    chosen(config.attackers)
    server = Server(config.port, False, ["--start-timeout", f"{config.start_timeout:g}"])
    log = stopping = ""
    try:
        server.wait_ready()
        # Bounded as a whole: whatever the server does, the run ends (with its log).
        results = asyncio.run(asyncio.wait_for(attack(server, config), config.warm_up + config.seconds
                                               + config.start_timeout + 300))
    except Exception as exc:
        raise RuntimeError(f"the attack run failed: {type(exc).__name__}: {exc}\n--- the server's log:\n"
                           f"{server.log_tail()}") from exc
    finally:
        with contextlib.suppress(OSError):
            log = server.log.read_text(errors="replace")  # the run's log, before the SIGTERM that stops it
        server.terminate()
        with contextlib.suppress(OSError):
            stopping = server.log.read_text(errors="replace")[len(log):]
        shutil.rmtree(server.folder, ignore_errors=True)
    results.tracebacks = tracebacks(log)
    results.server["tracebacks"] = len(results.tracebacks)
    results.server["internal_errors"] = log.count("internal error")
    results.server["tracebacks_at_sigterm"] = tracebacks(stopping)
    return results


def attack_report(results: AttackResults) -> str:
    """The attack run as Markdown: the honest clients' row, their games, the readers, the attackers."""
    run, honest, server = results.run, results.honest_endings, results.server

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    ended = sum(honest.values())
    failures = ", ".join(f"{k} {results.honest_failures.get(k, 0)}" for k in
                         ("time_limit", "disconnected", "protocol_error", "load_error", "aborted"))
    others = {k: v for k, v in results.honest_failures.items()
              if k not in ("time_limit", "disconnected", "protocol_error", "load_error", "aborted")}
    spec = results.spectators
    lines = [
        HEADER, row(run), "",
        f"* honest games (two honest clients; the whole run): {ended} ended, {honest.get('normal', 0)} by a rule; "
        f"{failures}{''.join(f', {k} {v}' for k, v in others.items())}; {results.honest_running} still being "
        f"played at the end (not counted); honest connections lost {results.honest_drops}, "
        f"errors {len(results.honest_errors)}",
        f"* under attack: server's latency p50 / p99 {ms(run['server_p50_ms'])} / {ms(run['server_p99_ms'])} ms, "
        f"{run['games_per_min']:.0f} games/min, {run['moves_per_s']:.0f} moves/s; server RSS {server['rss_mb']} MB at "
        f"the end, peak {server['peak_mb']} MB; peak open descriptors {server['peak_fds']}; tracebacks in its log "
        f"{server.get('tracebacks', 0)}",
        f"* {spec['readers']} spectators: {spec['requests']} requests ({spec['per_s']}/s), answered in p50 "
        f"{spec['p50_ms']} / p99 {spec['p99_ms']} ms, statuses {spec['statuses']} "
        f"({100 * spec['statuses'].get('503', 0) / max(1, spec['requests']):.0f} % refused busy), "
        f"{spec['failures']} failed",
        "",
        "| attacker | tries | achieved | contained |",
        "|---|---|---|---|",
    ]
    for report in results.attackers.values():
        verdict = {True: "yes", False: "**no**", None: "?"}[report.contained]
        lines.append(f"| {report.name} | {report.tries} | {report.achieved} | {verdict} |")
    for line in results.tracebacks[:10]:
        lines.append(f"! the server's log: {line}")
    for line in server.get("tracebacks_at_sigterm", [])[:3]:
        lines.append(f"! the server's log, once sent SIGTERM to stop (after the run): {line}")
    for line in results.honest_errors[:10]:
        lines.append(f"! honest: {line}")
    return "\n".join(lines)


def attack_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    try:
        count = int(args.clients or 200)
    except ValueError:
        parser.error(f"--clients: with --attack, one number, not {args.clients!r}")
    if count < 2 or count % 2:
        parser.error("--clients: even and at least 2 (clients play in pairs)")
    print(f"# benchmarks.battleground --attack, {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, "
          f"{args.seconds:g} s measured", flush=True)
    try:
        results = run_attack(count, args.spectators, args.seconds, port=args.port, think=args.think,
                             pages_rate=args.pages_rate, start_timeout=args.start_timeout, attackers=args.attackers)
    except (RuntimeError, ValueError) as exc:
        raise SystemExit(f"benchmark failed: {exc}") from exc
    print(attack_report(results), flush=True)
    if args.json:
        print(json.dumps(dataclasses.asdict(results), indent=1, default=str))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clients", default=None,
                        help="comma-separated client counts (default 10,50,200; with --attack one count, default 200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measurement per run (default 20)")
    parser.add_argument("--port", type=int, default=0, help="the server's port (default 0: a free one)")
    parser.add_argument("--house", action="store_true",
                        help="also 50 clients without and with two games against a house agent, interleaved")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    parser.add_argument("--server-root", type=Path, default=None, metavar="DIR",
                        help="run the server from this checkout (a baseline: git worktree add DIR COMMIT), the "
                        "clients from this one; options its server does not know are left out")
    attack_options = parser.add_argument_group("--attack: the server under attack (only this run)")
    attack_options.add_argument("--attack", action="store_true",
                                help="honest clients, spectators and one attacker of each kind (this file's docstring)")
    attack_options.add_argument("--spectators", type=int, default=50, help="readers of the games' pages (50)")
    attack_options.add_argument("--think", type=float, default=1.0,
                                help="seconds the offclock attacker sleeps before each ready (1)")
    attack_options.add_argument("--pages-rate", type=float, default=100.0,
                                help="the pages attacker's requests a second, all its tasks together (100)")
    attack_options.add_argument("--start-timeout", type=float, default=10.0,
                                help="the server's --start-timeout, which ends the storm's games (10)")
    attack_options.add_argument("--attackers", default="all", metavar="NAMES",
                                help="which attackers: all (default), none, or names separated by commas (a "
                                "control run: which attack costs what)")
    args = parser.parse_args()
    if args.server_root is not None:
        if not (args.server_root / "referee" / "__main__.py").is_file():
            parser.error(f"--server-root: {args.server_root} is not a checkout of this project")
        Server.root = args.server_root.resolve()
    if args.attack:
        attack_main(args, parser)
        return
    args.clients = args.clients or "10,50,200"
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
