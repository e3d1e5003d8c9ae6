"""The host end of the LED link: one background thread owns the port.

Callers only replace the desired picture (``show``); the thread sends it whole, waits
for the acknowledgement, retransmits a bounded number of times, keeps the device's
heartbeat, and after an unplug or a silent device reopens the port, greets the device
again and re-sends the full state.
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import serial

from companion.errors import CompanionError
from companion.link import protocol
from companion.link.lights import DeviceMode, LedReadout, TableLights
from companion.link.transport import SerialTransport, find_device_port


class LinkState(enum.Enum):
    """Where the link stands; ``HostLink.status``."""

    STOPPED = "stopped"
    SEARCHING = "searching"  # no port, or the port would not open or answer
    INCOMPATIBLE = "incompatible"  # the device speaks another protocol version
    CONNECTED = "connected"


@dataclass(frozen=True)
class DeviceInfo:
    """What the device said in its ``hello`` reply."""

    port: str
    protocol: int
    firmware: str
    board_id: str
    led_count: int


@dataclass(frozen=True)
class LinkCounters:
    """Running totals since the link started (a snapshot)."""

    sent: int = 0  # frames written, retransmissions included
    acks: int = 0  # commands answered (ACK, HELLO_REPLY, READ_REPLY)
    naks: int = 0  # commands refused by the device
    retries: int = 0  # retransmissions after a reply timeout
    crc_errors: int = 0  # damaged replies dropped by the host
    stale_replies: int = 0  # late or repeated replies ignored
    reconnects: int = 0  # successful handshakes after the first one
    connects: int = 0  # successful handshakes
    heartbeats: int = 0


class _DeviceSilent(Exception):
    """No reply after every retry."""


class _DeviceRefused(Exception):
    """The device answered a command with a NAK."""


class HostLink:
    """Keeps the LED device showing the latest ``TableLights``.

    ``port=None`` finds the Pico on every (re)connect. Timings are in seconds.
    """

    def __init__(
        self,
        port: str | None = None,
        *,
        ack_timeout_s: float = 0.1,
        max_retries: int = 4,
        heartbeat_s: float = 0.5,
        reconnect_s: float = 0.25,
        port_finder: Callable[[], str | None] = find_device_port,
    ) -> None:
        self.port = port
        self.ack_timeout_s = ack_timeout_s
        self.max_retries = max_retries
        self.heartbeat_s = heartbeat_s
        self.reconnect_s = reconnect_s
        self._port_finder = port_finder
        self._lock = threading.Condition()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._desired: TableLights | None = None
        self._acked: TableLights | None = None  # what the device confirmed it shows
        self._state = LinkState.STOPPED
        self._device: DeviceInfo | None = None
        self._counters = LinkCounters()
        self._last_error = ""
        self._transport: SerialTransport | None = None
        self._parser = protocol.FrameParser()
        self._seq = 0
        self._last_tx = 0.0
        self._thread: threading.Thread | None = None
        self._readout_wanted = False
        self._readout: LedReadout | None = None

    # -- the caller's side: never blocks on the device -----------------------------

    def start(self) -> HostLink:
        if self._thread is None:
            self._stop.clear()
            self._set_state(LinkState.SEARCHING)
            self._thread = threading.Thread(target=self._run, name="led-link", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._set_state(LinkState.STOPPED)

    def __enter__(self) -> HostLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def show(self, lights: TableLights) -> None:
        """Replace the desired picture; the link thread sends it. Returns at once."""
        with self._lock:
            self._desired = lights
        self._wake.set()

    @property
    def status(self) -> LinkState:
        return self._state

    @property
    def counters(self) -> LinkCounters:
        return self._counters

    @property
    def device(self) -> DeviceInfo | None:
        """The connected device's hello reply, or None."""
        return self._device

    @property
    def last_error(self) -> str:
        return self._last_error

    @property
    def desired(self) -> TableLights | None:
        return self._desired

    def synced(self) -> bool:
        with self._lock:
            return self._state is LinkState.CONNECTED and self._acked == self._desired

    def wait_synced(self, timeout_s: float) -> bool:
        """Block until the device acknowledged the current picture (CLI, tests)."""
        with self._lock:
            return self._lock.wait_for(self.synced, timeout_s)

    def readout(self, timeout_s: float) -> LedReadout | None:
        """Ask the device what its LEDs show (blocks up to ``timeout_s``; CLI, tests)."""
        with self._lock:
            self._readout_wanted = True
            self._readout = None
        self._wake.set()
        with self._lock:
            self._lock.wait_for(lambda: not self._readout_wanted, timeout_s)
            self._readout_wanted = False
            return self._readout

    def wait_connected(self, timeout_s: float) -> bool:
        with self._lock:
            return self._lock.wait_for(lambda: self._state is LinkState.CONNECTED, timeout_s)

    # -- the link thread --------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._transport is None and not self._connect():
                self._stop.wait(self.reconnect_s)
                continue
            try:
                self._service()
            except (serial.SerialException, OSError, _DeviceSilent) as exc:
                self._last_error = str(exc) or type(exc).__name__
                self._disconnect()
        self._disconnect()

    def _connect(self) -> bool:
        port = self.port or self._port_finder()
        if port is None:
            self._last_error = "no LED device found"
            self._set_state(LinkState.SEARCHING)
            return False
        try:
            self._transport = SerialTransport(port)
            self._parser = protocol.FrameParser()
            reply = self._exchange(protocol.CMD_HELLO, bytes((protocol.PROTOCOL_VERSION,)))
            version, firmware, leds, board = protocol.codec.decode_hello_reply(reply)
        except CompanionError as exc:
            self._last_error = str(exc)  # already names the port
            self._disconnect(LinkState.SEARCHING)
            return False
        except (serial.SerialException, OSError, _DeviceSilent) as exc:
            self._last_error = f"{port}: {exc or type(exc).__name__}"
            self._disconnect(LinkState.SEARCHING)
            return False
        except (_DeviceRefused, ValueError) as exc:
            self._last_error = f"{port}: bad hello reply: {exc}"
            self._disconnect(LinkState.INCOMPATIBLE)
            return False
        if version != protocol.PROTOCOL_VERSION:
            self._last_error = (
                f"{port}: device speaks protocol {version}, host speaks "
                f"{protocol.PROTOCOL_VERSION}: flash the firmware from firmware/"
            )
            self._disconnect(LinkState.INCOMPATIBLE)
            return False
        self._device = DeviceInfo(
            port, version, ".".join(str(part) for part in firmware), board, leds
        )
        with self._lock:
            self._acked = None  # a greeted device shows nothing until it gets the state
        self._count(connects=1, reconnects=1 if self._counters.connects else 0)
        self._set_state(LinkState.CONNECTED)
        return True

    def _disconnect(self, state: LinkState = LinkState.SEARCHING) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        self._device = None
        with self._lock:
            self._acked = None
        if not self._stop.is_set():
            self._set_state(state)

    def _service(self) -> None:
        """Answer a readout request, send the picture if the device lacks it, else keep
        the heartbeat."""
        with self._lock:
            desired, acked, wanted = self._desired, self._acked, self._readout_wanted
        if wanted:
            readout = None
            try:
                readout = LedReadout.from_payload(self._exchange(protocol.CMD_READ))
            except (_DeviceRefused, ValueError) as exc:
                self._last_error = f"device readout unusable: {exc}"
            else:
                self._note_mode(readout.mode is DeviceMode.SHOWING)
            with self._lock:
                self._readout = readout
                self._readout_wanted = False
                self._lock.notify_all()
            return
        if desired is not None and desired != acked:
            try:
                self._exchange(protocol.CMD_SET_STATE, desired.to_payload())
            except _DeviceRefused as exc:
                self._last_error = f"device refused the state: {exc}"
            with self._lock:
                self._acked = desired
                self._lock.notify_all()
            return
        wait_s = self._last_tx + self.heartbeat_s - time.monotonic()
        if wait_s > 0:
            self._wake.wait(wait_s)
            self._wake.clear()
            return
        reply = self._exchange(protocol.CMD_HEARTBEAT)
        self._count(heartbeats=1)
        self._note_mode(bool(reply) and reply[0] == protocol.MODE_SHOWING)

    def _note_mode(self, showing: bool) -> None:
        if not showing:
            with self._lock:
                self._acked = None  # the device dropped its picture: send it again

    def _exchange(self, cmd: int, payload: bytes = b"") -> bytes:
        """Send one command and return the reply's payload, retransmitting as needed."""
        transport = self._transport
        assert transport is not None
        self._seq = (self._seq + 1) & 0xFF
        seq = self._seq
        frame = protocol.encode_frame(seq, cmd, payload)
        for attempt in range(self.max_retries + 1):
            if attempt:
                self._count(retries=1)
            transport.write(frame)
            self._last_tx = time.monotonic()
            self._count(sent=1)
            reply = self._await_reply(transport, seq)
            if reply is None:
                continue
            if reply.cmd == protocol.CMD_NAK:
                self._count(naks=1)
                reason = reply.payload[0] if reply.payload else 0
                raise _DeviceRefused(protocol.NAK_REASONS.get(reason, f"reason {reason}"))
            self._count(acks=1)
            return reply.payload
        raise _DeviceSilent(f"no reply after {self.max_retries} retries")

    def _await_reply(self, transport: SerialTransport, seq: int) -> protocol.LinkFrame | None:
        deadline = time.monotonic() + self.ack_timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            data = transport.read(remaining)
            if not data:
                continue
            crc_before = self._parser.crc_errors
            frames = self._parser.feed(data)
            self._count(crc_errors=self._parser.crc_errors - crc_before)
            match = next((frame for frame in frames if frame.seq == seq), None)
            # Stop and wait: anything else is a late or repeated answer to an earlier try.
            self._count(stale_replies=len(frames) - (match is not None))
            if match is not None:
                return match

    def _count(self, **increments: int) -> None:
        current = self._counters
        values = {name: getattr(current, name) + n for name, n in increments.items() if n}
        if values:
            self._counters = replace(current, **values)

    def _set_state(self, state: LinkState) -> None:
        with self._lock:
            self._state = state
            self._lock.notify_all()
