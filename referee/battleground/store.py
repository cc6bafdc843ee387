"""The battleground's database: players, games and the server's secret, in one SQLite file.

SQLite in WAL mode with synchronous writes: a game's record and its result
are written in one transaction, so a crash (``kill -9``) loses no finished
game.  The games being played are kept as they go, cheaply: each game's
record without its actions when it starts, and its actions as they are
played (table ``moves``), written by a second connection without the fsync
(``synchronous=NORMAL``: in WAL mode a commit then survives the process's
death, not the machine's).  A restart marks those games aborted and joins
their actions to their records: a partial record, never counted.  Ratings
are not stored: they are a function of the finished games.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Mapping, Sequence

from ..core import stopped_server_message
from ..records import GameRecord, RecordError
from .protocol import name_key

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY,
    token_hash TEXT,
    student_id TEXT,
    house INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL,
    last_seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    red TEXT NOT NULL,
    blue TEXT NOT NULL,
    channel TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'aborted')),
    started_at TEXT NOT NULL,
    ended_at TEXT,
    winner TEXT,
    reason TEXT,
    turns INTEGER NOT NULL DEFAULT 0,
    record TEXT
);
CREATE INDEX IF NOT EXISTS games_by_red ON games (red);
CREATE INDEX IF NOT EXISTS games_by_blue ON games (blue);
CREATE INDEX IF NOT EXISTS games_by_status ON games (status);
CREATE TABLE IF NOT EXISTS moves (
    game INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    mover TEXT,
    action TEXT NOT NULL,
    red_cpu REAL NOT NULL,
    blue_cpu REAL NOT NULL,
    PRIMARY KEY (game, ply)
) WITHOUT ROWID;
"""

#: A move of a game being played: (game id, its number from 0, mover (RED/BLUE, None for chance), action,
#: each side's CPU seconds after it as the clients reported).
Move = tuple[int, int, "str | None", str, float, float]


class StoreError(Exception):
    """A database that cannot be used (another game's, unreadable): said in one sentence."""


@dataclass(frozen=True)
class GameRow:
    id: int
    red: str
    blue: str
    channel: str
    status: str
    started_at: str
    ended_at: str | None
    winner: str | None
    reason: str | None
    turns: int

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "red": self.red, "blue": self.blue, "channel": self.channel, "status": self.status,
            "winner": self.winner, "reason": self.reason, "turns": self.turns,
            "started_at": self.started_at, "ended_at": self.ended_at,
        }


_GAME_COLUMNS = "id, red, blue, channel, status, started_at, ended_at, winner, reason, turns"


