"""``python -m referee``: see :mod:`referee.cli`."""
import os
import sys
from typing import Any, TextIO

from .cli import main


class _ReaderMayLeave:
    """Standard output that goes quiet when its reader leaves (``... | head``), instead of failing the command.

    The command goes on and finishes its work (a tournament's records, the
    marks of ``autograde``); only the text nobody reads any more is dropped,
    as the game console already did. Unix tools die of SIGPIPE there; a
    referee stopped half-way would lose what it was writing.
    """

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop()

    def _drop(self) -> None:
        # From now on the descriptor writes to /dev/null, so what is still buffered flushes quietly at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


sys.stdout = _ReaderMayLeave(sys.stdout)
sys.exit(main())
