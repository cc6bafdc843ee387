"""The battleground's wire protocol (docs/battleground.md): JSON objects in WebSocket text frames.

Both sides read every message through :func:`read_message`, which refuses
anything that is not one JSON object of a known ``type`` with fields of the
right kinds: a bad message is a :class:`ProtocolViolation`, never a crash.

Numbers are untrusted like the rest (a client that is losing gains from a
crash of the game's task). Anywhere in a message:

- a number is finite: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's
  json reads) and a float that overflows (``1e400``) are refused;
- an integer is within a 64-bit signed integer (at most 19 digits), refused
  while the JSON is read, before int() (which raises ValueError over 4300
  digits) or float() (OverflowError past 1.8e308) could see it;
- text is valid Unicode: no lone surrogate (``"\\ud800"``), which could not be
  sent on or stored as UTF-8.

And the fields either side reads (:data:`FIELD_RANGES`):

- ``id`` and ``protocol``: whole numbers from 0 to 2**53 - 1 (exact as a
  double, as the web pages read them); ``games`` from 0 to :data:`MAX_GAMES`;
- ``cpu``: 0 to 10**7 seconds (116 days: beyond any time limit);
- ``memory_mb``: 0 to 10**7 MB (10 TB: beyond any machine);
- ``grace``, ``time_limit``, ``space_limit``, ``seed``: 0 or more.

Optional fields (:data:`OPTIONAL_FIELDS`) are absent, null or of their kind.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from ..hosting.failures import AGENT_FAILURE_REASONS

PROTOCOL_VERSION = 1
#: The largest message the server accepts from a client (bytes of one frame).
MAX_MESSAGE_BYTES = 64 * 1024
#: The largest message a client accepts from the server: a game's record (``end``) and its actions so far (a
#: ``start`` on a return) grow with the game, past 64 KiB in a long Infinitron game (2,406 commands).
MAX_SERVER_MESSAGE_BYTES = 64 * MAX_MESSAGE_BYTES
#: A player's name: what the leaderboard, URLs and file names show.
#: It starts with a letter or a digit: '.', '..' and '-x' are no one's name (nor a file's or a URL's trouble).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,31}")
#: Characters a reader takes for one another in a name, each mapped to one of them (:func:`name_key`).
_LOOK_ALIKES = str.maketrans({"0": "o", "1": "l", "i": "l", "5": "s", "2": "z", "8": "b", "_": None, "-": None,
                              ".": None})


def name_key(name: str) -> str:
    """What a reader sees of a name: case, look-alike characters (0/o, 1/l/i, 5/s, 2/z, 8/b) and the separators
    '_', '-', '.' set aside.  Two names with one key are one name: 'Alice', 'ALICE', 'a1ice' and 'a.lice'."""
    return name.lower().replace("rn", "m").replace("vv", "w").translate(_LOOK_ALIKES)
MAX_CHANNEL_CHARS = 40
MAX_GAMES = 1000
#: Where ``connect`` takes its token from when ``--token`` is not given: a command line is visible to every user of
#: the machine (``ps``), a process's environment only to its owner (the server hands its house agents theirs so).
TOKEN_VARIABLE = "REFEREE_BATTLEGROUND_TOKEN"
#: The path agents connect to; every other path is the web pages and the API.
PLAY_PATH = "/play"

#: Game ids and the protocol version are below this: exact in a double, as the web pages read them.
MAX_ID = 2**53
#: The most CPU seconds a client may report (116 days: beyond any time limit).
MAX_CPU_SECONDS = 10**7
#: The most MB of peak memory a client may report (10 TB: beyond any machine).
MAX_MEMORY_MB = 10**7
#: Any integer in a message fits a 64-bit signed integer: at most this many digits, checked before int().
_INT_DIGITS = 19
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1

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
#: Fields a message may leave out or send as null, and their kinds when given (by message type).
OPTIONAL_FIELDS: dict[str, dict[str, Any]] = {
    "hello": {"token": str, "client": str, "opponent": str},
    "failed": {"traceback": str},
    "welcome": {"token": str, "time_limit": (int, float), "space_limit": (int, float),
                "wall_limit": (int, float), "aborted": list},
    "start": {"seed": int, "game_options": dict, "time_limit": (int, float), "space_limit": (int, float)},
    "turn": {"color": str},
}
#: A numeric field (of any message type that has it) -> the least and greatest value it may have.
FIELD_RANGES: dict[str, tuple[float, float]] = {
    "id": (0, MAX_ID - 1),
    "protocol": (0, MAX_ID - 1),
    "games": (0, MAX_GAMES),
    "cpu": (0, MAX_CPU_SECONDS),
    "memory_mb": (0, MAX_MEMORY_MB),
    "grace": (0, math.inf),
    "time_limit": (0, math.inf),
    "space_limit": (0, math.inf),
    "wall_limit": (0, math.inf),
    "seed": (0, math.inf),
}


def _ids(value: list[Any]) -> bool:
    return all(type(item) is int and 0 <= item < MAX_ID for item in value)


#: List fields whose items either side indexes: the check and what the field must be.
_LIST_SHAPES: dict[str, tuple[Callable[[list[Any]], bool], str]] = {
    "pair": (lambda value: len(value) == 2 and _ids(value), "two whole numbers (this game's and the pair's count)"),
    "aborted": (_ids, "a list of game ids"),
}


class ProtocolViolation(ValueError):
    """A message that breaks the protocol (the reason is safe to send back)."""


def encode(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def _parse_int(digits: str) -> int:
    # Called by json on each integer's text: a long one is refused before int() sees it.
    value = int(digits) if len(digits.lstrip("-")) <= _INT_DIGITS else None
    if value is None or not _INT_MIN <= value <= _INT_MAX:
        raise ProtocolViolation(f"an integer in a message is at most {_INT_DIGITS} digits (a 64-bit integer)")
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ProtocolViolation(f"a number in a message must be finite, not {text[:40]}")
    return value


def _parse_constant(name: str) -> float:
    raise ProtocolViolation(f"a number in a message must be finite, not {name}")


#: A JSON escape of a UTF-16 surrogate (the only way a lone one gets into a message read from a text frame).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


#: The decoders of messages: refusing NaN and infinities; the careful one also checks each integer's length.
_DECODER = json.JSONDecoder(parse_float=_parse_float, parse_constant=_parse_constant)
_CAREFUL = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
_LONG_DIGITS = re.compile(f"[0-9]{{{_INT_DIGITS}}}")


def _check_text(message: dict[str, Any]) -> None:
    """Refuse a lone surrogate in any key or string of the message (the walk is iterative: no deep recursion)."""
    pending: list[Any] = [message]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    raise ProtocolViolation("text in a message must be valid Unicode (no lone surrogates)") from None
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def _number_text(value: float) -> str:
    """A bound as people write it: 10000000, not 1e+07."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def _check_field(kind: str, name: str, value: Any, types: Any) -> None:
    """Refuse a field of the wrong kind, out of its range, or of the wrong shape."""
    if not isinstance(value, types) or isinstance(value, bool):
        raise ProtocolViolation(f"{kind}: field {name!r} is missing or of the wrong kind")
    bounds = FIELD_RANGES.get(name)
    if bounds is not None and isinstance(value, (int, float)) and not bounds[0] <= value <= bounds[1]:
        least, most = bounds
        upper = f" to {_number_text(most)}" if math.isfinite(most) else " or more"
        raise ProtocolViolation(f"{kind}: field {name!r} must be {_number_text(least)}{upper}, not {value!r}")
    shape = _LIST_SHAPES.get(name)
    if shape is not None and isinstance(value, list) and not shape[0](value):
        raise ProtocolViolation(f"{kind}: field {name!r} must be {shape[1]}")


