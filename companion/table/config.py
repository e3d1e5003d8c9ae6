"""The table's configuration file (TOML): where data lives, which hardware, the dashboard.

Every backend is named by ``kind`` so a Pi with a camera, the LED device and buttons, and a
laptop replaying a game record, use the same file format.  Secrets never go in this file:
the operator token lives in its own file (``[web] token_file``, mode 0600) or in the
environment (``COMPANION_OPERATOR_TOKEN``, which wins); the game log's chain key lives in
its own file (``[log] key_file``), never in the data folder.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.games.simulated import DEFAULT_PACE_S, DEFAULT_PATIENCE_S, DEMO_MISTAKES
from companion.input_files import read_text
from companion.table.chain_key import default_key_path

CAMERA_KINDS = ("none", "record", "simulated", "synthetic", "opencv", "picamera")
LIGHT_KINDS = ("none", "print", "serial", "emulated")
BUTTON_KINDS = ("none", "gpio")


@dataclass(frozen=True)
class Backend:
    kind: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TableConfig:
    source: str
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 5000
    camera: Backend = Backend("none")
    lights: Backend = Backend("none")
    buttons: Backend = Backend("none")
    game: dict[str, Any] | None = None
    token_file: Path | None = None
    key_file: Path = field(default_factory=default_key_path)

    @property
    def log_path(self) -> Path:
        return self.data_dir / "table.db"

    def path(self, value: str) -> Path:
        """A path from the file, relative to the file's own folder."""
        p = Path(value)
        return p if p.is_absolute() else Path(self.source).parent / p


def _table(data: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise InputError("expected a table", source=source, field=key)
    return value


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_seconds(value: Any) -> bool:
    number = _is_int(value) or isinstance(value, float)
    return number and math.isfinite(value) and 0 <= value <= MAX_OPTION_SECONDS


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= 4096


MAX_OPTION_SECONDS = 3600
# The frame sizes a camera may be asked for (pixels, each side): from a webcam's smallest
# useful mode to past the Raspberry Pi cameras' full sensors (4608 x 2592 at most).
MIN_FRAME_SIDE, MAX_FRAME_SIDE = 320, 8192
# What each backend option must be, so a wrong type is named here and not met as a
# crash once the table starts: (what is expected, test).
OPTION_CHECKS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "index": ("a camera number 0-63", lambda v: _is_int(v) and 0 <= v <= 63),
    "size": (
        f"a frame size [width, height], {MIN_FRAME_SIDE} to {MAX_FRAME_SIDE} pixels each",
        lambda v: (
            isinstance(v, list)
            and len(v) == 2
            and all(_is_int(side) and MIN_FRAME_SIDE <= side <= MAX_FRAME_SIDE for side in v)
        ),
    ),
    "interval_s": (f"seconds, 0 to {MAX_OPTION_SECONDS}", _is_seconds),
    "still_s": (f"seconds, 0 to {MAX_OPTION_SECONDS}", _is_seconds),
    "seed": ("a whole number", lambda v: _is_int(v) and abs(v) < 2**63),
    "mistakes_at": (
        "a list of turn numbers",
        lambda v: isinstance(v, list) and all(_is_int(t) and 0 <= t <= 1000 for t in v),
    ),
    "board": ("a board name or profile file", _is_text),
    "record": ("a game record file", _is_text),
    "port": ("a serial port path", _is_text),
    "accept_pin": ("a GPIO pin number 0-40", lambda v: _is_int(v) and 0 <= v <= 40),
    "undo_pin": ("a GPIO pin number 0-40", lambda v: _is_int(v) and 0 <= v <= 40),
}


def _backend(data: dict[str, Any], key: str, kinds: tuple[str, ...], source: str) -> Backend:
    section = _table(data, key, source)
    kind = section.get("kind", "none")
    if not isinstance(kind, str) or kind not in kinds:
        raise InputError(
            f"unknown kind {kind!r} (one of: {', '.join(kinds)})",
            source=source,
            field=f"{key}.kind",
        )
    options = {k: v for k, v in section.items() if k != "kind"}
    for name, value in options.items():
        expected, valid = OPTION_CHECKS.get(name, ("", lambda _: True))
        if not valid(value):
            raise InputError(
                f"expected {expected}, got {value!r:.60}", source=source, field=f"{key}.{name}"
            )
    return Backend(kind, options)


