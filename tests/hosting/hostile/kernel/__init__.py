"""Agents that use what the kernel keeps for every process on the machine: memory
in socket buffers (which no cgroup v1 counts), locks and watches on files every
agent can read (a channel to the opponent, or to a game running beside it),
the page cache (a note that outlives the game), and the limits the kernel
keeps per user.

Each reports what every step did (``HOSTILE {json}`` lines, see ``common``).
"""
from __future__ import annotations

import ctypes
import errno
import fcntl
import mmap
import os
import socket
import struct
import sysconfig
from pathlib import Path

from ..common import MB, Plays, Report, failure, report

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

#: The memory the socket attack tries to hide (the tests play it at -s 50).
HIDE = 300 * MB
#: Files of the standard library both agents can read: the lock channel's 8 bits, one a file.
LOCK_FILES = tuple(sorted(Path(sysconfig.get_paths()["stdlib"], "email").glob("*.py")))[:8]
#: The folder an inotify spy watches (and its ``__pycache__``): ``xml.dom``, which the other side imports.
WATCHED = Path(sysconfig.get_paths()["stdlib"], "xml", "dom")
AF_VSOCK = 40
PAGE = mmap.PAGESIZE
#: The pages of the page-cache note, far apart (no readahead window joins two), from a place the seed names.
NOTE_PAGES = tuple(range(0, 12 * 64, 64))


def _errno_name() -> str:
    code = ctypes.get_errno()
    return f"OSError({errno.errorcode.get(code, code)})"


def _fill(sender: socket.socket, target, limit: int) -> int:
    """Send until the kernel refuses (the receiver never reads); the bytes it took."""
    sender.setblocking(False)
    chunk = bytes(60000)
    held = 0
    while held < limit:
        try:
            held += sender.sendto(chunk, target) if target is not None else sender.send(chunk)
        except (BlockingIOError, OSError):
            break
    return held


class HidesMemoryInSockets(Plays):
    """At its first action, holds up to :data:`HIDE` bytes in the queues of sockets
    no one reads, of each of :attr:`KINDS`: UDP to itself on the sandbox's
    loopback, TCP loopback connections, AF_UNIX socket pairs (with buffers as
    big as it may set); then opens an AF_VSOCK socket.  Reports what each kind
    held, in MB, as soon as it is held; keeps them all to the end."""

    KINDS = ("udp", "tcp", "unix")

    def attack(self, **referee):
        self.kept: list[socket.socket] = []
        for kind in self.KINDS:
            try:
                report(kind=kind, held=getattr(self, "_" + kind)(HIDE) // MB)
            except OSError as exc:
                report(kind=kind, held=failure(exc))
        try:
            self.kept.append(socket.socket(AF_VSOCK, socket.SOCK_STREAM))
            report(kind="vsock", held="ok")
        except OSError as exc:
            report(kind="vsock", held=failure(exc))


    def _hold(self, limit: int, pair) -> int:
        """Fill new pairs of sockets (``pair()``: the sender and where it sends) until ``limit`` bytes are held."""
        held = 0
        while held < limit:
            sender, target = pair()
            got = _fill(sender, target, limit - held)
            held += got
            if not got:
                break
        return held

    def _udp(self, limit: int) -> int:
        def pair():
            receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            receiver.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 * MB)
            receiver.bind(("127.0.0.1", 0))
            sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.kept += [receiver, sender]
            return sender, receiver.getsockname()

        return self._hold(limit, pair)

    def _tcp(self, limit: int) -> int:
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.bind(("127.0.0.1", 0))
        server.listen(64)
        self.kept.append(server)

        def pair():
            client = socket.create_connection(server.getsockname())
            client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 * MB)
            accepted, _ = server.accept()
            accepted.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 * MB)
            self.kept += [client, accepted]
            return client, None

        return self._hold(limit, pair)

    def _unix(self, limit: int) -> int:
        def pair():
            left, right = socket.socketpair()
            for end in (left, right):
                for option in (socket.SO_SNDBUF, socket.SO_RCVBUF):
                    try:
                        end.setsockopt(socket.SOL_SOCKET, option, 8 * MB)
                    except OSError:
                        pass
            self.kept += [left, right]
            return left, None

        return self._hold(limit, pair)


class HidesMemoryInIpSockets(HidesMemoryInSockets):
    KINDS = ("udp", "tcp")


