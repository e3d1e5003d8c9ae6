"""The operator token kept in a file, so it survives restarts of the table.

The file holds the token on one line and is readable by its owner only (mode 0600): anyone
who reads it can change the game.  It is replaced in one step, so a table starting at the
same moment reads the old token or the new one, never half of either.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from companion.errors import InputError

MIN_TOKEN_CHARS = 4
FILE_MODE = 0o600


def new_token() -> str:
    """A random token of 12 characters, short enough to type on a phone."""
    return secrets.token_urlsafe(9)


def check_token(token: str, *, source: str | None = None, field: str | None = None) -> str:
    if len(token) < MIN_TOKEN_CHARS:
        raise InputError(
            f"the operator token or PIN needs at least {MIN_TOKEN_CHARS} characters",
            source=source,
            field=field,
        )
    return token


def read_token(path: Path) -> str:
    """The token in ``path``; refuses a file other users can read, as ssh does for keys."""
    source = str(path)
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(
            "no operator token file: create one with `companion init` or `companion token rotate`",
            source=source,
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the operator token: {exc}", source=source) from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(
            f"other users can read the operator token (mode {stat.S_IMODE(mode):o}): "
            f"run chmod 600 {path}",
            source=source,
        )
    return check_token(text.strip(), source=source)


def write_token(path: Path, token: str) -> None:
    """Writes ``token`` to ``path`` with mode 0600, replacing any earlier one atomically."""
    check_token(token, source=str(path))
    temporary = path.with_name(f".{path.name}.new")
    try:
        temporary.unlink(missing_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(token + "\n")
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise InputError(f"cannot write the operator token: {exc}", source=str(path)) from None
