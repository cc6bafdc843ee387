"""One agent's cgroup: kernel accounting of its CPU time and memory, a pids limit, a memory cap, freezing.

Cgroup v1 (``cpuacct``/``memory``/``pids``/``freezer``, and ``cpu`` for a
fair share) as root, or a delegated v2 subtree.  The agent runs one level
below the cgroup that is limited and read (:data:`LEAF`), so even a writable
view of its own cgroup could not change what the referee reads.  Which kind
a machine offers is found by :func:`referee.hosting.sandbox.probe`.
"""
from __future__ import annotations

import atexit
import itertools
import os
import shlex
import signal
import time

#: Processes and threads one agent may have at once (a fork bomb stops here).
PIDS_LIMIT = 64

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
        # Each taken out before it is closed: cut short (an abandoned game's exception), a second call must
        # not close a number another thread has opened since.
        while self.fds:
            _, fd = self.fds.popitem()
            try:
                os.close(fd)
            except OSError:
                pass


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
