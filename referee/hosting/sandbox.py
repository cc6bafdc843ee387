"""The sandbox an agent's process runs in: namespaces, a system-call filter, kernel accounting, freezing.

Four independent layers, each used where this machine allows it:

* **Namespaces** (bubblewrap, ``bwrap``): new PID, IPC, UTS, network and
  cgroup namespaces, a new session, killed with the referee.  The filesystem
  is read-only and holds only the Python installation, the referee's
  agent-side code, the bundled agents and the agent's own package; the
  working directory, ``/tmp`` and ``/dev/shm`` are private tmpfs (their pages
  count as the agent's memory).  An agent sees and can signal only its own
  processes.  Started as root, the referee runs agents as an unprivileged
  user (:data:`AGENT_UID`): the agent host drops to it before it imports
  anything of the agent's.
* **A system-call filter** (seccomp, :mod:`referee.hosting.seccomp`): no new
  namespaces, mounts, keyring, tracing, BPF, perf events or io_uring.
* **Accounting by a cgroup** (v1 ``cpuacct``/``memory``/``pids``/``freezer``
  (and ``cpu`` for a fair share) as root, or a delegated v2 subtree): CPU
  time and peak memory of every process and thread the agent ever ran,
  detached and exited ones included; a pids limit; a hard memory cap a
  little above the limit.  The agent runs one level below the cgroup that
  is limited and read, so even a writable view of its own cgroup could not
  change what the referee reads.
* **Freezing**: between its calls every process of the agent is frozen
  (cgroup freezer; without a cgroup, SIGSTOP/SIGCONT of every process in its
  PID namespace), so it cannot think or grow on the opponent's time.

:func:`resolve` turns a mode (``auto``, ``required``, ``off``) into the
:class:`Sandbox` a game runs under; that value goes into the game record.
"""
from __future__ import annotations

import atexit
import importlib.machinery
import importlib.util
import itertools
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from collections.abc import Iterable

from . import seccomp

MODES = ("auto", "required", "off")
#: Processes and threads one agent may have at once (a fork bomb stops here).
PIDS_LIMIT = 64
#: The hard memory cap sits this far above the limit, so the referee's own
#: check (a clear ``space_limit`` verdict) normally fires before the kernel's.
MEMORY_CAP_SLACK = 64 * 1024 * 1024
#: Set to 1 to make a test or a run fail rather than skip without a sandbox.
REQUIRE_ENV = "REFEREE_REQUIRE_SANDBOX"
#: For tests: "0" pretends no cgroup can be made (to exercise process accounting).
CGROUP_ENV = "REFEREE_SANDBOX_CGROUP"
#: For tests that show an attack works without a defence: a comma-separated
#: list of layers to leave out (see :data:`LAYERS`); never set it for a real game.
WITHOUT_ENV = "REFEREE_SANDBOX_WITHOUT"
#: What WITHOUT_ENV can leave out: the seccomp filter, the unprivileged
#: user, the level between the agent's cgroup and the one read, and (cgroup
#: v1) the agent's own CPU share.
LAYERS = ("seccomp", "unprivileged", "nesting", "cpu_share")
#: The user and group a sealed agent runs as when the referee runs as root
#: (``nobody``/``nogroup`` on Debian and Ubuntu): it owns nothing, so it can
#: write no file of the machine, and is nobody's keyring.
AGENT_UID = AGENT_GID = 65534

#: The referee's own package: which of its parts an agent's process may see.
REFEREE_ROOT = Path(__file__).absolute().parents[1]
AGENT_SIDE = (
    "__init__.py",
    "agentkit.py",
    "board.py",  # the 2022 referee's referee.board, which 2022 Cachex agents import
    "game",
    "games",
    "cachex",
    "infinitron",
    "hosting/__init__.py",
    "hosting/agent_host.py",
    "hosting/wire.py",
)
#: The bundled agents (a library every agent may build on, read-only).
BUNDLED_AGENTS = ("__init__.py", "common", "random_agent", "greedy", "minimax", "mcts")


class SandboxUnavailable(RuntimeError):
    """``required`` was asked for and this machine cannot seal an agent."""