def load_config(path: str | Path) -> TableConfig:
    source = str(path)
    text = read_text(path, what="configuration file")
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise InputError("not valid TOML: nested too deeply", source=source) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", source=source) from None
    except ValueError:  # Python's limit on the digits of an integer
        raise InputError("not valid TOML: a number too long to read", source=source) from None
    data_dir = data.get("data_dir", "companion-data")
    if not isinstance(data_dir, str) or not data_dir:
        raise InputError("expected a folder name", source=source, field="data_dir")
    web = _table(data, "web", source)
    host = web.get("host", "127.0.0.1")
    port = web.get("port", 5000)
    if not isinstance(host, str):
        raise InputError("expected a host name or address", source=source, field="web.host")
    if not _is_int(port) or not 0 <= port <= 65535:
        raise InputError("expected a port number 0-65535", source=source, field="web.port")
    token_file = web.get("token_file")
    if token_file is not None and (not isinstance(token_file, str) or not token_file):
        raise InputError("expected a file name", source=source, field="web.token_file")
    game = data.get("game")
    if game is not None and not isinstance(game, dict):
        raise InputError("expected a table", source=source, field="game")
    base = Path(source).parent
    folder = Path(data_dir)
    data_path = folder if folder.is_absolute() else base / folder
    return TableConfig(
        source=source,
        data_dir=data_path,
        key_file=_key_file(_table(data, "log", source), base, data_path, source),
        host=host,
        port=port,
        camera=_backend(data, "camera", CAMERA_KINDS, source),
        lights=_backend(data, "lights", LIGHT_KINDS, source),
        buttons=_backend(data, "buttons", BUTTON_KINDS, source),
        game=game,
        token_file=None if token_file is None else base / token_file,
    )


def _key_file(section: dict[str, Any], base: Path, data_dir: Path, source: str) -> Path:
    """The chain key's file: kept out of the data folder, where a copy of the log goes."""
    value = section.get("key_file")
    if value is None:
        return default_key_path()
    if not isinstance(value, str) or not value:
        raise InputError("expected a file path", source=source, field="log.key_file")
    path = Path(value).expanduser()
    path = path if path.is_absolute() else base / path
    if path.resolve().is_relative_to(data_dir.resolve()):
        raise InputError(
            "the chain key must be kept outside the data folder", source=source,
            field="log.key_file",
        )  # fmt: skip
    return path


def make_data_dir(config: TableConfig) -> Path:
    """Creates the data folder, or says in one line why it cannot be."""
    try:
        config.data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"cannot create the data folder {config.data_dir}: {exc.strerror or exc}",
            source=config.source,
            field="data_dir",
        ) from None
    return config.data_dir


def demo_config(
    data_dir: Path,
    *,
    port: int = 5000,
    seed: int | None = None,
    pace_s: float = DEFAULT_PACE_S,
    patience_s: float | None = DEFAULT_PATIENCE_S,
    mistakes_at: tuple[int, ...] = DEMO_MISTAKES,
    game: dict[str, Any] | None = None,
) -> TableConfig:
    """A table watched by the synthetic camera (simulated players who follow the operator,
    hands over the board, a wrong tile now and then) with the emulated LED device (the real
    firmware code behind a pseudo-terminal); ``patience_s=None``: the players wait for the
    operator to settle every flag."""
    options: dict[str, Any] = {"interval_s": pace_s, "mistakes_at": list(mistakes_at)}
    if patience_s is None:
        options["wait_for_operator"] = True
    else:
        options["patience_s"] = patience_s
    if seed is not None:
        options["seed"] = seed
    return TableConfig(
        source=str(data_dir / "table.toml"),
        data_dir=data_dir,
        port=port,
        camera=Backend("synthetic", options),
        game=game,
        lights=Backend("emulated"),
    )
