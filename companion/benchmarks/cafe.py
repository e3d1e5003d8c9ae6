"""``companion bench cafe``: fifty tables on one local Mosquitto, one hub, end-to-end latency.

Each table is a real session writing its own game log, tailed by its own publisher; the hub
subscribes, and an SSE client reads the hub page's event stream.  An event's latency runs
from its append to the log (the log's own timestamp) to the moment the first SSE message
showing that table at or past that event arrives at the client.  Events lost are those in
the logs that never reached the hub.
"""

from __future__ import annotations

import argparse
import heapq
import http.client
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.arguments import positive_count, seconds, seed
from companion.cafe.broker import BrokerSettings
from companion.cafe.hub import HubSubscriber
from companion.cafe.hub_web import create_hub_app
from companion.cafe.mosquitto import LocalBroker
from companion.cafe.publisher import PublisherOptions, TablePublisher
from companion.cafe.room import Room
from companion.cafe.simtable import Shown, SimulatedTable
from companion.errors import CompanionError
from companion.progress import Progress
from companion.web.serve import DashboardServer

NAME = "cafe"
HELP = "50 simulated tables publish a full game each to a local Mosquitto; hub latency, loss"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tables", type=positive_count, default=50)
    parser.add_argument(
        "--turn-s", type=seconds, default=0.5, help="seconds between a table's turns"
    )
    parser.add_argument("--poll-s", type=seconds, default=0.05, help="publisher log poll period")
    parser.add_argument("--seed", type=seed, default=1)
    parser.add_argument("--settle-s", type=seconds, default=30.0, help="wait for stragglers")
    parser.add_argument(
        "--outage-s",
        type=float,
        default=0.0,
        help="stop the broker this long halfway through (latency then includes the outage)",
    )


class SseClock:
    """Reads the hub's SSE stream; remembers when each table's event seq first showed."""

    def __init__(self, port: int) -> None:
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.shown: dict[str, list[tuple[int, float]]] = {}
        self.max_seq: dict[str, int] = {}
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, name="sse-client", daemon=True)
        self.error: str | None = None

    def start(self) -> SseClock:
        self._conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
        response = self._conn.getresponse()
        if response.status != 200:
            raise CompanionError(f"the hub's event stream answered {response.status}")
        self._response = response
        self._thread.start()
        return self

    def _read(self) -> None:
        try:
            while True:
                line = self._response.readline()
                if not line:
                    return
                if not line.startswith(b"data: "):
                    continue
                now = time.time()
                card = json.loads(line[6:])
                table, seq = card["table"], card["last_event_seq"]
                with self._lock:
                    if seq > self.max_seq.get(table, 0):
                        self.max_seq[table] = seq
                        self.shown.setdefault(table, []).append((seq, now))
        except (OSError, ValueError) as exc:
            self.error = str(exc)

    def seen(self, table: str) -> int:
        with self._lock:
            return self.max_seq.get(table, 0)

    def close(self) -> None:
        self._conn.close()


def run(args: argparse.Namespace) -> int:
    if args.tables < 1 or args.turn_s < 0 or args.poll_s <= 0:
        raise CompanionError("--tables must be at least 1, --turn-s >= 0, --poll-s > 0")
    with tempfile.TemporaryDirectory(prefix="companion-cafe-") as tmp:
        return _run(args, Path(tmp))


