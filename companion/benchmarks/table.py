"""``companion bench table``: from a simulated player's move to the change on the dashboard.

The demo table of the default game for real: its simulated players make their moves (for a
camera game, the synthetic camera renders a hand over the board, then the new board, and
recognition and the stability gate read it), the session judges and logs each, and
chromium shows it.  Two figures per change: until the session publishes the new state, and
until the page in the browser has redrawn it.  The clock starts when the players' input
notes the move made (:class:`~companion.games.simulation_seam.TimedMoves`).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.app.table import Table
from companion.arguments import positive_count, seed
from companion.games.simulation_seam import TimedMoves
from companion.table.config import demo_config
from companion.table.fakes import RecordingLights
from companion.web.config import WebConfig

NAME = "table"
HELP = "simulated move (a hand leaving the board) -> change on the dashboard (the demo table)"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--changes", type=positive_count, default=12)
    parser.add_argument("--seed", type=seed, default=5)
    parser.add_argument("--no-browser", action="store_true", help="skip the chromium figure")


def _after(times: list[float], start: float) -> float | None:
    later = [t for t in times if t >= start]
    return min(later) - start if later else None


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="companion-bench-table-") as tmp:
        config = demo_config(Path(tmp), port=0, seed=args.seed, mistakes_at=())  # every change read
        table = Table.open(config, lights=RecordingLights(), web=WebConfig("bench-pin", "k"))
        players = timed_moves(table.readings)
        if players is None:
            table.close()
            print("the demo table's simulated players note no move times: nothing to time")
            return 1
        published: list[float] = []
        shown: list[float] = []
        table.session.viewers.publish = _recording(table.session.viewers.publish, published)  # type: ignore[method-assign]
        table.start()
        try:
            if args.no_browser:
                while len(players.moves_at_s) <= args.changes:
                    time.sleep(0.1)
            else:
                _watch_page(table.server.url, players, args.changes, shown)
        finally:
            table.close()
    starts = [players.moves_at_s[i] for i in range(args.changes)]
    _report("session published", [_after(published, s) for s in starts])
    if not args.no_browser:
        _report("page redrawn     ", [_after(shown, s) for s in starts])
    return 0


def timed_moves(readings: object) -> TimedMoves | None:
    """The simulated players behind the table's input (a reader may wrap them, as its
    ``source``), if they note when they move."""
    while readings is not None and not isinstance(readings, TimedMoves):
        readings = getattr(readings, "source", None)
    return readings


def _recording(publish: Any, times: list[float]) -> Any:
    def wrapped(update: dict[str, Any]) -> None:
        publish(update)
        times.append(time.monotonic())

    return wrapped


def _watch_page(url: str, players: TimedMoves, changes: int, shown: list[float]) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.expose_function("companionShown", lambda: shown.append(time.monotonic()))
        page.goto(url + "/")
        page.evaluate(
            "new MutationObserver(() => companionShown())"
            ".observe(document.getElementById('live'), {childList: true})"
        )
        while len(players.moves_at_s) <= changes:
            page.wait_for_timeout(50)
        browser.close()


def _report(label: str, latencies: list[float | None]) -> None:
    got = [x for x in latencies if x is not None]
    if not got:
        print(f"{label}: nothing seen")
        return
    ms = sorted(x * 1000 for x in got)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    print(
        f"{label}: {len(got)}/{len(latencies)} changes, p50 {statistics.median(ms):.0f} ms,"
        f" p99 {p99:.0f} ms, max {ms[-1]:.0f} ms"
    )
