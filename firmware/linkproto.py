"""The LED link codec, shared verbatim by the Pico firmware and the host.

One file, two interpreters: MicroPython on the Pico (and its unix port in tests) and
CPython on the host. It therefore sticks to the common subset: no dataclasses, no typing
imports, no f-strings, annotations with builtin types only. PROTOCOL.md describes the
wire format this module implements.

Frame: SYNC LEN VER SEQ CMD PAYLOAD[LEN] CRC_HI CRC_LO
CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over LEN..PAYLOAD.
"""

SYNC = 0x7E
PROTOCOL_VERSION = 1
MAX_PAYLOAD = 96
HEADER_LEN = 5  # SYNC LEN VER SEQ CMD
OVERHEAD = HEADER_LEN + 2

# Commands, host to device.
CMD_HELLO = 0x01
CMD_SET_STATE = 0x02
CMD_HEARTBEAT = 0x03
CMD_READ = 0x04
# Replies, device to host; each carries the sequence number of the frame it answers.
CMD_ACK = 0x80
CMD_NAK = 0x81
CMD_HELLO_REPLY = 0x82
CMD_READ_REPLY = 0x83

COMMAND_NAMES = {
    CMD_HELLO: "hello",
    CMD_SET_STATE: "set_state",
    CMD_HEARTBEAT: "heartbeat",
    CMD_READ: "read",
    CMD_ACK: "ack",
    CMD_NAK: "nak",
    CMD_HELLO_REPLY: "hello_reply",
    CMD_READ_REPLY: "read_reply",
}

# NAK reasons.
NAK_BAD_VERSION = 1
NAK_UNKNOWN_COMMAND = 2
NAK_BAD_PAYLOAD = 3
NAK_STALE_SEQUENCE = 4

# Device display modes, reported in ACK payloads and READ replies.
MODE_WAITING = 0  # powered up or greeted, no state received yet
MODE_SHOWING = 1  # showing the host's desired state
MODE_DISCONNECTED = 2  # host silent past the heartbeat timeout; state dropped

# Status light values of the state payload.
STATUS_IDLE = 0
STATUS_OK = 1
STATUS_DESYNC = 2
STATUS_ILLEGAL = 3
STATUS_NAMES = ("idle", "ok", "desync", "illegal")

# Dice colours: index on the wire, name on both sides. 0 means unlit.
COLOURS = ("off", "green", "red", "yellow", "purple", "orange", "blue", "white")

NO_VALUE = 0xFF  # "none" for the vat and seat bytes
FLAG_ROLLING = 0x01
STATE_LEN = 6  # vat seat die1 die2 flags status

_TABLE = []


def _build_table() -> list:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
        table.append(crc)
    return table


