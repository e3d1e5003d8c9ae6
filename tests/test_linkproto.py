"""The shared codec (firmware/linkproto.py) under CPython: round trips and rejections."""

from __future__ import annotations

import binascii
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.link import protocol
from companion.link.lights import LedReadout, StatusLight, TableLights

lp = protocol.codec

seqs = st.integers(0, 255)
cmds = st.integers(0, 255)
payloads = st.binary(max_size=lp.MAX_PAYLOAD)


def frame_strategy() -> st.SearchStrategy[tuple[int, int, bytes]]:
    return st.tuples(seqs, cmds, payloads)


def test_host_uses_the_firmware_file() -> None:
    root = Path(__file__).resolve().parents[1]
    assert Path(lp.__file__).resolve() == root / "firmware" / "linkproto.py"


def test_crc_matches_the_published_check_value() -> None:
    # CRC-16/CCITT-FALSE of "123456789" is 0x29B1.
    assert lp.crc16(b"123456789") == 0x29B1
    assert lp.crc16_pure(b"123456789") == 0x29B1


@given(st.binary(max_size=200))
def test_pure_crc_equals_the_c_one(data: bytes) -> None:
    assert lp.crc16_pure(data) == binascii.crc_hqx(data, 0xFFFF)


@given(st.lists(frame_strategy(), max_size=8), st.integers(1, 16))
def test_frames_round_trip_in_any_chunking(frames: list[tuple[int, int, bytes]], step: int) -> None:
    wire = b"".join(lp.encode_frame(s, c, p) for s, c, p in frames)
    parser = lp.Parser()
    got = []
    for i in range(0, len(wire), step):
        got.extend(parser.feed(wire[i : i + step]))
    assert [(s, c, bytes(p)) for (_, s, c, p) in got] == frames
    assert all(v == lp.PROTOCOL_VERSION for (v, _, _, _) in got)
    assert parser.crc_errors == 0
    assert parser.pending() == 0


@given(frame_strategy(), st.data())
def test_one_to_three_bit_errors_are_always_rejected(
    frame: tuple[int, int, bytes], data: st.DataObject
) -> None:
    wire = bytearray(lp.encode_frame(*frame))
    bits = data.draw(st.sets(st.integers(8, len(wire) * 8 - 1), min_size=1, max_size=3))
    for bit in bits:
        wire[bit // 8] ^= 1 << (bit % 8)
    parser = lp.Parser()
    # Whatever the flips did to the length byte, a full frame of zeros after it flushes.
    assert parser.feed(bytes(wire) + bytes(lp.MAX_PAYLOAD + lp.OVERHEAD)) == []


@given(frame_strategy(), st.data())
def test_truncated_frame_is_dropped_and_the_next_frame_survives(
    frame: tuple[int, int, bytes], data: st.DataObject
) -> None:
    wire = lp.encode_frame(*frame)
    cut = data.draw(st.integers(1, len(wire) - 1))
    follow = lp.encode_frame(7, lp.CMD_HEARTBEAT)
    parser = lp.Parser()
    got = parser.feed(wire[:cut])
    # A false start inside the remains may swallow followers until its claimed length
    # is reached; then the search resumes and finds them. The remains never parse.
    for _ in range((lp.MAX_PAYLOAD + lp.OVERHEAD) // len(follow) + 2):
        got += parser.feed(follow)
    assert got
    assert all((g[1], g[2]) == (7, lp.CMD_HEARTBEAT) for g in got)


@given(st.binary(max_size=64), frame_strategy(), st.binary(max_size=64))
def test_garbage_around_a_frame_is_skipped(
    before: bytes, frame: tuple[int, int, bytes], after: bytes
) -> None:
    parser = lp.Parser()
    wire = lp.encode_frame(*frame)
    # Zeros hold no start byte: they complete any false start the garbage began.
    got = parser.feed(before + wire + bytes(lp.MAX_PAYLOAD + lp.OVERHEAD))
    matches = [g for g in got if (g[1], g[2], bytes(g[3])) == frame]
    assert matches, "the intact frame is found behind the garbage"
    assert parser.feed(after + bytes(lp.MAX_PAYLOAD + lp.OVERHEAD) + wire)[-1][1:3] == frame[:2]


def test_impossible_length_is_counted_and_skipped() -> None:
    parser = lp.Parser()
    good = lp.encode_frame(1, lp.CMD_HEARTBEAT)
    assert parser.feed(bytes((lp.SYNC, lp.MAX_PAYLOAD + 1)) + good)[0][1] == 1
    assert parser.length_errors == 1


def test_encoder_refuses_what_the_wire_cannot_carry() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        lp.encode_frame(1, lp.CMD_SET_STATE, bytes(lp.MAX_PAYLOAD + 1))
    with pytest.raises(ValueError):
        lp.encode_frame(256, lp.CMD_SET_STATE)


@given(
    st.none() | st.integers(1, 16),
    st.none() | st.integers(0, 3),
    st.sampled_from([None, *protocol.COLOURS[1:]]),
    st.sampled_from([None, *protocol.COLOURS[1:]]),
    st.booleans(),
    st.sampled_from(list(StatusLight)),
)
def test_table_lights_round_trip_through_the_state_payload(
    vat: int | None,
    seat: int | None,
    die1: str | None,
    die2: str | None,
    rolling: bool,
    status: StatusLight,
) -> None:
    lights = TableLights(vat=vat, seat=seat, dice=(die1, die2), rolling=rolling, status=status)
    assert TableLights.from_payload(lights.to_payload()) == lights


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"\x11\xff\x00\x00\x00\x00", "vat 17"),
        (b"\xff\x04\x00\x00\x00\x00", "seat 4"),
        (b"\xff\xff\x08\x00\x00\x00", "colour"),
        (b"\xff\xff\x00\x00\x02\x00", "flag"),
        (b"\xff\xff\x00\x00\x00\x04", "status"),
        (b"\xff\xff\x00\x00\x00", "6 bytes"),
    ],
)
def test_malformed_state_payloads_are_named(payload: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        lp.decode_state(payload)


def test_readout_length_is_checked() -> None:
    with pytest.raises(ValueError, match="claims"):
        LedReadout.from_payload(bytes((1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 3)))


@pytest.mark.parametrize(
    ("seq", "last", "distance"), [(5, 4, 1), (4, 5, -1), (0, 255, 1), (4, 4, 0)]
)
def test_sequence_distance_wraps(seq: int, last: int, distance: int) -> None:
    assert lp.seq_after(seq, last) == distance
