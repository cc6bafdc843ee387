"""The output folder: ``games.jsonl`` (one record per line) and its lock.

Each record is appended as one complete line in a single ``write`` and
fsynced before the next game is accepted, so a crash can leave at most a torn
last line; :meth:`GamesFile.repair` cuts it off, and reading ignores it.  A
torn line that something else wrote while a run appends (an agent that got
write access) is cut off before the next record, so that record is not glued
to it.
"""
from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Container, Iterator

from ..records import GameRecord, RecordError

GAMES_FILE = "games.jsonl"
#: Records set aside (an agent's code changed, or ``--fresh``): kept, never read for the tables.
SUPERSEDED_FILE = "superseded.jsonl"
LOCK_FILE = ".lock"


class JournalError(ValueError):
    """An output folder that cannot be used (bad line, busy, unwritable)."""


@dataclass(frozen=True)
class Trimmed:
    """A torn last line that was cut off: its length and its first bytes."""

    size: int
    start: bytes

    def describe(self) -> str:
        more = "..." if self.size > len(self.start) else ""
        return f"{self.size} bytes without a newline ({self.start!r}{more})"


class GamesFile:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._fd: int | None = None
        self._size = -1  # the file's size after our last append (-1: none yet)

    def exists(self) -> bool:
        return self.path.is_file() and self.path.stat().st_size > 0

    def torn_tail(self) -> int:
        """Bytes after the last newline (an interrupted write), 0 if none."""
        if not self.path.exists():
            return 0
        with open(self.path, "rb") as file:
            size = file.seek(0, os.SEEK_END)
            position = size
            while position > 0:
                step = min(1 << 16, position)
                file.seek(position - step)
                chunk = file.read(step)
                newline = chunk.rfind(b"\n")
                if newline >= 0:
                    return size - (position - step + newline + 1)
                position -= step
            return size

    def trim(self) -> Trimmed | None:
        """Cut off a torn last line; returns what was cut (None: the file ends with a newline)."""
        torn = self.torn_tail()
        if not torn:
            return None
        with open(self.path, "r+b") as file:
            end = file.seek(0, os.SEEK_END) - torn
            file.seek(end)
            start = file.read(min(torn, 80))
            file.truncate(end)
            os.fsync(file.fileno())
        return Trimmed(torn, start)

    def repair(self) -> int:
        """Cut off a torn last line; returns the number of bytes removed."""
        trimmed = self.trim()
        return trimmed.size if trimmed else 0

    def entries(self) -> Iterator[tuple[int, GameRecord | None, str | None]]:
        """``(line number, record, None)`` for each complete record, ``(line number, None, problem)``
        for a line that is not one; blank lines and a torn last line are skipped."""
        if not self.path.exists():
            return
        with open(self.path, "rb") as file:
            for number, line in enumerate(file, start=1):
                if not line.endswith(b"\n"):
                    return  # torn last line: never a record
                if not line.strip():
                    continue
                try:
                    yield number, GameRecord.from_json(line.decode("utf-8")), None
                except (RecordError, UnicodeDecodeError, TypeError) as exc:
                    yield number, None, f"not a game record: {exc}"

    def records(self) -> Iterator[GameRecord]:
        """Every complete record in file order; a bad line raises JournalError naming it."""
        for number, record, problem in self.entries():
            if record is None:
                raise JournalError(f"{self.path}:{number}: {problem}")
            yield record

    def append(self, record: GameRecord) -> Trimmed | None:
        """Write the record as one line, at once, and make it durable.

        If the file changed since our last append and now ends without a
        newline, something else wrote a torn line there: it is cut off first;
        and if one arrives between that look and our write, it is cut out from
        in front of the record just written.  Either way the record gets a
        line of its own instead of being glued to the junk and lost, and what
        was cut is returned for the caller to report.
        """
        data = (record.to_json() + "\n").encode("utf-8")  # before the look: keep it and the write close together
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        before = self.trim() if os.fstat(self._fd).st_size != self._size else None
        rest = data
        while rest:
            rest = rest[os.write(self._fd, rest) :]
        # With O_APPEND the offset is now the end of what we wrote.
        glued = self._unglue(os.lseek(self._fd, 0, os.SEEK_CUR) - len(data))
        os.fsync(self._fd)
        self._size = os.fstat(self._fd).st_size
        if before and glued:
            return Trimmed(before.size + glued.size, before.start)
        return before or glued

    def _unglue(self, start: int) -> Trimmed | None:
        """Cut out a torn line that ends where our record starts, at ``start`` (None: the record starts a line)."""
        fd = self._fd
        assert fd is not None  # called only while the file is open
        if start <= 0 or os.pread(fd, 1, start - 1) == b"\n":
            return None
        line_start, position = 0, start
        while position > 0:  # back to the newline before the junk
            chunk_start = max(0, position - (1 << 16))
            newline = os.pread(fd, position - chunk_start, chunk_start).rfind(b"\n")
            if newline >= 0:
                line_start = chunk_start + newline + 1
                break
            position = chunk_start
        junk = os.pread(fd, min(start - line_start, 80), line_start)
        end = os.fstat(fd).st_size
        after = os.pread(fd, end - start, start)  # our record, and anything written since
        os.ftruncate(fd, line_start)
        os.write(fd, after)
        return Trimmed(start - line_start, junk)

    def set_aside(self, into: Path, indices: Container[int] | None = None) -> int:
        """Move the records of the game ``indices`` (None: every line) to the end of ``into``; returns how many.

        Moved, not deleted: the lines are appended to ``into`` as they were
        and made durable before this file is replaced by the lines that stay
        (in their order), so a crash in between leaves them in both files,
        never in neither.  Call with the folder's lock held, before appending.
        """
        if not self.path.exists():
            return 0
        moved = 0
        temporary = self.path.with_suffix(".tmp")
        with open(self.path, "rb") as source, open(into, "ab") as aside, open(temporary, "wb") as staying:
            for line in source:
                if indices is None or _game_index(line) in indices:
                    aside.write(line)
                    moved += 1
                else:
                    staying.write(line)
            for file in (aside, staying):
                file.flush()
                os.fsync(file.fileno())
        if moved:
            os.replace(temporary, self.path)
        else:
            temporary.unlink()
        return moved

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            self._size = -1


def _game_index(line: bytes) -> int | None:
    """The game index of a line of games.jsonl (None: not a record with one)."""
    try:
        extra = json.loads(line).get("extra")
    except (ValueError, AttributeError):
        return None
    index = extra.get("game_index") if isinstance(extra, dict) else None
    return index if isinstance(index, int) else None


class FolderLock:
    """An exclusive lock on an output folder (released by the kernel if we die)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise JournalError(f"{self.folder}: cannot use this output folder: {exc.strerror}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            self._fd = None
            raise JournalError(f"{self.folder}: another tournament is writing to this folder right now") from None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