@dataclass(frozen=True)
class Sandbox:
    """What a game's agents run under (recorded as the record's ``sandbox``)."""

    namespaces: bool = False
    accounting: str = "process"  # "cgroup-v1" | "cgroup-v2" | "process"
    frozen: bool = False
    #: A seccomp filter refuses namespaces, mounts, the keyring, tracing, BPF, perf and io_uring.
    seccomp: bool = False
    #: Agents run as a user without privileges (AGENT_UID when the referee is root, else the referee's own).
    unprivileged: bool = False
    #: The agent runs one level below the cgroup the referee limits and reads.
    nested: bool = False
    #: The agent's cgroup is one entity to the scheduler (``cpu`` controller): its threads share one weight.
    cpu_share: bool = False

    @property
    def cgroup(self) -> bool:
        return self.accounting != "process"

    @property
    def sealed(self) -> bool:
        return self.namespaces and self.frozen

    @property
    def drops_to(self) -> int | None:
        """The uid the agent host switches to (the referee is root), or None."""
        return AGENT_UID if self.namespaces and self.unprivileged and os.geteuid() == 0 else None

    def to_json(self) -> dict[str, object]:
        return {
            "namespaces": self.namespaces, "accounting": self.accounting, "frozen": self.frozen,
            "seccomp": self.seccomp, "unprivileged": self.unprivileged, "nested": self.nested,
            "cpu_share": self.cpu_share,
        }

    def weaker(self) -> list[str]:
        """Which guarantees of a sealed game do not hold here, in words (empty: none)."""
        if not self.namespaces:
            return []  # describe() says it all: not sealed
        found = []
        if not self.seccomp:
            found.append(
                "no system-call filter (an agent can make namespaces of its own, use the keyring, trace "
                "its own children and use io_uring)"
            )
        if not self.unprivileged:
            found.append("agents run as root (with no capabilities)")
        if not self.cgroup:
            found.append("no cgroup: time and memory sampled from /proc (a peak between samples may be missed)")
        else:
            if not self.nested:
                found.append("the agent runs in the cgroup the referee reads")
            if not self.cpu_share:
                found.append(
                    "no CPU share of its own (cgroup v1 'cpu' not mounted): an agent's many threads take CPU "
                    "from the agents of games beside it"
                )
        return found

    def describe(self) -> str:
        if not self.namespaces and not self.cgroup:
            return "UNSEALED: agents run as ordinary processes (no sandbox)"
        parts = [
            "namespaces" if self.namespaces else "NO namespaces (agents see the machine)",
            f"accounting by {self.accounting}",
            "frozen between calls" if self.frozen else "NOT frozen between calls",
        ]
        if self.namespaces:
            parts.append("system calls filtered" if self.seccomp else "NO system-call filter")
            parts.append("unprivileged" if self.unprivileged else "agents run as ROOT")
        return ("sealed: " if self.sealed else "PARTLY sealed: ") + ", ".join(parts)


UNSEALED = Sandbox()


# -- what this machine can do ---------------------------------------------------


@dataclass(frozen=True)
class Capabilities:
    bwrap: str | None  # path of a working bwrap, or None
    cgroup: str | None  # "cgroup-v1" / "cgroup-v2", or None
    missing: tuple[str, ...]  # why a layer is unavailable, in words
    seccomp: bool = False  # bwrap takes this machine's seccomp filter
    cpu_share: bool = False  # agents' cgroups can have a CPU weight of their own