class SignalsThroughLocks(Plays):
    """Red: at its first action, locks the :data:`LOCK_FILES` whose bit of the seed's
    low byte is 1 (``flock``, and ``fcntl`` record locks on the rest's first byte
    when flock is refused).  Blue: at its first action, tries to lock each one and
    reads a 1 where it cannot.  Reports ``{"sent": byte}`` / ``{"read": byte}``."""

    def attack(self, **referee):
        bits = (self.seed or 0) & 0xFF
        self.files = [open(path, "rb") for path in LOCK_FILES]
        if self.color.name == "RED":
            steps = [self._lock(f, exclusive=True) for i, f in enumerate(self.files) if bits >> i & 1]
            report(sent=bits, locked=steps)
        else:
            read = 0
            for i, f in enumerate(self.files):
                if self._lock(f, exclusive=True) == "held":
                    read |= 1 << i
            report(read=read, tried=self._lock(self.files[0], exclusive=True))

    @staticmethod
    def _lock(f, exclusive: bool) -> str:
        """``ok`` (locked now), ``held`` (someone else holds it) or why it failed."""
        outcomes = []
        for lock in (lambda: fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB),
                     lambda: fcntl.fcntl(f, 37, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 1, 0))):  # F_OFD_SETLK
            try:
                lock()
                return "ok"
            except BlockingIOError:
                return "held"
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EACCES):
                    return "held"
                outcomes.append(failure(exc))
        return "/".join(outcomes)


class WatchesItsOpponent(Plays):
    """Blue: at ``__init__``, watches :data:`WATCHED` for opened files (inotify, and
    dnotify where inotify is refused).  Red imports ``xml.dom.minidom`` at its first
    action.  Blue reports at its first action the names of the files opened.
    Reports ``{"watch": ...}`` and ``{"seen": [...]}``."""

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.fd = -1
        if color.name == "BLUE":
            fd = _libc.inotify_init1(os.O_NONBLOCK)
            if fd >= 0 and all(_libc.inotify_add_watch(fd, str(folder).encode(), 0x20) >= 0  # IN_OPEN
                               for folder in (WATCHED, WATCHED / "__pycache__")):
                self.fd = fd
                report(watch="ok")
            else:
                report(watch=_errno_name())

    def attack(self, **referee):
        if self.color.name == "RED":
            import xml.dom.minidom  # noqa: F401  what the spy sees

            report(imported="xml.dom.minidom")
            return
        seen = []
        if self.fd >= 0:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                data = b""
            while data:
                _, _, _, length = struct.unpack_from("iIII", data)
                name = data[16:16 + length].rstrip(b"\0").decode()
                seen.append(name)
                data = data[16 + length:]
        report(seen=sorted(set(seen)))


def _rarely_read() -> Path:
    """A file of the Python installation that nothing reads: its static library, or pip's wheel (for ensurepip)."""
    found = sorted(Path(sysconfig.get_config_var("LIBPL") or "/nonexistent").glob("libpython*.a"))
    return found[0] if found else next(Path(sysconfig.get_paths()["stdlib"], "ensurepip", "_bundled").glob("pip-*.whl"))


def _cached(fd: int, page: int) -> str:
    """Whether page ``page`` of ``fd`` is in the page cache, as an RWF_NOWAIT read says (or why it cannot)."""
    try:
        os.preadv(fd, [bytearray(1)], page * PAGE, os.RWF_NOWAIT)
        return "1"
    except BlockingIOError:
        return "0"
    except OSError as exc:
        return failure(exc)


