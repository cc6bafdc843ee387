"""The sandbox an agent's process runs in: namespaces, a system-call filter, kernel accounting, freezing.

Four independent layers, each used where this machine allows it:

* **Namespaces** (bubblewrap, ``bwrap``): new PID, IPC, UTS, network and
  cgroup namespaces, a new session, killed with the referee.  The filesystem
  is read-only and holds only the Python installation, the referee's
  agent-side code, the bundled agents and the agent's own package; the
  working directory, ``/tmp`` and ``/dev/shm`` are private tmpfs (their pages
  count as the agent's memory; :mod:`referee.hosting.mounts` lays it out).  An agent sees and can signal only its own
  processes.  Started as root, the referee runs each agent as an
  unprivileged user of its own (:mod:`referee.hosting.users`): the agent host
  drops to it before it imports anything of the agent's.
* **A system-call filter** (seccomp, :mod:`referee.hosting.seccomp`): no new
  namespaces, mounts, keyring, tracing, BPF, perf events or io_uring; no
  socket but AF_UNIX, no file locks or watches, no page-cache probes.
* **Accounting by a cgroup** (v1 ``cpuacct``/``memory``/``pids``/``freezer``
  (and ``cpu`` for a fair share) as root, or a delegated v2 subtree): CPU
  time and peak memory of every process and thread the agent ever ran,
  detached and exited ones included; a pids limit; a hard memory cap a
  little above the limit.  The agent runs one level below the cgroup that
  is limited and read, so even a writable view of its own cgroup could not
  change what the referee reads (:mod:`referee.hosting.cgroups`).
* **Freezing**: between its calls every process of the agent is frozen
  (cgroup freezer; without a cgroup, SIGSTOP/SIGCONT of every process in its
  PID namespace), so it cannot think or grow on the opponent's time.

:func:`resolve` turns a mode (``auto``, ``required``, ``off``) into the
:class:`Sandbox` a game runs under; that value goes into the game record.
This module probes the machine and holds that value; the rest of the code
imports every name of the sandbox from here.
"""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import cache

from . import seccomp, users
from .cgroups import PIDS_LIMIT, Cgroup, CgroupV1, CgroupV2, cleanup_stale_cgroups, enter_cgroup_command, new_cgroup
from .mounts import AGENT_SIDE, BUNDLED_AGENTS, REFEREE_ROOT, bwrap_command, locate_module

# What the rest of the code imports from here, whichever module of the sandbox holds it.
__all__ = [
    "AGENT_GID", "AGENT_SIDE", "AGENT_UID", "BUNDLED_AGENTS", "CGROUP_ENV", "LAYERS", "MEMORY_CAP_SLACK", "MODES",
    "PIDS_LIMIT", "REFEREE_ROOT", "REQUIRE_ENV", "UNSEALED", "WITHOUT_ENV", "Capabilities", "Cgroup", "CgroupV1",
    "CgroupV2", "Sandbox", "SandboxUnavailable", "become_subreaper", "bwrap_command", "cleanup_stale_cgroups",
    "enter_cgroup_command", "locate_module", "new_cgroup", "probe", "reap_orphan", "resolve",
]

MODES = ("auto", "required", "off")
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
#: user, a user of its own for each agent (all are then ``nobody``), the level
#: between the agent's cgroup and the one read, and (cgroup v1) the agent's own CPU share.
LAYERS = ("seccomp", "unprivileged", "own_user", "nesting", "cpu_share")
#: The user and group every sealed agent runs as when each cannot have its
#: own (``nobody``/``nogroup`` on Debian and Ubuntu): it owns nothing, so it
#: can write no file of the machine.  Normally each agent has a user of its
#: own (:mod:`referee.hosting.users`).
AGENT_UID = AGENT_GID = users.SHARED_UID


class SandboxUnavailable(RuntimeError):
    """``required`` was asked for and this machine cannot seal an agent."""


@dataclass(frozen=True)
class Sandbox:
    """What a game's agents run under (recorded as the record's ``sandbox``)."""

    namespaces: bool = False
    accounting: str = "process"  # "cgroup-v1" | "cgroup-v2" | "process"
    frozen: bool = False
    #: A seccomp filter refuses namespaces, mounts, the keyring, tracing, BPF, perf, io_uring, network
    #: sockets, file locks and watches and the page cache's probes.
    seccomp: bool = False
    #: Agents run as a user without privileges (AGENT_UID when the referee is root, else the referee's own).
    unprivileged: bool = False
    #: Each agent runs as a user of its own (:mod:`referee.hosting.users`), not one all agents share.
    own_user: bool = False
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
    def drops_privileges(self) -> bool:
        """Whether the agent host switches to another user (the referee is root)."""
        return self.namespaces and self.unprivileged and os.geteuid() == 0

    def agent_user(self) -> users.Claim | None:
        """The user an agent runs as, claimed until it ends (None: the referee's own)."""
        if not self.drops_privileges:
            return None
        return users.claim() if self.own_user else users.shared()

    def to_json(self) -> dict[str, object]:
        return {
            "namespaces": self.namespaces, "accounting": self.accounting, "frozen": self.frozen,
            "seccomp": self.seccomp, "unprivileged": self.unprivileged, "own_user": self.own_user,
            "nested": self.nested, "cpu_share": self.cpu_share,
        }

    def weaker(self) -> list[str]:
        """Which guarantees of a sealed game do not hold here, in words (empty: none)."""
        if not self.namespaces:
            return []  # describe() says it all: not sealed
        found = []
        if not self.seccomp:
            found.append(
                "no system-call filter (an agent can make namespaces of its own, use the keyring, trace "
                "its own children, use io_uring, hide memory in network sockets and signal through file locks)"
            )
        if not self.unprivileged:
            found.append("agents run as root (with no capabilities)")
        elif not self.own_user and os.geteuid() == 0:  # not root: agents are the referee's user (docs/referee.md)
            found.append(
                "all agents run as one user, so they share its kernel limits (processes, pipe buffers, inotify)"
            )
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


_probed: Capabilities | None = None


def probe() -> Capabilities:
    """What this machine offers (checked once per process, or told by the process that started it)."""
    global _probed
    if _probed is None:
        _probed = _probe()
    return _probed


def probed() -> Capabilities | None:
    """What :func:`probe` found in this process, if it has run: for a helper process to :func:`adopt`."""
    return _probed


def adopt(capabilities: Capabilities | None) -> None:
    """Take what the process that started this one found, instead of probing again.

    The probe runs bubblewrap twice and a Python under a seccomp filter, 35-100 ms; a tournament's game workers
    and agent checks are started by a process that has already probed the same machine.
    """
    global _probed
    if _probed is None and capabilities is not None:
        _probed = capabilities


def _probe() -> Capabilities:
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


def setting_mode(value: object) -> str | None:
    """The mode a settings file's ``sandbox:`` names (YAML 1.1 reads a bare ``off`` as false), or None when it
    names none of :data:`MODES`."""
    mode = "off" if value is False else value
    return mode if isinstance(mode, str) and mode in MODES else None


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
        own_user=namespaces and os.geteuid() == 0 and "unprivileged" not in left_out and "own_user" not in left_out,
        nested=bool(caps.cgroup) and "nesting" not in left_out,
        cpu_share=caps.cpu_share and ("cpu_share" not in left_out or caps.cgroup == CgroupV2.name),
    )


# -- reaping bubblewrap's init ------------------------------------------------------

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