def _bwrap_works(path: str) -> str | None:
    try:
        proc = subprocess.run(
            [path, "--as-pid-1", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
             "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
             "true"],
            capture_output=True, timeout=30, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{path} cannot be run ({exc})"
    if proc.returncode != 0:
        return f"{path} cannot make namespaces here: {proc.stderr.decode(errors='replace').strip()[:200]}"
    return None


def _seccomp_works(bwrap: str) -> str | None:
    """Why bwrap cannot install this machine's filter, or None when it can (and the filter refuses unshare)."""
    code = seccomp.program()
    if code is None:
        return f"no seccomp filter for this machine ({platform.machine()}: only {', '.join(seccomp.ARCHITECTURES)})"
    fd = seccomp.program_fd(code)
    # The filter must let an ordinary program run and refuse a new user namespace.
    check = "import ctypes, sys; sys.exit(0 if ctypes.CDLL(None).unshare(0x10000000) != 0 else 3)"
    try:
        proc = subprocess.run(
            [bwrap, "--as-pid-1", "--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/",
             "--proc", "/proc", "--dev", "/dev", "--seccomp", str(fd), sys.executable, "-c", check],
            capture_output=True, timeout=30, stdin=subprocess.DEVNULL, pass_fds=(fd,),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{bwrap} cannot install a seccomp filter ({exc})"
    finally:
        os.close(fd)
    if proc.returncode != 0:
        return f"{bwrap} cannot install a seccomp filter: {proc.stderr.decode(errors='replace').strip()[:200]}"
    return None


def _left_out() -> set[str]:
    return {layer.strip() for layer in os.environ.get(WITHOUT_ENV, "").split(",") if layer.strip()}


@cache
def probe() -> Capabilities:
    """What this machine offers (checked once per process)."""
    missing = []
    bwrap = None
    filtered = False
    if not sys.platform.startswith("linux"):
        missing.append(f"namespaces and cgroups need Linux (this is {sys.platform})")
        return Capabilities(None, None, tuple(missing))
    found = shutil.which("bwrap")
    if found is None:
        missing.append("bubblewrap is not installed (no 'bwrap' on PATH; Debian/Ubuntu: apt-get install bubblewrap)")
    else:
        problem = _bwrap_works(found)
        if problem:
            missing.append(problem)
        else:
            bwrap = found
            problem = _seccomp_works(found)
            if problem:
                missing.append(problem)
            filtered = problem is None
    cgroup = None
    if os.environ.get(CGROUP_ENV) == "0":
        missing.append(f"cgroups switched off ({CGROUP_ENV}=0)")
    else:
        for kind in (CgroupV2, CgroupV1):
            problem = kind.unavailable()
            if problem is None:
                cgroup = kind.name
                break
            missing.append(problem)
    cpu_share = cgroup == CgroupV2.name or (cgroup == CgroupV1.name and CgroupV1.can_share_cpu())
    if cgroup == CgroupV1.name and not cpu_share:
        missing.append("cgroup v1: the cpu controller is not mounted (no CPU share per agent)")
    if cgroup is not None:
        cleanup_stale_cgroups(cgroup)
    return Capabilities(bwrap, cgroup, tuple(missing), filtered, cpu_share)


def resolve(mode: str) -> Sandbox:
    """The sandbox for ``mode``; raises SandboxUnavailable if ``required`` cannot be met."""
    if mode not in MODES:
        raise ValueError(f"sandbox mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "off":
        return UNSEALED
    caps = probe()
    if mode == "required" and caps.bwrap is None:
        raise SandboxUnavailable(
            "sandbox required, but agents cannot be sealed on this machine: " + "; ".join(caps.missing)
        )
    namespaces = caps.bwrap is not None
    accounting = caps.cgroup or "process"
    left_out = _left_out()
    return Sandbox(
        namespaces=namespaces,
        accounting=accounting,
        frozen=bool(caps.cgroup) or namespaces,
        seccomp=namespaces and caps.seccomp and "seccomp" not in left_out,
        unprivileged=namespaces and (os.geteuid() != 0 or "unprivileged" not in left_out),
        nested=bool(caps.cgroup) and "nesting" not in left_out,
        cpu_share=caps.cpu_share and ("cpu_share" not in left_out or caps.cgroup == CgroupV2.name),
    )


# -- cgroups -------------------------------------------------------------------

_counter = itertools.count()


def _own_cgroups() -> dict[str, str]:
    """Controller (or "" for v2) -> this process's cgroup path."""
    found = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                found[name] = path
    return found


def _mounts() -> dict[str, str]:
    """Controller (or "" for the v2 hierarchy) -> where its hierarchy is mounted."""
    found: dict[str, str] = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fstype, _, options = right.split()[:3]
            point = left.split()[4]
            if fstype == "cgroup2":
                found.setdefault("", point)
            elif fstype == "cgroup":
                for option in options.split(","):
                    found.setdefault(option, point)
    return found


def _remove_quietly(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


#: The folder inside an agent's cgroup that its processes run in (when nested).
LEAF = "agent"


def _remove_folder(path: str) -> None:
    """Remove an empty cgroup folder, waiting a little for its last process to be reaped."""
    for _ in range(100):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)


class Cgroup:
    """One agent's cgroup: made before its process starts, removed at the end.

    Nested (the default), the agent's processes run in a folder one level
    below (:data:`LEAF`), and the limits are set and the counters read on
    the cgroup above it, which counts everything below: an agent that got
    hold of a writable view of its own cgroup (a cgroup namespace shows it
    as the root) could reset or raise only the leaf's, which the referee
    never reads.
    """

    name = ""

    def __init__(self, nested: bool = True, cpu_share: bool = True) -> None:
        self.tag = f"referee-{os.getpid()}-{next(_counter)}"
        self.nested = nested
        self.cpu_share = cpu_share
        self.fds: dict[str, int] = {}

    @classmethod
    def unavailable(cls) -> str | None:
        raise NotImplementedError

    FROZEN = b""
    THAWED = b""

    def _pread(self, key: str) -> bytes:
        return os.pread(self.fds[key], 4096, 0)

    def _leaf(self, folder: str) -> str:
        return os.path.join(folder, LEAF) if self.nested else folder

    def folders(self) -> list[str]:
        """The cgroup's folders (one per v1 hierarchy; one in v2)."""
        raise NotImplementedError

    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a new process writes its pid into."""
        return [os.path.join(self._leaf(folder), "cgroup.procs") for folder in self.folders()]

    def _make_folders(self) -> None:
        for folder in self.folders():
            os.mkdir(folder)
            if self.nested:
                os.mkdir(self._leaf(folder))

    def create(self) -> None:
        """Make the cgroup's folders and open the files read on every call."""
        raise NotImplementedError

    def cpu(self) -> float:
        """CPU seconds used by every process the agent ever had."""
        raise NotImplementedError

    def memory(self) -> int:
        """Bytes of memory the agent's processes use now."""
        raise NotImplementedError

    def peak(self) -> int:
        """Most bytes of memory the agent's processes used since the last reset."""
        raise NotImplementedError

    def reset_peak(self) -> None:
        raise NotImplementedError

    def cap_memory(self, limit: int) -> None:
        """Let the kernel stop the agent's processes at ``limit`` bytes."""
        raise NotImplementedError

    def out_of_memory(self) -> bool:
        """Whether the kernel refused the agent memory over its cap."""
        raise NotImplementedError

    def remove(self) -> None:
        """Close its files and remove its folders (once its processes are gone)."""
        self.close_fds()
        for folder in self.folders():
            if self.nested:
                _remove_folder(self._leaf(folder))
            _remove_folder(folder)

    def freeze(self) -> None:
        os.pwrite(self.fds["freeze"], self.FROZEN, 0)

    def thaw(self) -> None:
        os.pwrite(self.fds["freeze"], self.THAWED, 0)

    def _procs_tree(self) -> str:
        """The folder whose tree holds every process of the agent."""
        raise NotImplementedError

    def pids(self) -> list[int]:
        """Every process of the agent (in the leaf, or any folder below it)."""
        found = []
        for folder, _, _ in os.walk(self._procs_tree()):
            try:
                found += [int(p) for p in _read(os.path.join(folder, "cgroup.procs")).split()]
            except OSError:
                continue
        return found

    def kill_all(self) -> None:
        # Frozen processes take a SIGKILL only once thawed; new ones can be
        # forked until the last one is gone, hence the loop.
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                self.thaw()
            except (OSError, KeyError):
                pass
            time.sleep(0.005)

    def _open(self, key: str, path: str, flags: int = os.O_RDONLY) -> None:
        self.fds[key] = os.open(path, flags | os.O_CLOEXEC)

    def close_fds(self) -> None:
        for fd in self.fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self.fds.clear()


class CgroupV1(Cgroup):
    name = "cgroup-v1"
    FROZEN, THAWED = b"FROZEN", b"THAWED"
    CONTROLLERS = ("cpuacct", "memory", "pids", "freezer")
    #: Used where mounted: ``cpu`` makes each agent one entity to the
    #: scheduler, so an agent with 60 busy threads gets no more of the
    #: machine than one with one thread (the agents of other games included).
    OPTIONAL = ("cpu",)
    # One folder per controller, set by create(); unset before it.
    dirs: dict[str, str]

    @classmethod
    def _bases(cls) -> dict[str, str]:
        mounts, own = _mounts(), _own_cgroups()
        return {
            c: os.path.join(mounts[c], own.get(c, "/").lstrip("/"))
            for c in cls.CONTROLLERS + cls.OPTIONAL
            if c in mounts
        }

    @classmethod
    def unavailable(cls) -> str | None:
        bases = cls._bases()
        absent = [c for c in cls.CONTROLLERS if c not in bases]
        if absent:
            return f"cgroup v1: controllers {', '.join(absent)} are not mounted"
        for controller, base in bases.items():
            if controller in cls.OPTIONAL:
                continue
            probe_dir = os.path.join(base, f"referee-probe-{os.getpid()}")
            try:
                os.mkdir(probe_dir)
                os.rmdir(probe_dir)
            except OSError as exc:
                return f"cgroup v1: cannot make a {controller} cgroup under {base} ({exc.strerror}; needs root)"
        return None

    @classmethod
    def can_share_cpu(cls) -> bool:
        """Whether agents' cgroups can join the ``cpu`` controller here."""
        base = cls._bases().get("cpu")
        if base is None:
            return False
        probe_dir = os.path.join(base, f"referee-probe-{os.getpid()}")
        try:
            os.mkdir(probe_dir)
            os.rmdir(probe_dir)
        except OSError:
            return False
        return True

    _anchor: str | None = None

    @classmethod
    def _keep_freezer_warm(cls, freezer_base: str) -> None:
        """Hold one empty cgroup frozen while this process lives.

        The kernel switches its freezer code on and off (a static key, patched
        into the running kernel) as the number of freezing cgroups moves
        between 0 and 1, which makes each freeze or thaw cost ~85 us; with one
        cgroup always frozen it costs ~13 us.
        """
        if cls._anchor is not None:
            return
        path = os.path.join(freezer_base, f"referee-{os.getpid()}-anchor")
        try:
            os.makedirs(path, exist_ok=True)
            _write(os.path.join(path, "freezer.state"), "FROZEN")
        except OSError:
            return
        cls._anchor = path
        atexit.register(_remove_quietly, path)

    def folders(self) -> list[str]:
        # Controllers mounted together (``cpu,cpuacct``) share one folder.
        return list(dict.fromkeys(getattr(self, "dirs", {}).values()))

    def create(self) -> None:
        bases = self._bases()
        self._keep_freezer_warm(bases["freezer"])
        self.dirs = {c: os.path.join(base, self.tag) for c, base in bases.items() if c in self.CONTROLLERS}
        self._make_folders()
        for controller in self.OPTIONAL if self.cpu_share else ():
            if controller in bases:
                path = os.path.join(bases[controller], self.tag)
                try:
                    if path not in self.folders():
                        os.mkdir(path)
                        if self.nested:
                            os.mkdir(self._leaf(path))
                    self.dirs[controller] = path
                except OSError:
                    pass  # a fair share is a nicety: the limits hold without it
        memory = self.dirs["memory"]
        try:
            _write(os.path.join(memory, "memory.swappiness"), "0")
        except OSError:
            pass
        _write(os.path.join(self.dirs["pids"], "pids.max"), str(PIDS_LIMIT))
        self._open("cpu", os.path.join(self.dirs["cpuacct"], "cpuacct.usage"))
        self._open("mem", os.path.join(memory, "memory.usage_in_bytes"))
        self._open("peak", os.path.join(memory, "memory.max_usage_in_bytes"), os.O_RDWR)
        self._open("freeze", os.path.join(self.dirs["freezer"], "freezer.state"), os.O_WRONLY)

    def cpu(self) -> float:
        return int(self._pread("cpu")) / 1e9

    def memory(self) -> int:
        return int(self._pread("mem"))

    def peak(self) -> int:
        return int(self._pread("peak"))

    def reset_peak(self) -> None:
        os.pwrite(self.fds["peak"], b"0", 0)

    def cap_memory(self, limit: int) -> None:
        _write(os.path.join(self.dirs["memory"], "memory.limit_in_bytes"), str(limit))

    def out_of_memory(self) -> bool:
        try:
            return int(_read(os.path.join(self.dirs["memory"], "memory.failcnt"))) > 0
        except (OSError, ValueError):
            return False

    def _procs_tree(self) -> str:
        return self.dirs["pids"]


class CgroupV2(Cgroup):
    name = "cgroup-v2"
    FROZEN, THAWED = b"1", b"0"
    NEEDED = ("cpu", "memory", "pids")
    # The cgroup's folder, set by create().
    dir: str

    @classmethod
    def _base(cls) -> str | None:
        mounts = _mounts()
        if "" not in mounts:
            return None
        return os.path.join(mounts[""], _own_cgroups().get("", "/").lstrip("/"), "referee-agents")

    @classmethod
    def unavailable(cls) -> str | None:
        mounts = _mounts()
        if "" not in mounts:
            return "cgroup v2: no unified hierarchy mounted"
        parent = os.path.join(mounts[""], _own_cgroups().get("", "/").lstrip("/"))
        try:
            available = _read(os.path.join(parent, "cgroup.controllers")).split()
        except OSError as exc:
            return f"cgroup v2: cannot read {parent}/cgroup.controllers ({exc.strerror})"
        absent = [c for c in cls.NEEDED if c not in available]
        if absent:
            return f"cgroup v2: controllers {', '.join(absent)} are not delegated to {parent}"
        try:
            cls._prepare()
        except OSError as exc:
            return f"cgroup v2: cannot make a cgroup under {parent} ({exc.strerror}; the subtree is not delegated)"
        return None

    @classmethod
    def _prepare(cls) -> str:
        # A process may not sit in a cgroup that enables controllers for its
        # children ("no internal processes"), so agents go one level down, in
        # a folder of their own whose subtree gets the controllers.  With
        # ``cpu`` enabled there, each agent's cgroup is one entity to the
        # scheduler (weight 100): many threads buy no larger share.
        base = cls._base()
        assert base is not None
        os.makedirs(base, exist_ok=True)
        _write(os.path.join(base, "cgroup.subtree_control"), " ".join(f"+{c}" for c in cls.NEEDED))
        return base

    def folders(self) -> list[str]:
        return [self.dir] if hasattr(self, "dir") else []

    def create(self) -> None:
        self.dir = os.path.join(self._prepare(), self.tag)
        self._make_folders()
        _write(os.path.join(self.dir, "pids.max"), str(PIDS_LIMIT))
        try:
            _write(os.path.join(self.dir, "memory.swap.max"), "0")
        except OSError:
            pass
        self._open("cpu", os.path.join(self.dir, "cpu.stat"))
        self._open("mem", os.path.join(self.dir, "memory.current"))
        self._open("peak", os.path.join(self.dir, "memory.peak"), os.O_RDWR)
        self._open("freeze", os.path.join(self.dir, "cgroup.freeze"), os.O_WRONLY)

    def cpu(self) -> float:
        text = self._pread("cpu")
        start = text.index(b"usage_usec") + 11
        return int(text[start : text.index(b"\n", start)]) / 1e6

    def memory(self) -> int:
        return int(self._pread("mem"))

    def peak(self) -> int:
        return int(self._pread("peak"))

    def reset_peak(self) -> None:
        try:  # Linux 6.12+: writing resets the peak as seen through this fd
            os.pwrite(self.fds["peak"], b"0", 0)
        except OSError:
            pass

    def cap_memory(self, limit: int) -> None:
        _write(os.path.join(self.dir, "memory.max"), str(limit))

    def out_of_memory(self) -> bool:
        try:
            for line in _read(os.path.join(self.dir, "memory.events")).splitlines():
                key, _, value = line.partition(" ")
                if key in ("max", "oom_kill") and int(value) > 0:
                    return True
        except (OSError, ValueError):
            pass
        return False

    def _procs_tree(self) -> str:
        return self.dir

    def kill_all(self) -> None:
        try:
            _write(os.path.join(self.dir, "cgroup.kill"), "1")
        except OSError:
            pass
        super().kill_all()


def new_cgroup(kind: str, nested: bool = True, cpu_share: bool = True) -> Cgroup:
    """A new cgroup for one agent; ``cpu_share`` False leaves a v1 agent out of the ``cpu`` controller."""
    group: Cgroup = CgroupV1(nested, cpu_share) if kind == "cgroup-v1" else CgroupV2(nested)
    group.create()
    return group


def enter_cgroup_command(group: Cgroup, command: list[str]) -> list[str]:
    """``command`` started by a shell that first moves itself into ``group``.

    The process joins the cgroup before it runs anything of the agent's, so
    every process it ever starts is counted; a shell (a few ms) rather than
    ``preexec_fn``, which is unsafe in a threaded referee (Dask workers).
    """
    joins = " && ".join(f"echo $$ > {shlex.quote(p)}" for p in group.procs_files())
    return ["/bin/sh", "-c", f'{joins} && exec "$@"', "agent", *command]


# -- bubblewrap ------------------------------------------------------------------

PR_SET_CHILD_SUBREAPER = 36


@cache
def become_subreaper() -> bool:
    """Make this process adopt its descendants' orphans, so that it can reap them.

    bubblewrap's outer process exits as soon as it learns how the sandbox's
    init ended, without reaping that init: the init is orphaned, and the
    machine's pid 1 (in a container: whatever runs there, if it reaps at
    all) would be left to reap it.  As their subreaper, the referee reaps
    each agent's init itself (:func:`reap_orphan`).
    """
    import ctypes

    try:
        done: int = ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        return False
    return done == 0


def reap_orphan(pid: int, wait: float = 1.0) -> bool:
    """Reap ``pid`` once it has been adopted by this process and has exited; whether it was."""
    deadline = time.monotonic() + wait
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return False  # not ours (no subreaper here), or already reaped
        if done:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)



def _python_dirs() -> list[str]:
    """Folders of the Python installation (interpreter, stdlib, site-packages)."""
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(path)
    for path in sys.path:
        if "site-packages" in path or "dist-packages" in path:
            dirs.add(path)
    exe = os.path.realpath(sys.executable)
    dirs.add(os.path.dirname(os.path.dirname(exe)))
    existing = sorted(d for d in dirs if d and os.path.isdir(d))
    # A folder inside another one already listed is bound with it.
    return [d for d in existing if not any(d != o and d.startswith(o.rstrip("/") + "/") for o in existing)]


def _walk_module(root: Path, module: str) -> tuple[list[Path], int]:
    """What to show of ``module`` (found under ``root`` by path, never imported),
    and how many of its dotted parts were found there (all: it exists).

    The package the module is or lives in, and the ``__init__.py`` of each
    package above it; a top-level single-file module is shown alone.  The
    last part may be any kind of module file (source, bytecode, extension).
    """
    parts = module.split(".")
    shown: list[Path] = []
    folder = root
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        candidate = folder / part
        if candidate.is_dir():
            if last:
                return shown + [candidate], len(parts)
            if (candidate / "__init__.py").is_file():
                shown.append(candidate / "__init__.py")
            folder = candidate
            continue
        if last:
            for suffix in importlib.machinery.all_suffixes():
                if (folder / f"{part}{suffix}").is_file():
                    return shown + [folder / f"{part}{suffix}" if folder == root else folder], len(parts)
        return shown, depth  # not there: the agent fails to load, as it would anyway
    return shown, len(parts)


def _module_paths(root: Path, module: str) -> list[Path]:
    """What to show of ``module`` in the sandbox (see :func:`_walk_module`)."""
    return _walk_module(root, module)[0]


def locate_module(workdir: Path, module: str) -> tuple[Path, int]:
    """Where ``module`` would be imported from, found by path (nothing is imported).

    Returns the folder holding the first part that is not there and how many
    parts were found before it; when all were, the module exists (its import
    may still fail).  The same look-up the sandbox uses to show an agent's package.
    """
    root = _import_root(workdir, module)
    found = _walk_module(root, module)[1]
    return root.joinpath(*module.split(".")[:found]), found


def _import_root(workdir: Path, module: str) -> Path:
    """The folder the top-level package of ``module`` is imported from.

    The working directory when it holds it (it comes first on the agent's
    path), else wherever this interpreter finds it (an installed, or
    editable-installed, package); a top-level name is located without being
    imported, so no code of the agent's runs in the referee.
    """
    top = module.split(".")[0]
    if (workdir / top).is_dir() or (workdir / f"{top}.py").is_file():
        return workdir
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0]).parent
    if spec is not None and spec.origin and os.path.isfile(spec.origin):
        return Path(spec.origin).parent
    return workdir


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


