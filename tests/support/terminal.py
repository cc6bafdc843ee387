"""A command on a pseudo-terminal (its controlling terminal), as a person would see it."""
from __future__ import annotations

import os
import pty
import re
import select

from tests.helpers import ROOT

WAIT = 120.0  # generous: only a hung command ever reaches it


class PseudoTerminal:
    """A command running on a pseudo-terminal (its controlling terminal), as a person would see it."""

    def __init__(self, argv: list[str]):
        pid, fd = pty.fork()
        if pid == 0:  # the child: becomes the command, the pty its controlling terminal
            os.chdir(ROOT)
            os.execv(argv[0], argv)
        self.pid, self.fd = pid, fd
        self.seen = ""  # everything not yet consumed by expect()
        self.shown = ""  # everything consumed so far, in order

    def expect(self, pattern: re.Pattern[str] | str) -> str:
        """Read until ``pattern`` appears; returns the text up to and including it."""
        regex = re.compile(re.escape(pattern)) if isinstance(pattern, str) else pattern
        while True:
            match = regex.search(self.seen)
            if match:
                before, self.seen = self.seen[: match.end()], self.seen[match.end():]
                self.shown += before
                return before
            ready, _, _ = select.select([self.fd], [], [], WAIT)
            assert ready, f"no {regex.pattern!r} after {WAIT} s; seen: {self.seen[-2000:]}"
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # EIO: the command ended
                data = b""
            assert data, f"the command ended before {regex.pattern!r}; seen: {self.seen[-2000:]}"
            self.seen += data.decode("utf-8", "replace").replace("\r\n", "\n")

    def send(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\n")

    def finish(self) -> tuple[int, str]:
        """The exit status and the rest of the output."""
        while True:
            ready, _, _ = select.select([self.fd], [], [], WAIT)
            assert ready, f"the command did not end; seen: {self.seen[-2000:]!r}"
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            if not data:
                break
            self.seen += data.decode("utf-8", "replace").replace("\r\n", "\n")
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status), self.seen
