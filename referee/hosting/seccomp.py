"""The system calls a sealed agent may not make: a seccomp filter, handed to bubblewrap.

An agent needs to compute, allocate memory, read its own files, start threads
and (rarely) processes.  What it must never do is change the walls around it
or the referee's view of it: make a namespace of its own (a user namespace
gives back every capability, with which it could mount the cgroup that
counts its CPU and write 0 to it), mount anything, keep notes in the kernel's
keyring (shared by every process of a user, across games), trace or read
other processes, load BPF programs, open perf events, or reach the kernel
through io_uring, whose operations seccomp cannot see.  Each of these is
refused with ``EPERM`` (``clone3``: ``ENOSYS``, so that the C library falls
back to ``clone``, whose flags a filter can read).  The reference for the
list is the default seccomp profile of the usual container runtimes, cut
down to what an agent could use against the limits or its opponent, and
documented in docs/referee.md ("What a sealed agent may not do").

Sealed III closed what agents still shared through the kernel: network
sockets (their buffers are memory no cgroup v1 counts, from machine-wide
pools; only ``AF_UNIX`` is left, which Python's own tools use), file locks and
inotify/dnotify on files every agent can read (a channel between agents,
and between games running side by side), and the page cache's state
(probed with ``mincore``, ``cachestat`` or ``RWF_NOWAIT`` reads, and cleared
with ``fadvise``, ``readahead`` or ``madvise(MADV_PAGEOUT)``: a note that
outlives the game).  Those calls are refused only for the arguments that
do harm where an agent needs the call otherwise (``socket``, ``fcntl``,
``madvise``): the filter reads the argument.

The filter is classic BPF, written here rather than with libseccomp, for
the two architectures this runs on (x86_64, aarch64); elsewhere there is no
filter and the game record says so (``"seccomp": false``).
"""
from __future__ import annotations

import errno
import os
import platform
import struct

#: The refused system calls, by group, with why (docs/referee.md lists the same).
DENIED: dict[str, tuple[str, ...]] = {
    "namespaces": ("setns",),  # and clone/unshare with a namespace flag, clone3: below
    "mounts": (
        "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount", "fspick",
        "open_tree", "move_mount", "mount_setattr", "open_tree_attr",
    ),
    "keyring": ("add_key", "request_key", "keyctl"),
    "tracing": ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise"),
    "bpf and perf": ("bpf", "perf_event_open"),
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
    "kernel exploits": ("userfaultfd", "open_by_handle_at", "name_to_handle_at"),
    "file watches": ("inotify_init", "inotify_init1", "inotify_add_watch"),
    "the page cache": ("mincore", "cachestat", "fadvise64", "readahead"),
    "the machine": (
        "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
        "swapon", "swapoff", "acct", "syslog", "settimeofday", "clock_settime", "clock_adjtime",
        "adjtimex", "sethostname", "setdomainname", "quotactl", "quotactl_fd", "nfsservctl",
        "lookup_dcookie", "vhangup", "iopl", "ioperm", "uselib", "ustat", "sysfs", "_sysctl",
        "fanotify_init", "move_pages", "migrate_pages",
    ),
}

#: Calls refused for some values of one argument: name -> (the argument's index, the values, errno).
#: ``socket``/``socketpair`` are the exception: every domain but AF_UNIX is refused (:data:`SOCKET_DOMAINS`).
REFUSED_ARGUMENTS: dict[str, tuple[int, tuple[int, ...], int]] = {
    # F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW: no locks (ENOLCK, as a
    # file system without them says); F_SETLEASE, F_GETLEASE, F_NOTIFY (dnotify: a watch on a folder).
    "flock": (-1, (), errno.ENOLCK),
    "fcntl": (1, (5, 6, 7, 36, 37, 38), errno.ENOLCK),
    "fcntl ": (1, (1024, 1025, 1026), errno.EPERM),
    # MADV_COLD, MADV_PAGEOUT: push a shared file's pages out of the page cache.
    "madvise": (2, (20, 21), errno.EPERM),
    # preadv2/pwritev2 with RWF_NOWAIT (8) tell a page in the cache from one that is not: both are
    # refused whatever the flags (ENOSYS: the C library then falls back to preadv/pwritev for flags 0).
    "preadv2": (-1, (), errno.ENOSYS),
    "pwritev2": (-1, (), errno.ENOSYS),
}
#: The only socket domain an agent may use: AF_UNIX (multiprocessing, asyncio's wake-up pair).
SOCKET_DOMAINS = (1,)

