"""Who the client is on a server: the tokens the servers issued, kept in a file under each server's identity
(docs/battleground.md, 'Identity')."""
from __future__ import annotations

import json
import os
import re
import urllib.request
from pathlib import Path
from typing import Any

#: Where the server says who it is (its ``server_id``, which the kept tokens are filed under).
IDENTITY_PATH = "/api/server"
#: Seconds to wait for the server's identity before filing the token under the server's address instead.
IDENTITY_TIMEOUT = 3.0
#: What a server id may be: it becomes part of a key in the token file and is printed nowhere.
_SERVER_ID = re.compile(r"[A-Za-z0-9_.\-]{1,128}")


def token_file() -> Path:
    """Where the client keeps the tokens the servers issued (docs/battleground.md, 'Identity')."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "referee" / "battleground-tokens.json"


def _kept_tokens() -> dict[str, Any]:
    try:
        tokens = json.loads(token_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return tokens if isinstance(tokens, dict) else {}


def stored_token(server: str, name: str) -> str | None:
    """The token kept for ``name`` on ``server`` (its ``server_id``, or HOST:PORT for a server without one)."""
    token = _kept_tokens().get(f"{name}@{server}")
    return token if isinstance(token, str) else None


def store_token(server: str, name: str, token: str, replaces: str | None = None) -> Path:
    """Keep ``name``'s token on ``server`` (as in :func:`stored_token`); ``replaces``: the server part of the
    key it was kept under before, which goes. The file, written whole and readable by its owner only."""
    path = token_file()
    tokens = _kept_tokens()
    if replaces is not None and replaces != server:
        tokens.pop(f"{name}@{replaces}", None)
    tokens[f"{name}@{server}"] = token
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(tokens, indent=1) + "\n", encoding="utf-8")
    os.chmod(partial, 0o600)
    partial.replace(path)
    return path


def server_identity(address: str, timeout: float = IDENTITY_TIMEOUT) -> str | None:
    """The ``server_id`` that ``GET http://ADDRESS/api/server`` answers; None from a server without one (older
    than the id), one that cannot be reached, or an answer that is not the identity."""
    try:
        with urllib.request.urlopen(f"http://{address}{IDENTITY_PATH}", timeout=timeout) as response:
            answer = json.loads(response.read(4096).decode("utf-8"))
    except (OSError, ValueError):  # unreachable, an error status, not JSON: the address stands for the server
        return None
    server_id = answer.get("server_id") if isinstance(answer, dict) else None
    return server_id if isinstance(server_id, str) and _SERVER_ID.fullmatch(server_id) else None


class Identity:
    """One name on one server (``server``: its address): the token presented, and where the token file keeps it."""

    def __init__(self, server: str, name: str, token: str | None, keep: bool):
        self.server, self.name, self.keep = server, name, keep
        self.token = token
        #: The server part of the token file's key the token was found under (None: not from the file).
        self.token_key: str | None = None
        #: The server's identity (its welcome's, else its ``GET /api/server``'s); None from a server without one.
        self.server_id: str | None = None

    def find(self) -> None:
        """The token kept for this name on this server: filed under the server's id (``GET /api/server``), else
        under its address as the client wrote it before servers had ids (moved to the id once accepted)."""
        self.server_id = server_identity(self.server)
        for key in (self.server_id, self.server):
            token = stored_token(key, self.name) if key else None
            if token is not None:
                self.token, self.token_key = token, key
                return

    def welcomed(self, welcome: dict[str, Any]) -> Path | None:
        """File a new token, or the accepted one found under another key, under the server's identity; the token
        file when it now keeps a token the welcome gave (None: no new token, or none kept)."""
        server_id = welcome.get("server_id")
        if isinstance(server_id, str) and _SERVER_ID.fullmatch(server_id):
            self.server_id = server_id
        key = self.server_id or self.server  # a server without an id: its address, as before
        if isinstance(welcome.get("token"), str):
            self.token = welcome["token"]
            if self.keep:
                path = store_token(key, self.name, welcome["token"])
                self.token_key = key
                return path
        elif self.token_key is not None and self.token_key != key and self.token is not None:
            # The server took the token kept under its address: from now on it is found whatever the address.
            store_token(key, self.name, self.token, replaces=self.token_key)
            self.token_key = key
        return None
