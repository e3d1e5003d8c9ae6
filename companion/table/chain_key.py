"""The table's chain key: the secret that makes the game log's hash chain unforgeable.

A plain hash chain only proves that the file is self-consistent; anyone who edits an event
can recompute every hash after it.  Keying each link with HMAC-SHA256 means a rewritten log
only verifies again for someone who holds the key, so the key lives apart from the data
folder (by default under ``$XDG_CONFIG_HOME/companion/``), readable by its owner only.
Next to it, ``<key>.logs`` remembers from which event each log is keyed, so a log cannot be
passed off as one written before the chain was keyed.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path

from companion.errors import InputError
from companion.table.log import GameLog

KEY_BYTES = 32
DEFAULT_KEY_NAME = "chain.key"


def default_key_path() -> Path:
    """``$XDG_CONFIG_HOME/companion/chain.key`` (``~/.config`` when the variable is unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "companion" / DEFAULT_KEY_NAME


def load_or_create_key(path: Path) -> bytes:
    """The key in ``path``, created (mode 0600, folder 0700) on first use.

    A key others can read is refused: with it, anyone could rewrite the log unseen.
    """
    source = str(path)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_key(path)
    except OSError as exc:
        raise InputError(f"cannot create the chain key: {exc.strerror}", source=source) from None
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(secrets.token_hex(KEY_BYTES) + "\n")
    return _read_key(path)


def _read_key(path: Path) -> bytes:
    source = str(path)
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the chain key: {exc}", source=source) from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            f"the chain key is open to other users (mode {stat.S_IMODE(mode):o}): chmod 600 it",
            source=source,
        )
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise InputError(f"expected {KEY_BYTES * 2} hex digits of key", source=source)
    return key


def open_table_log(log_path: Path, key_file: Path) -> GameLog:
    """The table's game log, keyed, with the first seq it ever wrote keyed remembered next
    to the key: rewriting a keyed log in the old plain scheme then no longer passes for an
    old log."""
    log = GameLog(log_path, key=load_or_create_key(key_file))
    head = log.head()
    log.keyed_from = _remembered_keyed_from(key_file, log_path, head.seq + 1 if head else 1)
    return log


def _remembered_keyed_from(key_file: Path, log_path: Path, first_new_seq: int) -> int:
    """``<key>.logs``: per log file, the seq from which it is keyed; recorded on first use."""
    witness = key_file.with_name(key_file.name + ".logs")
    name = str(log_path.resolve())
    try:
        known = json.loads(witness.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    seq = known.get(name)
    if isinstance(seq, int) and seq >= 1:
        return seq
    known[name] = first_new_seq
    tmp = witness.with_name(witness.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(known, out, sort_keys=True)
        os.replace(tmp, witness)
    except OSError as exc:
        raise InputError(
            f"cannot record the keyed log: {exc.strerror}", source=str(witness)
        ) from None
    return first_new_seq
