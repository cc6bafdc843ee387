"""What a sealed agent sees: bubblewrap's command line, its read-only views of the filesystem.

The filesystem of an agent's sandbox is read-only and holds only the Python
installation, the referee's agent-side code (the course surfaces its games'
registrations name among it), the bundled agents and the agent's own package;
the working directory, ``/tmp`` and ``/dev/shm`` are private tmpfs.
"""
from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import os
import sys
import sysconfig
from functools import cache
from collections.abc import Iterable
from pathlib import Path

#: The referee's own package: which of its parts an agent's process may see.
REFEREE_ROOT = Path(__file__).absolute().parents[1]
#: The agent-side code every game's agents need; the course packages a game's
#: agents import come from the games' registrations (``agent_surfaces``).
AGENT_SIDE = (
    "__init__.py",
    "agentkit.py",
    "game",  # referee.game.player: the colour type the agent host hands every game's agents
    "games",
    "hosting/__init__.py",
    "hosting/agent_host.py",
    "hosting/wire.py",
    # An agent folder made of a learned policy or an OpenSpiel bot (docs/learning.md) plays through these: the
    # agent base, the encodings (and their numpy arrays), the policy's file format and the games as OpenSpiel
    # games.  Not the environments, which drive agents rather than being one.
    "learning/__init__.py",
    "learning/agent.py",
    "learning/arrays.py",
    "learning/base.py",
    "learning/encoding.py",
    "learning/infinitron_encoding.py",
    "learning/openspiel.py",
    "learning/policy.py",
)
#: The bundled agents (a library every agent may build on, read-only).
BUNDLED_AGENTS = ("__init__.py", "common", "random_agent", "greedy", "minimax", "mcts")


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


@cache
def course_surfaces() -> tuple[str, ...]:
    """The course packages the bundled games' agents import, which every sealed agent is shown.

    Every agent sees all of them, whichever game it plays, as one agent may
    play several games (the bundled ones do).  Read from each registration's
    source, not by importing it: importing a game's package loads its engine
    (Infinitron's builds its line-of-sight tables, about 0.2 s), which every
    command that seals an agent would otherwise pay for games it does not play.
    """
    from ..games import GAMES  # only here: sealing an agent, not importing hosting, reads them

    found: list[str] = []
    for path in GAMES.values():
        found += _surfaces_named(REFEREE_ROOT.parent.joinpath(*path.split(".")).with_suffix(".py"))
    return tuple(dict.fromkeys(found))


