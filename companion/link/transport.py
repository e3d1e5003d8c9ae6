"""Finding and opening the Pico's USB serial port (pyserial)."""

from __future__ import annotations

import contextlib
import glob
import os
import select

import serial
from serial.tools import list_ports

from companion.errors import CompanionError

PICO_USB_VID = 0x2E8A  # Raspberry Pi (RP2040 boards running MicroPython)
STABLE_NAME = "/dev/companion-led"  # made by hardware/70-companion-led.rules
BY_ID_PATTERNS = ("*Pico*", "*MicroPython*", "*RP2040*", "*2e8a*")
BAUD = 115200  # ignored by USB CDC, needed by real UARTs and pyserial


class NoDeviceError(CompanionError):
    """No LED device is plugged in (or none could be recognised)."""


def find_device_port() -> str | None:
    """The LED device's port: the udev stable name, a Pico by USB id, or by-id name."""
    if os.path.exists(STABLE_NAME):
        return STABLE_NAME
    for info in sorted(list_ports.comports(), key=lambda p: p.device):
        if info.vid == PICO_USB_VID:
            return str(info.device)
    for pattern in BY_ID_PATTERNS:
        matches = sorted(glob.glob(os.path.join("/dev/serial/by-id", pattern)))
        if matches:
            return matches[0]
    return None


def require_device_port() -> str:
    port = find_device_port()
    if port is None:
        raise NoDeviceError(
            "no LED device found: plug the Pico in over USB (it shows up as USB id "
            f"{PICO_USB_VID:04x}:0005 or {STABLE_NAME} with the udev rule), "
            "pass --port PATH, or try --emulator"
        )
    return port


class SerialTransport:
    """One open serial port: exclusive, input drained, reads with a deadline."""

    def __init__(self, port: str) -> None:
        self.port = port
        try:
            self._serial = serial.Serial(port, BAUD, timeout=0, write_timeout=1.0, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise CompanionError(f"{port}: cannot open: {exc}") from exc
        self.drain()

    def drain(self) -> int:
        """Throw away whatever the device sent before we listened (banners, old replies)."""
        dropped = 0
        self._serial.reset_input_buffer()
        while True:
            data = self.read(0.02)
            if not data:
                return dropped
            dropped += len(data)

    def write(self, data: bytes) -> None:
        self._serial.write(data)
        self._serial.flush()

    def read(self, timeout_s: float) -> bytes:
        """Whatever arrives within ``timeout_s``; raises SerialException on unplug."""
        ready, _, _ = select.select([self._serial.fileno()], [], [], max(timeout_s, 0.0))
        if not ready:
            return b""
        data: bytes = self._serial.read(max(self._serial.in_waiting, 1))
        return data

    def close(self) -> None:
        with contextlib.suppress(serial.SerialException, OSError):
            self._serial.close()