def crc16_pure(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE, table driven; the path the Pico takes."""
    if not _TABLE:
        _TABLE.extend(_build_table())
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


try:
    from binascii import crc_hqx as _crc_hqx  # CPython: the same CRC in C

    def crc16(data: bytes, crc: int = 0xFFFF) -> int:
        """CRC-16/CCITT-FALSE (crc_hqx with the 0xFFFF start value)."""
        return _crc_hqx(data, crc)

except ImportError:
    crc16 = crc16_pure


def encode_frame(
    seq: int, cmd: int, payload: bytes = b"", version: int = PROTOCOL_VERSION
) -> bytes:
    """One complete frame ready for the wire."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    if not 0 <= seq <= 255 or not 0 <= cmd <= 255 or not 0 <= version <= 255:
        raise ValueError("seq, cmd and version are single bytes")
    body = bytes((len(payload), version, seq, cmd)) + bytes(payload)
    crc = crc16(body)
    return bytes((SYNC,)) + body + bytes((crc >> 8, crc & 0xFF))


class Parser:
    """Incremental frame finder: feed raw bytes, get whole frames back.

    A frame whose length is impossible or whose CRC fails is rejected and the search
    resumes one byte after its start byte, so a frame hidden behind noise or behind a
    truncated frame is still found. Frames are tuples (version, seq, cmd, payload).
    """

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.frames_ok = 0
        self.crc_errors = 0
        self.length_errors = 0
        self.discarded_bytes = 0

    def pending(self) -> int:
        """Bytes held back waiting for the rest of a frame."""
        return len(self.buffer)

    def discard(self) -> None:
        """Drop a partial frame, e.g. after the line went quiet mid-frame."""
        self.discarded_bytes += len(self.buffer)
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list:
        buf = self.buffer
        buf.extend(data)
        frames = []
        start = 0
        size = len(buf)
        while True:
            found = buf.find(b"\x7e", start)
            if found < 0:
                self.discarded_bytes += size - start
                start = size
                break
            self.discarded_bytes += found - start
            start = found
            if size - start < OVERHEAD:
                break
            length = buf[start + 1]
            if length > MAX_PAYLOAD:
                self.length_errors += 1
                self.discarded_bytes += 1
                start += 1
                continue
            end = start + OVERHEAD + length
            if end > size:
                break
            body = bytes(buf[start + 1 : end - 2])
            if crc16(body) != (buf[end - 2] << 8) | buf[end - 1]:
                self.crc_errors += 1
                self.discarded_bytes += 1
                start += 1
                continue
            self.frames_ok += 1
            frames.append((body[1], body[2], body[3], body[4:]))
            start = end
        self.buffer = buf[start:] if start else buf
        return frames


def encode_state(vat: int, seat: int, die1: int, die2: int, rolling: bool, status: int) -> bytes:
    """The SET_STATE payload: the whole desired picture, never a delta."""
    return bytes(
        (
            NO_VALUE if vat is None else vat,
            NO_VALUE if seat is None else seat,
            die1,
            die2,
            FLAG_ROLLING if rolling else 0,
            status,
        )
    )


def decode_state(payload: bytes) -> tuple:
    """(vat|None, seat|None, die1, die2, rolling, status); ValueError when malformed."""
    if len(payload) != STATE_LEN:
        raise ValueError(f"state payload must be {STATE_LEN} bytes, got {len(payload)}")
    vat, seat, die1, die2, flags, status = tuple(payload)
    if vat != NO_VALUE and not 1 <= vat <= 16:
        raise ValueError(f"vat {vat} outside 1-16")
    if seat != NO_VALUE and not 0 <= seat <= 3:
        raise ValueError(f"seat {seat} outside 0-3")
    if die1 >= len(COLOURS) or die2 >= len(COLOURS):
        raise ValueError("unknown dice colour")
    if flags & ~FLAG_ROLLING:
        raise ValueError(f"unknown flag bits 0x{flags:02x}")
    if status >= len(STATUS_NAMES):
        raise ValueError(f"unknown status {status}")
    return (
        None if vat == NO_VALUE else vat,
        None if seat == NO_VALUE else seat,
        die1,
        die2,
        bool(flags & FLAG_ROLLING),
        status,
    )


def encode_hello_reply(firmware: tuple, board_id: str, led_count: int) -> bytes:
    """protocol version, firmware major minor patch, LED count, board id (ASCII)."""
    name = board_id.encode()[:32]
    return bytes((PROTOCOL_VERSION, firmware[0], firmware[1], firmware[2], led_count)) + name


def decode_hello_reply(payload: bytes) -> tuple:
    """(protocol, (major, minor, patch), led_count, board_id)."""
    if len(payload) < 5:
        raise ValueError(f"hello reply of {len(payload)} bytes is too short")
    return (
        payload[0],
        (payload[1], payload[2], payload[3]),
        payload[4],
        bytes(payload[5:]).decode(),
    )


def seq_after(seq: int, last: int) -> int:
    """Signed distance from last to seq on the 8-bit ring, in -127..128."""
    return ((seq - last + 127) & 0xFF) - 127
