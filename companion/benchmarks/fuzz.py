"""``companion bench fuzz``: hostile inputs to the command line, the dashboard and the café hub.

Counts, per target, the inputs sent, the crashes (uncaught exceptions, tracebacks, a dead
hub thread), the HTTP 500s and the invalid inputs accepted, with a few examples of each
kind to reproduce.  The exit status is 1 when any crash, 500 or hang was found.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from companion.cafe.broker import BrokerSettings
from companion.cafe.mosquitto import BrokerError, LocalBroker
from companion.errors import InputError
from companion.fuzz.broker_check import BrokerCheck
from companion.fuzz.cafe_samples import cafe_steps
from companion.fuzz.cli_target import CliTarget
from companion.fuzz.http_target import HttpCredentials, HttpTarget
from companion.fuzz.inprocess import native_stderr_silenced
from companion.fuzz.live_table import FuzzedTables
from companion.fuzz.mqtt_target import MqttTarget
from companion.fuzz.tally import Tally, shorten
from companion.progress import Progress

NAME = "fuzz"
HELP = "10^5 hostile CLI, HTTP and MQTT inputs: crashes, 500s and invalid inputs accepted"
TARGETS = ("cli", "http", "mqtt")
# Shares of --count: an in-process MQTT message costs far less than a command or a request.
SHARES = {"cli": 0.3, "http": 0.2, "mqtt": 0.5}
TOKEN = "fuzz-operator-token"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--count", type=int, default=100_000, help="inputs in all (default 10^5)")
    parser.add_argument("--only", choices=TARGETS, help="fuzz one target only")
    parser.add_argument("--seed", type=int, default=1, help="the same seed sends the same inputs")
    parser.add_argument(
        "--broker",
        metavar="HOST:PORT",
        help="send a sample of the MQTT inputs through this broker (default: a private "
        "Mosquitto on a free loopback port, when installed)",
    )
    parser.add_argument("--no-broker", action="store_true", help="skip the real-broker sample")
    parser.add_argument(
        "--broker-sample", type=int, default=500, help="MQTT inputs sent through the broker"
    )
    parser.add_argument(
        "--timeout-s", type=float, default=20.0, help="a command running longer is a hang"
    )


def split(count: int, only: str | None) -> dict[str, int]:
    """How many inputs each target gets."""
    if only is not None:
        return {only: count}
    counts = {t: int(count * SHARES[t]) for t in TARGETS}
    counts["mqtt"] += count - sum(counts.values())
    return counts


def run(args: argparse.Namespace) -> int:
    if args.count < 1 or args.broker_sample < 0 or args.timeout_s <= 0:
        raise InputError("--count must be at least 1, --broker-sample >= 0, --timeout-s > 0")
    broker = _broker_address(args.broker) if args.broker else None
    # Game logs on tmpfs when there is one: a real SQLite file without a disk flush per event.
    where = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    tally = Tally()
    spent: dict[str, tuple[float, float]] = {}  # target -> (wall s, CPU s)
    with tempfile.TemporaryDirectory(prefix="companion-fuzz-", dir=where) as tmp:
        workdir = Path(tmp)
        counts = split(args.count, args.only)
        print(
            f"fuzz: {', '.join(f'{n} {t}' for t, n in counts.items())} inputs, seed {args.seed}",
            flush=True,
        )
        with native_stderr_silenced() as console:
            for target, n in counts.items():
                bar = Progress(n, f"{target:>4}", console)
                with _timed(spent, target):
                    try:
                        _fuzz(target, n, args, workdir, tally, bar)
                    finally:
                        bar.close()
            if "mqtt" in counts and not args.no_broker and args.broker_sample:
                with _timed(spent, "broker sample"):
                    _through_broker(args, broker, workdir, tally, console)
    print(tally.render())
    print("\ntime (wall / CPU of this process):")
    for name, (wall_s, cpu_s) in spent.items():
        print(f"  {name:<14}{wall_s:8.1f} s {cpu_s:8.1f} s")
    return 1 if tally.serious else 0


@contextlib.contextmanager
def _timed(spent: dict[str, tuple[float, float]], name: str) -> Iterator[None]:
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        spent[name] = (time.perf_counter() - wall, time.process_time() - cpu)


def _fuzz(
    target: str, n: int, args: argparse.Namespace, workdir: Path, tally: Tally, bar: Progress
) -> None:
    if target == "cli":
        folder = workdir / "cli"
        folder.mkdir()
        CliTarget(folder, args.seed, timeout_s=args.timeout_s).run(n, tally.target("cli"), bar)
    elif target == "http":
        folder = workdir / "http"
        folder.mkdir()
        table = FuzzedTables(folder, args.seed, TOKEN)
        try:
            fuzz = HttpTarget(table.app, HttpCredentials(TOKEN), args.seed, table.advance)
            fuzz.run(n, tally.target("http"), bar)
        finally:
            table.close()
    else:
        steps = cafe_steps(workdir, args.seed)
        MqttTarget(steps, args.seed).run(n, tally.target("mqtt"), bar)


def _through_broker(
    args: argparse.Namespace,
    broker: tuple[str, int] | None,
    workdir: Path,
    tally: Tally,
    console: object,
) -> None:
    local: LocalBroker | None = None
    if broker is None:
        try:
            local = LocalBroker(workdir / "broker", persistent=False).start()
        except BrokerError as exc:
            print(f"broker sample skipped: {exc}", flush=True)
            return
        broker = ("127.0.0.1", local.port)
    try:
        settings = BrokerSettings(*broker)
        steps = cafe_steps(workdir, args.seed + 1)
        check = BrokerCheck(MqttTarget(steps, args.seed + 1), settings)
        bar = Progress(args.broker_sample, "mqtt via broker", console)  # type: ignore[arg-type]
        try:
            check.run(args.broker_sample, tally.target(check.name), bar)
        finally:
            bar.close()
        if check.dropped:
            print(
                f"{len(check.dropped)} messages did not reach the broker (the sender's connection"
                f" dropped), e.g. {shorten(check.dropped[0], 100)}",
                flush=True,
            )
    finally:
        if local is not None:
            local.stop()


def _broker_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InputError(f"expected HOST:PORT, got {text!r}", field="--broker")
    return host, int(port)