class _Mounts:
    """bubblewrap's mount arguments, with every folder above a mount point made readable.

    bubblewrap makes the folders a mount point needs with mode 0700, which
    an agent running as another user than root could not pass through; each
    such folder is made here first, with mode 0755, unless it lies inside a
    view of the real filesystem (which has its own).
    """

    def __init__(self) -> None:
        self.args: list[str] = []
        self.made: set[str] = {"/"}
        self.views: set[str] = set()  # mount points showing a real folder (and symlinks)

    def _parents(self, path: str) -> None:
        parts = Path(path).parts[1:-1]
        folder = "/"
        for part in parts:
            folder = os.path.join(folder, part)
            if folder in self.views:
                return
            if folder not in self.made:
                self.args += ["--perms", "0755", "--dir", folder]
                self.made.add(folder)

    def bind(self, source: str, dest: str | None = None) -> None:
        dest = dest or source
        self._parents(dest)
        self.args += ["--ro-bind", source, dest]
        self.views.add(dest)

    def symlink(self, target: str, dest: str) -> None:
        self._parents(dest)
        self.args += ["--symlink", target, dest]
        self.views.add(dest)

    def tmpfs(self, dest: str, perms: str = "1777") -> None:
        """A private, writable tmpfs (sticky and open to all, as /tmp is)."""
        self._parents(dest)
        self.args += ["--perms", perms, "--tmpfs", dest]
        self.made.add(dest)

    def special(self, *args: str) -> None:
        """``--proc``/``--dev`` and the like, mounted where the last argument says."""
        self._parents(args[-1])
        self.args += list(args)
        self.views.add(args[-1])


