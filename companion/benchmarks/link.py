"""``companion bench link``: the LED link against the emulated device.

Three figures: a flood of corrupted frames (none may be acted on, nothing may crash),
command-to-acknowledgement latency through ``HostLink``, and the time from plugging the
device back in to it showing the table's picture again. ``--device micropython`` runs
the same against the firmware under the real MicroPython unix interpreter.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any, Protocol

from companion.arguments import positive_count, seed
from companion.errors import CompanionError
from companion.link import HostLink, LinkState, StatusLight, TableLights, protocol
from companion.link.emulator import Emulator, MicroPythonDevice
from companion.link.transport import SerialTransport
from companion.progress import Progress

NAME = "link"
HELP = "LED link against the emulator: corrupted-frame flood, ack latency, replug resync"

P99_TARGET_MS = 20.0
RESYNC_TARGET_S = 2.0
WAIT_S = 10.0


class _Device(Protocol):
    """What the benchmark needs of a device: a port, and a cable to pull."""

    port: str

    def unplug(self) -> None: ...

    def replug(self) -> None: ...

    def stop(self) -> None: ...


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--frames", type=positive_count, default=100_000, help="corrupted frames to feed"
    )
    parser.add_argument(
        "--commands", type=positive_count, default=2000, help="commands timed to their ack"
    )
    parser.add_argument("--replugs", type=positive_count, default=10, help="unplug/replug cycles")
    parser.add_argument(
        "--device",
        choices=("emulator", "micropython"),
        default="emulator",
        help="the firmware in a CPython thread (default) or under MicroPython's unix port",
    )
    parser.add_argument("--seed", type=seed, default=1)


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    device: _Device
    device = (
        Emulator(seed=args.seed).start()
        if args.device == "emulator"
        else MicroPythonDevice().start()
    )
    print(f"device: {args.device} firmware on {device.port}")
    try:
        flood_ok = _flood(device, rng, args.frames)
        with HostLink(port=device.port) as link:
            if not link.wait_connected(WAIT_S):
                raise CompanionError(f"the device did not answer: {link.last_error}")
            latency_ok = _latency(link, rng, args.commands)
            resync_ok = _resync(device, link, rng, args.replugs)
            c = link.counters
            print(
                f"link counters: sent {c.sent}, acks {c.acks}, retries {c.retries}, "
                f"CRC errors {c.crc_errors}, reconnects {c.reconnects}"
            )
    finally:
        device.stop()
    return 0 if flood_ok and latency_ok and resync_ok else 1


def random_lights(rng: random.Random) -> TableLights:
    colours = [None, *protocol.COLOURS[1:]]
    return TableLights(
        vat=rng.choice([None, *range(1, 17)]),
        seat=rng.choice([None, 0, 1, 2, 3]),
        dice=(rng.choice(colours), rng.choice(colours)),
        rolling=rng.random() < 0.2,
        status=rng.choice(list(StatusLight)),
    )


def _bit_flips(frame: bytearray, rng: random.Random) -> None:
    for bit in rng.sample(range(8, len(frame) * 8), rng.randint(1, 3)):
        frame[bit // 8] ^= 1 << (bit % 8)


def _burst(frame: bytearray, rng: random.Random) -> None:
    """Up to 16 consecutive bits garbled: first and last flipped, the rest at random."""
    start = rng.randrange(8, len(frame) * 8 - 16)
    end = start + rng.randint(1, 15)
    for bit in range(start, end + 1):
        if bit in (start, end) or rng.random() < 0.5:
            frame[bit // 8] ^= 1 << (bit % 8)


def _truncate(frame: bytearray, rng: random.Random) -> None:
    del frame[rng.randrange(2, len(frame)) :]


def _drop_byte(frame: bytearray, rng: random.Random) -> None:
    del frame[rng.randrange(1, len(frame))]


def _extra_byte(frame: bytearray, rng: random.Random) -> None:
    frame.insert(rng.randrange(1, len(frame)), rng.randrange(256))


CORRUPTIONS: tuple[Callable[[bytearray, random.Random], None], ...] = (
    _bit_flips,
    _burst,
    _truncate,
    _drop_byte,
    _extra_byte,
)


def corrupted_frame(seq: int, rng: random.Random) -> bytes:
    """A SET_STATE frame damaged so that the original bytes are really gone.

    A corruption can undo itself on the wire: a dropped last byte that equals the next
    frame's start byte, an inserted byte equal to its neighbour. Those leave the intact
    frame in the stream, so they are drawn again.
    """
    original = protocol.encode_frame(seq, protocol.CMD_SET_STATE, random_lights(rng).to_payload())
    while True:
        frame = bytearray(original)
        rng.choice(CORRUPTIONS)(frame, rng)
        # Every frame, damaged or not, starts with the start byte: it follows this one.
        if original not in bytes(frame) + bytes((original[0],)):
            return bytes(frame)


def _flood(device: _Device, rng: random.Random, count: int) -> bool:
    """Write ``count`` corrupted SET_STATE frames straight at the device's port.

    A frame the device acted on would be answered (an ACK), so the replies are the
    verdict; the emulator also shows its own counters.
    """
    before = device.snapshot() if isinstance(device, Emulator) else None
    transport = SerialTransport(device.port)
    progress = Progress(count, "corrupted frames")
    replies = bytearray()
    chunk = bytearray()
    try:
        for i in range(count):
            chunk += corrupted_frame(i & 0xFF, rng)
            if len(chunk) > 4096 or i == count - 1:
                transport.write(bytes(chunk))
                replies += transport.read(0)
                chunk.clear()
            progress.advance()
        # Zeros carry no start byte: they complete any frame still waiting for bytes.
        transport.write(bytes(256))
        while data := transport.read(0.3):
            replies += data
        alive = _hello(transport)
    finally:
        progress.close()
        transport.close()
    if isinstance(device, Emulator):
        alive = alive and device.alive
    answers = protocol.FrameParser().feed(bytes(replies))
    refused = sum(1 for frame in answers if frame.cmd == protocol.CMD_NAK)
    accepted = len(answers) - refused
    detail = ""
    if isinstance(device, Emulator) and before is not None:
        after = device.snapshot()
        accepted = max(accepted, after.applied - before.applied)
        detail = (
            f"; the device dropped {after.crc_errors - before.crc_errors:,} CRC failures and "
            f"{after.length_errors - before.length_errors:,} impossible lengths"
        )
    crashes = 0 if alive else 1
    print(
        f"corrupted frames: {count:,} fed, {crashes} crashes, {accepted} accepted{detail}, "
        f"{refused} chance CRC matches refused (NAK: malformed payload or stale sequence)"
    )
    return crashes == 0 and accepted == 0


def _hello(transport: SerialTransport) -> bool:
    transport.write(protocol.encode_frame(1, protocol.CMD_HELLO))
    parser = protocol.FrameParser()
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for frame in parser.feed(transport.read(0.1)):
            if frame.cmd == protocol.CMD_HELLO_REPLY:
                return True
    return False


def _latency(link: HostLink, rng: random.Random, count: int) -> bool:
    samples_ms = []
    last = link.desired
    progress = Progress(count, "command to ack")
    for _ in range(count):
        lights = random_lights(rng)
        while lights == last:
            lights = random_lights(rng)
        started = time.perf_counter()
        link.show(lights)
        if not link.wait_synced(WAIT_S):
            raise CompanionError(f"no acknowledgement: {link.last_error}")
        samples_ms.append((time.perf_counter() - started) * 1000)
        last = lights
        progress.advance()
    progress.close()
    cuts = statistics.quantiles(samples_ms, n=100)
    p50, p99 = cuts[49], cuts[98]
    verdict = "ok" if p99 <= P99_TARGET_MS else "OVER TARGET"
    print(
        f"command to ack: {count} commands, p50 {p50:.2f} ms, p99 {p99:.2f} ms, "
        f"max {max(samples_ms):.2f} ms (target p99 <= {P99_TARGET_MS:.0f} ms: {verdict})"
    )
    return p99 <= P99_TARGET_MS


def _resync(device: _Device, link: HostLink, rng: random.Random, cycles: int) -> bool:
    """Seconds from plugging the device back in to its acknowledging the full picture."""
    times_s = []
    for _ in range(cycles):
        lights = random_lights(rng)
        link.show(lights)
        if not link.wait_synced(WAIT_S):
            raise CompanionError(f"no acknowledgement: {link.last_error}")
        device.unplug()
        _until(lambda: link.status is not LinkState.CONNECTED, "the host to notice the unplug")
        started = time.perf_counter()
        device.replug()
        if not link.wait_synced(WAIT_S):
            raise CompanionError(f"no resync after the replug: {link.last_error}")
        times_s.append(time.perf_counter() - started)
        if isinstance(device, Emulator) and device.snapshot().lights != lights:
            raise CompanionError("the device acknowledged a picture it does not show")
    worst = max(times_s)
    verdict = "ok" if worst <= RESYNC_TARGET_S else "OVER TARGET"
    print(
        f"resync after replug: {cycles} replugs, median {statistics.median(times_s):.3f} s, "
        f"worst {worst:.3f} s (target <= {RESYNC_TARGET_S:.0f} s: {verdict})"
    )
    return worst <= RESYNC_TARGET_S


def _until(condition: Callable[[], Any], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise CompanionError(f"gave up waiting for {what}")
        time.sleep(0.002)
