"""The firmware under the real MicroPython unix interpreter, and compiled by mpy-cross."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.link import DeviceMode, HostLink, LinkState, StatusLight, TableLights, protocol
from companion.link.emulator import MicroPythonDevice, micropython_binary
from companion.link.firmware import FILES, firmware_dir, load_module
from companion.link.lights import LedReadout
from companion.link.transport import SerialTransport

lp = protocol.codec
WAIT_S = 15.0
LIGHTS = TableLights(vat=12, seat=3, dice=("yellow", "green"), status=StatusLight.ILLEGAL)


def run_micropython(script: str, stdin: bytes = b"") -> str:
    result = subprocess.run(
        [micropython_binary(), "-c", script],
        input=stdin,
        capture_output=True,
        cwd=firmware_dir(),
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


@pytest.mark.parametrize("name", FILES)
def test_every_firmware_file_compiles_with_mpy_cross(name: str, tmp_path: Path) -> None:
    mpy_cross = Path(sys.executable).with_name("mpy-cross")
    out = tmp_path / f"{name}.mpy"
    result = subprocess.run(
        [str(mpy_cross), "-o", str(out), str(firmware_dir() / f"{name}.py")],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert out.stat().st_size > 0


@pytest.mark.micropython
def test_codec_agrees_between_cpython_and_micropython() -> None:
    """The same frames, clean and damaged, parse identically on both interpreters."""
    rng = random.Random(7)
    wire = bytearray()
    for i in range(300):
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(lp.MAX_PAYLOAD + 1)))
        frame = bytearray(lp.encode_frame(i & 0xFF, rng.randrange(256), payload))
        if i % 3 == 0:
            frame[rng.randrange(1, len(frame))] ^= 1 << rng.randrange(8)
        elif i % 7 == 0:
            frame = frame[: rng.randrange(1, len(frame))]
        wire += frame
    wire += bytes(lp.MAX_PAYLOAD + lp.OVERHEAD)
    script = """
import sys, json, linkproto
data = sys.stdin.buffer.read()
p = linkproto.Parser()
out = []
for i in range(0, len(data), 13):
    for v, s, c, pl in p.feed(data[i:i + 13]):
        out.append([v, s, c, linkproto.crc16(pl)])
print(json.dumps({"frames": out, "crc_errors": p.crc_errors,
                  "check": linkproto.crc16(b"123456789")}))
"""
    got = json.loads(run_micropython(script, bytes(wire)))
    parser = lp.Parser()
    expected = [[v, s, c, lp.crc16(p)] for v, s, c, p in parser.feed(bytes(wire))]
    assert got["frames"] == expected
    assert got["crc_errors"] == parser.crc_errors > 0
    assert got["check"] == 0x29B1


@pytest.fixture
def pico() -> Iterator[MicroPythonDevice]:
    with MicroPythonDevice() as device:
        yield device


def cpython_pixels(lights: TableLights) -> tuple[tuple[int, int, int], ...]:
    """What the same firmware code renders for ``lights`` under CPython."""
    strip = load_module("ledstrip").FakeStrip(23)
    device = load_module("leddevice").Device(strip, 0)
    device.feed(lp.encode_frame(1, lp.CMD_SET_STATE, lights.to_payload()), 0)
    return tuple(tuple(p) for p in device.pixels)


@pytest.mark.micropython
def test_host_link_drives_the_micropython_firmware(pico: MicroPythonDevice) -> None:
    with HostLink(port=pico.port) as link:
        assert link.wait_connected(WAIT_S), link.last_error
        assert link.device is not None and link.device.firmware == "1.0.0"
        link.show(LIGHTS)
        assert link.wait_synced(WAIT_S)
        readout = link.readout(WAIT_S)
    assert readout is not None
    assert readout.mode is DeviceMode.SHOWING
    assert readout.lights == LIGHTS
    assert readout.pixels == cpython_pixels(LIGHTS)
    assert pico.running(), pico.stderr()


@pytest.mark.micropython
def test_micropython_firmware_survives_unplug_and_replug(pico: MicroPythonDevice) -> None:
    with HostLink(port=pico.port) as link:
        link.show(LIGHTS)
        assert link.wait_synced(WAIT_S)
        pico.unplug()
        deadline = time.monotonic() + WAIT_S
        while link.status is LinkState.CONNECTED:
            assert time.monotonic() < deadline, "the host never noticed the unplug"
            time.sleep(0.01)
        pico.replug()
        assert link.wait_synced(WAIT_S)
        readout = link.readout(WAIT_S)
        assert readout is not None and readout.lights == LIGHTS
        assert link.counters.reconnects == 1


@pytest.mark.micropython
def test_micropython_firmware_drops_state_when_the_host_goes_quiet(
    pico: MicroPythonDevice,
) -> None:
    timeout_s = load_module("ledconfig").HEARTBEAT_TIMEOUT_MS / 1000
    with HostLink(port=pico.port, heartbeat_s=10 * timeout_s) as link:
        link.show(LIGHTS)
        assert link.wait_synced(WAIT_S)
        time.sleep(timeout_s + 0.5)  # the host stays silent past the device's timeout
        readout = link.readout(WAIT_S)
        assert readout is not None
        assert readout.mode is DeviceMode.DISCONNECTED
        assert readout.lights is None
        # The link sees the dropped picture and sends it again.
        assert link.wait_synced(WAIT_S)
        again = link.readout(WAIT_S)
        assert again is not None and again.lights == LIGHTS


def _exchange(port: SerialTransport, frame: bytes) -> list[protocol.LinkFrame]:
    port.write(frame)
    parser = protocol.FrameParser()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        frames = parser.feed(port.read(0.05))
        if frames:
            return frames
    raise AssertionError("no reply from the MicroPython firmware")


@pytest.mark.micropython
def test_micropython_firmware_suppresses_duplicates_and_stale_frames(
    pico: MicroPythonDevice,
) -> None:
    port = SerialTransport(pico.port)
    try:
        [hello] = _exchange(port, lp.encode_frame(40, lp.CMD_HELLO))
        assert hello.cmd == lp.CMD_HELLO_REPLY
        state = lp.encode_frame(41, lp.CMD_SET_STATE, LIGHTS.to_payload())
        [first] = _exchange(port, state)
        [again] = _exchange(port, state)
        assert first == again == protocol.LinkFrame(1, 41, lp.CMD_ACK, bytes((lp.MODE_SHOWING,)))
        older = lp.encode_frame(39, lp.CMD_SET_STATE, TableLights(vat=1).to_payload())
        [stale] = _exchange(port, older)
        assert (stale.cmd, stale.payload) == (lp.CMD_NAK, bytes((lp.NAK_STALE_SEQUENCE,)))
        damaged = bytearray(lp.encode_frame(42, lp.CMD_READ))
        damaged[3] ^= 0x04
        port.write(bytes(damaged))  # no reply to a damaged frame; the next one is answered
        [read] = _exchange(port, lp.encode_frame(42, lp.CMD_READ))
        assert read.cmd == lp.CMD_READ_REPLY
        assert LedReadout.from_payload(read.payload).lights == LIGHTS
    finally:
        port.close()