def _system_mounts(mounts: _Mounts) -> None:
    for name in ("usr", "lib", "lib32", "lib64", "libx32", "bin", "sbin"):
        path = "/" + name
        if os.path.islink(path):
            mounts.symlink(os.readlink(path), path)
        elif os.path.isdir(path):
            mounts.bind(path)
    for name in ("ld.so.cache", "ld.so.conf", "localtime", "passwd", "group", "nsswitch.conf", "hosts"):
        path = "/etc/" + name
        if os.path.exists(path):
            mounts.bind(path)


def bwrap_command(
    bwrap: str,
    command: list[str],
    workdir: Path,
    agent_module: str,
    extra_modules: Iterable[str] = (),
    libraries: Iterable[str] = (),
    seccomp_fd: int | None = None,
    drops_to: int | None = None,
) -> list[str]:
    """``command`` run inside a fresh sandbox whose working directory is ``workdir``.

    ``workdir`` (the folder the agent is imported from) is a private tmpfs in
    the sandbox, with read-only views of what the agent needs laid over it at
    their real paths, so paths and tracebacks read the same as outside.
    ``libraries``: folders of libraries the agent may import (shown whole).
    ``seccomp_fd``: the filter bubblewrap installs (:mod:`referee.hosting.seccomp`).
    ``drops_to``: the uid the agent host switches to, which needs the
    capabilities to do it (and loses them with it).
    """
    workdir = workdir.absolute()
    args = [
        bwrap,
        "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try",
        "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--hostname", "agent",
    ]
    if drops_to is not None:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    mounts = _Mounts()
    _system_mounts(mounts)
    mounts.special("--proc", "/proc")
    mounts.bind("/proc/sys")
    mounts.special("--dev", "/dev")
    for private in ("/dev/shm", "/tmp", str(workdir)):
        mounts.tmpfs(private)
    shown: list[Path] = []
    for path in _python_dirs():
        mounts.bind(path)
    referee_root = REFEREE_ROOT
    shown += [referee_root / part for part in AGENT_SIDE]
    for bundled in {referee_root.parent / "agents", _import_root(workdir, "agents") / "agents"}:
        if (bundled / "common").is_dir():
            shown += [bundled / part for part in BUNDLED_AGENTS]
    for module in [agent_module, *extra_modules]:
        shown += _module_paths(_import_root(workdir, module), module)
    # A `common` package beside the agent's is library code its neighbours
    # share (as agents/common is for the bundled agents): shown read-only.
    own = _module_paths(_import_root(workdir, agent_module), agent_module)
    if own and own[-1].is_dir() and (own[-1].parent / "common" / "__init__.py").is_file():
        shown.append(own[-1].parent / "common")
    # Library folders the operator set (other than ones holding the referee
    # or the agents, shown piecemeal above).
    for entry in libraries:
        if not any(_inside(str(p), entry) for p in [referee_root, workdir]) and os.path.isdir(entry):
            shown.append(Path(entry))
    seen: set[str] = set()
    for shown_path in shown:
        text = str(shown_path)
        if text in seen or not shown_path.exists():
            continue
        seen.add(text)
        mounts.bind(text)
    return args + mounts.args + ["--chdir", str(workdir), "--"] + command


