"""Locate the Pico firmware sources and load them into CPython.

The files in ``firmware/`` are the single source of truth for the wire codec and the
device logic: the host imports ``linkproto`` from there, and the emulator runs the
firmware's own ``leddevice``. The firmware modules import one another by bare name,
as they do on the Pico, so they are registered under those names.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from companion.errors import CompanionError

# In dependency order.
MODULES = ("linkproto", "ledconfig", "ledstrip", "leddevice")
FILES = (*MODULES, "main")


def firmware_dir() -> Path:
    """``$COMPANION_FIRMWARE_DIR``, or the firmware shipped inside the package.

    ``companion/link/pico/`` links to the files of ``firmware/`` in a source checkout, and
    holds copies of them in an installed wheel, so both sides always run the same code.
    """
    override = os.environ.get("COMPANION_FIRMWARE_DIR")
    path = Path(override) if override else Path(__file__).parent / "pico"
    if not (path / "linkproto.py").is_file():
        raise CompanionError(
            f"firmware sources not found in {path}: reinstall the package "
            "or set COMPANION_FIRMWARE_DIR to the firmware/ folder"
        )
    return path


@functools.cache
def load_module(name: str) -> ModuleType:
    """The firmware module ``name``, loaded once from :func:`firmware_dir`."""
    if name not in MODULES:
        raise ValueError(f"{name!r} is not a firmware module")
    for dependency in MODULES[: MODULES.index(name)]:
        load_module(dependency)
    path = firmware_dir() / f"{name}.py"
    existing = sys.modules.get(name)
    if existing is not None:
        if Path(getattr(existing, "__file__", "") or "").resolve() != path.resolve():
            raise CompanionError(f"another module named {name!r} is already imported")
        return existing
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CompanionError(f"cannot load firmware module {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
