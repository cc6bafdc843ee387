"""What the hostile agents share: legal random play, reports, finding the
opponent's process, looking around /proc, and writing files only where a
test's copy of the tree allows.

An agent says what its attack did by printing ``HOSTILE {json}`` lines on
its standard output, which the referee shows at ``-v 3`` as
``RED | HOSTILE {...}`` (and keeps in the record's ``output_tail`` when the
agent fails); the tests read them there.  In a tournament, where nothing
shows an agent's output, an agent reports by raising :class:`Report` (its
message lands in the record's ``error``).
"""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

from referee.game.actions import from_engine_action, to_engine_action
from referee.games.infexion import InfexionState

PREFIX = "HOSTILE "
MB = 1024 * 1024
#: Engine actions below this are SPAWNs (one per cell of the 7x7 board).
SPAWN_ACTIONS = 49
#: The agent host's module, in the command line of every agent process.
AGENT_HOST = b"referee.hosting.agent_host"
#: The variable whose value marks every process of a test's game.
MARKER = "REFEREE_TEST_PIDS"


def report(**facts) -> None:
    """One line for the test: what the attack did."""
    print(PREFIX + json.dumps(facts, sort_keys=True, default=str), flush=True)


class Report(Exception):
    """Raised to report from inside a tournament: ``HOSTILE {json}``."""

    def __init__(self, **facts):
        super().__init__(PREFIX + json.dumps(facts, sort_keys=True, default=str))


def failure(exc: BaseException) -> str:
    """A short name for why a step failed: ``PermissionError``, ``OSError(EROFS)``."""
    name = type(exc).__name__
    code = getattr(exc, "errno", None)
    if isinstance(exc, OSError) and code is not None and name == "OSError":
        import errno

        return f"OSError({errno.errorcode.get(code, code)})"
    return name


def set_process_name(name: str) -> None:
    """Set this process's ``comm`` (what ``/proc/PID/comm`` shows, 15 bytes at most)."""
    try:
        with open("/proc/self/comm", "w") as f:
            f.write(name[:15])
    except OSError:
        pass


def victim_name(seed: int | None) -> str:
    """The process name the victim takes in a game with this seed, so an attacker
    hits the opponent of its own game and never another game's agent."""
    return f"v{(seed or 0) % 10**12}"


def helper_name(seed: int | None) -> str:
    """The process name of the helpers (children) a hostile agent starts."""
    return f"h{(seed or 0) % 10**12}"


def fork_helpers(seed: int | None, wanted: int, work, own_sessions: bool = False) -> list[int]:
    """Up to ``wanted`` child processes named :func:`helper_name` (fewer where the pids limit stops it), each
    running ``work()`` (in a session of its own with ``own_sessions``) and then exiting; their pids."""
    children = []
    for _ in range(wanted):
        try:
            pid = os.fork()
        except OSError:  # EAGAIN: the pids limit
            break
        if pid == 0:
            try:
                if own_sessions:
                    os.setsid()
                set_process_name(helper_name(seed))
                work()
            finally:
                os._exit(0)
        children.append(pid)
    return children


def visible_pids() -> list[int]:
    return sorted(int(entry) for entry in os.listdir("/proc") if entry.isdigit())


def read_proc(pid: int, name: str) -> bytes | None:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as f:
            return f.read()
    except OSError:
        return None


def find_opponent(seed: int | None) -> tuple[int | None, int]:
    """The opponent's process, if this agent can see it, and how many other agent processes it sees.

    Candidates are processes running the agent host, not this one nor its
    parent; the opponent is the one that took :func:`victim_name` (so the
    attack stays inside the test's own game even when nothing isolates it).
    """
    me, parent, name = os.getpid(), os.getppid(), victim_name(seed).encode()
    found, seen = None, 0
    for pid in visible_pids():
        if pid in (me, parent):
            continue
        cmdline = read_proc(pid, "cmdline")
        if not cmdline or AGENT_HOST not in cmdline:
            continue
        seen += 1
        if (read_proc(pid, "comm") or b"").strip() == name:
            found = pid
    return found, seen


