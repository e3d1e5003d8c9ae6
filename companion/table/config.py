"""The table's configuration file (TOML): where data lives, which hardware, the dashboard.

Every backend is named by ``kind`` so a Pi with a camera, the LED device and buttons, and a
laptop replaying a game record, use the same file format.  Secrets never go in this file:
the operator token lives in its own file (``[web] token_file``, mode 0600) or in the
environment (``COMPANION_OPERATOR_TOKEN``, which wins); the game log's chain key lives in
its own file (``[log] key_file``), never in the data folder.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.errors import InputError
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


def _backend(data: dict[str, Any], key: str, kinds: tuple[str, ...], source: str) -> Backend:
    section = _table(data, key, source)
    kind = section.get("kind", "none")
    if kind not in kinds:
        raise InputError(
            f"unknown kind {kind!r} (one of: {', '.join(kinds)})",
            source=source,
            field=f"{key}.kind",
        )
    return Backend(kind, {k: v for k, v in section.items() if k != "kind"})


def load_config(path: str | Path) -> TableConfig:
    source = str(path)
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such configuration file", source=source) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file: {exc}", source=source) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", source=source) from None
    data_dir = data.get("data_dir", "companion-data")
    if not isinstance(data_dir, str) or not data_dir:
        raise InputError("expected a folder name", source=source, field="data_dir")
    web = _table(data, "web", source)
    host = web.get("host", "127.0.0.1")
    port = web.get("port", 5000)
    if not isinstance(host, str):
        raise InputError("expected a host name or address", source=source, field="web.host")
    if not isinstance(port, int) or not 0 <= port <= 65535:
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


def demo_config(
    data_dir: Path,
    *,
    port: int = 5000,
    seed: int | None = None,
    interval_s: float = 2.0,
    game: dict[str, Any] | None = None,
) -> TableConfig:
    """A table watched by the synthetic camera (simulated players, hands over the board, one
    misplaced tile that is flagged) with the emulated LED device (the real firmware code
    behind a pseudo-terminal)."""
    options: dict[str, Any] = {"interval_s": interval_s, "mistakes_at": [5, 14, 27]}
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
