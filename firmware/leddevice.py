"""The device side of the link: frames in, replies out, pixels on the strip.

Pure logic: no I/O and no clock of its own. ``main.py`` (on the Pico or the unix port)
and the host's emulator feed it bytes with the current time in milliseconds and write
back what it returns, so one piece of code is what runs everywhere.
"""

import ledconfig
import linkproto as lp

try:
    from time import ticks_diff, ticks_ms
except ImportError:  # CPython (the emulator): a monotonic clock without wrap-around
    import time

    def ticks_ms() -> int:
        return int(time.monotonic() * 1000)

    def ticks_diff(a: int, b: int) -> int:
        return a - b


class Device:
    """Owns the displayed state and enforces the heartbeat timeout on its own."""

    def __init__(self, strip, now_ms: int, config=ledconfig) -> None:
        self.cfg = config
        self.strip = strip
        self.parser = lp.Parser()
        self.mode = lp.MODE_WAITING
        self.state = None  # decoded state tuple, see linkproto.decode_state
        self.last_seq = None
        self.last_reply = b""
        self.last_rx_ms = now_ms
        self.last_byte_ms = now_ms
        self.applied = 0
        self.duplicates = 0
        self.stale = 0
        self.naks = 0
        self.timeouts = 0
        self.pixels = None
        self.render(now_ms)

    def feed(self, data: bytes, now_ms: int) -> bytes:
        """Take bytes from the host; return the bytes to send back."""
        out = b""
        if data:
            self._drop_stale_partial(now_ms)
            self.last_byte_ms = now_ms
            for frame in self.parser.feed(data):
                out += self.handle(frame, now_ms)
        self.tick(now_ms)
        return out

    def tick(self, now_ms: int) -> None:
        """Advance time: heartbeat timeout, animations, half-sent frames."""
        self._drop_stale_partial(now_ms)
        silent = ticks_diff(now_ms, self.last_rx_ms) > self.cfg.HEARTBEAT_TIMEOUT_MS
        if silent and self.mode != lp.MODE_DISCONNECTED:
            self.mode = lp.MODE_DISCONNECTED
            self.state = None  # never show stale state once the host is gone
            self.timeouts += 1
        self.render(now_ms)

    def _drop_stale_partial(self, now_ms: int) -> None:
        late = ticks_diff(now_ms, self.last_byte_ms) > self.cfg.PARTIAL_FRAME_TIMEOUT_MS
        if late and self.parser.pending():
            self.parser.discard()

    def handle(self, frame: tuple, now_ms: int) -> bytes:
        """Reply to one CRC-valid frame (version, seq, cmd, payload)."""
        version, seq, cmd, payload = frame
        self.last_rx_ms = now_ms
        if cmd == lp.CMD_HELLO:
            # A new session: forget the old sequence and state, the host sends its own.
            self.last_seq = seq
            self.state = None
            self.mode = lp.MODE_WAITING
            cfg = self.cfg
            info = lp.encode_hello_reply(cfg.FIRMWARE_VERSION, cfg.BOARD_ID, cfg.LED_COUNT)
            self.last_reply = lp.encode_frame(seq, lp.CMD_HELLO_REPLY, info)
            return self.last_reply
        if version != lp.PROTOCOL_VERSION:
            return self._nak(seq, lp.NAK_BAD_VERSION)
        if self.last_seq is not None:
            distance = lp.seq_after(seq, self.last_seq)
            if distance == 0:
                self.duplicates += 1  # our reply was lost: repeat it, apply nothing
                return self.last_reply
            if distance < 0:
                self.stale += 1  # an old frame arriving late
                return self._nak(seq, lp.NAK_STALE_SEQUENCE)
        if cmd == lp.CMD_SET_STATE:
            try:
                state = lp.decode_state(payload)
            except ValueError:
                reply = self._nak(seq, lp.NAK_BAD_PAYLOAD)
            else:
                self.state = state
                self.mode = lp.MODE_SHOWING
                self.applied += 1
                reply = self._ack(seq)
        elif cmd == lp.CMD_HEARTBEAT:
            reply = self._ack(seq)
        elif cmd == lp.CMD_READ:
            reply = lp.encode_frame(seq, lp.CMD_READ_REPLY, self.read_payload())
        else:
            reply = self._nak(seq, lp.NAK_UNKNOWN_COMMAND)
        self.last_seq = seq
        self.last_reply = reply
        return reply

    def _ack(self, seq: int) -> bytes:
        return lp.encode_frame(seq, lp.CMD_ACK, bytes((self.mode,)))

    def _nak(self, seq: int, reason: int) -> bytes:
        self.naks += 1
        return lp.encode_frame(seq, lp.CMD_NAK, bytes((reason,)))

    def read_payload(self) -> bytes:
        """mode, has-state, state (6 bytes), LED count, then RGB per LED."""
        state = bytes(lp.STATE_LEN) if self.state is None else lp.encode_state(*self.state)
        body = bytearray((self.mode, 0 if self.state is None else 1))
        body.extend(state)
        body.append(len(self.pixels))
        for rgb in self.pixels:
            body.extend(bytes(rgb))
        return bytes(body)

    def render(self, now_ms: int) -> None:
        """Compute every LED from the mode and state; write only on change."""
        cfg = self.cfg
        off = (0, 0, 0)
        px = [off] * cfg.LED_COUNT
        if self.mode == lp.MODE_SHOWING and self.state is not None:
            vat, seat, die1, die2, rolling, status = self.state
            for i in range(len(cfg.VAT_NUMBERS)):
                if cfg.VAT_NUMBERS[i] == vat:
                    px[i] = cfg.GOLD
            if seat is not None:
                px[cfg.SEAT_FIRST + seat] = cfg.SEAT_WHITE
            if rolling:
                step = now_ms // cfg.ROLL_STEP_MS
                lit = len(cfg.DICE_RGB) - 1
                die1 = 1 + step % lit
                die2 = 1 + (step + 3) % lit
            px[cfg.DICE_FIRST] = cfg.DICE_RGB[die1]
            px[cfg.DICE_FIRST + 1] = cfg.DICE_RGB[die2]
            px[cfg.STATUS_LED] = cfg.STATUS_RGB[status]
        elif self.mode == lp.MODE_WAITING:
            px[cfg.STATUS_LED] = cfg.WAITING_BLUE
        elif (now_ms // cfg.BLINK_MS) % 2 == 0:
            px[cfg.STATUS_LED] = cfg.DISCONNECTED_RED
        scale = cfg.BRIGHTNESS
        px = [(r * scale // 255, g * scale // 255, b * scale // 255) for (r, g, b) in px]
        if px != self.pixels:
            self.pixels = px
            self.strip.write(px)
