"""The game log: an append-only, hash-chained SQLite journal of everything the table decided.

Why this shape:

* **Durable before acknowledged.** WAL mode with ``synchronous=FULL`` means that once
  :meth:`GameLog.append` returns, the event survives ``kill -9`` and power loss.  The session
  only acts on (lights, dashboard) what the log has accepted, so a restart that replays the
  log resumes exactly where the table was.
* **Append-only.** Triggers refuse ``UPDATE`` and ``DELETE`` on the events and the photos,
  so nothing in the product can rewrite history by accident.
* **Tamper-evident.** Each event's hash is ``HMAC-SHA256(table key, previous hash +
  canonical JSON)``; a photo is stored under the sha256 of its bytes and its hash is part of
  the event.  :meth:`GameLog.verify` recomputes everything, so editing the file with another
  tool (which can drop the triggers) is detected, and without the key (kept apart from the
  log, see :mod:`companion.table.chain_key`) the hashes cannot be recomputed to hide an edit.
  Logs written before the chain was keyed used plain ``sha256``: such events still verify,
  and the log is reported as *unkeyed*.
"""

from __future__ import annotations

import hashlib
import hmac
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
from companion.games.table_seam import EventKind, canonical_json

__all__ = [
    "ChainStatus",
    "Event",
    "EventKind",
    "GameLog",
    "LogError",
    "Verification",
    "canonical_json",
]

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


class ChainStatus(StrEnum):
    """What :meth:`GameLog.verify` can say of a log as a whole."""

    KEYED = "keyed"  # every event verified with the table's key
    UNKEYED = "unkeyed"  # intact, but some events predate the keyed chain (plain sha256)
    TAMPERED = "tampered"  # some event does not verify


@dataclass(frozen=True)
class Verification:
    """The outcome of :meth:`GameLog.verify`: ``ok``, or the first bad event and why.

    ``bad_seqs`` lists every event that fails on its own (its content or its link to the
    one before), so a later event can be trusted even after an earlier edit.
    """

    ok: bool
    events: int
    bad_seq: int | None = None
    reason: str = ""
    bad_seqs: tuple[int, ...] = ()
    unkeyed: int = 0  # events verified by the old plain-sha256 scheme

    @property
    def status(self) -> ChainStatus:
        if not self.ok:
            return ChainStatus.TAMPERED
        return ChainStatus.UNKEYED if self.unkeyed else ChainStatus.KEYED


def event_hash(
    prev: str,
    seq: int,
    game: int,
    kind: str,
    payload: str,
    photo: str | None,
    at_s: float,
    key: bytes | None = None,
) -> str:
    """The link of one event: keyed (HMAC-SHA256) when ``key`` is given, else plain sha256
    (the scheme of logs written before the chain was keyed)."""
    body = canonical_json(
        {"seq": seq, "game": game, "kind": kind, "payload": json.loads(payload),
         "photo": photo, "at_s": at_s}
    )  # fmt: skip
    message = (prev + body).encode("ascii")
    if key is None:
        return hashlib.sha256(message).hexdigest()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


class LogError(CompanionError):
    """The game log cannot be opened or written."""


class GameLog:
    """One SQLite file holding every game played at a table, in order.

    Thread-safe: appends are serialised by a lock, so the session thread and the web
    threads can share one instance.  ``key`` is the table's chain key; without it events
    are chained with plain sha256, as logs were before the chain was keyed.
    """

    def __init__(
        self, path: str | Path, key: bytes | None = None, *, keyed_from: int | None = None
    ) -> None:
        self.path = Path(path)
        self._key = key
        # The first seq this table knows it wrote keyed (remembered apart from the log):
        # plain events from there on are forgeries, not an old log.
        self.keyed_from = keyed_from
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

    @property
    def keyed(self) -> bool:
        """Whether new events are chained with the table's key."""
        return self._key is not None

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
                digest = event_hash(prev, seq, game, kind.value, text, photo_hash, at_s, self._key)
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

    def events_of_kind(self, kind: EventKind) -> list[Event]:
        """Every event of one kind, in order, from the whole log."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM events WHERE kind = ? ORDER BY seq", (kind.value,)
            ).fetchall()
        return [
            Event(seq, g, EventKind(k), json.loads(payload), photo, at_s, prev, digest)
            for seq, g, k, payload, photo, at_s, prev, digest in rows
        ]

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
        """Recomputes the hash chain and every photo hash; names every broken event.

        With a key, a leading run of plain-sha256 events is accepted (a log begun before
        the chain was keyed); once a keyed event has been seen, every later one must be
        keyed too, so recomputing plain hashes after an edit does not hide it.
        """
        with self._lock:
            rows = self._db.execute("SELECT * FROM events ORDER BY seq").fetchall()
            photos = {
                h: hashlib.sha256(bytes(b)).hexdigest()
                for h, b in self._db.execute("SELECT hash, jpeg FROM photos")
            }
        bad: list[tuple[int, str]] = []
        prev = GENESIS
        expected_seq = 1
        unkeyed = 0
        keyed_seen = False
        for seq, game, kind, payload, photo, at_s, stored_prev, digest in rows:
            if seq != expected_seq:
                bad.append((expected_seq, "an event is missing"))
            problem = ""
            if stored_prev != prev:
                problem = "the chain to the previous event is broken"
            else:
                scheme = self._scheme_of(stored_prev, seq, game, kind, payload, photo, at_s, digest)
                if scheme == "invalid":
                    problem = "the payload is not valid JSON"
                elif scheme == "plain" and not keyed_seen and self._may_be_plain(seq):
                    unkeyed += 1
                elif scheme == "keyed":
                    keyed_seen = True
                else:
                    problem = "the event's content was altered"
            if not problem and photo is not None and photos.get(photo) != photo:
                problem = "its evidence photo is missing or altered"
            if problem:
                bad.append((seq, problem))
            prev = digest
            expected_seq = seq + 1
        if bad:
            first_seq, reason = bad[0]
            seqs = tuple(sorted({s for s, _ in bad}))
            return Verification(False, len(rows), first_seq, reason, seqs, unkeyed)
        return Verification(True, len(rows), unkeyed=unkeyed)

    def _may_be_plain(self, seq: int) -> bool:
        return self._key is None or self.keyed_from is None or seq < self.keyed_from

    def _scheme_of(
        self,
        prev: str,
        seq: int,
        game: int,
        kind: str,
        payload: str,
        photo: str | None,
        at_s: float,
        digest: str,
    ) -> str:
        """Which scheme the stored hash matches: "keyed", "plain", "altered" or "invalid"."""
        try:
            if self._key is not None:
                keyed = event_hash(prev, seq, game, kind, payload, photo, at_s, self._key)
                if hmac.compare_digest(keyed, digest):
                    return "keyed"
            plain = event_hash(prev, seq, game, kind, payload, photo, at_s)
        except (ValueError, TypeError):
            return "invalid"
        return "plain" if hmac.compare_digest(plain, digest) else "altered"
