"""The seccomp filter's tables (its effect is tested through the CLI in test_sealed_kernel.py)."""
from __future__ import annotations

import struct

import pytest

from referee.hosting import seccomp

#: Calls x86_64 has and the generic table (aarch64) never had.
X86_ONLY = {"iopl", "ioperm", "uselib", "ustat", "sysfs", "_sysctl"}


def test_every_refused_call_has_its_number_on_x86_64_and_aarch64_but_the_x86_only_ones():
    names = {name for group in seccomp.DENIED.values() for name in group} | {"clone", "clone3", "unshare"}
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
    for index, (code_, jt, jf, _) in enumerate(ops):
        if code_ & 0x07 == 0x05:  # a jump: both targets inside the program
            assert index + 1 + max(jt, jf) < len(ops)


def test_no_program_for_an_unknown_machine():
    assert seccomp.program("sparc64") is None
