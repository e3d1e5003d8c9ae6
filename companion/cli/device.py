"""``companion device``: talk to the LED device (or an emulated one) by hand.

Each command greets the device, sends one whole picture, waits for the
acknowledgement and reads back what the LEDs show. When the command exits the host goes
silent, so the device shows its "disconnected" pattern after its heartbeat timeout;
``--hold`` keeps the picture up for a while.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Iterator
from typing import Any

from companion.arguments import seconds
from companion.errors import CompanionError
from companion.link import HostLink, LedReadout, StatusLight, TableLights
from companion.link.lights import DICE_COLOURS
from companion.link.transport import require_device_port

CONNECT_TIMEOUT_S = 5.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "device",
        help="check the LED device: ping, light a vat, a seat, the dice",
        description=__doc__,
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--port", help="serial port of the Pico (found by USB id if omitted)")
    where.add_argument(
        "--emulator", action="store_true", help="start an emulated device instead of hardware"
    )
    parser.add_argument(
        "--hold", type=seconds, default=0.0, metavar="SECONDS", help="keep the picture up this long"
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("ping", help="hello handshake: versions, board id, round trip")
    aureus = actions.add_parser("aureus", help="light the vat with this aureus number")
    aureus.add_argument("vat", type=int, metavar="N", help="vat number 1-16")
    seat = actions.add_parser("seat", help="light the seat LED of player N")
    seat.add_argument("seat", type=int, metavar="N", help="seat 0-3")
    dice = actions.add_parser("dice", help="show two dice colours")
    dice.add_argument("colours", nargs=2, choices=DICE_COLOURS, metavar="COLOUR")
    dice.add_argument("--roll", action="store_true", help="animate a roll instead")
    test = actions.add_parser("test", help="walk every LED once and check each read-back")
    test.add_argument("--step", type=seconds, default=0.15, metavar="SECONDS")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with _link(args) as link:
        if args.action == "ping":
            return _ping(link)
        if args.action == "test":
            return _walk(link, args.step)
        lights = _lights_for(args)
        readout = _show(link, lights)
        print(describe_readout(readout))
        time.sleep(max(args.hold, 0.0))
    return 0


def _lights_for(args: argparse.Namespace) -> TableLights:
    if args.action == "aureus":
        return TableLights(vat=args.vat, status=StatusLight.OK)
    if args.action == "seat":
        return TableLights(seat=args.seat, status=StatusLight.OK)
    return TableLights(dice=tuple(args.colours), rolling=args.roll, status=StatusLight.OK)


@contextlib.contextmanager
def _link(args: argparse.Namespace) -> Iterator[HostLink]:
    emulator = None
    if args.emulator:
        from companion.link.emulator import Emulator

        emulator = Emulator().start()
        port = emulator.port
    elif args.port:
        port = args.port
        if not os.path.exists(port):
            raise CompanionError(f"{port}: no such serial port")
    else:
        port = require_device_port()
    link = HostLink(port=port).start()
    try:
        if not link.wait_connected(CONNECT_TIMEOUT_S):
            raise CompanionError(f"{port}: the LED device did not answer: {link.last_error}")
        yield link
    finally:
        link.stop()
        if emulator is not None:
            emulator.stop()


def _show(link: HostLink, lights: TableLights) -> LedReadout:
    link.show(lights)
    if not link.wait_synced(CONNECT_TIMEOUT_S):
        raise CompanionError(f"the device never acknowledged the picture: {link.last_error}")
    readout = link.readout(CONNECT_TIMEOUT_S)
    if readout is None:
        raise CompanionError(f"the device did not report its LEDs: {link.last_error}")
    if readout.lights != lights:
        raise CompanionError(f"the device shows {readout.lights}, not {lights}")
    return readout


def _ping(link: HostLink) -> int:
    info = link.device
    assert info is not None
    started = time.perf_counter()
    readout = link.readout(CONNECT_TIMEOUT_S)
    round_trip_ms = (time.perf_counter() - started) * 1000
    if readout is None:
        raise CompanionError(f"{info.port}: no answer to a read: {link.last_error}")
    print(
        f"{info.board_id} on {info.port}: firmware {info.firmware}, protocol {info.protocol}, "
        f"{info.led_count} LEDs, round trip {round_trip_ms:.1f} ms, {readout.mode.value}"
    )
    return 0


def _walk(link: HostLink, step_s: float) -> int:
    pictures = [TableLights(vat=vat) for vat in range(1, 17)]
    pictures += [TableLights(seat=seat) for seat in range(4)]
    pictures += [TableLights(dice=(colour, colour)) for colour in DICE_COLOURS]
    pictures += [TableLights(dice=("red", "green"), rolling=True)]
    pictures += [TableLights(status=status) for status in StatusLight]
    for lights in pictures:
        print(describe_readout(_show(link, lights)))
        time.sleep(step_s)
    counters = link.counters
    print(
        f"all {len(pictures)} pictures confirmed: {counters.acks} acks, "
        f"{counters.retries} retries, {counters.crc_errors} CRC errors"
    )
    return 0


def describe_readout(readout: LedReadout) -> str:
    """One line: the device's mode, the picture and which chain positions are lit."""
    lights = readout.lights
    parts = [readout.mode.value]
    if lights is not None:
        dice = "/".join(c or "-" for c in lights.dice) + (" rolling" if lights.rolling else "")
        parts += [
            f"vat {lights.vat or '-'}",
            f"seat {'-' if lights.seat is None else lights.seat}",
            f"dice {dice}",
            f"status {lights.status.value}",
        ]
    lit = " ".join(f"{i}:#{r:02x}{g:02x}{b:02x}" for i, (r, g, b) in readout.lit().items())
    parts.append(f"lit [{lit}]")
    return "  ".join(parts)
