"""The game log: an append-only, hash-chained SQLite journal of everything the table decided.

Why this shape:

* **Durable before acknowledged.** WAL mode with ``synchronous=FULL`` means that once
  :meth:`GameLog.append` returns, the event survives ``kill -9`` and power loss.  The session
  only acts on (lights, dashboard) what the log has accepted, so a restart that replays the
  log resumes exactly where the table was.
* **Append-only.** Triggers refuse ``UPDATE`` and ``DELETE`` on the events and the photos,
  so nothing in the product can rewrite history by accident.
* **Tamper-evident.** Each event's hash is ``sha256(previous hash + canonical JSON)``; a
  photo is stored under the sha256 of its bytes and its hash is part of the event.
  :meth:`GameLog.verify` recomputes everything, so editing the file with another tool (which
  can drop the triggers) is detected.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from companion.errors import CompanionError

GENESIS = "0" * 64

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    game INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    photo TEXT,
    at_s REAL NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE
);
CREATE INDEX IF NOT EXISTS events_game ON events (game, seq);
CREATE TABLE IF NOT EXISTS photos (
    hash TEXT PRIMARY KEY,
    jpeg BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS photos_no_update BEFORE UPDATE ON photos
BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS photos_no_delete BEFORE DELETE ON photos
BEGIN SELECT RAISE(ABORT, 'the game log is append-only'); END;
"""


class EventKind(StrEnum):
    """What an event records; the session replays these to rebuild its state."""

    GAME_STARTED = "game_started"  # payload: the game-record header
    READING = "reading"  # a stable reading the camera delivered: {"board": ...}
    VERDICT = "verdict"  # the rules' judgement of a reading
    ACCEPTED = "accepted"  # a board state accepted as a turn's result: {"board", "by"}
    CORRECTION = "correction"  # the operator's corrected state, accepted as the turn's result
    UNDO = "undo"  # the last accepted turn taken back
    DISMISSED = "dismissed"  # a flagged reading dismissed by the operator
    VAT_CHOSEN = "vat_chosen"  # emperor variant: {"vat", "by"}
    BUTTON = "button"  # a physical button press: {"button"}
    LED = "led"  # a command sent to the LED device
    GAME_ENDED = "game_ended"  # {"reason"}
    IDES_ACTION = "ides_action"  # an Ides of March action as applied: {"action", "by"}


@dataclass(frozen=True)
class Event:
    seq: int
    game: int
    kind: EventKind
    payload: dict[str, Any]
    photo: str | None
    at_s: float
    prev: str
    hash: str


@dataclass(frozen=True)
class Verification:
    """The outcome of :meth:`GameLog.verify`: ``ok``, or the first bad event and why."""

    ok: bool
    events: int
    bad_seq: int | None = None
    reason: str = ""


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, plain ASCII."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def event_hash(
    prev: str, seq: int, game: int, kind: str, payload: str, photo: str | None, at_s: float
) -> str:
    body = canonical_json(
        {"seq": seq, "game": game, "kind": kind, "payload": json.loads(payload),
         "photo": photo, "at_s": at_s}
    )  # fmt: skip
    return hashlib.sha256((prev + body).encode("ascii")).hexdigest()


class LogError(CompanionError):
    """The game log cannot be opened or written."""


