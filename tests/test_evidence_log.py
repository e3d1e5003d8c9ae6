"""The keyed hash chain and its key file: an edit cannot be hidden without the table's key."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.table.chain_key import default_key_path, load_or_create_key, open_table_log
from companion.table.config import load_config
from companion.table.log import GENESIS, ChainStatus, EventKind, GameLog, event_hash

HEADER = {"game": "garum", "board": "troia", "variant": "standard", "seats": [], "ghost": None,
          "aureus": [10, 3], "first_seat": 0}  # fmt: skip
KEY = bytes(range(32))


def fill(log: GameLog, turns: int = 4) -> int:
    game = log.start_game(HEADER).game
    for n in range(turns):
        log.append(game, EventKind.VERDICT, {"outcome": "accept", "legal": True, "n": n})
        log.append(game, EventKind.BUTTON, {"button": "accept", "value": n}, b"\xff\xd8%d" % n)
    return game


def drop_triggers(db: sqlite3.Connection) -> None:
    for name in ("events_no_update", "events_no_delete", "photos_no_update", "photos_no_delete"):
        db.execute(f"DROP TRIGGER IF EXISTS {name}")


def edit_and_rechain(path: Path, seq: int, payload: str, key: bytes | None = None) -> None:
    """An attacker's full rewrite: change one payload, then recompute every later link
    with ``key`` (plain sha256 when the attacker has no key)."""
    db = sqlite3.connect(path)
    drop_triggers(db)
    db.execute("UPDATE events SET payload = ? WHERE seq = ?", (payload, seq))
    rows = db.execute(
        "SELECT seq, game, kind, payload, photo, at_s, prev FROM events ORDER BY seq"
    ).fetchall()
    before = db.execute("SELECT hash FROM events WHERE seq = ?", (seq - 1,)).fetchone()
    prev = before[0] if before else GENESIS
    for s, game, kind, text, photo, at_s, _ in rows[seq - 1 :]:
        digest = event_hash(prev, s, game, kind, text, photo, at_s, key)
        db.execute("UPDATE events SET prev = ?, hash = ? WHERE seq = ?", (prev, digest, s))
        prev = digest
    db.commit()
    db.close()


FORGED = '{"legal":false,"n":1,"outcome":"dispute"}'


def test_a_keyed_log_verifies_only_with_its_own_key(tmp_path: Path) -> None:
    with GameLog(tmp_path / "t.db", key=KEY) as log:
        fill(log)
        assert log.verify().status is ChainStatus.KEYED
    with GameLog(tmp_path / "t.db", key=bytes(32)) as other:
        assert other.verify().status is ChainStatus.TAMPERED


def test_recomputing_plain_sha256_after_an_edit_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with GameLog(path, key=KEY) as log:
        fill(log)
    edit_and_rechain(path, 4, FORGED)
    with GameLog(path, key=KEY) as log:
        result = log.verify()
    assert (result.status, result.bad_seq) == (ChainStatus.TAMPERED, 4)
    assert result.bad_seqs[0] == 4 and result.bad_seqs[-1] == 9  # every rewritten link


def test_a_keyed_log_rewritten_whole_in_the_old_scheme_is_caught(tmp_path: Path) -> None:
    """Plain links throughout would pass for an old log, but the table remembers (next to
    its key) that this log is keyed from its first event."""
    path, key_file = tmp_path / "data" / "t.db", tmp_path / "conf" / "chain.key"
    with open_table_log(path, key_file) as log:
        fill(log)
    edit_and_rechain(path, 1, json.dumps({**HEADER, "aureus": [3, 10]}))
    with open_table_log(path, key_file) as log:
        result = log.verify()
    assert (result.status, result.bad_seq) == (ChainStatus.TAMPERED, 1)


def test_an_edit_recomputed_with_the_key_verifies_so_the_key_is_the_secret(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.db"
    with GameLog(path, key=KEY) as log:
        fill(log)
    edit_and_rechain(path, 4, FORGED, key=KEY)
    with GameLog(path, key=KEY) as log:
        assert log.verify().ok


def test_a_log_from_before_the_keyed_chain_opens_as_unkeyed(tmp_path: Path) -> None:
    path, key_file = tmp_path / "data" / "t.db", tmp_path / "conf" / "chain.key"
    with GameLog(path) as old:  # no key: the plain sha256 chain of earlier versions
        game = fill(old)
    with open_table_log(path, key_file) as log:
        result = log.verify()
        assert (result.ok, result.status, result.unkeyed) == (True, ChainStatus.UNKEYED, 9)
        log.append(game, EventKind.UNDO, {"by": "operator"})  # new events are keyed
        result = log.verify()
        assert (result.ok, result.unkeyed, result.events) == (True, 9, 10)
        log.append(game, EventKind.UNDO, {"by": "operator"})
    edit_and_rechain(path, 10, '{"by":"camera"}')  # plain links after a keyed one
    with open_table_log(path, key_file) as log:
        assert log.verify().bad_seq == 10
    edit_and_rechain(path, 2, FORGED)  # an edit in the old part, rechained plain to the end
    with open_table_log(path, key_file) as log:
        assert log.verify().bad_seq == 10  # the events written keyed are no longer keyed


def test_later_events_are_judged_on_their_own_after_an_edit(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with GameLog(path, key=KEY) as log:
        fill(log)
    db = sqlite3.connect(path)
    drop_triggers(db)
    db.execute("UPDATE events SET payload = ? WHERE seq = 4", (FORGED,))
    db.commit()
    db.close()
    with GameLog(path, key=KEY) as log:
        assert log.verify().bad_seqs == (4,)


def test_the_key_file_is_created_private_and_reused(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "companion" / "chain.key"
    key = load_or_create_key(path)
    assert len(key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert load_or_create_key(path) == key
    assert load_or_create_key(tmp_path / "other.key") != key


def test_a_key_others_can_read_or_a_broken_key_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "chain.key"
    load_or_create_key(path)
    os.chmod(path, 0o644)
    with pytest.raises(InputError, match=r"chain\.key: the chain key is open to other users"):
        load_or_create_key(path)
    os.chmod(path, 0o600)
    path.write_text("not hex\n")
    with pytest.raises(InputError, match="expected 64 hex digits"):
        load_or_create_key(path)


def test_the_key_file_comes_from_the_config_and_stays_out_of_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    config = tmp_path / "table.toml"
    config.write_text('data_dir = "data"\n')
    assert load_config(config).key_file == tmp_path / "xdg" / "companion" / "chain.key"
    assert default_key_path() == tmp_path / "xdg" / "companion" / "chain.key"
    config.write_text('data_dir = "data"\n[log]\nkey_file = "secrets/table.key"\n')
    assert load_config(config).key_file == tmp_path / "secrets" / "table.key"
    config.write_text('data_dir = "data"\n[log]\nkey_file = "data/table.key"\n')
    with pytest.raises(InputError, match=r"field 'log.key_file': .*outside the data folder"):
        load_config(config)
    config.write_text('data_dir = "data"\n[log]\nkey_file = 3\n')
    with pytest.raises(InputError, match=r"field 'log.key_file': expected a file path"):
        load_config(config)