def _run(args: argparse.Namespace, tmp: Path) -> int:
    # Persistence keeps the hub's queued events across a broker restart.
    broker = LocalBroker(tmp / "broker", persistent=args.outage_s > 0).start()
    settings = BrokerSettings.from_url(broker.url)
    room = Room()
    server = DashboardServer(create_hub_app(room)).start()
    hub = HubSubscriber(room, settings, "companion-bench-hub").start()
    publishers: list[TablePublisher] = []
    tables: list[SimulatedTable] = []
    clock: SseClock | None = None
    try:
        if not hub.wait_connected(10):
            raise CompanionError(f"the hub could not connect to {broker.url}")
        clock = SseClock(server.port).start()
        names = [f"table-{i + 1:02d}" for i in range(args.tables)]
        options = PublisherOptions(poll_s=args.poll_s)
        plans = []
        for i, name in enumerate(names):
            table = SimulatedTable(tmp / f"{name}.db", seed=args.seed + i)
            tables.append(table)
            publishers.append(
                TablePublisher(
                    table.log.path, name, settings, f"http://{name}.local:5000/", options
                ).start()
            )
            plans.append(table.new_game())
        total_turns = sum(len(p) for p in plans)
        print(
            f"café: {args.tables} tables, {total_turns} turns, a turn every {args.turn_s} s"
            f" per table, Mosquitto on {broker.url}, hub on {server.url}"
        )
        outage = None
        if args.outage_s > 0:
            half_s = 0.5 + max(len(p) for p in plans) * args.turn_s / 2
            outage = threading.Timer(half_s, _outage, (broker, args.outage_s))
            outage.start()
        _play(tables, plans, args.turn_s, Progress(total_turns, "playing"))
        if outage is not None:
            outage.join()
        expected = {
            name: max(e.seq for e in t.log.events()) for name, t in zip(names, tables, strict=True)
        }
        deadline = time.monotonic() + args.settle_s
        while time.monotonic() < deadline and any(clock.seen(n) < expected[n] for n in names):
            time.sleep(0.05)
        return _report(names, tables, room, clock, outage=args.outage_s > 0)
    finally:
        for p in publishers:
            p.stop()
        for t in tables:
            t.close()
        hub.stop()
        if clock is not None:
            clock.close()
        server.stop()
        broker.stop()


def _outage(broker: LocalBroker, outage_s: float) -> None:
    broker.stop()
    print(f"broker stopped for {outage_s} s", flush=True)
    time.sleep(outage_s)
    broker.start()


def _play(
    tables: list[SimulatedTable], plans: list[list[Shown]], turn_s: float, progress: Progress
) -> None:
    """Every table plays a turn every ``turn_s``, the tables' clocks staggered evenly."""
    start = time.monotonic() + 0.5
    n = len(tables)
    queue = [(start + i * turn_s / n, i, 0) for i in range(n)]
    heapq.heapify(queue)
    while queue:
        when, i, k = heapq.heappop(queue)
        delay = when - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        tables[i].show(plans[i][k])
        progress.advance()
        if k + 1 < len(plans[i]):
            heapq.heappush(queue, (when + turn_s, i, k + 1))


def _report(
    names: list[str], tables: list[SimulatedTable], room: Room, clock: SseClock, *, outage: bool
) -> int:
    latencies: list[float] = []
    appended = received = lost = repeats = 0
    for name, table in zip(names, tables, strict=True):
        events = list(table.log.events())
        appended += len(events)
        got = set(room.seqs(name))
        received += len(got)
        lost += sum(1 for e in events if e.seq not in got)
        card = room.card(name)
        repeats += card["duplicates"] if card else 0
        shown = clock.shown.get(name, [])
        j = 0
        for e in events:
            while j < len(shown) and shown[j][0] < e.seq:
                j += 1
            if j < len(shown):
                latencies.append(shown[j][1] - e.at_s)
    print(
        f"events: {appended} appended, {received} received by the hub, {lost} lost,"
        f" {repeats} repeats dropped"
    )
    if not latencies:
        print("latency: no event reached the hub page")
        return 1
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    print(
        "latency, event appended to the table's log -> hub page update delivered over SSE:"
        f" p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {latencies[-1] * 1000:.1f} ms"
        f" ({len(latencies)} events)"
    )
    if outage:
        print("(latency includes the events held back by the outage; the targets are for none)")
    else:
        ok = lost == 0 and p99 <= 250
        print(f"targets (0 lost, p99 <= 250 ms): {'met' if ok else 'NOT met'}")
    return 0 if lost == 0 else 1
