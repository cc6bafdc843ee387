"""Untrusted numbers (and text) in battleground messages: a ProtocolViolation naming what is wrong, never a crash.

The server reads every client message with ``read_message`` and then calls
``float(message["cpu"])``: a message that passed the checks but held a
401-digit integer raised OverflowError in the game's task, which voided the
game for a losing client.
"""
from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.battleground.protocol import (
    CLIENT_MESSAGES,
    MAX_CPU_SECONDS,
    MAX_ID,
    MAX_MEMORY_MB,
    MAX_MESSAGE_BYTES,
    OPTIONAL_FIELDS,
    SERVER_MESSAGES,
    ProtocolViolation,
    check_hello,
    read_message,
)

HUGE_401 = "9" * 401


def action(**fields: Any) -> str:
    """An action message's JSON with ``fields`` written in as raw JSON text (so that NaN, 1e400 stay as typed)."""
    parts = {"type": '"action"', "id": "7", "action": '"SPAWN(3, 3)"', "cpu": "1.25", "memory_mb": "40.5", **fields}
    return "{" + ",".join(f'"{name}":{raw}' for name, raw in parts.items()) + "}"


def failed(**fields: Any) -> str:
    parts = {"type": '"failed"', "id": "7", "reason": '"agent_error"', "message": '"boom"', "cpu": "1",
             "memory_mb": "2", **fields}
    return "{" + ",".join(f'"{name}":{raw}' for name, raw in parts.items()) + "}"


def violation(data: Any, known: dict[str, dict[str, Any]] = CLIENT_MESSAGES) -> str:
    with pytest.raises(ProtocolViolation) as err:
        read_message(data, known)
    return str(err.value)


# -- the attacks -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [action, failed])
@pytest.mark.parametrize("field", ["cpu", "memory_mb"])
def test_a_401_digit_figure_is_a_violation_not_an_overflow(make, field):
    # Before: read_message passed it and the server's float() raised OverflowError.
    assert "at most 19 digits" in violation(make(**{field: HUGE_401}))
    assert "at most 19 digits" in violation(make(**{field: "-" + HUGE_401}))


