"""The wire codec, as the host sees it: ``firmware/linkproto.py`` itself, with types.

Nothing here re-implements the protocol; the constants and functions are the firmware
module's own, so the host and the Pico cannot drift apart.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from companion.link.firmware import load_module

codec: Any = load_module("linkproto")

PROTOCOL_VERSION: int = codec.PROTOCOL_VERSION
CMD_HELLO: int = codec.CMD_HELLO
CMD_SET_STATE: int = codec.CMD_SET_STATE
CMD_HEARTBEAT: int = codec.CMD_HEARTBEAT
CMD_READ: int = codec.CMD_READ
CMD_ACK: int = codec.CMD_ACK
CMD_NAK: int = codec.CMD_NAK
CMD_HELLO_REPLY: int = codec.CMD_HELLO_REPLY
CMD_READ_REPLY: int = codec.CMD_READ_REPLY
MODE_WAITING: int = codec.MODE_WAITING
MODE_SHOWING: int = codec.MODE_SHOWING
MODE_DISCONNECTED: int = codec.MODE_DISCONNECTED
COLOURS: tuple[str, ...] = tuple(codec.COLOURS)
STATUS_NAMES: tuple[str, ...] = tuple(codec.STATUS_NAMES)
NAK_REASONS = {
    codec.NAK_BAD_VERSION: "bad protocol version",
    codec.NAK_UNKNOWN_COMMAND: "unknown command",
    codec.NAK_BAD_PAYLOAD: "malformed payload",
    codec.NAK_STALE_SEQUENCE: "stale sequence number",
}


class LinkFrame(NamedTuple):
    version: int
    seq: int
    cmd: int
    payload: bytes


def encode_frame(seq: int, cmd: int, payload: bytes = b"") -> bytes:
    frame: bytes = codec.encode_frame(seq, cmd, payload)
    return frame


def crc16(data: bytes) -> int:
    value: int = codec.crc16(data)
    return value


class FrameParser:
    """Typed wrapper of ``linkproto.Parser`` (which keeps the error counters)."""

    def __init__(self) -> None:
        self._parser = codec.Parser()

    def feed(self, data: bytes) -> list[LinkFrame]:
        return [LinkFrame(v, s, c, bytes(p)) for (v, s, c, p) in self._parser.feed(data)]

    def pending(self) -> int:
        return int(self._parser.pending())

    @property
    def frames_ok(self) -> int:
        return int(self._parser.frames_ok)

    @property
    def crc_errors(self) -> int:
        return int(self._parser.crc_errors)
