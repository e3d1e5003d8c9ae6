"""The firmware's device logic (firmware/leddevice.py) driven frame by frame in CPython."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from companion.boards import load_profile
from companion.link import protocol
from companion.link.firmware import load_module
from companion.link.lights import LedReadout, StatusLight, TableLights

lp = protocol.codec
LIGHTS = TableLights(vat=1, seat=2, dice=("green", "purple"), status=StatusLight.DESYNC)


@pytest.fixture
def cfg() -> ModuleType:
    return load_module("ledconfig")


@pytest.fixture
def device() -> Any:
    strip = load_module("ledstrip").FakeStrip(load_module("ledconfig").LED_COUNT)
    return load_module("leddevice").Device(strip, 0)


def reply(device: Any, frame: bytes, now_ms: int = 10) -> list[tuple[int, int, int, bytes]]:
    parser = lp.Parser()
    frames: list[tuple[int, int, int, bytes]] = parser.feed(device.feed(frame, now_ms))
    return frames


def readout(device: Any) -> LedReadout:
    return LedReadout.from_payload(device.read_payload())


def test_vat_leds_follow_the_troia_vat_grid_as_a_serpentine(cfg: ModuleType) -> None:
    grid = load_profile("troia").vat_grid
    serpentine = [n for r, row in enumerate(grid) for n in (row if r % 2 == 0 else row[::-1])]
    assert list(cfg.VAT_NUMBERS) == serpentine
    assert sorted(cfg.VAT_NUMBERS) == list(range(1, 17))


def test_hello_reports_versions_and_board(device: Any, cfg: ModuleType) -> None:
    [(_, seq, cmd, payload)] = reply(device, lp.encode_frame(9, lp.CMD_HELLO, b"\x01"))
    assert (seq, cmd) == (9, lp.CMD_HELLO_REPLY)
    assert lp.decode_hello_reply(payload) == (
        lp.PROTOCOL_VERSION,
        cfg.FIRMWARE_VERSION,
        cfg.LED_COUNT,
        cfg.BOARD_ID,
    )


def test_state_lights_exactly_the_named_leds(device: Any, cfg: ModuleType) -> None:
    reply(device, lp.encode_frame(1, lp.CMD_HELLO))
    [(_, _, cmd, payload)] = reply(
        device, lp.encode_frame(2, lp.CMD_SET_STATE, LIGHTS.to_payload())
    )
    assert cmd == lp.CMD_ACK and payload[0] == lp.MODE_SHOWING
    shown = readout(device)
    assert shown.lights == LIGHTS
    assert set(shown.lit()) == {
        cfg.VAT_NUMBERS.index(1),
        cfg.SEAT_FIRST + 2,
        cfg.DICE_FIRST,
        cfg.DICE_FIRST + 1,
        cfg.STATUS_LED,
    }


def test_duplicate_frame_is_answered_again_but_applied_once(device: Any) -> None:
    frame = lp.encode_frame(3, lp.CMD_SET_STATE, LIGHTS.to_payload())
    first = device.feed(frame, 10)
    again = device.feed(frame, 20)
    assert again == first
    assert device.applied == 1
    assert device.duplicates == 1


def test_reordered_older_frame_is_rejected(device: Any) -> None:
    newer = TableLights(vat=5)
    older = TableLights(vat=6)
    reply(device, lp.encode_frame(11, lp.CMD_SET_STATE, newer.to_payload()))
    [(_, seq, cmd, payload)] = reply(
        device, lp.encode_frame(10, lp.CMD_SET_STATE, older.to_payload())
    )
    assert (seq, cmd, payload[0]) == (10, lp.CMD_NAK, lp.NAK_STALE_SEQUENCE)
    assert readout(device).lights == newer


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (lp.encode_frame(1, lp.CMD_SET_STATE, b"\x01", version=1), lp.NAK_BAD_PAYLOAD),
        (lp.encode_frame(1, 0x42), lp.NAK_UNKNOWN_COMMAND),
        (lp.encode_frame(1, lp.CMD_SET_STATE, LIGHTS.to_payload(), version=2), lp.NAK_BAD_VERSION),
    ],
)
def test_bad_commands_get_a_nak_and_change_nothing(device: Any, frame: bytes, reason: int) -> None:
    [(_, _, cmd, payload)] = reply(device, frame)
    assert (cmd, payload[0]) == (lp.CMD_NAK, reason)
    assert readout(device).lights is None


def test_corrupted_frame_gets_no_reply(device: Any) -> None:
    frame = bytearray(lp.encode_frame(1, lp.CMD_SET_STATE, LIGHTS.to_payload()))
    frame[6] ^= 0x10
    assert device.feed(bytes(frame), 10) == b""
    assert device.parser.crc_errors == 1
    assert device.applied == 0


def test_heartbeat_timeout_drops_the_state_and_blinks(device: Any, cfg: ModuleType) -> None:
    reply(device, lp.encode_frame(1, lp.CMD_SET_STATE, LIGHTS.to_payload()), now_ms=0)
    timeout = cfg.HEARTBEAT_TIMEOUT_MS
    device.tick(timeout)
    assert readout(device).lights == LIGHTS  # not yet
    blink = cfg.BLINK_MS
    seen = set()
    for now in (timeout + 1, timeout + blink + 1, timeout + 2 * blink + 1):
        device.tick(now)
        shown = readout(device)
        assert shown.lights is None
        assert set(shown.lit()) <= {cfg.STATUS_LED}
        seen.add(bool(shown.lit()))
    assert seen == {True, False}, "the status LED blinks"
    # A heartbeat tells the host the picture is gone, so it sends it again.
    [(_, _, cmd, payload)] = reply(device, lp.encode_frame(2, lp.CMD_HEARTBEAT), now_ms=timeout + 5)
    assert (cmd, payload[0]) == (lp.CMD_ACK, lp.MODE_DISCONNECTED)


def test_heartbeats_keep_the_state_alive(device: Any, cfg: ModuleType) -> None:
    reply(device, lp.encode_frame(1, lp.CMD_SET_STATE, LIGHTS.to_payload()), now_ms=0)
    step = cfg.HEARTBEAT_TIMEOUT_MS // 2
    for i in range(2, 8):
        reply(device, lp.encode_frame(i, lp.CMD_HEARTBEAT), now_ms=i * step)
    assert readout(device).lights == LIGHTS


def test_rolling_dice_animate(device: Any, cfg: ModuleType) -> None:
    rolling = TableLights(dice=("red", "red"), rolling=True)
    reply(device, lp.encode_frame(1, lp.CMD_SET_STATE, rolling.to_payload()), now_ms=0)
    dice = set()
    for step in range(8):
        device.tick(step * cfg.ROLL_STEP_MS)
        pixels = readout(device).pixels
        dice.add((pixels[cfg.DICE_FIRST], pixels[cfg.DICE_FIRST + 1]))
    assert len(dice) > 2


def test_half_sent_frame_is_dropped_after_a_quiet_line(device: Any, cfg: ModuleType) -> None:
    frame = lp.encode_frame(1, lp.CMD_SET_STATE, LIGHTS.to_payload())
    device.feed(frame[:5], 0)
    device.tick(cfg.PARTIAL_FRAME_TIMEOUT_MS + 1)
    assert device.parser.pending() == 0
    assert reply(device, frame, now_ms=cfg.PARTIAL_FRAME_TIMEOUT_MS + 2)[0][2] == lp.CMD_ACK
