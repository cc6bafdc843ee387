"""Sealed III: a Part A program is sealed like a Part B agent.

Every attack is a real Part A program, made in ``tmp_path``, marked through
the real command line (``python -m referee autograde partA``) in the real
sandbox.  One program tries them all and writes on stderr what came of each
(the feedback shows the end of stderr): a note in the user's keyring, a user
namespace of its own, the user it runs as, CPU time in a child, and then
more memory than its cap.  Each defence is also shown to be what stops its
attack: the same program marked with that defence left out
(``REFEREE_SANDBOX_WITHOUT``, ``REFEREE_SANDBOX_CGROUP=0``) gets through, so
these tests can fail.
"""
from __future__ import annotations

import ctypes
import json
import os
import platform
import re
from pathlib import Path

import pytest

from referee.hosting.sandbox import CGROUP_ENV, WITHOUT_ENV
from referee.hosting.users import FIRST_UID, SHARED_UID, SLOTS
from referee.marking.gradescope import problems
from tests.helpers import run_referee
from tests.marking.part_a_files import TINY_SCHEME, scheme, submission
from tests.sandboxing import require_sandbox

SPACE_LIMIT = 64  # MB
HOG = 160  # MB the program asks for, past its cap
BURN = 0.2  # CPU seconds a child of the program spends

HOSTILE = """
    import ctypes, json, os, platform, sys, time
    sys.stdin.read()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    ADD_KEY = {"x86_64": 248, "aarch64": 217}[platform.machine()]
    KEY_SPEC_USER_KEYRING, CLONE_NEWUSER = -4, 0x10000000

    def outcome(done):
        return "done" if done else os.strerror(ctypes.get_errno())

    found = {"uid": os.getuid()}
    found["capabilities"] = [line.split()[1] for line in open("/proc/self/status") if line.startswith("CapEff:")][0]
    # A note in the user's keyring outlives the run: a later program run as that user reads it.
    key = libc.syscall(ADD_KEY, b"user", DESCRIPTION, b"x", 1, ctypes.c_int(KEY_SPEC_USER_KEYRING))
    found["add_key"] = outcome(key > 0)
    # A user namespace of its own gives it every capability there.
    found["unshare"] = outcome(libc.unshare(CLONE_NEWUSER) == 0)
    if os.fork() == 0:  # a child's CPU time, which counts as the program's
        end = time.process_time() + BURN
        while time.process_time() < end:
            pass
        os._exit(0)
    os.wait()
    print("SPREAD 3 3 0 1", flush=True)
    print("FOUND " + json.dumps(found), file=sys.stderr, flush=True)
    hog = b"x" * (HOG << 20)
    print("ALLOCATED", file=sys.stderr, flush=True)
    sys.exit(3)
"""

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a program gets a user of its own only from a root marker")
needs_key_numbers = pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"),
                                       reason="the program calls add_key by its number on x86_64 and aarch64")


@pytest.fixture
def sealed():
    """bubblewrap and a cgroup (REFEREE_REQUIRE_SANDBOX=1: fail without them)."""
    require_sandbox()


@pytest.fixture
def description(tmp_path) -> bytes:
    """The name of the program's key, unique to the test; whatever key of that name is left in our keyring
    at the end is unlinked."""
    name = f"referee-part-a-{os.getpid()}-{tmp_path.name}".encode()
    yield name
    take_key(name)


def take_key(name: bytes) -> bool:
    """Whether our user keyring (root's: this test's) holds a key called ``name``; unlinks it if so."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    keyctl = {"x86_64": 250, "aarch64": 219}[platform.machine()]
    key = libc.syscall(keyctl, 10, -4, b"user", name, 0)  # KEYCTL_SEARCH in @u
    if key < 0:
        return False
    libc.syscall(keyctl, 9, ctypes.c_long(key), -4)  # KEYCTL_UNLINK from @u
    return True


def mark(tmp_path: Path, body: str, left_out: dict[str, str] | None = None, scheme_text: str = "") -> dict:
    """``body`` as ``search/__main__.py``, marked on the tiny board through the command line; the results.
    ``left_out``: the variables that leave a defence out."""
    sub = submission(tmp_path, body)
    scheme_file = scheme(tmp_path, TINY_SCHEME + scheme_text)
    results = tmp_path / "results.json"
    env = {name: value for name, value in os.environ.items() if name not in (WITHOUT_ENV, CGROUP_ENV)}
    done = run_referee("autograde", "partA", "--submission", str(sub), "--scheme", str(scheme_file),
                       "--results", str(results), env={**env, **(left_out or {})}, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(results.read_text())
    assert problems(data) == []
    return data


def hostile(tmp_path: Path, description: bytes, left_out: dict[str, str] | None = None) -> tuple[dict, dict, str]:
    """The hostile program marked: the results, what it found (its FOUND line), and its test's feedback."""
    body = HOSTILE.replace("DESCRIPTION", repr(description)).replace("BURN", str(BURN)).replace("HOG", str(HOG))
    data = mark(tmp_path, body, left_out, f"    space_limit: {SPACE_LIMIT}\n")
    output = data["tests"][0]["output"]
    line = next((line.strip() for line in output.splitlines() if line.strip().startswith("FOUND ")), None)
    assert line is not None, output
    return data, json.loads(line.removeprefix("FOUND ")), output


