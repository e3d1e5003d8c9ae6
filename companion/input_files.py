"""Reading a file named by the user: bounded in size, every failure one plain message."""

from __future__ import annotations

import os
from pathlib import Path

from companion.errors import InputError
from companion.limits import MAX_TEXT_FILE_BYTES


def read_bytes(path: str | Path, max_bytes: int, *, what: str = "file") -> bytes:
    """The file's bytes, refusing folders, special files and anything over ``max_bytes``.

    The read itself stops at ``max_bytes + 1`` so a file that grows cannot fill memory."""
    source = str(path)
    try:
        if not os.path.isdir(path) and os.path.exists(path) and not os.path.isfile(path):
            # A pipe or device: opening a pipe would wait for a writer forever.
            raise InputError(f"not a regular {what}", source=source)
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise InputError(f"no such {what}", source=source) from None
    except IsADirectoryError:
        raise InputError(f"is a folder, not a {what}", source=source) from None
    except PermissionError:
        raise InputError("permission denied", source=source) from None
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror or exc}", source=source) from None
    if len(data) > max_bytes:
        raise InputError(f"larger than the limit of {_size(max_bytes)}", source=source)
    return data


def read_text(path: str | Path, *, what: str = "file") -> str:
    """A UTF-8 text file of at most :data:`MAX_TEXT_FILE_BYTES`."""
    data = read_bytes(path, MAX_TEXT_FILE_BYTES, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (undecodable byte at offset {exc.start})", source=str(path)
        ) from None


def _size(n_bytes: int) -> str:
    return f"{n_bytes // (1024 * 1024)} MB" if n_bytes >= 1024 * 1024 else f"{n_bytes} bytes"
