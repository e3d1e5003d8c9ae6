"""The game log: durable, append-only, hash-chained, foldable into a game's history."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from companion.games.garum.history import fold
from companion.table.log import EventKind, GameLog, LogError

HEADER = {"game": "garum", "board": "troia", "variant": "standard", "seats": [], "ghost": None,
          "aureus": [10, 3], "first_seat": 0}  # fmt: skip
JPEG = b"\xff\xd8\xff\xe0fake-but-opaque-jpeg-bytes\xff\xd9"


def board(mark: int) -> dict[str, object]:
    cells = ["." * 16] * 16
    cells[0] = "B" * mark + "." * (16 - mark)
    return {"cells": cells, "workers": {"rows": [None] * 16, "cols": [None] * 16}}


def fill(log: GameLog) -> int:
    game = log.start_game(HEADER).game
    log.append(game, EventKind.READING, {"board": board(1)}, JPEG)
    log.append(game, EventKind.VERDICT, {"outcome": "accept", "legal": True})
    log.append(game, EventKind.ACCEPTED, {"board": board(1), "by": "camera"}, JPEG)
    log.append(game, EventKind.LED, {"status": "turn", "vat": 3})
    return game


def test_wal_and_full_sync(tmp_path: Path) -> None:
    with GameLog(tmp_path / "t.db") as log:
        assert log._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_events_come_back_in_order_and_verify(tmp_path: Path) -> None:
    with GameLog(tmp_path / "t.db") as log:
        game = fill(log)
        kinds = [e.kind for e in log.events(game)]
        assert kinds == [EventKind.GAME_STARTED, EventKind.READING, EventKind.VERDICT,
                         EventKind.ACCEPTED, EventKind.LED]  # fmt: skip
        events = list(log.events())
        assert all(b.prev == a.hash for a, b in itertools.pairwise(events))
        assert log.photo(events[1].photo or "") == JPEG
        assert log.verify().ok


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE events SET payload = '{}' WHERE seq = 2",
        "DELETE FROM events WHERE seq = 3",
        "UPDATE photos SET jpeg = x'00'",
        "DELETE FROM photos",
    ],
)
def test_triggers_refuse_rewriting_history(tmp_path: Path, sql: str) -> None:
    with GameLog(tmp_path / "t.db") as log:
        fill(log)
    db = sqlite3.connect(tmp_path / "t.db")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute(sql)
    db.close()


def _tamper(path: Path, *statements: str) -> None:
    """What an attacker with the file could do: drop the triggers, then edit."""
    db = sqlite3.connect(path)
    for name in ("events_no_update", "events_no_delete", "photos_no_update", "photos_no_delete"):
        db.execute(f"DROP TRIGGER {name}")
    for sql in statements:
        db.execute(sql)
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("sql", "bad_seq"),
    [
        ("UPDATE events SET payload = replace(payload, 'accept', 'dispute') WHERE seq = 3", 3),
        ("DELETE FROM events WHERE seq = 2", 2),
        ("UPDATE photos SET jpeg = x'ffd8ffd9'", 2),
        ("UPDATE events SET at_s = at_s + 1 WHERE seq = 5", 5),
        (
            "UPDATE events SET hash = (CASE WHEN hash LIKE 'f%' THEN '0' ELSE 'f' END)"
            " || substr(hash, 2) WHERE seq = 4",
            4,
        ),
    ],
)
def test_verify_names_the_tampered_event(tmp_path: Path, sql: str, bad_seq: int) -> None:
    with GameLog(tmp_path / "t.db") as log:
        fill(log)
    _tamper(tmp_path / "t.db", sql)
    with GameLog(tmp_path / "t.db") as log:
        result = log.verify()
    assert not result.ok
    assert result.bad_seq == bad_seq


def test_recomputing_one_hash_is_not_enough(tmp_path: Path) -> None:
    """Rewriting an event and its own hash still breaks the link from the next event."""
    with GameLog(tmp_path / "t.db") as log:
        fill(log)
        target = list(log.events())[2]
    from companion.table.log import canonical_json, event_hash

    forged = {"outcome": "dispute", "legal": False}
    text = canonical_json(forged)
    digest = event_hash(target.prev, target.seq, target.game, target.kind.value, text,
                        target.photo, target.at_s)  # fmt: skip
    _tamper(
        tmp_path / "t.db",
        f"UPDATE events SET payload = '{text}', hash = '{digest}' WHERE seq = {target.seq}",
    )
    with GameLog(tmp_path / "t.db") as log:
        result = log.verify()
    assert (result.ok, result.bad_seq) == (False, target.seq + 1)


def test_a_reopened_log_continues_the_chain(tmp_path: Path) -> None:
    with GameLog(tmp_path / "t.db") as log:
        game = fill(log)
    with GameLog(tmp_path / "t.db") as log:
        log.append(game, EventKind.UNDO, {"by": "operator"})
        second = log.start_game(HEADER).game
        assert log.verify().ok
        assert log.last_game() == second
        assert [g.game for g in log.games()] == [game, second]


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LogError, match=r"t\.db: cannot open the game log"):
        GameLog(path)


def test_fold_tracks_steps_flags_undo_and_export(tmp_path: Path) -> None:
    with GameLog(tmp_path / "t.db") as log:
        game = fill(log)
        log.append(game, EventKind.READING, {"board": board(3)}, b"after")
        log.append(game, EventKind.VERDICT, {"outcome": "dispute", "legal": False,
                   "violations": [{"code": "extra_tile", "message": "two tiles"}],
                   "cells": [1, 2], "lines": []})  # fmt: skip
        h = fold(log.events(game))
        assert h.flag is not None and h.flag.outcome == "dispute"
        assert h.flag.reading.board == board(3)
        assert h.boards == [board(1)]
        log.append(game, EventKind.ACCEPTED, {"board": board(3), "by": "operator"}, b"after")
        h = fold(log.events(game))
        assert h.flag is None and h.boards == [board(1), board(3)]
        log.append(game, EventKind.UNDO, {"by": "operator"})
        h = fold(log.events(game))
        assert h.boards == [board(1)]
        assert h.last_photo() is not None


def test_two_writers_on_one_file_keep_one_chain(tmp_path: Path) -> None:
    with GameLog(tmp_path / "t.db") as a, GameLog(tmp_path / "t.db") as b:
        game = a.start_game(HEADER).game
        for i in range(10):
            (a if i % 2 else b).append(game, EventKind.BUTTON, {"button": "undo", "n": i})
        assert a.verify().ok
        assert [e.payload["n"] for e in list(b.events())[1:]] == list(range(10))
