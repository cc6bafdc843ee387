"""The referee <-> agent wire format: one JSON object per line, size-bounded.

Both sides use this module; it must stay cheap to import (the agent process
imports it before the agent's own code).  Nothing read from an agent process
is ever unpickled or evaluated: replies are parsed as JSON and then checked
field by field by :func:`parse_reply`.

Referee to agent process (the game and its options are on the process's
command line, see :mod:`referee.hosting.agent_host`, not in ``init``)::

    {"op": "init", "module": "agents.x", "class": "Agent", "color": "RED", "kwargs": {...}}
    {"op": "action", "kwargs": {...}}
    {"op": "turn", "color": "RED", "action": "SPAWN(3, 3)", "kwargs": {...}}

Agent process to referee::

    {"ready": true}                                   once, before the agent is imported
    {"ok": true}                                      init / turn done
    {"ok": true, "action": "SPAWN(3, 3)"}             action() result, canonical text
    {"ok": false, "failure": KIND, "message": ..., "traceback": ...}

``KIND`` is ``load`` (import or construction failed), ``exception`` (the
agent raised), ``bad_return`` (action() returned something that is not an
action of the game) or ``memory`` (MemoryError).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: Longest message accepted from an agent process, in bytes.
MAX_REPLY_BYTES = 1 << 20
FAILURE_KINDS = ("load", "exception", "bad_return", "memory")


class WireError(ValueError):
    """A reply that does not follow the wire format."""


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), default=str).encode() + b"\n"


@dataclass(frozen=True)
class Reply:
    ok: bool
    action: str | None = None
    failure: str | None = None
    message: str = ""
    traceback: str = ""


def _text(data: dict[str, Any], key: str, limit: int = 20000) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise WireError(f"field {key!r} must be text")
    # JSON can carry a lone surrogate ("\ud800"), which no file or console
    # can write as UTF-8: the text that goes into records must be encodable.
    return value[:limit].encode("utf-8", "replace").decode("utf-8")


#: The commonest reply (init and every turn), sent and recognised byte for byte.
OK_LINE = b'{"ok":true}'
_OK = Reply(True)


def parse_reply(line: bytes) -> Reply:
    """Check one reply line from an agent process; raises WireError."""
    if line == OK_LINE:
        return _OK
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"not a JSON message: {line[:60]!r}... ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise WireError(f"expected a JSON object, got {type(data).__name__}")
    ok = data.get("ok")
    if ok is True:
        if set(data) - {"ok", "action"}:
            raise WireError(f"unexpected fields {sorted(set(data) - {'ok', 'action'})}")
        action = data.get("action")
        if action is not None and (not isinstance(action, str) or len(action) > 200):
            raise WireError("field 'action' must be a short text")
        return Reply(True, action=action)
    if ok is False:
        failure = data.get("failure")
        if failure not in FAILURE_KINDS:
            raise WireError(f"unknown failure kind {failure!r}")
        return Reply(False, failure=failure, message=_text(data, "message"), traceback=_text(data, "traceback"))
    raise WireError("a reply needs 'ok': true or false")


def is_ready(line: bytes) -> bool:
    return line.strip() == b'{"ready":true}'
