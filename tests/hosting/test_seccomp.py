"""The seccomp filter's tables (its effect is tested through the CLI in test_sealed_kernel.py)."""
from __future__ import annotations

import struct

import pytest

from referee.hosting import seccomp

#: Calls x86_64 has and the generic table (aarch64) never had.
X86_ONLY = {"iopl", "ioperm", "uselib", "ustat", "sysfs", "_sysctl", "inotify_init"}


def test_every_refused_call_has_its_number_on_x86_64_and_aarch64_but_the_x86_only_ones():
    names = {name for group in seccomp.DENIED.values() for name in group} | {"clone", "clone3", "unshare"}
    names |= {name.strip() for name in seccomp.REFUSED_ARGUMENTS} | {"socket", "socketpair"}
    _, x86 = seccomp.ARCHITECTURES["x86_64"]
    _, arm = seccomp.ARCHITECTURES["aarch64"]
    assert names <= set(x86)
    assert names - set(arm) == X86_ONLY
    for table in (x86, arm):
        assert len(set(table.values())) == len(table), "two calls share a number"


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHITECTURES))
def test_the_program_checks_the_architecture_first_and_allows_what_it_does_not_refuse(machine):
    code = seccomp.program(machine)
    assert code is not None and len(code) % 8 == 0 and len(code) // 8 < 4096  # the kernel's limit
    ops = [struct.unpack("=HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]
    arch, _ = seccomp.ARCHITECTURES[machine]
    assert ops[0] == (0x20, 0, 0, 4) and ops[1][3] == arch  # load the arch word, compare with this one
    assert ops[-1] == (0x06, 0, 0, 0x7FFF0000)  # the last word: allow
    for index, (code_, jt, jf, k) in enumerate(ops):
        if code_ == 0x05:  # an unconditional jump, by k
            assert index + 1 + k < len(ops)
        elif code_ & 0x07 == 0x05:  # a conditional jump: both targets inside the program
            assert index + 1 + max(jt, jf) < len(ops)


def run(code: bytes, arch: int, number: int, *args: int) -> int:
    """What the filter returns for a call (the subset of classic BPF the filter uses)."""
    ops = [struct.unpack("=HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]
    data = struct.pack("=iIQ6Q", number, arch, 0, *(list(args) + [0] * (6 - len(args))))
    at = acc = 0
    while True:
        op, jt, jf, k = ops[at]
        at += 1
        if op == 0x20:
            acc = struct.unpack_from("=I", data, k)[0]
        elif op == 0x06:
            return k
        elif op == 0x05:
            at += k
        else:
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[op]
            at += jt if taken else jf


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHITECTURES))
def test_the_filter_reads_the_arguments_of_socket_fcntl_and_madvise(machine):
    """Only AF_UNIX sockets; fcntl's lock and watch commands refused, the others allowed;
    madvise refused only for pushing pages out; every other call left alone."""
    import errno

    code = seccomp.program(machine)
    assert code is not None
    arch, numbers = seccomp.ARCHITECTURES[machine]
    allow, refused = 0x7FFF0000, lambda code: 0x00050000 | code

    def verdict(name: str, *args: int) -> int:
        return run(code, arch, numbers[name], *args)

    assert verdict("socket", 1, 1) == verdict("socketpair", 1, 1) == allow  # AF_UNIX
    for domain in (2, 10, 16, 17, 40):  # AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK
        assert verdict("socket", domain, 1) == verdict("socketpair", domain, 1) == refused(errno.EAFNOSUPPORT)
    for command in (0, 1, 2, 3, 4, 1031, 1032):  # F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, pipe sizes
        assert verdict("fcntl", 3, command) == allow
    for command in (5, 6, 7, 36, 37, 38):
        assert verdict("fcntl", 3, command) == refused(errno.ENOLCK)
    for command in (1024, 1025, 1026):
        assert verdict("fcntl", 3, command) == refused(errno.EPERM)
    assert verdict("flock", 3, 2) == refused(errno.ENOLCK)
    assert verdict("madvise", 0, 4096, 4) == verdict("madvise", 0, 4096, 14) == allow  # DONTNEED, HUGEPAGE
    assert verdict("madvise", 0, 4096, 21) == verdict("madvise", 0, 4096, 20) == refused(errno.EPERM)
    assert verdict("preadv2", 3, 0, 1, 0, 0, 8) == refused(errno.ENOSYS)
    for name in ("inotify_init1", "inotify_add_watch", "mincore", "cachestat", "fadvise64", "readahead"):
        assert verdict(name) == refused(errno.EPERM), name
    read = {"x86_64": 0, "aarch64": 63}[machine]
    assert run(code, arch, read, 3, 0, 10) == allow


def test_no_program_for_an_unknown_machine():
    assert seccomp.program("sparc64") is None