def read_message(data: str | bytes, known: dict[str, dict[str, Any]], limit: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """The message in one frame of at most ``limit`` bytes, checked against ``known`` (:data:`CLIENT_MESSAGES`
    or :data:`SERVER_MESSAGES`).

    Raises :class:`ProtocolViolation`, and nothing else, for anything that is not such a message.
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        raise ProtocolViolation("messages are JSON text frames, not binary")
    if not isinstance(data, str):
        raise ProtocolViolation("a message is JSON text")
    # Each character is at least one byte: a long text is refused before it is encoded.
    if len(data) > limit or len(data.encode("utf-8", "surrogatepass")) > limit:
        raise ProtocolViolation(f"a message is at most {limit} bytes")
    try:
        # Integers are checked one by one only where the text has a run of 19 digits (one may not fit 64 bits).
        message = (_CAREFUL if _LONG_DIGITS.search(data) else _DECODER).decode(data)
    except ProtocolViolation:
        raise
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError; so would be anything else json says
        raise ProtocolViolation("a message must be one JSON object") from None
    if not isinstance(message, dict):
        raise ProtocolViolation("a message must be one JSON object")
    if _SURROGATE_ESCAPE.search(data):  # a frame's own text is valid Unicode: only an escape can make one
        _check_text(message)
    kind = message.get("type")
    if not isinstance(kind, str):
        # (not str(kind): a deeply nested list json read would take repr() past the recursion limit)
        raise ProtocolViolation(f"a message's type is text, not {type(kind).__name__}")
    if kind not in known:
        raise ProtocolViolation(f"unknown message type {kind[:40]!r}")
    for name, types in known[kind].items():
        _check_field(kind, name, message.get(name), types)
    for name, types in OPTIONAL_FIELDS.get(kind, {}).items():
        if message.get(name) is not None:
            _check_field(kind, name, message[name], types)
    return message


def check_hello(message: dict[str, Any]) -> str | None:
    """Why a ``hello`` cannot be accepted (name, channel, games, version), or None."""
    if message["protocol"] != PROTOCOL_VERSION:
        return f"this server speaks protocol {PROTOCOL_VERSION}, not {message['protocol']}"
    if not NAME_PATTERN.fullmatch(message["name"]):
        return "a name is 1 to 32 letters, digits, '_', '-' or '.', starting with a letter or a digit"
    channel = message["channel"]
    if len(channel) > MAX_CHANNEL_CHARS or not channel.isprintable():
        return f"a channel is at most {MAX_CHANNEL_CHARS} printable characters"
    if not 0 <= message["games"] <= MAX_GAMES:
        return f"games must be between 0 (only to come back to a game in play) and {MAX_GAMES}"
    token = message.get("token")
    # compare_digest takes ASCII text only: any other would raise TypeError in the server.
    if token is not None and (not isinstance(token, str) or len(token) > 200 or not token.isascii()
                              or not token.isprintable()):
        return "a token is at most 200 printable ASCII characters"
    return None


def failure_reason(message: dict[str, Any]) -> str:
    """The verdict a client's ``failed`` names (an unknown one is the client's protocol error)."""
    reason = message["reason"]
    # A client cannot claim "disconnected": that is the server's to find (it did not come back in time).
    return reason if reason in AGENT_FAILURE_REASONS and reason != "disconnected" else "protocol_error"