def _owner_alive(tag: str) -> bool:
    try:
        owner = int(tag.split("-")[1])
    except (IndexError, ValueError):
        return True
    return os.path.exists(f"/proc/{owner}")


def cleanup_stale_cgroups(kind: str) -> int:
    """Kill and remove the agent cgroups of referees that died without cleaning up.

    A referee killed with SIGKILL while its agents are frozen leaves them
    frozen (a frozen process takes SIGKILL only once thawed), and its
    namespaces cannot take them down; the next referee on the machine
    finishes them.  Returns how many were removed.
    """
    removed = 0
    if kind == "cgroup-v1":
        bases = CgroupV1._bases()
        tags: set[str] = set()
        for base in bases.values():
            try:
                tags.update(
                    n for n in os.listdir(base) if n.startswith("referee-") and not n.startswith("referee-probe")
                )
            except OSError:
                continue
        for tag in tags:
            if _owner_alive(tag):
                continue
            dirs = {c: os.path.join(base, tag) for c, base in bases.items() if os.path.isdir(os.path.join(base, tag))}
            group = CgroupV1(nested=any(os.path.isdir(os.path.join(d, LEAF)) for d in dirs.values()))
            group.dirs = dirs
            if "freezer" in group.dirs:
                try:
                    group._open("freeze", os.path.join(group.dirs["freezer"], "freezer.state"), os.O_WRONLY)
                except OSError:
                    pass
            if "pids" in group.dirs and "freeze" in group.fds:
                group.kill_all()
            group.remove()
            removed += 1
    elif kind == "cgroup-v2":
        v2_base = CgroupV2._base()
        try:
            names = os.listdir(v2_base) if v2_base else []
        except OSError:
            names = []
        for tag in names:
            if v2_base and tag.startswith("referee-") and not _owner_alive(tag):
                folder = os.path.join(v2_base, tag)
                v2_group = CgroupV2(nested=os.path.isdir(os.path.join(folder, LEAF)))
                v2_group.dir = folder
                v2_group.kill_all()  # v2 lets SIGKILL through a frozen cgroup
                v2_group.remove()
                removed += 1
    return removed