#: The flags of clone() and unshare() that make a new namespace (CLONE_NEWTIME only in unshare()).
CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x02000000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWTIME = 0x10000000, 0x20000000, 0x40000000, 0x80
NAMESPACE_FLAGS = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID
NAMESPACE_FLAGS |= CLONE_NEWNET

# System call numbers (Linux's asm/unistd_64.h and asm-generic/unistd.h).
_GENERIC_AND_X86 = {
    "clone3": 435, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "open_tree": 428,
    "move_mount": 429, "mount_setattr": 442, "open_tree_attr": 467, "pidfd_getfd": 438,
    "process_madvise": 440, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "quotactl_fd": 443, "cachestat": 451,
}
_X86_64 = {
    **_GENERIC_AND_X86,
    "clone": 56, "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155,
    "chroot": 161, "add_key": 248, "request_key": 249, "keyctl": 250, "ptrace": 101,
    "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "open_by_handle_at": 304, "name_to_handle_at": 303, "kexec_load": 246,
    "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176, "reboot": 169,
    "swapon": 167, "swapoff": 168, "acct": 163, "syslog": 103, "settimeofday": 164, "clock_settime": 227,
    "clock_adjtime": 305, "adjtimex": 159, "sethostname": 170, "setdomainname": 171, "quotactl": 179,
    "nfsservctl": 180, "lookup_dcookie": 212, "vhangup": 153, "iopl": 172, "ioperm": 173, "uselib": 134,
    "ustat": 136, "sysfs": 139, "_sysctl": 156, "fanotify_init": 300, "move_pages": 279,
    "migrate_pages": 256, "socket": 41, "socketpair": 53, "flock": 73, "fcntl": 72, "inotify_init": 253,
    "inotify_init1": 294, "inotify_add_watch": 254, "mincore": 27, "fadvise64": 221, "readahead": 187,
    "madvise": 28, "preadv2": 327, "pwritev2": 328,
}
_AARCH64 = {
    **_GENERIC_AND_X86,
    "clone": 220, "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
    "add_key": 217, "request_key": 218, "keyctl": 219, "ptrace": 117, "process_vm_readv": 270,
    "process_vm_writev": 271, "kcmp": 272, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
    "open_by_handle_at": 265, "name_to_handle_at": 264, "kexec_load": 104, "kexec_file_load": 294,
    "init_module": 105, "finit_module": 273, "delete_module": 106, "reboot": 142, "swapon": 224,
    "swapoff": 225, "acct": 89, "syslog": 116, "settimeofday": 170, "clock_settime": 112,
    "clock_adjtime": 266, "adjtimex": 171, "sethostname": 161, "setdomainname": 162, "quotactl": 60,
    "nfsservctl": 42, "lookup_dcookie": 18, "vhangup": 58, "fanotify_init": 262, "move_pages": 239,
    "migrate_pages": 238, "socket": 198, "socketpair": 199, "flock": 32, "fcntl": 25, "inotify_init1": 26,
    "inotify_add_watch": 27, "mincore": 232, "fadvise64": 223, "readahead": 213, "madvise": 233,
    "preadv2": 286, "pwritev2": 287,
}
#: Machine name -> (the kernel's AUDIT_ARCH value, its system call numbers).
ARCHITECTURES = {
    "x86_64": (0xC000003E, _X86_64),
    "aarch64": (0xC00000B7, _AARCH64),
}
#: On x86_64, numbers from here on are the x32 ABI: a second door to every call.
_X32_SYSCALL_BIT = 0x40000000

