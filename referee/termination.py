"""SIGTERM and SIGHUP stop a command the way Ctrl-C does.

Ctrl-C raises ``KeyboardInterrupt`` in the main thread, and everything on the
way out (``finally`` blocks, ``except KeyboardInterrupt``) kills the agents'
processes.  By default SIGTERM and SIGHUP end the process on the spot, and
the agents, each in a session of its own, play on.  After
:func:`stop_like_ctrl_c` those two raise :class:`Terminated`, a
``KeyboardInterrupt``, so the same cleanup runs; the command then exits with
128 + the signal's number (143, 129), as a shell reports a process that the
signal ended.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from collections.abc import Callable, Iterator

from .exit_status import ExitStatus

TERMINATING = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived; ``signum`` says which."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def exit_status(interrupt: BaseException) -> int:
    """128 + the signal that stopped the command: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP."""
    return 128 + interrupt.signum if isinstance(interrupt, Terminated) else ExitStatus.INTERRUPTED


def report_stop(interrupt: KeyboardInterrupt, message: str) -> int:
    """Say on standard error how the command stopped, and return its exit status.

    ``{how}`` in ``message`` becomes "interrupted" (Ctrl-C) or "stopped by
    SIGTERM" / "stopped by SIGHUP".  After SIGHUP the terminal may be gone,
    so a failed write is let go: the exit status still says what happened.
    """
    how = f"stopped by {interrupt.name}" if isinstance(interrupt, Terminated) else "interrupted"
    try:
        print(message.format(how=how), file=sys.stderr)
    except OSError:
        pass
    return exit_status(interrupt)


def stoppable(command: Callable[[], int], message: str) -> int:
    """Run ``command`` with SIGTERM and SIGHUP stopping it as Ctrl-C does; its exit status.

    A stop that ``command`` lets through is reported with ``message`` (see
    :func:`report_stop`); SIGTERM and SIGHUP get their default action back
    on the way out.
    """
    stop_like_ctrl_c()
    try:
        return command()
    except KeyboardInterrupt as interrupt:
        return report_stop(interrupt, message)
    finally:
        stop_as_usual()


def leave_hung_up_terminal(signum: int) -> None:
    """After SIGHUP, send standard output and error to /dev/null if they are a terminal.

    The terminal is gone: writing to it fails (EIO), which would turn the
    orderly stop into a crash.  Output going to a file or a pipe is kept.
    """
    if signum != signal.SIGHUP:
        return
    for fd in (1, 2):
        try:
            if os.isatty(fd):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, fd)
                os.close(devnull)
        except OSError:
            pass


def _ignore(signum: int, frame: object) -> None:
    pass  # a Python-level no-op rather than SIG_IGN, which processes started later would inherit


def _raise(signum: int, frame: object) -> None:
    # The first one is enough; another must not cut the cleanup it starts short.
    for other in TERMINATING:
        signal.signal(other, _ignore)
    leave_hung_up_terminal(signum)
    raise Terminated(signum)


def stop_like_ctrl_c() -> None:
    """From now on SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (elsewhere: nothing changes)."""
    if threading.current_thread() is threading.main_thread():
        for signum in TERMINATING:
            signal.signal(signum, _raise)


def stop_as_usual() -> None:
    """Give SIGTERM and SIGHUP their default action again (once there are no agents left to stop)."""
    if threading.current_thread() is threading.main_thread():
        for signum in TERMINATING:
            signal.signal(signum, signal.SIG_DFL)


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP back while cleaning up; the first that came acts right after.

    An exception raised by a signal in the middle of killing the agents would
    leave the ones not yet killed running.  (Only the main thread can change
    handlers, and only it runs them: elsewhere this does nothing.)
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    held = (signal.SIGINT, *TERMINATING)
    previous = {signum: signal.signal(signum, lambda signum, frame: arrived.append(signum)) for signum in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)  # None: not set from Python
        if arrived:
            handler = previous[signal.Signals(arrived[0])]
            if callable(handler):
                handler(arrived[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(arrived[0])


def die_with_parent(parent_pid: int) -> None:
    """Ask Linux to SIGTERM this helper process when its parent (a tournament, the battleground server) dies, even by
    SIGKILL; exit at once if the parent is already gone."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # elsewhere a helper still ends when it next reads from its parent's closed pipe
    if os.getppid() != parent_pid:
        os._exit(0)  # the parent died before the request was in place