class GameLog:
    """One SQLite file holding every game played at a table, in order.

    Thread-safe: appends are serialised by a lock, so the session thread and the web
    threads can share one instance.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(
                str(self.path), check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise LogError(f"{self.path}: cannot open the game log: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------

    def start_game(self, header: dict[str, Any]) -> Event:
        """Opens a new game; its number is the sequence number of this first event."""
        return self._append(None, EventKind.GAME_STARTED, header, None)

    def append(
        self, game: int, kind: EventKind, payload: dict[str, Any], photo: bytes | None = None
    ) -> Event:
        """Writes one event durably; returns only once it is on disk."""
        if kind is EventKind.GAME_STARTED:
            raise ValueError("use start_game() to open a game")
        return self._append(game, kind, payload, photo)

    def _append(
        self, game: int | None, kind: EventKind, payload: dict[str, Any], photo: bytes | None
    ) -> Event:
        """One transaction reads the chain's head and writes after it, so two writers (even
        two processes) can never fork the chain."""
        text = canonical_json(payload)
        photo_hash = hashlib.sha256(photo).hexdigest() if photo is not None else None
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                row = self._db.execute(
                    "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
                ).fetchone()
                seq, prev = (int(row[0]) + 1, row[1]) if row else (1, GENESIS)
                game = seq if game is None else game
                at_s = round(time.time(), 6)
                digest = event_hash(prev, seq, game, kind.value, text, photo_hash, at_s)
                if photo is not None:
                    self._db.execute(
                        "INSERT OR IGNORE INTO photos (hash, jpeg) VALUES (?, ?)",
                        (photo_hash, photo),
                    )
                self._db.execute(
                    "INSERT INTO events (seq, game, kind, payload, photo, at_s, prev, hash)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (seq, game, kind.value, text, photo_hash, at_s, prev, digest),
                )
                self._db.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise LogError(f"{self.path}: cannot write to the game log: {exc}") from exc
        return Event(seq, game, kind, payload, photo_hash, at_s, prev, digest)

    # -- reading -------------------------------------------------------------------------

    def events(self, game: int | None = None, *, after_seq: int = 0) -> Iterator[Event]:
        """Events in order: all of them, or one game's."""
        with self._lock:
            if game is None:
                rows = self._db.execute(
                    "SELECT * FROM events WHERE seq > ? ORDER BY seq", (after_seq,)
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT * FROM events WHERE game = ? AND seq > ? ORDER BY seq",
                    (game, after_seq),
                ).fetchall()
        for seq, g, kind, payload, photo, at_s, prev, digest in rows:
            yield Event(seq, g, EventKind(kind), json.loads(payload), photo, at_s, prev, digest)

    def head(self) -> Event | None:
        """The newest event of the whole log."""
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events").fetchone()
        if not row or row[0] is None:
            return None
        return next(self.events(after_seq=int(row[0]) - 1), None)

    def games(self) -> list[Event]:
        """The opening event of every game, oldest first."""
        return [e for e in self.events() if e.kind is EventKind.GAME_STARTED]

    def last_game(self) -> int | None:
        with self._lock:
            row = self._db.execute(
                "SELECT MAX(seq) FROM events WHERE kind = ?", (EventKind.GAME_STARTED.value,)
            ).fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def photo(self, digest: str) -> bytes | None:
        with self._lock:
            row = self._db.execute("SELECT jpeg FROM photos WHERE hash = ?", (digest,)).fetchone()
        return bytes(row[0]) if row else None

    # -- checking ------------------------------------------------------------------------

    def verify(self) -> Verification:
        """Recomputes the hash chain and every photo hash; names the first broken event."""
        with self._lock:
            rows = self._db.execute("SELECT * FROM events ORDER BY seq").fetchall()
            photos = {
                h: hashlib.sha256(bytes(b)).hexdigest()
                for h, b in self._db.execute("SELECT hash, jpeg FROM photos")
            }
        prev = GENESIS
        expected_seq = 1
        for seq, game, kind, payload, photo, at_s, stored_prev, digest in rows:
            if seq != expected_seq:
                return Verification(False, len(rows), expected_seq, "an event is missing")
            if stored_prev != prev:
                return Verification(
                    False, len(rows), seq, "the chain to the previous event is broken"
                )
            try:
                recomputed = event_hash(prev, seq, game, kind, payload, photo, at_s)
            except (ValueError, TypeError):
                return Verification(False, len(rows), seq, "the payload is not valid JSON")
            if recomputed != digest:
                return Verification(False, len(rows), seq, "the event's content was altered")
            if photo is not None and photos.get(photo) != photo:
                return Verification(
                    False, len(rows), seq, "its evidence photo is missing or altered"
                )
            prev = digest
            expected_seq += 1
        return Verification(True, len(rows))