@pytest.mark.parametrize("make", [action, failed])
@pytest.mark.parametrize("field", ["cpu", "memory_mb"])
@pytest.mark.parametrize("raw", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_a_figure_that_is_not_finite_is_a_violation(make, field, raw):
    assert "must be finite" in violation(make(**{field: raw}))


@pytest.mark.parametrize("make", [action, failed])
@pytest.mark.parametrize("field, most", [("cpu", MAX_CPU_SECONDS), ("memory_mb", MAX_MEMORY_MB)])
def test_a_figure_out_of_its_range_is_a_violation(make, field, most):
    assert f"'{field}' must be 0 to {most}, not -1" in violation(make(**{field: "-1"}))
    assert f"must be 0 to {most}" in violation(make(**{field: "-0.5"}))
    assert f"must be 0 to {most}" in violation(make(**{field: str(most + 1)}))
    assert f"must be 0 to {most}" in violation(make(**{field: "1e300"}))
    assert read_message(make(**{field: str(most)}), CLIENT_MESSAGES)[field] == most
    assert read_message(make(**{field: "0"}), CLIENT_MESSAGES)[field] == 0


@pytest.mark.parametrize("raw", [HUGE_401, "9" * 5000, str(2**63), str(-(2**63) - 1)])
def test_an_integer_past_64_bits_anywhere_is_a_violation(raw):
    # 5000 digits: json's own int() raised ValueError (over 4300 digits), outside the server's except.
    assert "at most 19 digits" in violation(f'{{"type":"ready","id":{raw}}}')
    assert "at most 19 digits" in violation(f'{{"type":"ready","id":1,"extra":[{{"x":{raw}}}]}}')


@pytest.mark.parametrize("raw", [str(MAX_ID), str(2**63 - 1), "-1"])
def test_an_id_out_of_its_range_is_a_violation(raw):
    assert f"'id' must be 0 to {MAX_ID - 1}" in violation(f'{{"type":"ready","id":{raw}}}')
    assert read_message(f'{{"type":"ready","id":{MAX_ID - 1}}}', CLIENT_MESSAGES)["id"] == MAX_ID - 1


def test_not_a_number_is_refused_anywhere_in_a_message():
    assert "must be finite, not NaN" in violation('{"type":"ready","id":1,"note":[NaN]}')
    assert "must be finite, not Infinity" in violation('{"type":"welcome","name":"a","game":"infexion",'
                                                       '"game_options":{"x":Infinity},"grace":1}', SERVER_MESSAGES)


def test_a_bool_is_not_a_number():
    assert "wrong kind" in violation(action(cpu="true"))
    assert "wrong kind" in violation('{"type":"ready","id":true}')


def test_optional_fields_keep_their_kinds():
    assert "'traceback' is missing or of the wrong kind" in violation(failed(traceback="5"))
    assert "'traceback'" in violation(failed(traceback="[]"))
    assert read_message(failed(traceback="null"), CLIENT_MESSAGES)["traceback"] is None
    assert read_message(failed(traceback='"Traceback ..."'), CLIENT_MESSAGES)["traceback"] == "Traceback ..."
    hello = {"type": "hello", "protocol": 1, "name": "ann", "channel": "", "games": 1}
    for field, value in [("token", 5), ("client", ["x"]), ("opponent", {"a": 1})]:
        assert f"'{field}' is missing or of the wrong kind" in violation(json.dumps({**hello, field: value}))
    assert read_message(json.dumps({**hello, "token": None, "client": "referee 1"}), CLIENT_MESSAGES)


def test_a_token_that_compare_digest_cannot_take_is_refused_by_check_hello():
    # hmac.compare_digest raises TypeError on non-ASCII text (the server compares a house agent's token).
    hello = {"type": "hello", "protocol": 1, "name": "ann", "channel": "", "games": 1}
    for token in ["caf\u00e9", "x" * 201, "a\nb"]:
        message = read_message(json.dumps({**hello, "token": token}), CLIENT_MESSAGES)
        assert check_hello(message) == "a token is at most 200 printable ASCII characters"
    assert check_hello(read_message(json.dumps({**hello, "token": "ab" * 16}), CLIENT_MESSAGES)) is None


def test_games_and_protocol_are_bounded_in_the_hello():
    hello = {"type": "hello", "protocol": 1, "name": "ann", "channel": "", "games": 1}
    assert "'games' must be 0 to 1000" in violation(json.dumps({**hello, "games": -1}))
    assert "'games' must be 0 to 1000" in violation(json.dumps({**hello, "games": 10**15}))
    assert "'protocol' must be 0 to" in violation(json.dumps({**hello, "protocol": -1}))
    assert check_hello(read_message(json.dumps({**hello, "protocol": 2}), CLIENT_MESSAGES)) is not None


def test_a_lone_surrogate_is_refused():
    # It could not be encoded as UTF-8 when the record or the opponent's message is sent on.
    assert "lone surrogates" in violation(failed(message='"\\ud800"'))
    assert "lone surrogates" in violation('{"type":"ready","id":1,"\\udc00":1}')
    assert read_message(failed(message='"\\ud83d\\ude00 caf\\u00e9"'), CLIENT_MESSAGES)["message"] == "\U0001f600 café"


@pytest.mark.parametrize("data", [None, 5, b'{"type":"ready","id":1}', bytearray(b"{}"), ["x"]])
def test_anything_but_text_is_a_violation(data):
    violation(data)


def test_deep_nesting_and_long_frames_are_violations():
    assert "one JSON object" in violation('{"type":"ready","id":1,"x":' + "[" * 30000 + "]" * 30000 + "}")
    assert "type is text, not list" in violation('{"type":' + "[" * 900 + "]" * 900 + "}")
    assert f"at most {MAX_MESSAGE_BYTES} bytes" in violation(" " * (MAX_MESSAGE_BYTES + 1))
    assert f"at most {MAX_MESSAGE_BYTES} bytes" in violation("\u00e9" * (MAX_MESSAGE_BYTES // 2 + 1))


def test_the_server_messages_shapes_the_client_indexes():
    start = {"type": "start", "id": 1, "color": "RED", "opponent": "bob", "actions": [], "pair": [1, 2],
             "seed": 5, "game_options": {}, "time_limit": None, "space_limit": 100}
    assert read_message(json.dumps(start), SERVER_MESSAGES)["pair"] == [1, 2]
    assert "'pair' must be two whole numbers" in violation(json.dumps({**start, "pair": [1]}), SERVER_MESSAGES)
    assert "'pair'" in violation(json.dumps({**start, "pair": ["a", 2]}), SERVER_MESSAGES)
    assert "'time_limit' must be 0 or more" in violation(json.dumps({**start, "time_limit": -3}), SERVER_MESSAGES)
    welcome = {"type": "welcome", "name": "ann", "game": "infexion", "game_options": {}, "grace": 20.0,
               "time_limit": 180.0, "space_limit": None, "wall_limit": None, "aborted": [3, 4]}
    assert read_message(json.dumps(welcome), SERVER_MESSAGES)["aborted"] == [3, 4]
    assert "'aborted'" in violation(json.dumps({**welcome, "aborted": [-1]}), SERVER_MESSAGES)
    assert "'grace' must be 0 or more" in violation(json.dumps({**welcome, "grace": -1}), SERVER_MESSAGES)
    assert read_message('{"type":"turn","id":1,"color":null,"action":"SPAWN(1, 1)"}', SERVER_MESSAGES)


def test_the_bundled_clients_messages_still_read():
    for message in [
        {"type": "hello", "protocol": 1, "name": "ann", "token": None, "channel": "", "games": 3,
         "client": "referee 1.0"},
        {"type": "ready", "id": 12},
        {"type": "action", "id": 12, "action": "SPAWN(3, 3)", "cpu": 0.0123, "memory_mb": 41.25},
        {"type": "failed", "id": 12, "reason": "time_limit", "message": "out of time", "traceback": None,
         "cpu": 180.0001, "memory_mb": 0},
    ]:
        assert read_message(json.dumps(message), CLIENT_MESSAGES) == message


# -- the property ------------------------------------------------------------------------------------------


def _finite_and_bounded(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, int) and not -(2**63) <= item < 2**63:
            return False
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


_NUMBERS = st.one_of(
    st.integers(min_value=-10, max_value=10**6),
    st.integers(),  # past 64 bits too
    st.floats(),  # NaN and infinities included: json.dumps writes them as NaN, Infinity
)
_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), _NUMBERS, st.text(max_size=20)),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children,
                                                                                 max_size=4)),
    max_leaves=12,
)
_TABLES: dict[str, dict[str, Any]] = {**CLIENT_MESSAGES, **SERVER_MESSAGES}