def _surfaces_named(registration: Path) -> list[str]:
    """The ``agent_surfaces=(...)`` a bundled registration module writes (a literal); none if it cannot be read."""
    try:
        tree = ast.parse(registration.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []  # a game that cannot be loaded shows nothing (and cannot be played)
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "agent_surfaces":
            try:
                return [str(module) for module in ast.literal_eval(node.value)]
            except ValueError:
                return []
    return []


def _shown_of(workdir: Path, module: str) -> list[Path]:
    """What to show of ``module`` (see :func:`_walk_module`).

    A module of the referee's own package is found under :data:`REFEREE_ROOT`,
    whose modules count as top-level ones: ``referee.board`` shows
    ``board.py`` alone, never the whole package.
    """
    top, _, rest = module.partition(".")
    if top == REFEREE_ROOT.name and rest:
        return [REFEREE_ROOT / "__init__.py", *_module_paths(REFEREE_ROOT, rest)]
    return _module_paths(_import_root(workdir, module), module)


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

    def empty(self, dest: str) -> None:
        """An empty, read-only folder over ``dest`` (hides what is there)."""
        self._parents(dest)
        self.args += ["--perms", "0555", "--tmpfs", dest, "--remount-ro", dest]
        self.views.add(dest)

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


def _isolation(bwrap: str, hostname: str) -> list[str]:
    """bubblewrap and its namespaces: no network, its own PIDs (all end with it), no capabilities."""
    return [
        bwrap,
        "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try",
        "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--hostname", hostname,
    ]


def _base_mounts(*private: str) -> _Mounts:
    """The system and the Python installation read-only, /proc and /dev, a private tmpfs at ``/dev/shm``,
    ``/tmp`` and each of ``private``."""
    mounts = _Mounts()
    _system_mounts(mounts)
    mounts.special("--proc", "/proc")
    # The kernel's settings and machine-wide counts (open files, inodes: /proc/sys/fs/file-nr moved by
    # exactly the files an agent held open, a channel to any agent that read it): hidden, never written.
    mounts.empty("/proc/sys")
    mounts.special("--dev", "/dev")
    for folder in ("/dev/shm", "/tmp", *private):
        mounts.tmpfs(folder)
    for path in _python_dirs():
        mounts.bind(path)
    return mounts


def program_command(
    bwrap: str,
    command: list[str],
    workdir: Path,
    libraries: Iterable[str] = (),
    seccomp_fd: int | None = None,
    drops_privileges: bool = False,
    info_fd: int | None = None,
) -> list[str]:
    """``command`` (a Part A program: a board on its stdin, its answer on stdout) inside a fresh sandbox.

    It sees the system, the Python installation and the referee's package
    read-only (a program may build on the referee's board code, as the
    course's did), and ``workdir`` (the submission) read-only at its real
    path; ``/tmp`` and ``/dev/shm`` are private tmpfs. No network, no
    capabilities, and its own PID namespace: whatever it starts ends with it,
    however it detaches. ``libraries``: more folders it may import from (read-only).
    ``seccomp_fd``: the filter bubblewrap installs (:mod:`referee.hosting.seccomp`).
    ``drops_privileges``: ``command`` first becomes another user, which needs
    the capabilities to do it (and loses them with it: :mod:`referee.hosting.program`).
    ``info_fd``: where bubblewrap writes its init's pid (``{"child-pid": N}``), for reaping it.
    """
    workdir = workdir.absolute()
    mounts = _base_mounts()
    for folder in (REFEREE_ROOT, workdir, *(Path(entry) for entry in libraries if os.path.isdir(entry))):
        if not any(_inside(str(folder), view) for view in mounts.views):
            mounts.bind(str(folder))
    walls = _isolation(bwrap, "program")
    walls += ["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []
    walls += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"] if drops_privileges else []
    walls += ["--info-fd", str(info_fd)] if info_fd is not None else []
    return walls + mounts.args + ["--chdir", str(workdir), "--"] + command


def bwrap_command(
    bwrap: str,
    command: list[str],
    workdir: Path,
    agent_module: str,
    extra_modules: Iterable[str] = (),
    libraries: Iterable[str] = (),
    seccomp_fd: int | None = None,
    drops_privileges: bool = False,
) -> list[str]:
    """``command`` run inside a fresh sandbox whose working directory is ``workdir``.

    ``workdir`` (the folder the agent is imported from) is a private tmpfs in
    the sandbox, with read-only views of what the agent needs laid over it at
    their real paths, so paths and tracebacks read the same as outside.
    ``libraries``: folders of libraries the agent may import (shown whole).
    ``seccomp_fd``: the filter bubblewrap installs (:mod:`referee.hosting.seccomp`).
    ``drops_privileges``: the agent host switches to another user, which
    needs the capabilities to do it (and loses them with it).
    """
    workdir = workdir.absolute()
    args = _isolation(bwrap, "agent")
    if drops_privileges:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    mounts = _base_mounts(str(workdir))
    shown: list[Path] = []
    referee_root = REFEREE_ROOT
    shown += [referee_root / part for part in AGENT_SIDE]
    for bundled in {referee_root.parent / "agents", _import_root(workdir, "agents") / "agents"}:
        if (bundled / "common").is_dir():
            shown += [bundled / part for part in BUNDLED_AGENTS]
    for module in [agent_module, *course_surfaces(), *extra_modules]:
        shown += _shown_of(workdir, module)
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