def agent_host_fds(pid: int) -> tuple[int, int]:
    """The command and reply pipe fds from an agent host's argv (its last argument: a JSON of its settings)."""
    argv = (read_proc(pid, "cmdline") or b"").split(b"\0")
    settings = json.loads([arg for arg in argv if arg.startswith(b"{")][-1])
    return settings["cmd_fd"], settings["reply_fd"]


def ancestors(levels: int) -> list[int]:
    """This process's parent, grandparent, ... (``levels`` of them at most, never pid 0 or 1)."""
    found, pid = [], os.getpid()
    for _ in range(levels):
        stat = read_proc(pid, "stat")
        if stat is None:
            break
        pid = int(stat[stat.rfind(b")") + 2 :].split()[1])
        if pid <= 1:
            break
        found.append(pid)
    return found


def tree_root() -> Path:
    """The root of the tree this package was imported from (tests/hosting/hostile/common/ -> 4 up),
    or as near as there is (a sandbox may mount the package elsewhere)."""
    parents = Path(__file__).resolve().parents
    return parents[min(4, len(parents) - 1)]


def places_to_look() -> list[Path]:
    """Folders a snooping agent searches: its working directory, its parent's and
    grandparent's (the referee's, or a tournament's worker and main process),
    and the root of its own tree."""
    places = [Path(os.getcwd())]
    places += [Path(f"/proc/{pid}/cwd") for pid in ancestors(2)]
    places.append(tree_root())
    return places


def forbidden_roots() -> list[str] | None:
    """The folders a test forbids writing to (the real checkout); None outside a test's copy.

    A test's copy of the tree holds ``common/forbidden.py`` (a module,
    so it is wherever this package's code is); the checkout never does.
    """
    try:
        from .forbidden import ROOTS
    except ImportError:
        return None
    return list(ROOTS)


def guarded_append(path: str | Path, data: bytes) -> str:
    """Append ``data`` to ``path`` unless the test's guard forbids it; returns what happened.

    ``ok``, ``refused ...`` (no guard file, or the target lies in a forbidden
    folder), or the name of the error the write met.
    """
    roots = forbidden_roots()
    if roots is None:
        return "refused: no forbidden.py (hostile agents write only from a test's copy of the tree)"
    real = os.path.realpath(path)
    for root in roots:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return f"refused: {real} is under {root}"
    try:
        with open(path, "ab") as f:
            f.write(data)
    except OSError as exc:
        return failure(exc)
    return "ok"


class Plays:
    """A legal random player, seeded by the referee's seed; :meth:`attack` runs at the first action().

    Subclasses override :meth:`attack` (and sometimes the rest); an attack
    that raises is reported, and the agent plays on.
    """

    def __init__(self, color, **referee):
        self.color = color
        self.seed = referee.get("seed")
        self.state = InfexionState()
        self.rng = random.Random(self.seed)
        self.attacked = False

    def attack(self, **referee) -> None:
        """The attack, mounted once, at the first action()."""

    def action(self, **referee):
        if not self.attacked:
            self.attacked = True
            try:
                self.attack(**referee)
            except Report:
                raise
            except Exception as exc:  # noqa: BLE001  an attack that fails still plays on
                report(attack=type(self).__name__, crashed=failure(exc), message=str(exc)[:200])
        return self.move()

    def move(self):
        return from_engine_action(self.rng.choice(self.state.legal_actions()))

    def move_peacefully(self):
        """A random legal SPAWN (it never captures, so it cannot end the game early)."""
        spawns = [a for a in self.state.legal_actions() if a < SPAWN_ACTIONS]
        return from_engine_action(self.rng.choice(spawns)) if spawns else self.move()

    def turn(self, color, action, **referee):
        self.state.apply(to_engine_action(action))
