"""The battleground's wire protocol (docs/battleground.md): JSON objects in WebSocket text frames.

Both sides read every message through :func:`read_message`, which refuses
anything that is not one JSON object of a known ``type`` with fields of the
right kinds: a bad message is a :class:`ProtocolViolation`, never a crash.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ..hosting.failures import AGENT_FAILURE_REASONS

PROTOCOL_VERSION = 1
#: The largest message either side accepts (bytes of one frame).
MAX_MESSAGE_BYTES = 64 * 1024
#: A player's name: what the leaderboard, URLs and file names show.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_.\-]{1,32}")
MAX_CHANNEL_CHARS = 40
MAX_GAMES = 1000
#: The path agents connect to; every other path is the web pages and the API.
PLAY_PATH = "/play"

_ANY_TEXT = str
#: Each message type a client may send -> its required fields and their types.
CLIENT_MESSAGES: dict[str, dict[str, Any]] = {
    "hello": {"protocol": int, "name": str, "channel": str, "games": int},
    "ready": {"id": int},
    "action": {"id": int, "action": str, "cpu": (int, float), "memory_mb": (int, float)},
    "failed": {"id": int, "reason": str, "message": str, "cpu": (int, float), "memory_mb": (int, float)},
}
#: The same for the server's messages (what the bundled client checks).
SERVER_MESSAGES: dict[str, dict[str, Any]] = {
    "welcome": {"name": str, "game": str, "game_options": dict, "grace": (int, float)},
    "refused": {"reason": str},
    "waiting": {"channel": str},
    "start": {"id": int, "color": str, "opponent": str, "actions": list, "pair": list},
    "turn": {"id": int, "action": str},
    "play": {"id": int, "clock": dict},
    "end": {"id": int, "record": dict},
    "done": {"message": str},
    "error": {"message": str},
}


class ProtocolViolation(ValueError):
    """A message that breaks the protocol (the reason is safe to send back)."""


def encode(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def read_message(data: str | bytes, known: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The message in one frame, checked against ``known`` (:data:`CLIENT_MESSAGES` or :data:`SERVER_MESSAGES`)."""
    if isinstance(data, bytes):
        raise ProtocolViolation("messages are JSON text frames, not binary")
    if len(data.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise ProtocolViolation(f"a message is at most {MAX_MESSAGE_BYTES} bytes")
    try:
        message = json.loads(data)
    except (json.JSONDecodeError, RecursionError):
        raise ProtocolViolation("a message must be one JSON object") from None
    if not isinstance(message, dict):
        raise ProtocolViolation("a message must be one JSON object")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in known:
        raise ProtocolViolation(f"unknown message type {str(kind)[:40]!r}")
    for name, types in known[kind].items():
        value = message.get(name)
        if not isinstance(value, types) or isinstance(value, bool):
            raise ProtocolViolation(f"{kind}: field {name!r} is missing or of the wrong kind")
    return message


def check_hello(message: dict[str, Any]) -> str | None:
    """Why a ``hello`` cannot be accepted (name, channel, games, version), or None."""
    if message["protocol"] != PROTOCOL_VERSION:
        return f"this server speaks protocol {PROTOCOL_VERSION}, not {message['protocol']}"
    if not NAME_PATTERN.fullmatch(message["name"]):
        return "a name is 1 to 32 letters, digits, '_', '-' or '.'"
    channel = message["channel"]
    if len(channel) > MAX_CHANNEL_CHARS or not channel.isprintable():
        return f"a channel is at most {MAX_CHANNEL_CHARS} printable characters"
    if not 0 <= message["games"] <= MAX_GAMES:
        return f"games must be between 0 (only to come back to a game in play) and {MAX_GAMES}"
    token = message.get("token")
    if token is not None and (not isinstance(token, str) or len(token) > 200):
        return "a token is a string"
    return None


def failure_reason(message: dict[str, Any]) -> str:
    """The verdict a client's ``failed`` names (an unknown one is the client's protocol error)."""
    reason = message["reason"]
    return reason if reason in AGENT_FAILURE_REASONS else "protocol_error"