class Store:
    """The database: written from one thread at a time (the server's writer), read from any."""

    def __init__(self, path: str | Path, game: str, game_options: Mapping[str, Any]):
        path = Path(path)
        if not path.parent.is_dir():
            raise StoreError(f"{path}: the folder {path.parent} does not exist")
        # Read first, write after: a --db naming someone's other file (SQLite or not) is refused as it was found,
        # not given the server's tables, WAL and owner-only mode before SQLite or the setup check says so.
        kept_setup(path)
        _owner_only(path)
        try:
            # Written from the server's writer thread (.progress.Writer), one write at a time; read on the
            # event loop through a connection of its own (WAL: a read never waits for a write).
            self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
            # The games in play's progress: a commit without the fsync (survives a kill, not a power cut).
            self.progress = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self.progress.execute("PRAGMA synchronous=NORMAL")
            self.reads = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: not a battleground database ({exc})") from None
        self._add_name_keys()
        self.secret = self._meta("secret") or self._set_meta("secret", secrets.token_hex(32))
        setup = setup_json(game, game_options)
        known = self._meta("game") or self._set_meta("game", setup)
        if known != setup:
            raise other_setup(path, known, setup)

    def _add_name_keys(self) -> None:
        """Each player's :func:`~.protocol.name_key`, kept beside its name (added to a database made without it)."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(players)")}
        if "name_key" not in columns:
            self.db.execute("ALTER TABLE players ADD COLUMN name_key TEXT")
        missing = self.db.execute("SELECT name FROM players WHERE name_key IS NULL").fetchall()
        if missing:
            self.db.executemany("UPDATE players SET name_key = ? WHERE name = ?",
                                [(name_key(name), name) for (name,) in missing])
        self.db.execute("CREATE INDEX IF NOT EXISTS players_by_key ON players (name_key)")

    def _one(self, query: str, parameters: Sequence[Any]) -> Any:
        """The first row of a read, or None.  Every row is fetched: a statement left unfinished would hold its
        read transaction open, and the connection would go on seeing the database as it was then (WAL)."""
        rows = self.reads.execute(query, parameters).fetchall()
        return rows[0] if rows else None

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set_meta(self, key: str, value: str) -> str:
        self.db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
        return value

    def close(self) -> None:
        self.reads.close()
        self.progress.close()
        self.db.close()

    # -- start-up ---------------------------------------------------------------------------------------

    def abort_running(self, when: str) -> list[tuple[int, str, str]]:
        """Mark the games a crash interrupted as aborted (never counted), each with its record so far.

        Their (id, red, blue).  A game's record so far is the one written when it started, with the actions
        kept as it went (:meth:`record_progress`); a game of a database older than the table has none.
        """
        rows = self.db.execute("SELECT id, red, blue, record, started_at FROM games WHERE status = 'running' "
                               "ORDER BY id")
        running = rows.fetchall()
        # The last time the stopped server said it was alive (every few seconds): when its games really ended.
        alive = self._meta("alive")
        aborted = []
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for game_id, red, blue, text, started_at in running:
                moves = self.db.execute("SELECT mover, action, red_cpu, blue_cpu FROM moves WHERE game = ? "
                                        "ORDER BY ply", (game_id,)).fetchall()
                ended = alive if alive is not None and alive >= started_at else when
                record = _aborted_record(text, moves, ended, when)
                self.db.execute(
                    "UPDATE games SET status = 'aborted', ended_at = ?, reason = 'aborted', turns = ?, record = ? "
                    "WHERE id = ?", (ended, len(moves), record, game_id),
                )
                self.db.execute("DELETE FROM moves WHERE game = ?", (game_id,))
                aborted.append((game_id, red, blue))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return aborted

    # -- players ------------------------------------------------------------------------------------------

    def roster_token(self, name: str) -> str:
        """The token of ``name`` on a roster: the same every time for this database (an HMAC of its secret)."""
        return roster_token(self.secret, name)

    def player(self, name: str) -> sqlite3.Row | None:
        cursor = self.reads.cursor()
        cursor.row_factory = sqlite3.Row
        rows: list[sqlite3.Row] = cursor.execute("SELECT * FROM players WHERE name = ?", (name,)).fetchall()
        return rows[0] if rows else None

    def add_player(self, name: str, token: str | None, when: str, student_id: str | None = None,
                   house: bool = False, retoken: bool = False) -> None:
        """Add a player (or update a known one's student id and house mark; ``retoken``: and its token)."""
        update = "student_id = excluded.student_id, house = excluded.house"
        if retoken:
            update += ", token_hash = excluded.token_hash"
        self.db.execute(
            "INSERT INTO players (name, token_hash, student_id, house, created, last_seen, name_key) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET {update}",
            (name, token_hash(token) if token else None, student_id, int(house), when, when, name_key(name)),
        )

    def name_like(self, name: str) -> str | None:
        """A player's name that reads as ``name`` (the same :func:`~.protocol.name_key`), if any."""
        row = self._one("SELECT name FROM players WHERE name_key = ? LIMIT 1", (name_key(name),))
        return str(row[0]) if row else None

    def token_matches(self, name: str, token: str | None) -> bool:
        row = self.player(name)
        if row is None or row["token_hash"] is None or token is None:
            return False
        return hmac.compare_digest(row["token_hash"], token_hash(token))

    # -- games ----------------------------------------------------------------------------------------------

    def start_game(self, red: str, blue: str, channel: str, when: str) -> int:
        cursor = self.db.execute(
            "INSERT INTO games (red, blue, channel, status, started_at) VALUES (?, ?, ?, 'running', ?)",
            (red, blue, channel, when),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def started(self, game_id: int, record: GameRecord) -> None:
        """Keep a game's record as it starts (no action yet): what an abort's partial record is built on."""
        self.progress.execute("UPDATE games SET record = ? WHERE id = ? AND status = 'running'",
                              (record.to_json(), game_id))

    def record_progress(self, moves: Sequence[Move], seen: Mapping[str, str], alive: str | None) -> None:
        """Keep the moves of games in play (any games'), when players were last seen and that the server was
        alive at ``alive``: one transaction, without the fsync (see the module's docstring)."""
        self.progress.execute("BEGIN")
        try:
            self.progress.executemany("INSERT OR REPLACE INTO moves VALUES (?, ?, ?, ?, ?, ?)", moves)
            self.progress.executemany("UPDATE players SET last_seen = ? WHERE name = ?",
                                      [(when, name) for name, when in seen.items()])
            if alive is not None:
                self.progress.execute("INSERT INTO meta (key, value) VALUES ('alive', ?) "
                                      "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (alive,))
            self.progress.execute("COMMIT")
        except BaseException:
            self.progress.execute("ROLLBACK")
            raise

    def finish_game(self, game_id: int, record: GameRecord, status: str, when: str) -> None:
        """Write the game's record and result in one transaction (its moves kept on the way are dropped)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute(
                "UPDATE games SET status = ?, ended_at = ?, winner = ?, reason = ?, turns = ?, record = ? "
                "WHERE id = ?", (status, when, record.winner, record.reason, record.turns, record.to_json(), game_id),
            )
            self.db.execute("DELETE FROM moves WHERE game = ?", (game_id,))
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def game(self, game_id: int) -> GameRow | None:
        row = self._one(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return GameRow(*row) if row else None

    def record(self, game_id: int) -> GameRecord | None:
        text = self.record_text(game_id)
        if text is None:
            return None
        try:
            return GameRecord.from_json(text)
        except RecordError:
            return None

    def record_text(self, game_id: int) -> str | None:
        """A game's record as kept (JSON text, not read: the pages' worker reads it), or None."""
        row = self._one("SELECT record FROM games WHERE id = ?", (game_id,))
        return row[0] if row and isinstance(row[0], str) else None

    def games(self, status: str, limit: int = 100) -> list[GameRow]:
        rows = self.reads.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = ? ORDER BY id DESC LIMIT ?", (status, limit)
        ).fetchall()
        return [GameRow(*row) for row in rows]

    def games_of(self, name: str, limit: int = 200) -> list[GameRow]:
        rows = self.reads.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE red = ? OR blue = ? ORDER BY id DESC LIMIT ?", (name, name, limit)
        ).fetchall()
        return [GameRow(*row) for row in rows]

    def results(self) -> list[tuple[str, str, str | None, str | None]]:
        """Every counted game as (red, blue, winner, ended_at), in the order they ended: what the ratings and
        tallies are computed from."""
        rows = self.reads.execute("SELECT red, blue, winner, ended_at FROM games WHERE status = 'finished' "
                               "ORDER BY ended_at, id").fetchall()
        return [(red, blue, winner, ended) for red, blue, winner, ended in rows]

    def last_seen(self, names: Sequence[str]) -> dict[str, str]:
        """When each of ``names`` was last seen (names not found are left out)."""
        seen: dict[str, str] = {}
        for start in range(0, len(names), 500):  # SQLite's limit on a statement's parameters
            chunk = list(names[start:start + 500])
            marks = ", ".join("?" * len(chunk))
            seen.update(self.reads.execute(f"SELECT name, last_seen FROM players WHERE name IN ({marks})",
                                           chunk).fetchall())
        return seen


def setup_json(game: str, game_options: Mapping[str, Any]) -> str:
    """The setup a database is made for, as its ``meta`` table keeps it: the game and its options (JSON)."""
    return json.dumps({"game": game, "game_options": dict(game_options)}, sort_keys=True)


def other_setup(path: str | Path, known: str, setup: str) -> StoreError:
    """The refusal of a database made for the setup ``known`` when ``setup`` was asked for."""
    return StoreError(f"{path} holds the games of {known}, not of {setup}: use another --db")


@dataclass(frozen=True)
class KeptSetup:
    """What an existing database was made for (its setup, as :func:`setup_json` writes it) and its secret."""

    setup: str
    secret: str


def kept_setup(path: str | Path) -> KeptSetup | None:
    """The setup and secret of the database at ``path``, read without writing to it.

    None when there is none yet: no file, an empty file (SQLite's empty database), or a battleground database
    not yet made for a setup; :class:`Store` makes those its own.  StoreError for a file that is not a
    battleground database.  Only reads: ``serve tokens`` on a database in use, or on the wrong file, must change
    nothing (opening a :class:`Store` would add its tables and switch the file to WAL first).
    """
    path = Path(path)
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return None
    try:
        # A plain connection rather than mode=ro: read-only, SQLite would leave -wal and -shm files behind;
        # this one removes them on close, as it found the directory, and query_only makes it write nothing.
        db = sqlite3.connect(str(path), isolation_level=None)
        try:
            db.execute("PRAGMA query_only = ON")
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            kept = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('game', 'secret')").fetchall()
                        if "meta" in tables else [])
        finally:
            db.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path}: not a battleground database ({exc})") from None
    if not tables:
        return None
    if not {"meta", "players", "games"} <= tables:
        raise StoreError(f"{path}: not a battleground database (its tables: {', '.join(sorted(tables))})")
    if "game" not in kept or "secret" not in kept:
        return None
    return KeptSetup(kept["game"], kept["secret"])


def roster_token(secret: str, name: str) -> str:
    """The token of ``name`` on the roster of a database whose secret is ``secret`` (an HMAC of it)."""
    return hmac.new(secret.encode(), f"roster:{name}".encode(), hashlib.sha256).hexdigest()[:32]


def _aborted_record(started: str | None, moves: Sequence[tuple[str | None, str, float, float]],
                    stopped: str, when: str) -> str | None:
    """The record of a game a crash stopped: its record at the start with the actions kept since (JSON).

    ``stopped``: the server's last sign of life before the stop; ``when``: the restart that found it."""
    if started is None:
        return None
    try:
        record = json.loads(started)
        extra = record.setdefault("extra", {}).setdefault("battleground", {})
    except (ValueError, AttributeError):
        return None
    actions = [action for _, action, _, _ in moves]
    clocks = [[red, blue] for _, _, red, blue in moves]
    record.update(
        actions=actions, turns=len(actions), winner=None, reason="unfinished",
        message=stopped_server_message(len(actions)),
        moves={color: sum(1 for mover, *_ in moves if mover == color) for color in ("RED", "BLUE")},
        time_used=dict(zip(("RED", "BLUE"), clocks[-1] if clocks else [0.0, 0.0])), time_used_after=clocks,
    )
    if not any(mover is None for mover, *_ in moves):
        record["chance_seed"] = None
    extra["status"] = "aborted"
    extra["stopped_at"] = stopped
    extra["aborted_at"] = when
    extra.pop("wall_used", None)  # the server's clocks died with it
    return json.dumps(record)


def _owner_only(path: Path) -> None:
    """Make the database (and its journal) readable by its owner only: it holds the secret every roster and
    house token is derived from.  SQLite gives its journal files the database's own mode."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        for each in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if each.exists():
                os.chmod(each, 0o600)
    except OSError:
        pass  # not ours to change (or not a file): SQLite says what is wrong when it opens it


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