# Classic BPF, as seccomp runs it: struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}.
_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_IF_EQUAL, _JUMP_IF_AT_LEAST, _JUMP_IF_ANY_BIT = 0x15, 0x35, 0x45  # BPF_JMP | JEQ/JGE/JSET | BPF_K
_JUMP_ALWAYS = 0x05  # BPF_JMP | BPF_JA
_RETURN = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000
# Offsets in struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}; the
# first argument's low 32 bits (both machines are little-endian) hold the flags.
_NR, _ARCH, _ARG0_LOW = 0, 4, 16
_ARG_SIZE = 8


def _op(code: int, k: int = 0, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _refuse(code: int) -> bytes:
    return _op(_RETURN, _ERRNO | code)


def _only(number: int, index: int, allowed: tuple[int, ...], code: int) -> list[bytes]:
    """Call ``number`` is allowed only with argument ``index`` (its low 32 bits) in ``allowed``."""
    count = len(allowed)
    ops = [_op(_JUMP_IF_EQUAL, number, jf=count + 3), _op(_LOAD_WORD, _ARG0_LOW + _ARG_SIZE * index)]
    ops += [_op(_JUMP_IF_EQUAL, value, jt=count - i) for i, value in enumerate(allowed)]
    return ops + [_refuse(code), _op(_RETURN, _ALLOW)]


def _refused_for(number: int, index: int, values: tuple[int, ...], code: int) -> list[bytes]:
    """Call ``number`` is refused with ``code`` when argument ``index`` is one of ``values`` (index -1: always).

    Otherwise the checks after these go on, with the call's number loaded again."""
    if index < 0:
        return [_op(_JUMP_IF_EQUAL, number, jf=1), _refuse(code)]
    count = len(values)
    ops = [_op(_JUMP_IF_EQUAL, number, jf=count + 4), _op(_LOAD_WORD, _ARG0_LOW + _ARG_SIZE * index)]
    ops += [_op(_JUMP_IF_EQUAL, value, jt=count + 1 - i) for i, value in enumerate(values)]
    return ops + [_op(_LOAD_WORD, _NR), _op(_JUMP_ALWAYS, 1), _refuse(code)]


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one) as bytes bubblewrap reads, or None if unknown here."""
    found = ARCHITECTURES.get(machine or platform.machine())
    if found is None:
        return None
    arch, numbers = found
    ops = [
        _op(_LOAD_WORD, _ARCH),
        _op(_JUMP_IF_EQUAL, arch, jt=1),
        _op(_RETURN, _KILL_PROCESS),  # another ABI (i386 through int 0x80): its numbers mean other calls
        _op(_LOAD_WORD, _NR),
    ]
    if machine == "x86_64" or (machine is None and platform.machine() == "x86_64"):
        ops += [_op(_JUMP_IF_AT_LEAST, _X32_SYSCALL_BIT, jf=1), _refuse(errno.ENOSYS)]
    for name, flags in (("clone", NAMESPACE_FLAGS), ("unshare", NAMESPACE_FLAGS | CLONE_NEWTIME)):
        ops += [
            _op(_JUMP_IF_EQUAL, numbers[name], jf=4),
            _op(_LOAD_WORD, _ARG0_LOW),
            _op(_JUMP_IF_ANY_BIT, flags, jf=1),
            _refuse(errno.EPERM),
            _op(_RETURN, _ALLOW),
        ]
    ops += [_op(_JUMP_IF_EQUAL, numbers["clone3"], jf=1), _refuse(errno.ENOSYS)]
    for name in ("socket", "socketpair"):
        ops += _only(numbers[name], 0, SOCKET_DOMAINS, errno.EAFNOSUPPORT)
    for name, (index, values, code) in REFUSED_ARGUMENTS.items():
        ops += _refused_for(numbers[name.strip()], index, values, code)
    for group in DENIED.values():
        for name in group:
            if name in numbers:  # an old call this machine never had
                ops += [_op(_JUMP_IF_EQUAL, numbers[name], jf=1), _refuse(errno.EPERM)]
    ops.append(_op(_RETURN, _ALLOW))
    return b"".join(ops)


def program_fd(code: bytes) -> int:
    """A file descriptor bubblewrap reads the filter from (``--seccomp FD``), at its start.

    One per agent: bubblewrap reads it to the end and closes it.
    """
    fd = os.memfd_create("referee-seccomp", os.MFD_CLOEXEC)
    os.write(fd, code)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
