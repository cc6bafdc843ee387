"""Showing text an agent controls, made inert for where it is shown.

An agent controls what it prints, its exceptions' messages and tracebacks,
and the text of whatever it returns; all of it reaches people: on the
console, in log files, in a tournament's ``results.md`` and CSV tables, in
the marking feedback.  A terminal obeys control characters, so raw, that
text could move the cursor, erase lines, clear the screen, set the window
title, or print a line that looks like the referee's own (``\\r* referee @
result: ...``); Unicode bidi controls can reorder a line as it is shown; a
spreadsheet runs a cell that starts with ``=``.

Records keep the text as the agent sent it (JSON escapes it); these
functions are applied where the text is shown.  Each escaped character is
written as Python writes it in a string (``\\x1b``, ``\\r``, ``\\u202e``), so a
reader sees what the agent sent.  What is escaped:

* every C0 control (U+0000-U+001F) except newline and tab, and DEL;
* every C1 control (U+0080-U+009F: U+009B is a CSI, U+0085 a line break,
  on some terminals);
* the bidi controls that reorder a line (U+061C, U+200E, U+200F,
  U+202A-U+202E, U+2066-U+2069) and the line and paragraph separators
  (U+2028, U+2029: Python's ``splitlines`` breaks lines there);
* lone surrogates (U+D800-U+DFFF), which an exception's message can carry
  through JSON and which no stream can encode.

Newlines stay in :func:`inert`, for text shown over several lines (the
caller prefixes each line); :func:`inert_line` escapes them too, for one
line.  A tab stays in both: it moves the cursor right and overwrites
nothing.  A backslash is left as it is, so ordinary text (a Windows path,
a regex) reads unchanged; the literal text ``\\x1b`` and an escaped ESC
therefore look alike, which is harmless: neither does anything.
Everything else (accented letters, CJK, emoji with their joiners) passes
through unchanged.
"""
from __future__ import annotations

import re

_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff"
#: What :func:`inert` escapes (newline and tab stay).
_UNSAFE = re.compile(f"[{_CONTROLS}]")
#: What :func:`inert_line` escapes: the same and newline.
_UNSAFE_IN_A_LINE = re.compile(f"[{_CONTROLS}\n]")
#: The short escapes Python itself writes; the rest are ``\xNN`` or ``\uNNNN``.
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: A text CSV cell a spreadsheet would read as a formula (OWASP's list).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: A number as text (``+12.0``, ``-3.5``, ``1e-05``): a spreadsheet reads it as that number, not a formula.
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str) -> str:
    """``text`` with every control character escaped but newlines and tabs (see the module's docstring).

    For text shown over several lines: split the result on ``\\n`` (its
    only line breaks) and prefix each line, so that no line of it can pass
    for one of the referee's.
    """
    return _UNSAFE.sub(_escape, text)


def inert_line(text: str) -> str:
    """``text`` as one inert line: :func:`inert`, newlines escaped too (``\\n``)."""
    return _UNSAFE_IN_A_LINE.sub(_escape, text)


def csv_cell(value: object) -> object:
    """A value as a CSV cell that neither breaks a line nor runs as a spreadsheet formula.

    Numbers (and other non-text values) are returned as they are.  Text is
    made one inert line, and if it starts with ``=``, ``+``, ``-``, ``@``, a
    tab or a carriage return it gets a leading ``'`` (spreadsheets show the
    text and do not evaluate it), unless it is a number written as text
    (``+12.0``, ``-3.5``), which a spreadsheet reads as that number anyway.
    """
    if not isinstance(value, str):
        return value
    text = inert_line(value)
    if value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def markdown_cell(value: object) -> str:
    """A value as the text of one Markdown table cell: one inert line, ``|`` escaped (it would end the cell)."""
    return inert_line(str(value)).replace("|", "\\|")
