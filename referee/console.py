"""Typing at the console: lines, or single keys, read so that a Ctrl-C is never lost.

One reader for every command that reads a person's input: the terminal's
play (its prompt) and the terminal replay (its commands, by lines or keys).
"""
from __future__ import annotations

import os
import select
import signal
import sys
import termios
import tty
from typing import Any, TextIO


#: Escape sequences of the keys the replay knows (xterm and VT100 spellings; other keys are ignored).
_SEQUENCES = {
    "[C": "right", "OC": "right", "[D": "left", "OD": "left", "[A": "up", "OA": "up", "[B": "down", "OB": "down",
    "[H": "home", "OH": "home", "[1~": "home", "[7~": "home", "[F": "end", "OF": "end", "[4~": "end", "[8~": "end",
}
#: How long a lone Escape waits for the rest of a key's sequence (as vim's ttimeout): a person never types so fast.
_ESCAPE_WAIT = 0.05


class ConsoleReader:
    """Lines or single keys typed on standard input, read so that a Ctrl-C is never lost.

    ``input()`` writes its prompt and then starts to read; a Ctrl-C that
    comes in between is noted but does not interrupt the read, which then
    waits for a key (a test that presses Ctrl-C on seeing the prompt hangs).
    Here the wait includes the signal's wakeup pipe, which that Ctrl-C has
    already written to, so it ends the wait and the KeyboardInterrupt is
    raised.  Used as a context manager (it sets the signal wakeup fd).

    With ``keys`` (``fd`` must be a terminal) the terminal is put in cbreak
    mode for :meth:`key`: each key press is read at once, without Enter and
    without echo, while Ctrl-C still sends SIGINT (full raw mode would make it
    a byte, and would stop newlines returning to the start of the line).  The
    terminal's mode is put back on the way out, however that is.
    """

    def __init__(self, fd: int = 0, keys: bool = False):
        self.fd = fd
        self.keys = keys
        self.buffer = b""
        self.wake_read, self.wake_write = os.pipe()
        os.set_blocking(self.wake_read, False)
        os.set_blocking(self.wake_write, False)
        self.previous: int | None = None
        self.saved_mode: list[Any] | None = None

    def __enter__(self) -> ConsoleReader:
        try:
            self.previous = signal.set_wakeup_fd(self.wake_write, warn_on_full_buffer=False)
        except ValueError:
            self.previous = None  # not the main thread: no signal reaches this wait anyway
        if self.keys:
            self.saved_mode = termios.tcgetattr(self.fd)
            # TCSANOW, not the default TCSAFLUSH: keys typed before the replay started are kept.
            tty.setcbreak(self.fd, termios.TCSANOW)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.saved_mode is not None:
            termios.tcsetattr(self.fd, termios.TCSANOW, self.saved_mode)
        if self.previous is not None:
            signal.set_wakeup_fd(self.previous)
        os.close(self.wake_read)
        os.close(self.wake_write)

    def _fill(self, timeout: float | None = None) -> bool:
        """Wait for more input (at most ``timeout`` seconds) and add it to the buffer; False at its end or timeout."""
        ready, _, _ = select.select([self.fd, self.wake_read], [], [], timeout)
        if self.wake_read in ready:
            # A signal came: Python raises its exception (Ctrl-C:
            # KeyboardInterrupt) before the next line of Python runs.
            while True:
                try:
                    if not os.read(self.wake_read, 512):
                        break
                except BlockingIOError:
                    break
        if self.fd not in ready:
            return True if timeout is None else False
        chunk = os.read(self.fd, 4096)
        self.buffer += chunk
        return bool(chunk)

    def line(self, prompt: str, out: TextIO) -> str:
        """One line of input after ``prompt`` (without its newline); EOFError at the end of input."""
        out.write(prompt)
        out.flush()
        while b"\n" not in self.buffer:
            if not self._fill():
                if not self.buffer:
                    raise EOFError
                self.buffer += b"\n"  # a last line without its newline
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    def ask(self, prompt: str) -> str | None:
        """The next line typed after ``prompt`` on standard output; None at the end of input (Ctrl-D)."""
        try:
            return self.line(prompt, sys.stdout)
        except EOFError:
            print()  # end the prompt's line
            return None

    def key(self) -> str:
        """The next key pressed: a character, or a name (``enter``, ``backspace``, ``escape``, ``eof``,
        ``left``, ``right``, ``up``, ``down``, ``home``, ``end``; ``""`` for a key the replay does not know)."""
        while not self.buffer:
            if not self._fill():
                return "eof"
        first = self.buffer[:1]
        if first == b"\x1b":
            return self._escape()
        names = {b"\r": "enter", b"\n": "enter", b"\x7f": "backspace", b"\x08": "backspace", b"\x04": "eof"}
        if first in names:
            self.buffer = self.buffer[1:]
            return names[first]
        # A character of several bytes in UTF-8: as many as its first byte says.
        size = 1 if first[0] < 0xC0 else 2 if first[0] < 0xE0 else 3 if first[0] < 0xF0 else 4
        while len(self.buffer) < size and self._fill():
            pass
        char, self.buffer = self.buffer[:size], self.buffer[size:]
        return char.decode("utf-8", "replace")

    def _escape(self) -> str:
        """The key whose escape sequence starts the buffer (Escape itself when nothing follows)."""
        if len(self.buffer) == 1 and not self._fill(_ESCAPE_WAIT):
            self.buffer = b""
            return "escape"
        kind = self.buffer[1:2]
        if kind not in (b"[", b"O"):
            self.buffer = self.buffer[1:]
            return "escape"
        end = 2
        while True:
            while len(self.buffer) <= end:
                if not self._fill():
                    self.buffer = b""
                    return ""
            byte = self.buffer[end]
            # O is followed by one letter; [ by parameters and then a letter or ~ (ECMA-48).
            if kind == b"O" or 0x40 <= byte <= 0x7E:
                break
            end += 1
        sequence, self.buffer = self.buffer[1:end + 1], self.buffer[end + 1:]
        return _SEQUENCES.get(sequence.decode("ascii", "replace"), "")