@needs_root
@needs_key_numbers
def test_a_sealed_program_is_refused_the_keyring_and_namespaces_is_a_user_of_its_own_and_stopped_at_its_cap(
        sealed, tmp_path, description):
    data, found, output = hostile(tmp_path, description)
    assert FIRST_UID <= found["uid"] < FIRST_UID + SLOTS, found  # neither root nor the shared nobody
    assert int(found["capabilities"], 16) == 0, found  # the two it was started with went with root
    assert (found["add_key"], found["unshare"]) == ("Operation not permitted", "Operation not permitted")
    assert not take_key(description), "the program left a key in root's keyring"
    # Stopped by the kernel at its cap, and told so; its answer came first and is marked.
    assert f"went over its memory limit of {SPACE_LIMIT} MB" in output and "ALLOCATED" not in output
    assert data["tests"][0]["score"] == 4
    run = data["extra_data"]["runs"][0]
    assert run["over_memory"] and run["peak_memory_mb"] <= SPACE_LIMIT, run
    assert run["cpu_seconds"] >= BURN, run  # the child's CPU time counted with the program's
    said = re.search(r"used (\d+\.\d\d) s of CPU time", output)  # the text rounds the kernel's figure to 0.01 s
    assert said and abs(float(said.group(1)) - run["cpu_seconds"]) <= 0.006, (said, run)
    # The results say what held.
    assert data["extra_data"]["sandbox"] == "sealed"
    layers = data["extra_data"]["sandbox_layers"]
    assert layers["seccomp"] and layers["unprivileged"] and layers["own_user"], layers
    assert layers["memory_cap_mb"] == SPACE_LIMIT and layers["accounting"] != "process", layers
    assert "Your program ran sealed: " in data["output"]
    assert f"with a system-call filter, as a user of its own, at most {SPACE_LIMIT} MB of memory" in data["output"]


@needs_root
@needs_key_numbers
def test_without_the_filter_and_its_user_the_program_writes_roots_keyring_and_makes_a_namespace(
        sealed, tmp_path, description):
    data, found, output = hostile(tmp_path, description, {WITHOUT_ENV: "seccomp,unprivileged"})
    assert (found["uid"], found["add_key"], found["unshare"]) == (0, "done", "done"), found
    assert take_key(description), "the key is in root's keyring, for whatever runs as root after it"
    assert f"went over its memory limit of {SPACE_LIMIT} MB" in output  # the cap is another wall
    assert data["extra_data"]["sandbox"] == "partly sealed"
    layers = data["extra_data"]["sandbox_layers"]
    assert not layers["seccomp"] and not layers["unprivileged"], layers
    assert "but no system-call filter, it ran as root (without capabilities)." in data["output"]


@needs_root
@needs_key_numbers
def test_without_a_user_of_its_own_or_a_cgroup_the_program_is_nobody_and_takes_all_the_memory_it_asks(
        sealed, tmp_path, description):
    data, found, output = hostile(tmp_path, description, {WITHOUT_ENV: "own_user", CGROUP_ENV: "0"})
    assert found["uid"] == SHARED_UID, found  # the user every other program would share
    assert found["add_key"] == "Operation not permitted", found  # the filter still holds
    assert "ALLOCATED" in output and "memory limit" not in output
    run = data["extra_data"]["runs"][0]
    assert (run["over_memory"], run["cpu_seconds"], run["peak_memory_mb"]) == (False, None, None), run
    assert data["extra_data"]["sandbox_layers"]["memory_cap_mb"] is None
    assert "; but it ran as a user shared with other programs, no memory cap, its CPU time not counted." in (
        data["output"])


FLOOD = """
    import sys
    sys.stdin.read()
    print("SPREAD 3 3 0 1", flush=True)
    for _ in range(24):
        sys.stdout.write("x" * (1 << 20))
        sys.stderr.write("y" * (1 << 20))
    sys.stdout.write("\\nSPREAD 0 0 0 1\\n")  # past the cap: never read
    sys.exit("the last words")
"""


def test_output_past_its_cap_is_read_and_dropped_and_the_feedback_says_so(sealed, tmp_path):
    """A program printing without end cannot fill the marker's memory: the first MB of stdout (the answer)
    and the last MB of stderr (the crash) are kept, the rest read and dropped."""
    data = mark(tmp_path, FLOOD)
    test = data["tests"][0]
    assert test["score"] == 4, test["output"]  # the answer is the first line; what came after the cap is not read
    assert "It printed more than 1 MB to stdout: only the first 1 MB was read." in test["output"]
    assert "It printed more than 1 MB to stderr: only the last 1 MB was kept." in test["output"]
    assert "the last words" in test["output"]
    run = data["extra_data"]["runs"][0]
    assert run["stdout_cut"] >= 23 << 20 and run["stderr_cut"] >= 23 << 20, run


@needs_root
def test_files_the_programs_user_cannot_read_are_named(sealed, tmp_path):
    sub = submission(tmp_path, "print('SPREAD 3 3 0 1')\n")
    (sub / "search" / "__main__.py").chmod(0o600)
    results = tmp_path / "results.json"
    done = run_referee("autograde", "partA", "--submission", str(sub), "--scheme", str(scheme(tmp_path, TINY_SCHEME)),
                       "--results", str(results), timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(results.read_text())
    assert data["score"] == 0
    assert "unprivileged user, which cannot read 'search/__main__.py' of your submission" in data["output"]
