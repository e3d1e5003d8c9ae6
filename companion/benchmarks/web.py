"""``companion bench web``: many live viewers, one change, how fast every one of them sees it.

A real table session and the real dashboard server on 127.0.0.1; the clients are plain HTTP
connections reading ``/api/events`` in their own threads, as browsers would.  Each change is a
stable reading fed to the session; the latency is from feeding it to a client parsing the
event that carries the new state.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path

from companion.arguments import positive_count, seconds
from companion.cafe.simtable import Shown, SimulatedTable
from companion.table.session import TableSession
from companion.web import Services, create_app
from companion.web.config import WebConfig
from companion.web.serve import DashboardServer

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]

NAME = "web"
HELP = "100 concurrent SSE viewers receive each change: p50/p99 delivery latency"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clients", type=positive_count, default=100)
    parser.add_argument("--changes", type=positive_count, default=20)
    parser.add_argument("--timeout", type=seconds, default=10.0, help="seconds to wait per change")
    parser.add_argument(
        "--browser",
        action="store_true",
        help="also time reading-to-page updates in chromium (needs playwright and chromium)",
    )


class Viewer(threading.Thread):
    """One SSE connection; records when each new table version arrives."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.arrivals: dict[int, float] = {}
        self.connected = threading.Event()
        self.failed: str | None = None
        self._stop = threading.Event()

    def run(self) -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
            response = conn.getresponse()
            self.connected.set()
            while not self._stop.is_set():
                line = response.fp.readline()
                if not line:
                    return
                if line.startswith(b"data: "):
                    version = json.loads(line[6:])["version"]
                    self.arrivals.setdefault(version, time.perf_counter())
        except OSError as exc:
            self.failed = str(exc)
            self.connected.set()

    def stop(self) -> None:
        self._stop.set()


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="companion-bench-web-") as tmp:
        table = SimulatedTable(Path(tmp) / "table.db", seed=1, players=2)
        plan = table.new_game()
        session, log = table.session, table.log
        stop = threading.Event()
        owner = threading.Thread(target=session.run, args=(stop,), daemon=True)
        owner.start()
        states = plan[: args.changes]
        app = create_app(WebConfig("bench-token", "k", sse_heartbeat_s=5.0), Services(session, log))
        with DashboardServer(app) as server:
            viewers = [Viewer(server.port) for _ in range(args.clients)]
            for v in viewers:
                v.start()
            for v in viewers:
                v.connected.wait(30)
            failed = [v.failed for v in viewers if v.failed]
            deadline = time.perf_counter() + 30
            while session.viewers.subscribers < args.clients and time.perf_counter() < deadline:
                time.sleep(0.05)
            latencies: list[float] = []
            missed = 0
            for state in states:
                before = session.snapshot()["version"]
                sent = time.perf_counter()
                table.feed(state)
                version = _wait_version(session, before, args.timeout)
                end = time.perf_counter() + args.timeout
                while time.perf_counter() < end and not all(version in v.arrivals for v in viewers):
                    time.sleep(0.002)
                for v in viewers:
                    if version in v.arrivals:
                        latencies.append(v.arrivals[version] - sent)
                    else:
                        missed += 1
                time.sleep(0.05)
            for v in viewers:
                v.stop()
            after = plan[len(states) : len(states) + args.changes]  # all of them were accepted
            page_latencies = _browser_latencies(server.url, table, after) if args.browser else []
        stop.set()
        owner.join()
        table.close()
    if not latencies:
        print("no deliveries")
        return 1
    cuts = statistics.quantiles(latencies, n=100)
    print(f"clients:            {args.clients} ({len(failed)} failed to connect)")
    print(f"changes:            {len(states)}")
    print(f"deliveries:         {len(latencies)} of {len(states) * args.clients} ({missed} missed)")
    print(f"latency p50:        {cuts[49] * 1000:.1f} ms")
    print(f"latency p99:        {cuts[98] * 1000:.1f} ms")
    print(f"latency max:        {max(latencies) * 1000:.1f} ms")
    print(f"target p99 <= 100 ms: {'met' if cuts[98] <= 0.1 else 'NOT met'}")
    if page_latencies:
        print(f"page updates:       {len(page_latencies)} (reading fed -> new turn on the page)")
        print(f"page latency p50:   {statistics.median(page_latencies) * 1000:.1f} ms")
        print(f"page latency max:   {max(page_latencies) * 1000:.1f} ms")
    return 0 if missed == 0 and not failed else 1


def _wait_version(session: TableSession, before: int, timeout_s: float) -> int:
    end = time.perf_counter() + timeout_s
    while time.perf_counter() < end:
        version = int(session.snapshot()["version"])
        if version != before:
            # The last event of the change (the LED command) comes with the same snapshot.
            return version
        time.sleep(0.0005)
    return before


def _browser_latencies(url: str, table: SimulatedTable, states: list[Shown]) -> list[float]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("page latency: skipped (playwright is not installed)")
        return []
    out: list[float] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(url + "/")
        for state in states:
            game = table.session.game
            assert game is not None and game.turn is not None
            next_turn = game.turn.number + 1
            sent = time.perf_counter()
            table.feed(state)
            page.wait_for_selector(f".turn[data-turn='{next_turn}']", timeout=10_000)
            out.append(time.perf_counter() - sent)
        browser.close()
    return out