def _value_for(types: Any) -> st.SearchStrategy[Any]:
    """Values of a field's kind, often near its bounds, and now and then of any kind."""
    kinds = types if isinstance(types, tuple) else (types,)
    options: list[st.SearchStrategy[Any]] = [_JSON]
    if int in kinds:
        options += [st.integers(min_value=-3, max_value=2**54), st.integers(min_value=-(10**30), max_value=10**30)]
    if float in kinds:
        options += [st.floats(), st.floats(min_value=0, max_value=2e7)]
    if str in kinds:
        options.append(st.text(max_size=20))
    if list in kinds:
        options += [st.lists(_NUMBERS, max_size=3), st.lists(_JSON, max_size=3)]
    if dict in kinds:
        options.append(st.dictionaries(st.text(max_size=5), _JSON, max_size=3))
    return st.one_of(*options)


def _shaped(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    """A message of type ``kind`` with every required field and some optional ones, of hostile values."""
    return st.fixed_dictionaries(
        {"type": st.just(kind), **{name: _value_for(types) for name, types in _TABLES[kind].items()}},
        optional={name: _value_for(types) for name, types in OPTIONAL_FIELDS.get(kind, {}).items()},
    )


_FIELDS = ["id", "action", "cpu", "memory_mb", "reason", "message", "traceback", "protocol", "name", "channel",
           "games", "token", "client", "opponent", "grace", "pair", "aborted", "time_limit", "seed"]
_MESSAGES = st.one_of(
    st.sampled_from(sorted(_TABLES)).flatmap(_shaped),
    st.builds(
        lambda kind, fields: {"type": kind, **fields},
        st.sampled_from([*sorted(_TABLES), "violation", "resumed"]),
        st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=8),
    ),
)


def _as_text(message: dict[str, Any], raw_number: str | None, cut: int) -> str:
    """The message's JSON, with a raw number spliced in as one more field, possibly cut short."""
    text = json.dumps(message)
    if raw_number is not None:
        text = text[:-1] + (", " if len(text) > 2 else "") + f'"x": {raw_number}}}'
    return text[:cut] if cut >= 0 else text


@settings(max_examples=300, deadline=None)
@given(
    message=_MESSAGES,
    raw_number=st.one_of(st.none(), st.text(alphabet="0123456789", min_size=1, max_size=6000),
                         st.sampled_from(["NaN", "-Infinity", "1e999", "-0.0", "1E+2"])),
    cut=st.integers(min_value=-40, max_value=200),
    noise=st.text(max_size=10),
)
def test_any_json_ish_text_is_a_message_or_a_violation(message, raw_number, cut, noise):
    for data in (_as_text(message, raw_number, cut), noise, _as_text(message, None, -1) + noise):
        for known in (CLIENT_MESSAGES, SERVER_MESSAGES):
            try:
                read = read_message(data, known)
            except ProtocolViolation:
                continue
            assert isinstance(read, dict) and read["type"] in known
            assert _finite_and_bounded(read)
            for name in ("cpu", "memory_mb"):
                if name in known[read["type"]]:  # where the server reads them (another type's extra is never read)
                    assert 0 <= float(read[name]) <= 10**7  # the server's float() now always works
            if "id" in known[read["type"]]:  # where the server reads it
                assert type(read["id"]) is int and 0 <= read["id"] < MAX_ID