class KeepsNotesInThePageCache(Plays):
    """A note in which pages of a shared file are cached.  At its first action it
    reads the note (the first 12 pages of a rarely read file of the Python
    installation, RWF_NOWAIT reads), then writes its seed's low 12 bits:
    ``posix_fadvise(DONTNEED)`` drops the file's pages, a read brings back the
    ones for the 1 bits.  Also tries ``mincore`` on the file mapped and
    ``cachestat``.  Reports ``{"read": ..., "wrote": ..., "evict": ..., ...}``."""

    #: A file of the Python installation nothing reads (pip's wheel, kept for ensurepip).
    FILE = _rarely_read()

    def attack(self, **referee):
        fd = os.open(self.FILE, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no readahead: a read brings in only its page
        except OSError:
            pass
        # Where the note is: the seed's bits above its low 16 (so that games of one test find it, others not).
        places = max(1, os.fstat(fd).st_size // PAGE // 800 - 1)
        pages = [800 * (((self.seed or 0) >> 16) % places) + page for page in NOTE_PAGES]
        read = "".join(_cached(fd, page) for page in pages)
        bits = (self.seed or 0) & 0xFFF
        for page in pages:  # waits for any read the probes started, which would refill the cache after the drop
            os.pread(fd, 1, page * PAGE)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            evict = "ok"
        except OSError as exc:
            evict = failure(exc)
        for i, page in enumerate(pages):
            if bits >> i & 1:
                os.pread(fd, 1, page * PAGE)
        report(read=read, wrote=format(bits, "012b")[::-1], evict=evict, after="".join(
            _cached(fd, page) for page in pages), mincore=self._mincore(fd), cachestat=self._cachestat(fd))

    @staticmethod
    def _mincore(fd: int) -> str:
        mapped = mmap.mmap(fd, 4 * PAGE, access=mmap.ACCESS_COPY)  # private: writable, so ctypes can find it
        first = ctypes.c_char.from_buffer(mapped)
        vector = ctypes.create_string_buffer(4)
        done = _libc.syscall(_MINCORE, ctypes.c_void_p(ctypes.addressof(first)), ctypes.c_size_t(4 * PAGE), vector)
        outcome = "ok" if done == 0 else _errno_name()
        del first
        mapped.close()
        return outcome

    @staticmethod
    def _cachestat(fd: int) -> str:
        ranges = ctypes.create_string_buffer(16)
        stat = ctypes.create_string_buffer(64)
        done = _libc.syscall(451, fd, ranges, stat, 0)
        return "ok" if done == 0 else _errno_name()


_MINCORE = {"x86_64": 27, "aarch64": 232}.get(os.uname().machine, -1)


def _spend_pipe_allowance() -> list[int]:
    """Pipes grown to 1 MB until the kernel refuses, then plain ones past the user's allowance; their ends."""
    ends: list[int] = []
    for _ in range(200):
        ends += os.pipe()
        try:
            fcntl.fcntl(ends[-1], fcntl.F_SETPIPE_SZ, MB)
        except OSError:
            break
    for _ in range(40):  # 16 pages each: over what is left of the allowance
        ends += os.pipe()
    return ends


class FillsItsUsersPipes(Plays):
    """Red: at its first action, grows pipes to 1 MB each until the kernel's per-user
    pipe allowance (``pipe-user-pages-soft``) is spent.  Blue, at its first action:
    the size of a new pipe (2 pages when its user's allowance is spent).
    Reports ``{"pipes": n}`` / ``{"new_pipe": bytes}``."""

    def attack(self, **referee):
        if self.color.name == "RED":
            self.pipes = _spend_pipe_allowance()
            report(pipes=len(self.pipes) // 2, uid=os.getuid())
        else:
            read_end, write_end = os.pipe()
            report(new_pipe=fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ), uid=os.getuid())


class TriesEveryChannel(Plays):
    """For a tournament (reports by raising :class:`Report`).  At its first action it
    looks for what others left in the kernel's shared state, then leaves its own:
    the size of a new pipe (2 pages when its user's pipe allowance is spent), the
    first :data:`LOCK_FILES` (``held`` when someone holds its lock), then it fills
    its user's pipes, locks that file and keeps both; it also tries inotify, an
    AF_INET socket and an RWF_NOWAIT read.  As Blue it reports at once (the game
    then ends); as Red it plays on, holding what it took."""

    def attack(self, **referee):
        read_end, write_end = os.pipe()
        facts: dict[str, object] = {"uid": os.getuid(), "new_pipe": fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ)}
        self.lock_file = open(LOCK_FILES[0], "rb")
        facts["lock"] = SignalsThroughLocks._lock(self.lock_file, exclusive=True)
        self.pipes = []
        self.pipes = _spend_pipe_allowance()
        fd = _libc.inotify_init1(os.O_NONBLOCK)
        facts["inotify"] = "ok" if fd >= 0 else _errno_name()
        try:
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
            facts["inet"] = "ok"
        except OSError as exc:
            facts["inet"] = failure(exc)
        facts["nowait"] = _cached(self.lock_file.fileno(), 0)
        facts["pipes"] = len(self.pipes) // 2
        if self.color.name == "BLUE":
            raise Report(**facts)
        report(**facts)


class CountsTheMachinesFiles(Plays):
    """Blue reads the machine's count of open files (``/proc/sys/fs/file-nr``) at
    ``__init__``; Red opens ``500 + its seed's low byte`` files at its first action
    and keeps them; Blue reads the count again at its first action.  Reports
    ``{"opened": n}`` / ``{"counted": delta}``."""

    def __init__(self, color, **referee):
        super().__init__(color, **referee)
        self.before = _open_files()

    def attack(self, **referee):
        if self.color.name == "RED":
            self.kept = [open(os.devnull) for _ in range(500 + ((self.seed or 0) & 0xFF))]
            report(opened=len(self.kept))
        else:
            after = _open_files()
            report(counted=after - self.before if isinstance(after, int) and isinstance(self.before, int)
                   else f"{self.before}/{after}")


def _open_files() -> int | str:
    try:
        with open("/proc/sys/fs/file-nr") as f:
            return int(f.read().split()[0])
    except OSError as exc:
        return failure(exc)
